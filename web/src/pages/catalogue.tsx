/**
 * The catalogue: artists, recordings, products and releases, each searched, sorted and paged on
 * the server; created, edited and deleted (in bulk where the API has it); recordings, products
 * and artists downloaded as CSV; recordings and products imported from a CSV file.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, download, qs, client, ok, type Answer, type ApiPath } from '../api';
import { useConfirm } from '../confirm';
import { Dialog, ErrorBox, Field, Loading, Notice, Pager, SearchBox, Section, Table, useAction, useLoad, type Column } from '../ui';
import { localDate } from '../words';

type Kind = 'artist' | 'asset' | 'product' | 'release';
type Any = Record<string, any>;

export function useDebounced(v: string, ms = 250): string {
  const [d, setD] = useState(v);
  useEffect(() => { const t = setTimeout(() => setD(v), ms); return () => clearTimeout(t); }, [v]);
  return d;
}

interface FormField { key: string; label: string; input?: 'date' | 'select'; options?: string[]; required?: boolean; hint?: string }
interface KindDef {
  label: string; noun: string; plural: string;
  /** the list's route (a path of the API's; the item's path takes a run-time id) */
  list: ApiPath; item: (id: string) => string;
  title: (r: Any) => string;
  /** the bulk deletion's route; every one answers as the artists' does */
  bulkDelete?: Extract<ApiPath, '/artist/bulk/delete' | '/asset/bulk/delete' | '/product/bulk/delete'>;
  csv?: { path: ApiPath; file: string };
  importable?: boolean;
  sorts: [string, string][];
  fields: FormField[];
  columns: Column<Any>[];
}

export const KINDS: Record<Kind, KindDef> = {
  artist: {
    label: 'Artists', noun: 'artist', plural: 'artists', list: '/artist/', item: (id) => `/artist/${id}`, title: (r) => r.name,
    bulkDelete: '/artist/bulk/delete', csv: { path: '/artist/download/csv', file: 'artists.csv' },
    sorts: [['name:asc', 'Name A–Z'], ['name:desc', 'Name Z–A'], ['createdAt:desc', 'Newest first'], ['createdAt:asc', 'Oldest first']],
    fields: [{ key: 'name', label: 'Name', required: true }, { key: 'country', label: 'Country (two letters)', hint: 'For example FR or US' }, { key: 'externalId', label: 'Your own reference' }],
    columns: [{ label: 'Name', cell: (r) => r.name }, { label: 'Country', cell: (r) => r.country ?? '—' }, { label: 'Members', cell: (r) => r.users?.length ?? 0, num: true }],
  },
  asset: {
    label: 'Recordings', noun: 'recording', plural: 'recordings', list: '/asset', item: (id) => `/asset/${id}`, title: (r) => r.title,
    bulkDelete: '/asset/bulk/delete', csv: { path: '/asset/download/csv', file: 'recordings.csv' }, importable: true,
    sorts: [['createdAt:desc', 'Newest first'], ['createdAt:asc', 'Oldest first'], ['title:asc', 'Title A–Z'], ['title:desc', 'Title Z–A'], ['isrc:asc', 'ISRC'], ['type:asc', 'Type']],
    fields: [
      { key: 'title', label: 'Title', required: true }, { key: 'displayArtist', label: 'Artist as shown' }, { key: 'isrc', label: 'ISRC', hint: 'Any spelling, for example US-RC1-76-07839' },
      { key: 'version', label: 'Version' }, { key: 'type', label: 'Type', input: 'select', options: ['Audio', 'Video', 'Other'] },
    ],
    columns: [{ label: 'Title', cell: (r) => r.title }, { label: 'Artist', cell: (r) => r.displayArtist ?? '—' }, { label: 'ISRC', cell: (r) => r.isrc ?? '—' }, { label: 'Type', cell: (r) => r.type ?? '—' }],
  },
  product: {
    label: 'Products', noun: 'product', plural: 'products', list: '/product/', item: (id) => `/product/${id}`, title: (r) => r.title,
    bulkDelete: '/product/bulk/delete', csv: { path: '/product/download/csv', file: 'products.csv' }, importable: true,
    sorts: [['createdAt:desc', 'Newest first'], ['createdAt:asc', 'Oldest first'], ['title:asc', 'Title A–Z'], ['title:desc', 'Title Z–A'], ['upc:asc', 'UPC'], ['releaseDate:desc', 'Latest release date']],
    fields: [
      { key: 'title', label: 'Title', required: true }, { key: 'displayArtist', label: 'Artist as shown' }, { key: 'upc', label: 'UPC or EAN' },
      { key: 'releaseDate', label: 'Release date', input: 'date' }, { key: 'label', label: 'Label' }, { key: 'catalogNumber', label: 'Catalogue number' },
    ],
    columns: [{ label: 'Title', cell: (r) => r.title }, { label: 'Artist', cell: (r) => r.displayArtist ?? '—' }, { label: 'UPC', cell: (r) => r.upc ?? '—' }, { label: 'Released', cell: (r) => localDate(r.releaseDate) }],
  },
  release: {
    label: 'Releases', noun: 'release', plural: 'releases', list: '/releases', item: (id) => `/releases/${id}`, title: (r) => r.title,
    sorts: [['createdAt:desc', 'Newest first'], ['createdAt:asc', 'Oldest first'], ['title:asc', 'Title A–Z'], ['title:desc', 'Title Z–A'], ['status:asc', 'Status'], ['releaseDate:desc', 'Latest release date']],
    fields: [{ key: 'title', label: 'Title', required: true }, { key: 'artistName', label: 'Artist' }, { key: 'upc', label: 'UPC or EAN' }, { key: 'releaseDate', label: 'Release date', input: 'date' }, { key: 'label', label: 'Label' }],
    columns: [{ label: 'Title', cell: (r) => r.title }, { label: 'Artist', cell: (r) => r.displayArtist ?? r.artistName ?? '—' }, { label: 'Status', cell: (r) => r.status }, { label: 'UPC', cell: (r) => r.upc ?? '—' }],
  },
};
const ORDER: Kind[] = ['artist', 'asset', 'product', 'release'];
const SIZE = 25;

/** The create / edit dialog of one catalogue item: only the fields the form shows are sent. */
function ItemForm({ def, item, onClose, onSaved }: { def: KindDef; item: Any | null; onClose: () => void; onSaved: (msg: string) => void }) {
  const [v, setV] = useState<Record<string, string>>(() => Object.fromEntries(def.fields.map((f) => [f.key, item?.[f.key] == null ? '' : String(item[f.key]).slice(0, f.input === 'date' ? 10 : undefined)])));
  const a = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      const body: Record<string, string | null> = {};
      for (const f of def.fields) {
        const x = v[f.key]!.trim();
        if (f.required && !x) throw new Error(`${f.label} is needed.`);
        if (x) body[f.key] = x;
        else if (item && item[f.key] != null) body[f.key] = null; // cleared
      }
      if (item) await api('PUT', def.item(item.id), { body });
      else await api('POST', def.list, { body });
      onSaved(item ? `${body[def.fields[0]!.key] ?? def.title(item)} saved.` : `${body[def.fields[0]!.key]} added to the ${def.plural}.`);
    });
  };
  return (
    <Dialog title={item ? `Edit ${def.noun}: ${def.title(item)}` : `New ${def.noun}`} open onClose={onClose}>
      <form class="stack" onSubmit={save} noValidate>
        {def.fields.map((f) => (
          <Field key={f.key} label={f.label + (f.required ? ' (needed)' : '')} hint={f.hint}>
            {f.input === 'select'
              ? <select value={v[f.key]} onChange={(e) => setV({ ...v, [f.key]: e.currentTarget.value })}><option value="">Not set</option>{f.options!.map((o) => <option key={o} value={o}>{o}</option>)}</select>
              : f.input === 'date'
                ? <input type="date" value={v[f.key]} onInput={(e) => setV({ ...v, [f.key]: e.currentTarget.value })} />
                : <input type="text" value={v[f.key]} required={f.required} onInput={(e) => setV({ ...v, [f.key]: e.currentTarget.value })} />}
          </Field>
        ))}
        <ErrorBox error={a.error} />
        <div class="row tight">
          <button type="submit" class="primary" disabled={a.busy}>{item ? 'Save changes' : `Add ${def.noun}`}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Dialog>
  );
}

interface Job { status: string; error: string | null; batchId: string; counts?: Record<string, number> }
interface DiffItem { kind: string; match: 'new' | 'existing'; changed: number; changes: { field: string; staged: unknown; changed: boolean }[] }

/** A CSV file staged as an import batch (nothing written yet), then applied or discarded. */
function CsvImport({ def, onImported }: { def: KindDef; onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [batch, setBatch] = useState<{ id: string; items: DiffItem[]; total: number } | null>(null);
  const a = useAction();
  const read = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      if (!file) throw new Error('Choose a CSV file first.');
      const csv = await file.text();
      const { data } = await ok(client.POST('/fetch', { body: { provider: 'file', query: { csv } } }));
      let job: Job;
      for (;;) {
        job = (await ok(client.GET('/job/{jobId}', { params: { path: { jobId: data.jobId } } }))).data as unknown as Job; // the job's answer is declared as a free-form object
        if (job.status === 'staged' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 400));
      }
      if (job.status === 'failed') throw new Error(`The file could not be read: ${job.error ?? 'unknown reason'}`);
      const diff = (await ok(client.GET('/batch/{batchId}/diff', { params: { path: { batchId: data.batchId }, query: { size: 500 } } }))).data as unknown as { items: DiffItem[]; pagination: { total: number } }; // declared free-form
      setBatch({ id: data.batchId, items: diff.items, total: diff.pagination.total });
    });
  };
  const apply = () => a.run(async () => {
    const r = (await ok(client.POST('/apply', { body: { batchId: batch!.id } }))).data;
    setBatch(null); setFile(null); onImported();
    return `${r.imported} imported${r.failed ? `, ${r.failed} refused (see the rows of the file)` : ''}.`;
  });
  const discard = () => a.run(async () => {
    await ok(client.POST('/reject', { body: { batchId: batch!.id } }));
    setBatch(null);
    return 'The file was discarded: nothing changed.';
  });
  const fresh = batch?.items.filter((i) => i.match === 'new').length ?? 0;
  const updated = batch?.items.filter((i) => i.match === 'existing' && i.changed > 0).length ?? 0;
  return (
    <details class="import">
      <summary>Import from a CSV file</summary>
      <p class="muted">One row per {def.noun} with a header row: <code>title</code> and <code>isrc</code> for a recording, <code>upc</code> for a product; also <code>artists</code> (names separated by ;), <code>displayArtist</code>, <code>version</code>, <code>type</code>, <code>label</code>, <code>releaseDate</code>, <code>tracks</code>. A row whose ISRC or UPC is already in the catalogue updates it.</p>
      <form class="row" onSubmit={read}>
        <Field label="CSV file"><input type="file" accept=".csv,text/csv" onChange={(e) => { setFile(e.currentTarget.files?.[0] ?? null); setBatch(null); }} /></Field>
        <button type="submit" disabled={a.busy || !file}>Read the file</button>
      </form>
      {a.busy ? <p class="muted" role="status">Working…</p> : null}
      <ErrorBox error={a.error} /><Notice text={a.done} />
      {batch ? (
        <div class="stack" data-testid="import-preview">
          <p>{batch.total} rows read: {fresh} new, {updated} with changes, {batch.total - fresh - updated} already as in the file.</p>
          <Table caption="Rows of the file" rows={batch.items.slice(0, 20)} columns={[
            { label: 'Kind', cell: (i) => (i.kind === 'asset' ? 'recording' : i.kind) },
            { label: 'Title', cell: (i) => String(i.changes.find((c) => c.field === 'title')?.staged ?? '—') },
            { label: 'What happens', cell: (i) => (i.match === 'new' ? 'added' : i.changed === 1 ? '1 field changes' : i.changed ? `${i.changed} fields change` : 'no change') },
          ]} />
          <div class="row tight">
            <button type="button" class="primary" disabled={a.busy} onClick={apply}>Add to the catalogue</button>
            <button type="button" disabled={a.busy} onClick={discard}>Discard</button>
          </div>
        </div>
      ) : null}
    </details>
  );
}

export function CataloguePage() {
  const [kind, setKind] = useState<Kind>('artist');
  const def = KINDS[kind];
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [sortBy, setSortBy] = useState(def.sorts[0]![0]);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<Any | 'new' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const q = useDebounced(search);
  const [sort, order] = sortBy.split(':');
  const list = useLoad(() => api<{ data: Any[]; pagination: { total: number } }>('GET', `${def.list}${qs({ search: q, page, size: SIZE, sort, order })}`), [kind, q, page, sortBy]);
  const total = list.data?.pagination?.total ?? 0;
  const confirm = useConfirm();
  const act = useAction();
  const rows = list.data?.data ?? [];
  const choose = (k: Kind) => { setKind(k); setPage(1); setSortBy(KINDS[k].sorts[0]![0]); setPicked(new Set()); setNotice(null); };
  const toggle = (id: string) => { const s = new Set(picked); if (s.has(id)) s.delete(id); else s.add(id); setPicked(s); };
  const remove = (r: Any) => confirm.ask({
    title: `Delete ${def.noun}`, action: `Delete ${def.title(r)}`,
    body: <p>Delete <strong>{def.title(r)}</strong>? {kind === 'artist' ? 'Its links and default splits go with it.' : kind === 'release' ? 'Its tracks and media records go with it.' : 'Its splits, links and media go with it.'} This cannot be undone.</p>,
    run: async () => { await api('DELETE', def.item(r.id)); setNotice(`${def.title(r)} deleted.`); picked.delete(r.id); list.reload(); },
  });
  const removePicked = () => confirm.ask({
    title: `Delete ${picked.size} ${def.plural}`, action: `Delete ${picked.size} ${def.plural}`,
    body: <p>Delete the {picked.size} selected {def.plural}, with their splits and links? This cannot be undone.</p>,
    run: async () => {
      const r = await api<Answer<'/artist/bulk/delete', 'post'>>('POST', def.bulkDelete!, { body: { ids: [...picked] } });
      setNotice(`${r.processedCount} ${def.plural} deleted.${r.failedDeletions.length ? ` ${r.failedDeletions.length} could not be: ${r.failedDeletions.map((f) => f.error).join('; ')}.` : ''}`);
      setPicked(new Set()); list.reload();
    },
  });
  const columns: Column<Any>[] = [
    ...(def.bulkDelete ? [{ label: 'Select', cell: (r: Any) => <input type="checkbox" checked={picked.has(r.id)} onChange={() => toggle(r.id)} aria-label={`Select ${def.title(r)}`} /> }] : []),
    ...def.columns,
    { label: 'Actions', cell: (r) => (
      <span class="row tight">
        <button type="button" onClick={() => setEditing(r)} aria-label={`Edit ${def.title(r)}`}>Edit</button>
        <button type="button" class="danger" onClick={() => remove(r)} aria-label={`Delete ${def.title(r)}`}>Delete</button>
      </span>
    ) },
  ];
  return (
    <>
      <h1>Catalogue</h1>
      <div role="group" aria-label="Catalogue list" class="tabs">
        {ORDER.map((k) => <button key={k} type="button" aria-pressed={kind === k} onClick={() => choose(k)}>{KINDS[k].label}</button>)}
      </div>
      <Section title={def.label} actions={<span class="row tight">
        <button type="button" class="primary" onClick={() => setEditing('new')}>New {def.noun}</button>
        {def.csv ? <button type="button" disabled={act.busy} onClick={() => act.run(() => download(def.csv!.path, def.csv!.file, 'POST', {}))}>Download CSV</button> : null}
      </span>}>
        <div class="row">
          <SearchBox label={`Search ${def.plural}`} value={search} onInput={(v) => { setSearch(v); setPage(1); setNotice(null); }} />
          <Field label="Sort by">
            <select value={sortBy} onChange={(e) => { setSortBy(e.currentTarget.value); setPage(1); }}>
              {def.sorts.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
            </select>
          </Field>
        </div>
        {def.importable ? <CsvImport key={kind} def={def} onImported={list.reload} /> : null}
        <Loading show={list.loading} /><ErrorBox error={list.error ?? act.error} /><Notice text={notice} />
        {def.bulkDelete && picked.size ? <p class="row tight"><button type="button" class="danger" onClick={removePicked}>Delete selected ({picked.size})</button><button type="button" onClick={() => setPicked(new Set())}>Clear selection</button></p> : null}
        <Table caption={def.label} rows={rows} rowKey={(r) => r.id} columns={columns} empty={q ? 'Nothing matches the search.' : `No ${def.plural} yet.`} />
        <Pager page={page} total={total} size={SIZE} onPage={setPage} label={`${def.label} pages`} noun={[def.noun, def.plural]} />
      </Section>
      {editing ? <ItemForm def={def} item={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={(m) => { setEditing(null); setNotice(m); list.reload(); }} /> : null}
      {confirm.dialog}
    </>
  );
}

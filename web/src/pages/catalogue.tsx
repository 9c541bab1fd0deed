/** Catalogue lists with search, and the split editor of a recording. */
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from '../api';
import { ErrorBox, Field, Loading, Notice, SearchBox, Section, Table, date, useAction, useLoad } from '../ui';

type Kind = 'artist' | 'asset' | 'product' | 'release';
const KINDS: [Kind, string, string][] = [['artist', 'Artists', '/artist/'], ['asset', 'Recordings', '/asset'], ['product', 'Products', '/product/'], ['release', 'Releases', '/releases']];
type Any = Record<string, any>;

function useDebounced(v: string, ms = 250): string {
  const [d, setD] = useState(v);
  useEffect(() => { const t = setTimeout(() => setD(v), ms); return () => clearTimeout(t); }, [v]);
  return d;
}

const COLUMNS: Record<Kind, { label: string; cell: (r: Any) => any; num?: boolean }[]> = {
  artist: [{ label: 'Name', cell: (r) => r.name }, { label: 'Country', cell: (r) => r.country ?? '—' }, { label: 'Members', cell: (r) => r.users?.length ?? 0, num: true }],
  asset: [{ label: 'Title', cell: (r) => r.title }, { label: 'Artist', cell: (r) => r.displayArtist ?? '—' }, { label: 'ISRC', cell: (r) => r.isrc ?? '—' }, { label: 'Type', cell: (r) => r.type ?? '—' }],
  product: [{ label: 'Title', cell: (r) => r.title }, { label: 'Artist', cell: (r) => r.displayArtist ?? '—' }, { label: 'UPC', cell: (r) => r.upc ?? '—' }, { label: 'Released', cell: (r) => date(r.releaseDate) }],
  release: [{ label: 'Title', cell: (r) => r.title }, { label: 'Artist', cell: (r) => r.displayArtist ?? r.artist ?? '—' }, { label: 'Status', cell: (r) => r.status }, { label: 'UPC', cell: (r) => r.upc ?? '—' }],
};

export function CataloguePage() {
  const [kind, setKind] = useState<Kind>('artist');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const q = useDebounced(search);
  const path = KINDS.find(([k]) => k === kind)![2];
  const list = useLoad(() => api<{ data: Any[]; pagination: { total: number } }>('GET', `${path}${qs({ search: q, page, size: 25 })}`), [kind, q, page]);
  const pages = Math.max(1, Math.ceil((list.data?.pagination?.total ?? 0) / 25));
  const label = KINDS.find(([k]) => k === kind)![1];
  return (
    <>
      <h1>Catalogue</h1>
      <div role="group" aria-label="Catalogue list" class="tabs">
        {KINDS.map(([k, l]) => <button key={k} type="button" aria-pressed={kind === k} onClick={() => { setKind(k); setPage(1); }}>{l}</button>)}
      </div>
      <Section title={label}>
        <SearchBox label={`Search ${label.toLowerCase()}`} value={search} onInput={(v) => { setSearch(v); setPage(1); }} />
        <Loading show={list.loading} /><ErrorBox error={list.error} />
        <Table caption={label} rows={list.data?.data} rowKey={(r) => r.id} columns={COLUMNS[kind]} empty="Nothing found." />
        <div class="row pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
          <span>Page {page} of {pages}</span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </div>
      </Section>
    </>
  );
}

/** Shares as exact millionths, so 33.333333 + 33.333333 + 33.333334 is exactly 100. */
export function shareUnits(s: string): bigint | null {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(s.trim());
  return m ? BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0')) : null;
}
function unitsText(u: bigint): string {
  const s = (u < 0n ? -u : u).toString().padStart(7, '0');
  const frac = s.slice(-6).replace(/0+$/, '');
  return `${u < 0n ? '-' : ''}${s.slice(0, -6)}${frac ? '.' + frac : ''}`;
}

interface Member { id: string; email: string; firstName?: string; lastName?: string; role: string }
function name(m: Member | undefined, id: string) {
  return m ? [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email : id;
}

function SplitEditor({ asset, members }: { asset: Any; members: Member[] }) {
  const eff = useLoad(() => api<{ message: string; data: { level: string | null; split: Any | null } }>('POST', '/split/match', { body: { asset: asset.id } }), [asset.id]);
  const [rows, setRows] = useState<{ user: string; share: string }[]>([]);
  const a = useAction();
  useEffect(() => {
    const s = eff.data?.data.split;
    setRows(s ? s.split.map((x: Any) => ({ user: x.user, share: String(x.share) })) : [{ user: '', share: '100' }]);
  }, [eff.data]);
  const units = rows.map((r) => shareUnits(r.share));
  const total = units.reduce<bigint>((t, u) => t + (u ?? 0n), 0n);
  const invalid = units.some((u) => u === null) || rows.some((r) => !r.user);
  const ok = !invalid && total === 100_000_000n && rows.length > 0;
  const byId = new Map(members.map((m) => [m.id, m]));
  const save = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      if (!ok) throw new Error(`The shares add up to ${unitsText(total)} %, not 100 %`);
      await api('POST', '/split/', { body: { asset: asset.id, split: rows.map((r) => ({ user: r.user, share: r.share.trim() })) } });
      eff.reload();
      return 'Split saved: the recording now has its own split; its royalties are re-allocated.';
    });
  };
  const split = eff.data?.data.split;
  return (
    <Section title={`Split of ${asset.title}`}>
      <Loading show={eff.loading} /><ErrorBox error={eff.error} />
      <p data-testid="effective-level">{split ? <>Effective split: <strong>{split.target === 'asset' ? 'the recording’s own' : `inherited from the ${split.target}`}</strong> ({eff.data!.data.level})</> : 'No split applies: its royalties stay unallocated.'}</p>
      {split ? <ul class="shares">{split.split.map((x: Any) => <li key={x.user}>{name(byId.get(x.user), x.user)}: {String(x.share)} %</li>)}</ul> : null}
      <form class="stack" onSubmit={save} noValidate>
        <fieldset>
          <legend>New split for this recording</legend>
          {rows.map((r, i) => (
            <div class="row" key={i}>
              <Field label={`Payee ${i + 1}`}>
                <select value={r.user} onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, user: e.currentTarget.value } : x)))}>
                  <option value="">Choose…</option>
                  {members.map((m) => <option key={m.id} value={m.id}>{name(m, m.id)}</option>)}
                </select>
              </Field>
              <Field label={`Share ${i + 1} (%)`}>
                <input type="text" inputMode="decimal" value={r.share} aria-invalid={units[i] === null} onInput={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, share: e.currentTarget.value } : x)))} />
              </Field>
              <button type="button" onClick={() => setRows(rows.filter((_, j) => j !== i))} aria-label={`Remove payee ${i + 1}`}>Remove</button>
            </div>
          ))}
          <button type="button" onClick={() => setRows([...rows, { user: '', share: '0' }])}>Add a payee</button>
        </fieldset>
        <p role="status" class={ok ? 'ok-text' : 'error-text'} data-testid="split-total">Total: {unitsText(total)} %{ok ? '' : ' — must be exactly 100 %'}</p>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <button type="submit" class="primary" disabled={a.busy}>Save split</button>
      </form>
    </Section>
  );
}

export function SplitsPage() {
  const [search, setSearch] = useState('');
  const q = useDebounced(search);
  const assets = useLoad(() => api<{ data: Any[] }>('GET', `/asset${qs({ search: q, size: 15 })}`), [q]);
  const members = useLoad(() => api<{ data: Member[] }>('GET', '/user/?size=200'), []);
  const [chosen, setChosen] = useState<Any | null>(null);
  return (
    <>
      <h1>Splits</h1>
      <Section title="Recordings">
        <SearchBox label="Search recordings" value={search} onInput={setSearch} />
        <ErrorBox error={assets.error ?? members.error} />
        <Table caption="Recordings" rows={assets.data?.data} rowKey={(r) => r.id} columns={[
          { label: 'Title', cell: (r) => r.title }, { label: 'Artist', cell: (r) => r.displayArtist ?? '—' }, { label: 'ISRC', cell: (r) => r.isrc ?? '—' },
          { label: 'Split', cell: (r) => <button type="button" onClick={() => setChosen(r)} aria-label={`Edit split: ${r.title}`}>Edit split</button> },
        ]} />
      </Section>
      {chosen ? <SplitEditor key={chosen.id} asset={chosen} members={members.data?.data ?? []} /> : null}
    </>
  );
}

/**
 * The statement files: an archive as a group of its members; what each file needs, in words,
 * with its actions as buttons: confirm a detection (only a file waiting for one), add the
 * exchange rates a file failed for and run it again, read a duplicate's original again, run a
 * file again, its rejected lines, delete (after confirmation).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { client, ok, type Answer } from '../api';
import { useConfirm } from '../confirm';
import { Dialog, ErrorBox, Field, Link, Loading, Notice, Section, Table, decimal, pct, useAction, useLoad } from '../ui';
import { currencyName, inWords, localDate, monthName } from '../words';

export interface MissingRate { currency: string; month: string }
/** A statement file as the file routes answer it (generated from the server's schema). */
export type FileRow = Answer<'/file/'>['data'][number];
type Page = { data: FileRow[]; pagination: { total: number; size: number } };

const SETTLED = ['processed', 'failed', 'needs_confirmation'];
const statusWords = (s: string) => s.replace(/_/g, ' ');
const isArchive = (f: FileRow) => f.kind === 'archive';

/** Waits (polling the file) until a re-run has settled: a new status after `before`. */
async function settled(id: string, before: string | undefined): Promise<void> {
  for (let i = 0; i < 240; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const f = (await ok(client.GET('/file/{id}', { params: { path: { id } } }))).data;
    if (SETTLED.includes(f.status) && f.updatedAt !== before) return;
  }
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], cell = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') q = false;
      else cell += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; }
    else if (c !== '\r') cell += c;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

interface Layout { id: string; key: string; name: string; scope?: string }
interface TenantSource { id: string; name: string; active: boolean; source: { id: string; key: string; scope: string } }

/** Names a held file's source: the workspace's own taught layouts first, then the built-in sources. */
function ConfirmDialog({ file, onClose }: { file: FileRow | null; onClose: (changed: boolean) => void }) {
  // read when the dialog opens: a layout taught since the page loaded is offered too
  const builtIn = useLoad(() => (file ? ok(client.GET('/file/sources')) : Promise.resolve(undefined)), [file?.id]);
  const own = useLoad(() => (file ? ok(client.GET('/file/sources', { params: { query: { includeAll: 'false' } } })) : Promise.resolve(undefined)), [file?.id]);
  const [source, setSource] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [acct, setAcct] = useState('');
  const a = useAction();
  const taught = (own.data?.data ?? []).filter((s) => s.source?.scope === 'tenant');
  useEffect(() => {
    // a taught layout is named by its id (its key may also be a built-in source's)
    setSource(taught.some((s) => s.source?.id === file?.source?.id) ? file!.source!.id : file?.source?.key ?? '');
    setStart(file?.salePeriod?.start ?? '');
    setEnd(file?.salePeriod?.end ?? '');
    setAcct(file?.accountingPeriod ?? '');
  }, [file?.id, own.data]);
  return (
    <Dialog title={`Confirm the detection of ${file?.fileName ?? ''}`} open={!!file} onClose={() => onClose(false)}>
      <form method="dialog" class="stack" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.POST('/file/confirm-detection/{id}', { params: { path: { id: file!.id } }, body: { source, periodStart: start || undefined, periodEnd: end || undefined, accountingPeriod: acct || undefined } }));
        onClose(true);
      }); }}>
        <p class="muted">Detected: {file?.source?.name ?? 'no source'} (confidence {pct(file?.confidence?.source)})</p>
        <Field label="Source">
          <select required value={source} onChange={(e) => setSource(e.currentTarget.value)}>
            <option value="">Choose…</option>
            {taught.length ? (
              <optgroup label="Your workspace's layouts">
                {taught.map((s) => <option key={s.id} value={s.source?.id}>{s.name}</option>)}
              </optgroup>
            ) : null}
            <optgroup label="Built-in sources">
              {(builtIn.data?.data ?? []).map((s) => <option key={s.id} value={s.key}>{s.name}</option>)}
            </optgroup>
          </select>
        </Field>
        <div class="row">
          <Field label="Sale period start"><input type="date" value={start} onInput={(e) => setStart(e.currentTarget.value)} /></Field>
          <Field label="Sale period end"><input type="date" value={end} onInput={(e) => setEnd(e.currentTarget.value)} /></Field>
          <Field label="Accounting period"><input type="date" value={acct} onInput={(e) => setAcct(e.currentTarget.value)} /></Field>
        </div>
        <ErrorBox error={a.error ?? builtIn.error ?? own.error} />
        <div class="row"><button type="submit" class="primary" disabled={a.busy}>Confirm and process</button><button type="button" onClick={() => onClose(false)}>Cancel</button></div>
      </form>
    </Dialog>
  );
}

function ErrorsDialog({ file, onClose }: { file: FileRow | null; onClose: () => void }) {
  const rows = useLoad(async () => (file ? parseCsv(await ok(client.GET('/file/{id}/errors', { params: { path: { id: file.id } }, parseAs: 'text' }))).slice(1) : []), [file?.id]);
  return (
    <Dialog title={`Rejected lines of ${file?.fileName ?? ''}`} open={!!file} onClose={onClose}>
      <Loading show={rows.loading} /><ErrorBox error={rows.error} />
      <Table caption="Rejected lines" rows={rows.data} empty="No rejected lines." columns={[
        { label: 'Line', cell: (r) => r[0], num: true }, { label: 'Reason', cell: (r) => r[1] }, { label: 'Raw', cell: (r) => <code>{r[2]}</code> },
      ]} />
      <button type="button" onClick={onClose}>Close</button>
    </Dialog>
  );
}

/** The rates a file failed for, asked for in place; saved, then the file runs again. */
function MissingRates({ file, onRerun }: { file: FileRow; onRerun: (f: FileRow, how: () => Promise<unknown>, msg: string) => void }) {
  const base = useLoad(() => ok(client.GET('/settings/workspace')).then((r) => r.data.baseCurrency), []);
  const missing = file.missingRates ?? [];
  const [rates, setRates] = useState<Record<string, string>>({});
  const key = (r: MissingRate) => `${r.currency} ${r.month}`;
  const cur = base.data ?? '';
  return (
    <form class="rates" aria-label={`Exchange rates missing for ${file.fileName}`} onSubmit={(e) => {
      e.preventDefault();
      onRerun(file, async () => {
        await ok(client.PUT('/currency/rates', { body: { rates: missing.map((r) => ({ currency: r.currency, month: r.month, rate: rates[key(r)] })) } }));
        await ok(client.POST('/royalty/files/{id}/allocate', { params: { path: { id: file.id } } }));
      }, `Rates saved; ${file.fileName} is running again.`);
    }}>
      <p><strong>This file needs {missing.length === 1 ? 'an exchange rate' : `${missing.length} exchange rates`}</strong> to convert its earnings to {cur ? `${currencyName(cur)} (${cur})` : 'the workspace currency'}:</p>
      {missing.map((r) => (
        <div class="rate-row" key={key(r)}>
          <label>
            <span>1 {currencyName(r.currency)} ({r.currency}) in {monthName(r.month)} = </span>
            <input required inputMode="decimal" pattern="\d+(\.\d+)?" value={rates[key(r)] ?? ''}
              onInput={(e) => setRates({ ...rates, [key(r)]: e.currentTarget.value.trim() })} />
            <span> {cur}</span>
          </label>
        </div>
      ))}
      <div class="row tight"><button type="submit" class="primary">Save the rates and run the file again</button></div>
    </form>
  );
}

/** What a file needs, in words, under its row. */
function FileProblem({ f, onRerun, rereadDuplicate, replaceOriginal }: { f: FileRow; onRerun: (f: FileRow, how: () => Promise<unknown>, msg: string) => void; rereadDuplicate: (f: FileRow) => void; replaceOriginal: (f: FileRow) => void }) {
  if (f.status !== 'failed' && f.status !== 'needs_confirmation') return null;
  if (f.missingRates?.length) return <MissingRates file={f} onRerun={onRerun} />;
  if (f.reprocess) {
    return (
      <div class="problem">
        <span>The same content was uploaded before, so this copy was not read. Read the earlier upload again (its lines are replaced, not copied), or use this upload instead (the earlier upload's lines are removed). </span>
        <button type="button" onClick={() => rereadDuplicate(f)} aria-label={`Read the original again: ${f.fileName}`}>Read the original again</button>
        <button type="button" onClick={() => replaceOriginal(f)} aria-label={`Use this upload instead: ${f.fileName}`}>Use this upload instead</button>
      </div>
    );
  }
  if (f.status === 'needs_confirmation') {
    return (
      <p class="problem">
        Rondo is not sure which source this file comes from: confirm its detection to read it, or{' '}
        <Link to={`/layouts?file=${encodeURIComponent(f.id)}`}>teach Rondo its layout</Link>.
      </p>
    );
  }
  return f.error ? <p class="problem">{inWords(f.error)}</p> : null;
}

const COLUMNS = ['File', 'Source', 'Confidence', 'Status', 'Period', 'Lines read', 'Ingested', 'Rejected', 'Totals', 'Actions'];
const NUM = new Set(['Confidence', 'Lines read', 'Ingested', 'Rejected', 'Totals']);

interface RowActions {
  busy: boolean;
  confirm: (f: FileRow) => void;
  errors: (f: FileRow) => void;
  remove: (f: FileRow, members?: number) => void;
  rerun: (f: FileRow, how: () => Promise<unknown>, msg: string) => void;
  reread: (f: FileRow) => void;
  replace: (f: FileRow) => void;
}

function FileRowView({ f, act, member }: { f: FileRow; act: RowActions; member?: string }) {
  const cells: Record<string, preact.ComponentChildren> = {
    File: member ? <><span class="visually-hidden">In {member}: </span>{f.fileName}</> : f.fileName,
    Source: f.source?.name ?? <em>not detected</em>,
    Confidence: pct(f.confidence?.source),
    Status: <span class={`badge s-${f.status}`}>{statusWords(f.status)}</span>,
    Period: f.salePeriod?.start ? `${localDate(f.salePeriod.start)} – ${localDate(f.salePeriod.end)}` : '—',
    'Lines read': f.counts?.rowsRead ?? 0,
    Ingested: f.counts?.rowsIngested ?? 0,
    Rejected: f.counts?.rowsFailed ?? 0,
    Totals: Object.entries(f.totals ?? {}).map(([c, v]) => `${decimal(v)} ${c}`).join(', ') || '—',
    Actions: (
      <div class="row tight">
        {f.status === 'needs_confirmation' ? <button type="button" class="primary" onClick={() => act.confirm(f)} aria-label={`Confirm detection: ${f.fileName}`}>Confirm detection</button> : null}
        {f.counts?.rowsFailed ? <button type="button" onClick={() => act.errors(f)} aria-label={`Rejected lines of ${f.fileName}`}>Rejected lines</button> : null}
        {['processed', 'failed'].includes(f.status) && !f.reprocess && !f.missingRates?.length ? (
          <button type="button" disabled={act.busy} onClick={() => act.rerun(f, () => ok(client.POST('/file/reprocess/{id}', { params: { path: { id: f.id } }, body: {} })), `${f.fileName} is being read again; its lines are replaced, not copied.`)}
            aria-label={`Run again: ${f.fileName}`}>Run again</button>
        ) : null}
        {member ? null : <button type="button" onClick={() => act.remove(f)} aria-label={`Delete ${f.fileName}`}>Delete</button>}
      </div>
    ),
  };
  const needs = (f.status === 'failed' || f.status === 'needs_confirmation') && !!(f.missingRates?.length || f.reprocess || f.status === 'needs_confirmation' || f.error);
  return (
    <>
      <tr class={member ? 'member' : undefined} data-file={f.fileName}>
        {COLUMNS.map((c) => <td key={c} class={NUM.has(c) ? 'num' : undefined} data-label={c}>{cells[c]}</td>)}
      </tr>
      {needs ? (
        <tr class={member ? 'member detail' : 'detail'}>
          <td colSpan={COLUMNS.length} class="empty"><FileProblem f={f} onRerun={act.rerun} rereadDuplicate={act.reread} replaceOriginal={act.replace} /></td>
        </tr>
      ) : null}
    </>
  );
}

/** An archive: one heading row, then its statements. */
function ArchiveGroup({ f, act, gen }: { f: FileRow; act: RowActions; gen: number }) {
  const members = useLoad(() => ok(client.GET('/file/', { params: { query: { parentId: f.id, size: 100 } } })), [f.id, gen]);
  const list = members.data?.data ?? [];
  return (
    <>
      <tr class="archive" data-file={f.fileName}>
        <td data-label="File"><strong>{f.fileName}</strong></td>
        <td data-label="Source" colSpan={8}>
          {f.status === 'failed' ? <span class="error-text">{inWords(f.error ?? 'The archive could not be opened.')}</span>
            : `Archive of ${members.data ? list.length : '…'} ${list.length === 1 ? 'statement' : 'statements'}`}
        </td>
        <td data-label="Actions"><div class="row tight"><button type="button" onClick={() => act.remove(f, list.length)} aria-label={`Delete ${f.fileName}`}>Delete</button></div></td>
      </tr>
      {list.map((m) => <FileRowView key={m.id} f={m} act={act} member={f.fileName} />)}
    </>
  );
}

export function FileList({ gen, onChange }: { gen: number; onChange: () => void }) {
  const [page, setPage] = useState(1);
  const files = useLoad(() => ok(client.GET('/file/', { params: { query: { page, size: 20, topLevel: 'true' } } })), [page, gen]);
  const [confirm, setConfirm] = useState<FileRow | null>(null);
  const [errors, setErrors] = useState<FileRow | null>(null);
  const a = useAction();
  const c = useConfirm();
  const [deleted, setDeleted] = useState<string | null>(null);
  const live = useRef(true);
  useEffect(() => () => { live.current = false; }, []);

  const act: RowActions = {
    busy: a.busy,
    confirm: setConfirm,
    errors: setErrors,
    remove: (f, members) => c.ask({
      title: `Delete ${f.fileName}?`,
      body: <p>{members ? `The archive and its ${members} statements` : 'The file'}, {members ? 'their' : 'its'} lines, the earnings they brought and {members ? 'their' : 'its'} rejected lines are removed. This cannot be undone.</p>,
      action: 'Delete',
      run: async () => {
        await ok(client.DELETE('/file/{id}', { params: { path: { id: f.id } } }));
        setDeleted(`${f.fileName} was deleted.`);
        onChange();
      },
    }),
    rerun: (f, how, msg) => a.run(async () => {
      setDeleted(null);
      await how();
      onChange();
      void settled(f.id, f.updatedAt).then(() => live.current && onChange(), () => undefined);
      return msg;
    }),
    reread: (f) => a.run(async () => {
      setDeleted(null);
      // the original named by the row's `reprocess` (POST /file/reprocess/{its duplicateOf})
      await ok(client.POST('/file/reprocess/{id}', { params: { path: { id: f.duplicateOf! } }, body: {} }));
      onChange();
      return `The original of ${f.fileName} is being read again; its lines will be replaced, not copied.`;
    }),
    replace: (f) => c.ask({
      title: `Use ${f.fileName} instead of the earlier upload?`,
      body: <p>{f.fileName} is read, and once its lines are stored the earlier upload of the same content is emptied: its lines, the earnings they brought and its rejected lines are removed. Choose this when the earlier upload should not count.</p>,
      action: 'Use this upload',
      run: async () => {
        setDeleted(null);
        await ok(client.POST('/file/replace-original/{id}', { params: { path: { id: f.id } } }));
        setDeleted(`${f.fileName} is being read; it replaces the earlier upload.`);
        onChange();
      },
    }),
  };
  const pages = Math.max(1, Math.ceil((files.data?.pagination.total ?? 0) / 20));
  const rows = files.data?.data ?? [];
  return (
    <Section title="Statement files" actions={<button type="button" onClick={onChange}>Refresh</button>}>
      <ErrorBox error={files.error ?? a.error} /><Notice text={deleted ?? a.done} />
      <Loading show={files.loading && !files.data} />
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Statement files">
        <table>
          <caption>Statement files</caption>
          <thead><tr>{COLUMNS.map((col) => <th scope="col" key={col} class={NUM.has(col) ? 'num' : undefined}>{col}</th>)}</tr></thead>
          <tbody>
            {files.data && rows.length === 0 ? <tr><td colSpan={COLUMNS.length} class="muted empty">No statement files yet: upload some above.</td></tr> : null}
            {rows.map((f) => (isArchive(f) ? <ArchiveGroup key={f.id} f={f} act={act} gen={gen} /> : <FileRowView key={f.id} f={f} act={act} />))}
          </tbody>
        </table>
      </div>
      <div class="row pager">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
        <span>Page {page} of {pages}</span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
      </div>
      <ConfirmDialog file={confirm} onClose={(changed) => { setConfirm(null); if (changed) onChange(); }} />
      <ErrorsDialog file={errors} onClose={() => setErrors(null)} />
      {c.dialog}
    </Section>
  );
}

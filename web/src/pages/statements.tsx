/** Statements: upload (drag and drop or file input), live progress, files, detection, errors, matching. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, fileEvents, qs } from '../api';
import { Dialog, ErrorBox, Field, Loading, Notice, Section, Table, date, decimal, pct, useAction, useLoad } from '../ui';

interface FileRow {
  id: string; fileName: string; status: string; progress: number; size: number;
  source: { id: string; key: string; name: string } | null;
  confidence: { source?: number; schema?: number; period?: number } | null;
  salePeriod: { start: string; end: string } | null; accountingPeriod: string | null;
  counts: { rowsRead: number; rowsIngested: number; rowsFailed: number; rowsSkipped: number } | null;
  totals: Record<string, string> | null; error: string | null; createdAt?: string; duplicateOf?: string | null;
  /** A duplicate upload: the route that reads its original again in place. */
  reprocess?: { method: string; path: string } | null;
}
interface Upload { key: string; name: string; id?: string; status: string; progress: number; error?: string }

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

function UploadPanel({ onChange }: { onChange: () => void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const aborts = useRef<AbortController[]>([]);
  useEffect(() => () => aborts.current.forEach((a) => a.abort()), []);
  const patch = (key: string, p: Partial<Upload>) => setUploads((us) => us.map((u) => (u.key === key ? { ...u, ...p } : u)));

  const send = (files: FileList | File[]) => {
    for (const f of Array.from(files)) {
      const key = `${f.name}-${Math.random().toString(36).slice(2)}`;
      setUploads((us) => [...us, { key, name: f.name, status: 'uploading', progress: 0 }]);
      (async () => {
        const form = new FormData();
        form.append('file', f, f.name);
        const r = await api<{ data: FileRow; message: string }>('POST', '/file/royalty', { form });
        patch(key, { id: r.data.id, status: r.data.status, progress: r.data.progress ?? 0, error: r.data.duplicateOf ? r.message : undefined } as Partial<Upload>);
        onChange();
        const ac = new AbortController();
        aborts.current.push(ac);
        await fileEvents(r.data.id, (type, d) => {
          if (type === 'progress') patch(key, { status: d.status, progress: d.progress ?? 0, error: d.error ?? undefined });
          if (type === 'end') onChange();
        }, ac.signal);
      })().catch((e) => { if ((e as Error).name !== 'AbortError') patch(key, { status: 'failed', error: (e as Error).message }); });
    }
  };

  return (
    <Section title="Upload statements">
      <div class={`drop${over ? ' over' : ''}`} data-testid="dropzone"
        onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)}
        onDrop={(e) => { e.preventDefault(); setOver(false); if (e.dataTransfer?.files.length) send(e.dataTransfer.files); }}>
        <p>Drop statement files here (CSV, TSV, TXT, XLSX, ZIP, GZ), or</p>
        <label class="button">
          Choose files
          <input class="visually-hidden" type="file" multiple onChange={(e) => { const t = e.currentTarget; if (t.files?.length) send(t.files); t.value = ''; }} />
        </label>
      </div>
      {uploads.length ? (
        <ul class="uploads" aria-label="Uploads in progress">
          {uploads.map((u) => (
            <li key={u.key}>
              <span class="name" id={`up-${u.key}`}>{u.name}</span>
              <progress max={100} value={u.progress} aria-labelledby={`up-${u.key}`} aria-valuetext={`${u.progress} %`} />
              <span class="status" data-status={u.status}>{u.progress} % · {u.status}</span>
              {u.error ? <span class="error-text">{u.error}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}

function ConfirmDialog({ file, onClose }: { file: FileRow | null; onClose: (changed: boolean) => void }) {
  const sources = useLoad(() => api<{ data: { id: string; key: string; name: string }[] }>('GET', '/file/sources'), []);
  const [source, setSource] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [acct, setAcct] = useState('');
  const a = useAction();
  useEffect(() => {
    setSource(file?.source?.key ?? '');
    setStart(file?.salePeriod?.start ?? '');
    setEnd(file?.salePeriod?.end ?? '');
    setAcct(file?.accountingPeriod ?? '');
  }, [file?.id]);
  return (
    <Dialog title={`Confirm the detection of ${file?.fileName ?? ''}`} open={!!file} onClose={() => onClose(false)}>
      <form method="dialog" class="stack" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await api('POST', `/file/confirm-detection/${file!.id}`, { body: { source, periodStart: start || undefined, periodEnd: end || undefined, accountingPeriod: acct || undefined } });
        onClose(true);
      }); }}>
        <p class="muted">Detected: {file?.source?.name ?? 'no source'} (confidence {pct(file?.confidence?.source)})</p>
        <Field label="Source">
          <select required value={source} onChange={(e) => setSource(e.currentTarget.value)}>
            <option value="">Choose…</option>
            {(sources.data?.data ?? []).map((s) => <option key={s.id} value={s.key}>{s.name}</option>)}
          </select>
        </Field>
        <div class="row">
          <Field label="Sale period start"><input type="date" value={start} onInput={(e) => setStart(e.currentTarget.value)} /></Field>
          <Field label="Sale period end"><input type="date" value={end} onInput={(e) => setEnd(e.currentTarget.value)} /></Field>
          <Field label="Accounting period"><input type="date" value={acct} onInput={(e) => setAcct(e.currentTarget.value)} /></Field>
        </div>
        <ErrorBox error={a.error} />
        <div class="row"><button type="submit" class="primary" disabled={a.busy}>Confirm and process</button><button type="button" onClick={() => onClose(false)}>Cancel</button></div>
      </form>
    </Dialog>
  );
}

function ErrorsDialog({ file, onClose }: { file: FileRow | null; onClose: () => void }) {
  const rows = useLoad(async () => (file ? parseCsv(await (await api<Response>('GET', `/file/${file.id}/errors`, { raw: true })).text()).slice(1) : []), [file?.id]);
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

function FileList({ gen, onChange }: { gen: number; onChange: () => void }) {
  const [page, setPage] = useState(1);
  const files = useLoad(() => api<{ data: FileRow[]; pagination: { total: number; size: number } }>('GET', `/file/${qs({ page, size: 20 })}`), [page, gen]);
  const [confirm, setConfirm] = useState<FileRow | null>(null);
  const [errors, setErrors] = useState<FileRow | null>(null);
  const a = useAction();
  const reread = (f: FileRow) => a.run(async () => {
    await api('POST', f.reprocess!.path, { body: {} });
    onChange();
    return `The original of ${f.fileName} is being read again; its lines will be replaced, not copied.`;
  });
  const pages = Math.max(1, Math.ceil((files.data?.pagination.total ?? 0) / 20));
  return (
    <Section title="Statement files" actions={<button type="button" onClick={onChange}>Refresh</button>}>
      <ErrorBox error={files.error ?? a.error} /><Notice text={a.done} />
      <Table caption="Statement files" rows={files.data?.data} rowKey={(f) => f.id} columns={[
        { label: 'File', cell: (f) => f.fileName },
        { label: 'Source', cell: (f) => f.source?.name ?? <em>not detected</em> },
        { label: 'Confidence', cell: (f) => pct(f.confidence?.source), num: true },
        { label: 'Status', cell: (f) => <span class={`badge s-${f.status}`}>{f.status}</span> },
        { label: 'Period', cell: (f) => (f.salePeriod ? `${date(f.salePeriod.start)} – ${date(f.salePeriod.end)}` : '—') },
        { label: 'Lines read', cell: (f) => f.counts?.rowsRead ?? 0, num: true },
        { label: 'Ingested', cell: (f) => f.counts?.rowsIngested ?? 0, num: true },
        { label: 'Failed', cell: (f) => f.counts?.rowsFailed ?? 0, num: true },
        { label: 'Totals', cell: (f) => Object.entries(f.totals ?? {}).map(([c, v]) => `${decimal(v)} ${c}`).join(', ') || '—', num: true },
        { label: 'Actions', cell: (f) => (
          <div class="row tight">
            {f.reprocess ? <button type="button" disabled={a.busy} onClick={() => reread(f)} aria-label={`Read the original again: ${f.fileName}`}>Read the original again</button>
              : ['needs_confirmation', 'failed', 'processed'].includes(f.status) ? <button type="button" onClick={() => setConfirm(f)} aria-label={`Confirm detection: ${f.fileName}`}>Confirm detection</button> : null}
            {f.counts?.rowsFailed ? <button type="button" onClick={() => setErrors(f)} aria-label={`Errors of ${f.fileName}`}>Errors</button> : null}
          </div>
        ) },
      ]} />
      <div class="row pager">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
        <span>Page {page} of {pages}</span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
      </div>
      <ConfirmDialog file={confirm} onClose={(changed) => { setConfirm(null); if (changed) onChange(); }} />
      <ErrorsDialog file={errors} onClose={() => setErrors(null)} />
    </Section>
  );
}

interface Suggestion { id: string; kind: string; statement: { isrc?: string; upc?: string; title?: string; artist?: string }; candidate: { assetId?: string; productId?: string; title?: string; isrc?: string; upc?: string }; score: string; reason: string }
interface Unmatched { isrc: string | null; title: string | null; artist: string | null; lines: number; amount: string; quantity: string }

function Matching({ gen, onChange }: { gen: number; onChange: () => void }) {
  const sugg = useLoad(() => api<{ data: Suggestion[] }>('GET', '/royalty/matches/suggestions?size=50'), [gen]);
  const unmatched = useLoad(() => api<{ statementLines: { data: Unmatched[] } }>('GET', '/checklist/royaltyassets?size=50'), [gen]);
  const a = useAction();
  const decide = (s: Suggestion, verb: 'accept' | 'reject') => a.run(async () => {
    await api('POST', `/royalty/matches/${verb}`, { body: { suggestionId: s.id } });
    onChange();
    return verb === 'accept' ? `Accepted: “${s.statement.title ?? s.statement.isrc}” is now ${s.candidate.title}. Its lines are being re-matched.` : 'Suggestion rejected.';
  });
  const create = (u: Unmatched) => a.run(async () => {
    await api('POST', '/asset', { body: { title: u.title || u.isrc || 'Untitled', isrc: u.isrc || undefined, displayArtist: u.artist || undefined, artists: u.artist ? [u.artist] : undefined } });
    onChange();
    return `Recording “${u.title ?? u.isrc}” created; its lines are being matched.`;
  });
  return (
    <>
      <Section title="Match suggestions">
        <ErrorBox error={sugg.error ?? a.error} /><Notice text={a.done} />
        <Table caption="Match suggestions" rows={sugg.data?.data} rowKey={(s) => s.id} empty="No suggestions waiting." columns={[
          { label: 'In the statement', cell: (s) => <>{s.statement.title ?? '—'} <span class="muted">{s.statement.artist ?? ''} {s.statement.isrc ?? s.statement.upc ?? ''}</span></> },
          { label: 'Suggested', cell: (s) => <>{s.candidate.title} <span class="muted">{s.candidate.isrc ?? s.candidate.upc ?? ''}</span></> },
          { label: 'Score', cell: (s) => pct(s.score), num: true },
          { label: 'Why', cell: (s) => s.reason },
          { label: 'Decision', cell: (s) => (
            <div class="row tight">
              <button type="button" class="primary" disabled={a.busy} onClick={() => decide(s, 'accept')} aria-label={`Accept ${s.candidate.title} for ${s.statement.title ?? ''}`}>Accept</button>
              <button type="button" disabled={a.busy} onClick={() => decide(s, 'reject')} aria-label={`Reject ${s.candidate.title} for ${s.statement.title ?? ''}`}>Reject</button>
            </div>
          ) },
        ]} />
      </Section>
      <Section title="Unmatched lines">
        <ErrorBox error={unmatched.error} />
        <Table caption="Statement lines matching no recording" rows={unmatched.data?.statementLines.data} empty="Every line is matched." columns={[
          { label: 'ISRC', cell: (u) => u.isrc ?? '—' },
          { label: 'Title', cell: (u) => u.title ?? '—' },
          { label: 'Artist', cell: (u) => u.artist ?? '—' },
          { label: 'Lines', cell: (u) => u.lines, num: true },
          { label: 'Amount', cell: (u) => decimal(u.amount), num: true },
          { label: 'Action', cell: (u) => <button type="button" disabled={a.busy} onClick={() => create(u)} aria-label={`Create recording ${u.title ?? u.isrc ?? ''}`}>Create recording</button> },
        ]} />
      </Section>
    </>
  );
}

export function StatementsPage() {
  const [gen, setGen] = useState(0);
  const bump = () => setGen((g) => g + 1);
  return (
    <>
      <h1>Statements</h1>
      <UploadPanel onChange={bump} />
      <FileList gen={gen} onChange={bump} />
      <Matching gen={gen} onChange={bump} />
    </>
  );
}

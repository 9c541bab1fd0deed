/** Statements: upload (drag and drop or file input), live progress, files, detection, errors, matching. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, fileEvents } from '../api';
import { ErrorBox, Notice, Section, Table, decimal, pct, useAction, useLoad } from '../ui';
import { inWords } from '../words';
import { FileList, type FileRow } from './files';

interface Upload { key: string; name: string; id?: string; status: string; progress: number; error?: string; members?: { id: string; fileName: string; status: string; progress: number }[] }

/** An archive's statements, followed until each is settled (an archive itself reads no lines). */
async function followMembers(id: string, set: (m: Upload['members']) => void, signal: AbortSignal): Promise<void> {
  for (let i = 0; i < 600 && !signal.aborted; i++) {
    const f = (await api<{ data: { kind: string | null; children: NonNullable<Upload['members']> } }>('GET', `/file/${id}`, { signal })).data;
    if (f.kind !== 'archive') return;
    set(f.children);
    if (f.children.every((c) => ['processed', 'failed', 'needs_confirmation'].includes(c.status))) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
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
        patch(key, { id: r.data.id, status: r.data.status, progress: r.data.progress ?? 0, error: r.data.duplicateOf ? inWords(r.message) : undefined } as Partial<Upload>);
        onChange();
        const ac = new AbortController();
        aborts.current.push(ac);
        await fileEvents(r.data.id, (type, d) => {
          if (type === 'progress') patch(key, { status: d.status, progress: d.progress ?? 0, error: d.error ? inWords(d.error) : undefined });
          if (type === 'end') onChange();
        }, ac.signal);
        await followMembers(r.data.id, (members) => patch(key, { members }), ac.signal);
        onChange();
      })().catch((e) => { if ((e as Error).name !== 'AbortError') patch(key, { status: 'failed', error: inWords((e as Error).message) }); });
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
              {u.members?.length ? (
                <ul class="uploads members" aria-label={`Statements in ${u.name}`}>
                  {u.members.map((m) => (
                    <li key={m.id}>
                      <span class="name" id={`up-${m.id}`}>{m.fileName}</span>
                      <progress max={100} value={m.progress} aria-labelledby={`up-${m.id}`} aria-valuetext={`${m.progress} %`} />
                      <span class="status" data-status={m.status}>{m.progress} % · {m.status.replace(/_/g, ' ')}</span>
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
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

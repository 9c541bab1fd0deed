/** Statements: upload (drag and drop or file input), live progress, files, detection, errors, matching. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, fileEvents, client, ok, type Answer, type ApiPath } from '../api';
import { Section } from '../ui';
import { inWords } from '../words';
import { FileList } from './files';
import { Matching } from './matching';

interface Upload { key: string; name: string; id?: string; status: string; progress: number; error?: string; members?: { id: string; fileName: string; status: string; progress: number }[] }

/** An archive's statements, followed until each is settled (an archive itself reads no lines). */
async function followMembers(id: string, set: (m: Upload['members']) => void, signal: AbortSignal): Promise<void> {
  for (let i = 0; i < 600 && !signal.aborted; i++) {
    const f = (await ok(client.GET('/file/{id}', { params: { path: { id } }, signal }))).data;
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
        const r = await api<Answer<'/file/royalty', 'post'>>('POST', '/file/royalty' satisfies ApiPath, { form });
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

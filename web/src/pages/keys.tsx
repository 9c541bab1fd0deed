/**
 * API keys: a program's way in without a password. Admins make workspace keys (admin rights,
 * no person); every member makes personal keys that act as them, with their role. The whole key
 * is shown once, when made; afterwards only its start tells keys apart. Revoking stops a key at once.
 */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { useApp } from '../state';
import { useConfirm } from '../confirm';
import { ErrorBox, Field, Notice, Section, Table, date, useAction, useLoad } from '../ui';

interface ApiKey { id: string; kind: 'workspace' | 'user'; name: string | null; prefix: string; createdAt: string }

function KeyList({ base, title, intro, noun }: { base: string; title: string; intro: string; noun: string }) {
  const list = useLoad(() => api<{ data: ApiKey[] }>('GET', base), [base]);
  const [name, setName] = useState('');
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const a = useAction();
  const { ask, dialog } = useConfirm();
  const slug = base.includes('my-') ? 'personal' : 'workspace';
  return (
    <Section title={title}>
      <p class="muted">{intro}</p>
      {shown ? (
        <div class="notice" role="status" data-testid={`new-${slug}-key`}>
          <p>The {noun} “{shown.name}”. Copy it now and keep it somewhere safe: it is not shown again.</p>
          <code class="wrap-any" data-testid={`new-${slug}-key-value`}>{shown.key}</code>
          <p><button type="button" onClick={() => setShown(null)}>I have copied it</button></p>
        </div>
      ) : null}
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <Table<ApiKey> caption={title} rows={list.data?.data} rowKey={(k) => k.id} empty="No key yet." columns={[
        { label: 'Name', cell: (k) => k.name ?? '—' },
        { label: 'Starts with', cell: (k) => <code class="wrap-any">{k.prefix}…</code> },
        { label: 'Made', cell: (k) => date(k.createdAt) },
        { label: 'Actions', cell: (k) => (
          <button type="button" class="danger" aria-label={`Revoke ${k.name ?? k.prefix}`} onClick={() => ask({
            title: `Revoke “${k.name ?? k.prefix}”?`, action: 'Revoke',
            body: <p>Programs using this key stop getting in at once. This cannot be undone: make a new key if one is needed again.</p>,
            run: async () => { await api('DELETE', `${base}/${k.id}`); setShown(null); list.reload(); },
          })}>Revoke…</button>
        ) },
      ]} />
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        const made = (await api<{ data: ApiKey & { key: string } }>('POST', base, { body: { name: name.trim() } })).data;
        setShown({ name: made.name ?? '', key: made.key });
        setName('');
        list.reload();
      }); }}>
        <Field label={`Name of the new ${noun}`} hint="What uses it, so you know which to revoke later."><input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <button type="submit" class="primary" disabled={a.busy}>Make a {noun}</button>
      </form>
      {dialog}
    </Section>
  );
}

export function KeysPage() {
  const { isAdmin, me } = useApp();
  return (
    <>
      <h1>API keys</h1>
      <p>A key lets a program (a spreadsheet, your accounting system, a script) read and change this workspace without your password. Give each program its own key, so that you can stop one without the others.</p>
      {isAdmin ? (
        <KeyList base="/settings/api-keys" title="Workspace keys" noun="workspace key"
          intro="A workspace key acts for the workspace with an admin's rights, whoever made it. Every admin sees and can revoke these keys." />
      ) : null}
      <KeyList base="/settings/my-api-keys" title="My personal keys" noun="personal key"
        intro={`A personal key acts as you (${me.email}) in this workspace, with your role (${me.role}). Only you see your keys.`} />
    </>
  );
}

/**
 * API keys: a program's way in without a password. Admins make workspace keys (admin rights,
 * no person); every member makes personal keys that act as them, with their role. The whole key
 * is shown once, when made; afterwards only its start tells keys apart. Revoking stops a key at once.
 */
import { useState } from 'preact/hooks';
import { client, ok, type Answer } from '../api';
import { useApp } from '../state';
import { useConfirm } from '../confirm';
import { ErrorBox, Field, Notice, Section, Table, date, useAction, useLoad } from '../ui';

type ApiKey = Answer<'/settings/api-keys'>['data'][number];

/** The routes of each list: the workspace's keys and my personal keys. */
const ROUTES = {
  workspace: {
    list: () => ok(client.GET('/settings/api-keys')),
    make: (name: string) => ok(client.POST('/settings/api-keys', { body: { name } })),
    revoke: (keyId: string) => ok(client.DELETE('/settings/api-keys/{keyId}', { params: { path: { keyId } } })),
  },
  personal: {
    list: () => ok(client.GET('/settings/my-api-keys')),
    make: (name: string) => ok(client.POST('/settings/my-api-keys', { body: { name } })),
    revoke: (keyId: string) => ok(client.DELETE('/settings/my-api-keys/{keyId}', { params: { path: { keyId } } })),
  },
};

function KeyList({ slug, title, intro, noun }: { slug: keyof typeof ROUTES; title: string; intro: string; noun: string }) {
  const routes = ROUTES[slug];
  const list = useLoad(() => routes.list(), [slug]);
  const [name, setName] = useState('');
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);
  const a = useAction();
  const { ask, dialog } = useConfirm();
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
            run: async () => { await routes.revoke(k.id); setShown(null); list.reload(); },
          })}>Revoke…</button>
        ) },
      ]} />
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        const made = (await routes.make(name.trim())).data;
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
        <KeyList slug="workspace" title="Workspace keys" noun="workspace key"
          intro="A workspace key acts for the workspace with an admin's rights, whoever made it. Every admin sees and can revoke these keys." />
      ) : null}
      <KeyList slug="personal" title="My personal keys" noun="personal key"
        intro={`A personal key acts as you (${me.email}) in this workspace, with your role (${me.role}). Only you see your keys.`} />
    </>
  );
}

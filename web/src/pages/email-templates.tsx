/**
 * The workspace's e-mails, one at a time: the subject, the text and (optionally) the HTML with
 * {{placeholders}}, a preview the server renders from sample data as you type (nothing is sent
 * or saved), “Save this e-mail”, and “Back to the built-in e-mail”.
 */
import { useState } from 'preact/hooks';
import { client, ok, type Answer } from '../api';
import { useConfirm } from '../confirm';
import { ErrorBox, Field, Loading, Notice, Section, useAction, useLoad, useSettled } from '../ui';

type Template = Answer<'/settings/email-templates'>['data'][number];

/** What the page calls each e-mail (the server's description says when it is sent). */
const NAMES: Record<string, string> = {
  invitation: 'Invitation', password_reset: 'Password reset', login_link: 'Sign-in link', statement_issued: 'Statement ready',
  file_processed: 'Statement file processed', file_failed: 'Statement file failed', payment_status: 'Payment', release_review: 'Release reviewed', notification: 'Other notifications',
};

function Editor({ t, onChanged }: { t: Template; onChanged: (done: string) => void }) {
  const [f, setF] = useState({ subject: t.subject, text: t.text, html: t.html ?? '' });
  const settled = useSettled(f);
  const preview = useLoad(
    () => ok(client.POST('/settings/email-templates/{type}/preview', { params: { path: { type: t.type } }, body: { subject: settled.subject || undefined, text: settled.text || undefined, html: settled.html.trim() ? settled.html : null } })),
    [t.type, settled.subject, settled.text, settled.html],
  );
  const a = useAction();
  const { ask, dialog } = useConfirm();
  const p = preview.data?.data;
  const name = NAMES[t.type] ?? t.type;
  return (
    <div class="stack" data-testid={`template-${t.type}`}>
      <p class="muted">{t.description}. {t.customised ? 'This workspace has its own version.' : 'The built-in e-mail is in use.'}</p>
      <form class="stack" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.PUT('/settings/email-templates/{type}', { params: { path: { type: t.type } }, body: { subject: f.subject, text: f.text, html: f.html.trim() ? f.html : null } }));
        onChanged(`Saved: the next “${name}” e-mails use it.`);
      }); }}>
        <Field label="Subject"><input required maxLength={500} value={f.subject} onInput={(e) => setF({ ...f, subject: e.currentTarget.value })} /></Field>
        <Field label="Text" hint="Every e-mail has a plain-text part; links in it become clickable in the HTML made from it."><textarea required rows={10} maxLength={20000} value={f.text} onInput={(e) => setF({ ...f, text: e.currentTarget.value })} /></Field>
        <Field label="HTML (optional)" hint="Left empty, the HTML part is made from the text, in the workspace's colours."><textarea rows={6} maxLength={100000} value={f.html} onInput={(e) => setF({ ...f, html: e.currentTarget.value })} /></Field>
        <details>
          <summary>Placeholders you can use</summary>
          <p class="muted">Written between double braces, for example <code>{'{{recipient.name}}'}</code>; each is replaced when the e-mail is sent.</p>
          <ul class="placeholders">{t.placeholders.map((x) => <li key={x}><code>{`{{${x}}}`}</code></li>)}</ul>
        </details>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <div class="row tight">
          <button type="submit" class="primary" disabled={a.busy}>Save this e-mail</button>
          {t.customised ? (
            <button type="button" class="danger" onClick={() => ask({
              title: `Go back to the built-in “${name}” e-mail?`, action: 'Use the built-in e-mail',
              body: <p>This workspace's version is deleted; the next e-mails use Rondo's built-in text.</p>,
              run: async () => { await ok(client.DELETE('/settings/email-templates/{type}', { params: { path: { type: t.type } } })); onChanged(`“${name}” e-mails use the built-in text again.`); },
            })}>Back to the built-in e-mail…</button>
          ) : null}
        </div>
      </form>
      <h3>Preview, with sample data</h3>
      <ErrorBox error={preview.error} />
      {p ? (
        <figure class="mail-preview">
          <figcaption>Subject: <strong data-testid="template-preview-subject">{p.subject}</strong></figcaption>
          <iframe title={`Preview of the “${name}” e-mail`} sandbox="" srcDoc={p.html} />
          <details><summary>The plain-text part</summary><pre class="wrap-any" data-testid="template-preview-text">{p.text}</pre></details>
        </figure>
      ) : null}
      {dialog}
    </div>
  );
}

export function EmailTemplates() {
  const list = useLoad(() => ok(client.GET('/settings/email-templates')), []);
  const [type, setType] = useState('invitation');
  // said above the editor: saving reloads the list, and the editor starts again from what was saved
  const [done, setDone] = useState<string | null>(null);
  const all = list.data?.data ?? [];
  const t = all.find((x) => x.type === type);
  return (
    <Section title="E-mails">
      <p>Change what each e-mail says. The preview shows it with sample data, as you type; nothing is sent until a real e-mail goes out.</p>
      <Loading show={list.loading && !all.length} /><ErrorBox error={list.error} />
      <Field label="E-mail to change">
        <select value={type} onChange={(e) => { setType(e.currentTarget.value); setDone(null); }}>
          {all.map((x) => <option key={x.type} value={x.type}>{NAMES[x.type] ?? x.type}{x.customised ? ' (changed)' : ''}</option>)}
        </select>
      </Field>
      <Notice text={done} />
      {t ? <Editor key={`${t.type}:${t.updatedAt ?? 'built-in'}`} t={t} onChanged={(msg) => { setDone(msg); list.reload(); }} /> : null}
    </Section>
  );
}

/**
 * Workspace settings an admin tunes: branding (colours, sender name, logo) with a preview of
 * the header and of an e-mail; webhooks (endpoints with their events, extra headers and
 * authentication, changed later without showing back what is stored, the signing secret shown
 * once, deliveries with each attempt, retry); who e-mails come from.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type ApiPath, type Branding, client, ok, type Body } from '../api';
import { useConfirm } from '../confirm';
import { ErrorBox, Field, Loading, Notice, Section, Table, date, useAction, useLoad, useSettled } from '../ui';
import { EmailTemplates } from './email-templates';

type Any = Record<string, any>;
const HEX = /^#[0-9a-f]{6}$/i;

function BrandingSettings() {
  const loaded = useLoad(() => ok(client.GET('/settings/branding')), []);
  const b = loaded.data?.data;
  return (
    <Section title="Branding">
      <Loading show={loaded.loading && !b} /><ErrorBox error={loaded.error} />
      {b ? <BrandingForm b={b} onSaved={loaded.reload} /> : null}
    </Section>
  );
}

/** The form starts from the stored branding (so nothing typed is overwritten by a late answer). */
function BrandingForm({ b, onSaved }: { b: Branding; onSaved: () => void }) {
  const [f, setF] = useState({ primaryColor: b.primaryColor ?? '#3b5bdb', accentColor: b.accentColor ?? '#f59e0b', senderName: b.senderName ?? '' });
  const [logo, setLogo] = useState<File | null>(null);
  const a = useAction();
  const preview = useLoad(
    () => ok(client.POST('/settings/email-templates/{type}/preview', { params: { path: { type: 'statement_issued' } }, body: { data: { brand: { primaryColor: HEX.test(f.primaryColor) ? f.primaryColor.toLowerCase() : '#3b5bdb', senderName: f.senderName || (b.senderName ?? '') } } } })),
    [f.primaryColor, f.senderName, b.senderName],
  );
  const save = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      await ok(client.PUT('/settings/branding', { body: { primaryColor: f.primaryColor.toLowerCase(), accentColor: f.accentColor.toLowerCase(), senderName: f.senderName.trim() || null } }));
      if (logo) {
        const form = new FormData();
        form.append('file', logo, logo.name);
        await api('PUT', '/settings/branding/logo' satisfies ApiPath, { form });
      }
      onSaved();
      return 'Branding saved. It shows in the header after the next sign-in, and in e-mails and statements from now on.';
    });
  };
  const p = preview.data?.data;
  // the statement PDF, drawn by the server with the colours and name typed so far
  const settled = useSettled({ primaryColor: HEX.test(f.primaryColor) ? f.primaryColor.toLowerCase() : null, accentColor: HEX.test(f.accentColor) ? f.accentColor.toLowerCase() : null, senderName: f.senderName.trim() || null });
  const pdf = useLoad(() => ok(client.POST('/settings/branding/preview/statement', { body: settled })), [settled.primaryColor, settled.accentColor, settled.senderName]);
  return (
    <>
      {!b.active ? <p class="muted">Your plan does not include branding: what you save here is applied once it does.</p> : null}
      <form class="stack" onSubmit={save}>
        <div class="row wrap">
          <Field label="Main colour"><input type="color" value={f.primaryColor} onInput={(e) => setF({ ...f, primaryColor: e.currentTarget.value })} /></Field>
          <Field label="Accent colour"><input type="color" value={f.accentColor} onInput={(e) => setF({ ...f, accentColor: e.currentTarget.value })} /></Field>
          <Field label="Sender name of e-mails and statements"><input maxLength={100} value={f.senderName} onInput={(e) => setF({ ...f, senderName: e.currentTarget.value })} /></Field>
          <Field label="Logo (PNG or JPEG)"><input type="file" accept="image/png,image/jpeg" onChange={(e) => setLogo(e.currentTarget.files?.[0] ?? null)} /></Field>
        </div>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <div><button type="submit" class="primary" disabled={a.busy}>Save branding</button></div>
      </form>
      <h3>Preview</h3>
      <div class="brand-preview" style={{ background: f.primaryColor, borderColor: f.accentColor }} data-testid="brand-preview">
        {b.logo ? <img src={b.logo.url} alt="Current logo" /> : null}
        <span class="chip">{f.senderName || 'Your workspace'}</span>
      </div>
      <ErrorBox error={preview.error} />
      {p ? (
        <figure class="mail-preview">
          <figcaption>A statement e-mail: <strong data-testid="mail-preview-subject">{p.subject}</strong></figcaption>
          <iframe title="Preview of a statement e-mail" sandbox="" srcDoc={p.html} />
        </figure>
      ) : null}
      <ErrorBox error={pdf.error} />
      {pdf.data ? (
        <figure class="pdf-preview">
          <figcaption>A statement (PDF, sample figures). <a href={pdf.data.data.url} target="_blank" rel="noopener">Open it in a new tab</a></figcaption>
          <iframe title="Preview of a statement PDF" src={pdf.data.data.url} data-testid="statement-pdf-preview" />
        </figure>
      ) : null}
    </>
  );
}

const FAMILIES: [string, string][] = [
  ['*', 'Everything'], ['payment.*', 'Payments'], ['royalty.*', 'Statement files'], ['asset.*', 'Recordings'], ['product.*', 'Products'], ['artist.*', 'Artists'],
  ['split.*', 'Shares in splits'], ['user.*', 'Members'], ['revenue.*', 'Revenue'], ['expense.*', 'Expenses'], ['release.*', 'Releases'], ['billing.*', 'Billing'],
];

function Deliveries({ endpoint }: { endpoint: Any }) {
  const list = useLoad(() => ok(client.GET('/webhooks/{id}/deliveries', { params: { path: { id: endpoint.id }, query: { size: 20 } } })), [endpoint.id]);
  const [open, setOpen] = useState<Any | null>(null);
  const a = useAction();
  const show = (d: Any) => a.run(async () => { setOpen((await ok(client.GET('/webhook-deliveries/{id}', { params: { path: { id: d.id } } }))).data); });
  const retry = (d: Any) => a.run(async () => { await ok(client.POST('/webhook-deliveries/{id}/retry', { params: { path: { id: d.id } } })); list.reload(); return 'Sent again.'; });
  const test = () => a.run(async () => { await ok(client.POST('/webhooks/{id}/test', { params: { path: { id: endpoint.id } } })); list.reload(); return 'A test event is on its way.'; });
  return (
    <div class="stack">
      <div class="row tight">
        <button type="button" onClick={test} disabled={a.busy}>Send a test event</button>
        <button type="button" onClick={list.reload}>Refresh</button>
      </div>
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <Table<Any> caption={`Deliveries to ${endpoint.url}`} rows={list.data?.data} rowKey={(d) => d.id} empty="Nothing sent yet." columns={[
        { label: 'Event', cell: (d) => d.eventType },
        { label: 'Status', cell: (d) => <span class={`badge s-${d.status === 'success' ? 'processed' : d.status}`}>{d.status}</span> },
        { label: 'Attempts', cell: (d) => d.attemptCount, num: true },
        { label: 'Last answer', cell: (d) => d.lastStatusCode ?? d.lastError ?? '—' },
        { label: 'Sent', cell: (d) => date(d.createdAt) },
        { label: 'Actions', cell: (d) => (
          <div class="row tight">
            <button type="button" onClick={() => show(d)} aria-label={`Attempts of ${d.eventType}, ${date(d.createdAt)}`}>Attempts</button>
            <button type="button" onClick={() => retry(d)} aria-label={`Retry ${d.eventType}, ${date(d.createdAt)}`}>Retry</button>
          </div>
        ) },
      ]} />
      {open ? (
        <Table<Any> caption={`Attempts of ${open.eventType}`} rows={open.attempts} rowKey={(x) => String(x.attempt)} columns={[
          { label: 'Attempt', cell: (x) => x.attempt, num: true },
          { label: 'When', cell: (x) => x.attemptedAt.replace('T', ' ').slice(0, 19) },
          { label: 'Answer', cell: (x) => x.statusCode ?? '—' },
          { label: 'Took (ms)', cell: (x) => x.latencyMs, num: true },
          { label: 'Outcome', cell: (x) => (x.success ? 'delivered' : x.error ?? 'refused') },
        ]} />
      ) : null}
    </div>
  );
}

const AUTH_WORDS: Record<string, string> = { bearer: 'a bearer token', basic: 'a user name and password' };

/** The extra headers typed one a line as `Name: value`; a line without a name and a colon is refused in words. */
function extraHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf(':');
    if (at < 1) throw new Error(`Write each extra header as Name: value (“${line}” has no name before a colon).`);
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

type Action = ReturnType<typeof useAction>;
type AuthChoice = 'keep' | 'none' | 'bearer' | 'basic';
type HeadersChoice = 'keep' | 'replace' | 'remove';

/**
 * The form that adds a webhook, or changes one (`ep`). A token, password or header value already
 * stored is never shown back: the form says one is set and offers to keep, replace or remove it.
 */
function WebhookForm({ ep, a, onSaved, onCancel }: { ep?: Any; a: Action; onSaved: (made?: { url: string; secret: string }) => void; onCancel?: () => void }) {
  const hasAuth = !!ep?.authType;
  const hasHeaders = !!ep?.headerNames?.length;
  const blank = {
    url: ep?.url ?? '', description: ep?.description ?? '', events: (ep?.events ?? ['*']) as string[],
    auth: (hasAuth ? 'keep' : 'none') as AuthChoice, token: '', username: '', password: '',
    headersChoice: (hasHeaders ? 'keep' : 'replace') as HeadersChoice, headers: '',
  };
  const [f, setF] = useState(blank);
  const form = useRef<HTMLFormElement>(null);
  // a webhook being changed: its form comes into view
  useEffect(() => { if (ep) form.current?.scrollIntoView({ block: 'nearest' }); }, []);
  const submit = (e: Event) => {
    e.preventDefault();
    void a.run(async () => {
      if (!f.events.length) throw new Error('Choose at least one kind of event.');
      const auth = f.auth === 'bearer' ? { type: 'bearer' as const, token: f.token.trim() }
        : f.auth === 'basic' ? { type: 'basic' as const, username: f.username.trim(), password: f.password } : null;
      const headers = f.headersChoice === 'replace' ? extraHeaders(f.headers) : {};
      if (!ep) {
        const body: Body<'/webhooks', 'post'> = { url: f.url.trim(), events: f.events };
        if (f.description.trim()) body.description = f.description.trim();
        if (auth) body.auth = auth;
        if (Object.keys(headers).length) body.headers = headers;
        const made = (await ok(client.POST('/webhooks', { body }))).data;
        setF(blank);
        onSaved({ url: made.url, secret: made.secret });
        return;
      }
      if (hasHeaders && f.headersChoice === 'replace' && !Object.keys(headers).length) throw new Error('Type the new extra headers, or choose to remove them.');
      const body: Body<'/webhooks/{id}', 'put'> = { url: f.url.trim(), events: f.events, description: f.description.trim() || null };
      // only what changes is sent: a secret kept is not sent back (the page never had it)
      if (f.auth !== 'keep' && (auth || hasAuth)) body.auth = auth;
      if (f.headersChoice === 'remove') body.headers = null;
      else if (f.headersChoice === 'replace' && (Object.keys(headers).length || hasHeaders)) body.headers = headers;
      await ok(client.PUT('/webhooks/{id}', { params: { path: { id: ep.id } }, body }));
      onSaved();
      return `The webhook to ${body.url} is saved.`;
    });
  };
  const setAuth = (auth: AuthChoice) => setF({ ...f, auth, token: '', username: '', password: '' });
  const title = ep ? `Change the webhook to ${ep.url}` : 'Add a webhook';
  return (
    <form class="stack" ref={form} onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      <div class="row wrap">
        <Field label="Address (https://…)"><input type="url" required value={f.url} onInput={(e) => setF({ ...f, url: e.currentTarget.value })} /></Field>
        <Field label="Description (optional)"><input value={f.description} onInput={(e) => setF({ ...f, description: e.currentTarget.value })} /></Field>
      </div>
      {hasAuth ? <p class="muted" data-testid="webhook-auth-set">{AUTH_WORDS[ep!.authType]?.replace(/^a /, 'A ')} is set. It is not shown again: keep it, replace it or remove it.</p> : null}
      <div class="row wrap">
        <Field label="How your server checks it is Rondo">
          <select value={f.auth} onChange={(e) => setAuth(e.currentTarget.value as AuthChoice)}>
            {hasAuth ? <option value="keep">Keep {AUTH_WORDS[ep!.authType]?.replace(/^a /, 'the ')} that is set</option> : null}
            <option value="none">{hasAuth ? 'Only the signature (remove the one that is set)' : 'Only the signature'}</option>
            <option value="bearer">{ep?.authType === 'bearer' ? 'A new bearer token' : 'A bearer token as well'}</option>
            <option value="basic">{ep?.authType === 'basic' ? 'A new user name and password' : 'A user name and password as well'}</option>
          </select>
        </Field>
        {f.auth === 'bearer' ? <Field label="Bearer token your server expects"><input type="password" required autoComplete="off" value={f.token} onInput={(e) => setF({ ...f, token: e.currentTarget.value })} /></Field> : null}
        {f.auth === 'basic' ? <Field label="User name"><input required autoComplete="off" value={f.username} onInput={(e) => setF({ ...f, username: e.currentTarget.value })} /></Field> : null}
        {f.auth === 'basic' ? <Field label="Password"><input type="password" required autoComplete="off" value={f.password} onInput={(e) => setF({ ...f, password: e.currentTarget.value })} /></Field> : null}
      </div>
      {hasHeaders ? (
        <Field label="Extra headers set" hint="Their values are not shown again.">
          <select value={f.headersChoice} onChange={(e) => setF({ ...f, headersChoice: e.currentTarget.value as HeadersChoice, headers: '' })}>
            <option value="keep">Keep {ep!.headerNames.join(', ')}</option>
            <option value="replace">Replace them with the ones typed below</option>
            <option value="remove">Remove them</option>
          </select>
        </Field>
      ) : null}
      {f.headersChoice === 'replace' ? (
        <Field label={hasHeaders ? 'New extra headers' : 'Extra headers (optional)'} hint="One a line, as Name: value. Kept encrypted: afterwards only their names are shown.">
          <textarea rows={3} maxLength={20000} value={f.headers} onInput={(e) => setF({ ...f, headers: e.currentTarget.value })} />
        </Field>
      ) : null}
      <fieldset>
        <legend>What to send</legend>
        {FAMILIES.map(([k, label]) => (
          <label class="check" key={k}><input type="checkbox" checked={f.events.includes(k)} onChange={(e) => setF({ ...f, events: e.currentTarget.checked ? [...f.events, k] : f.events.filter((x) => x !== k) })} /> {label}</label>
        ))}
        {/* events set otherwise (one by one) stay as they are unless unticked */}
        {f.events.filter((k) => !FAMILIES.some(([x]) => x === k)).map((k) => (
          <label class="check" key={k}><input type="checkbox" checked onChange={() => setF({ ...f, events: f.events.filter((x) => x !== k) })} /> {k}</label>
        ))}
      </fieldset>
      <div class="row tight">
        <button type="submit" class="primary" disabled={a.busy}>{ep ? 'Save the changes' : 'Add the webhook'}</button>
        {onCancel ? <button type="button" onClick={onCancel}>Cancel</button> : null}
      </div>
    </form>
  );
}

function Webhooks() {
  const list = useLoad(() => ok(client.GET('/webhooks')), []);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [changing, setChanging] = useState<string | null>(null);
  const a = useAction();
  const toggle = (ep: Any) => a.run(async () => { await ok(client.PUT('/webhooks/{id}', { params: { path: { id: ep.id } }, body: { isEnabled: !ep.isEnabled } })); list.reload(); return `${ep.url} is ${ep.isEnabled ? 'paused' : 'on'}.`; });
  const remove = (ep: Any) => a.run(async () => {
    if (!confirm(`Delete the webhook to ${ep.url} and its deliveries?`)) return;
    await ok(client.DELETE('/webhooks/{id}', { params: { path: { id: ep.id } } })); list.reload(); return 'Webhook deleted.';
  });
  const rotate = (ep: Any) => a.run(async () => { const r = (await ok(client.POST('/webhooks/{id}/rotate-secret', { params: { path: { id: ep.id } } }))).data; setSecret({ url: ep.url, secret: r.secret }); list.reload(); });
  const endpoints = list.data?.data ?? [];
  const current = endpoints.find((x) => x.id === chosen);
  const edited = endpoints.find((x) => x.id === changing);
  return (
    <Section title="Webhooks">
      <p class="muted">Rondo calls your address when something happens, signed with a secret only you and Rondo know.</p>
      <ErrorBox error={list.error} />
      {secret ? (
        <div class="notice" role="status" data-testid="webhook-secret">
          <p>The signing secret of {secret.url}. Copy it now: it is not shown again.</p>
          <code>{secret.secret}</code>
          <p><button type="button" onClick={() => setSecret(null)}>I have copied it</button></p>
        </div>
      ) : null}
      <Table<Any> caption="Webhook addresses" rows={endpoints} rowKey={(x) => x.id} empty="None yet." columns={[
        { label: 'Address', cell: (x) => x.url },
        { label: 'Events', cell: (x) => x.events.join(', ') },
        { label: 'Sent with', cell: (x) => [AUTH_WORDS[x.authType ?? ''], ...x.headerNames.map((h: string) => `header ${h}`)].filter(Boolean).join(', ') || '—' },
        { label: 'State', cell: (x) => (x.isEnabled ? 'on' : x.disabledReason ? `paused: ${x.disabledReason}` : 'paused') },
        { label: 'Actions', cell: (x) => (
          <div class="row tight">
            <button type="button" onClick={() => setChosen(x.id)} aria-label={`Deliveries to ${x.url}`}>Deliveries</button>
            <button type="button" onClick={() => setChanging(x.id)} aria-label={`Change ${x.url}`}>Change</button>
            <button type="button" onClick={() => toggle(x)} aria-label={`${x.isEnabled ? 'Pause' : 'Turn on'} ${x.url}`}>{x.isEnabled ? 'Pause' : 'Turn on'}</button>
            <button type="button" onClick={() => rotate(x)} aria-label={`New secret for ${x.url}`}>New secret</button>
            <button type="button" onClick={() => remove(x)} aria-label={`Delete ${x.url}`}>Delete</button>
          </div>
        ) },
      ]} />
      <ErrorBox error={a.error} /><Notice text={a.done} />
      {current ? <Deliveries key={current.id} endpoint={current} /> : null}
      {edited
        ? <WebhookForm key={`${edited.id}-${edited.updatedAt}`} ep={edited} a={a} onSaved={() => { setChanging(null); list.reload(); }} onCancel={() => setChanging(null)} />
        : <WebhookForm key="new" a={a} onSaved={(made) => { if (made) setSecret(made); list.reload(); }} />}
    </Section>
  );
}

function EmailSettings() {
  const loaded = useLoad(() => ok(client.GET('/settings/email')), []);
  return (
    <Section title="Who e-mails come from">
      <ErrorBox error={loaded.error} />
      {loaded.data ? <EmailForm current={loaded.data.data} onSaved={loaded.reload} /> : null}
      {loaded.data ? <SmtpForm smtp={loaded.data.data.smtp} onSaved={loaded.reload} /> : null}
    </Section>
  );
}

function EmailForm({ current, onSaved }: { current: Any; onSaved: () => void }) {
  const [f, setF] = useState({ fromName: current.fromName ?? '', fromEmail: current.fromEmail ?? '', replyTo: current.replyTo ?? '' });
  const a = useAction();
  return (
    <form class="stack narrow" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
      await ok(client.PUT('/settings/email', { body: { fromName: f.fromName.trim() || null, fromEmail: f.fromEmail.trim() || null, replyTo: f.replyTo.trim() || null } }));
      onSaved();
      return 'Saved: the next e-mails use it.';
    }); }}>
      <Field label="Sender name" hint="The name people see the e-mails come from."><input maxLength={100} value={f.fromName} onInput={(e) => setF({ ...f, fromName: e.currentTarget.value })} /></Field>
      <Field label="Sender address (optional)" hint="An address on one of the e-mail domains below; used once that domain is verified."><input type="email" value={f.fromEmail} onInput={(e) => setF({ ...f, fromEmail: e.currentTarget.value })} /></Field>
      <Field label="Replies go to (e-mail)"><input type="email" value={f.replyTo} onInput={(e) => setF({ ...f, replyTo: e.currentTarget.value })} /></Field>
      <ErrorBox error={a.error} /><Notice text={a.done} />
      <div><button type="submit" class="primary" disabled={a.busy}>Save</button></div>
    </form>
  );
}

/** The workspace's own mail server; its password is never shown again, left empty it stays. */
function SmtpForm({ smtp, onSaved }: { smtp: Any | null; onSaved: () => void }) {
  const [f, setF] = useState({ host: smtp?.host ?? '', port: String(smtp?.port ?? 587), username: smtp?.username ?? '', password: '', secure: smtp?.secure ?? false });
  const a = useAction();
  const { ask, dialog } = useConfirm();
  return (
    <form class="stack narrow" aria-labelledby="h-smtp" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
      const body: NonNullable<Body<'/settings/email', 'put'>['smtp']> = { host: f.host.trim(), port: Number(f.port), secure: f.secure, username: f.username.trim() || null };
      if (f.password) body.password = f.password;
      await ok(client.PUT('/settings/email', { body: { smtp: body } }));
      setF({ ...f, password: '' });
      onSaved();
      return 'Saved: e-mails now leave through this mail server.';
    }); }}>
      <h3 id="h-smtp">Your own mail server (optional)</h3>
      <p class="muted">{smtp ? `E-mails leave through ${smtp.host}:${smtp.port}${smtp.passwordSet ? ', with the saved password' : ''}.` : "E-mails leave through Rondo's mail server. Give your own (SMTP) to send through it."}</p>
      <Field label="Mail server (SMTP host)"><input required maxLength={253} value={f.host} onInput={(e) => setF({ ...f, host: e.currentTarget.value })} /></Field>
      <Field label="Port" hint="587 or 25 (STARTTLS when offered), 465 (TLS from the start), 2525."><input required inputMode="numeric" pattern="\d{1,5}" value={f.port} onInput={(e) => setF({ ...f, port: e.currentTarget.value })} /></Field>
      <label class="check"><input type="checkbox" checked={f.secure} onChange={(e) => setF({ ...f, secure: e.currentTarget.checked })} /> TLS from the start (port 465)</label>
      <Field label="User name (optional)"><input maxLength={320} autoComplete="off" value={f.username} onInput={(e) => setF({ ...f, username: e.currentTarget.value })} /></Field>
      <Field label="Password" hint={smtp?.passwordSet ? 'A password is saved; it is never shown. Leave this empty to keep it.' : undefined}><input type="password" maxLength={1000} autoComplete="new-password" value={f.password} onInput={(e) => setF({ ...f, password: e.currentTarget.value })} /></Field>
      <ErrorBox error={a.error} /><Notice text={a.done} />
      <div class="row tight">
        <button type="submit" class="primary" disabled={a.busy}>Use this mail server</button>
        {smtp ? <button type="button" class="danger" onClick={() => ask({ title: 'Stop using your mail server?', action: 'Stop using it', body: <p>E-mails will leave through Rondo's mail server again; the saved password is deleted.</p>, run: async () => { await ok(client.PUT('/settings/email', { body: { smtp: null } })); setF({ host: '', port: '587', username: '', password: '', secure: false }); onSaved(); } })}>Stop using it…</button> : null}
      </div>
      {dialog}
    </form>
  );
}

const PURPOSE: Record<string, string> = { verification: 'Proves the domain is yours', dkim: 'Signs the e-mails (DKIM)', spf: 'Allows Rondo to send for the domain (SPF; recommended, not required)' };

/** Sender domains: the DNS records to publish, then a check that they are found. */
function EmailDomains() {
  const list = useLoad(() => ok(client.GET('/email-domains')), []);
  const [domain, setDomain] = useState('');
  const a = useAction();
  const { ask, dialog } = useConfirm();
  return (
    <Section title="E-mail domains">
      <p>Send e-mails from your own domain: add it, publish the DNS records shown at your DNS provider, then “Check the records”. Once verified, e-mails can come from an address on it and are signed for it.</p>
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.POST('/email-domains', { body: { domain: domain.trim() } }));
        setDomain(''); list.reload();
        return 'Domain added: publish its records below, then check them.';
      }); }}>
        <Field label="Domain (for example mail.yourlabel.com)"><input required maxLength={253} value={domain} onInput={(e) => setDomain(e.currentTarget.value)} /></Field>
        <button type="submit" class="primary" disabled={a.busy}>Add the domain</button>
      </form>
      {(list.data?.data ?? []).map((d) => (
        <div class="stack" key={d.id} data-testid={`email-domain-${d.domain}`}>
          <h3>{d.domain}: {d.status === 'verified' ? 'verified' : 'waiting for its records'}</h3>
          {d.lastError ? <p class="muted">Last check: {d.checks ? `ownership ${d.checks.verification ? 'found' : 'not found'}, signing key ${d.checks.dkim ? 'found' : 'not found'}, SPF ${d.checks.spf ? 'found' : 'not found'}` : 'records not found'}.</p> : null}
          <Table caption={`DNS records to publish for ${d.domain}`} rows={d.records as Any[]} rowKey={(r) => r.purpose} columns={[
            { label: 'Purpose', cell: (r) => PURPOSE[r.purpose] ?? r.purpose },
            { label: 'Type', cell: (r) => r.type },
            { label: 'Name', cell: (r) => <code class="wrap-any">{r.name}</code> },
            { label: 'Value', cell: (r) => <code class="wrap-any">{r.value}</code> },
          ]} />
          <div class="row tight">
            <button type="button" disabled={a.busy} onClick={() => a.run(async () => {
              const r = (await ok(client.POST('/email-domains/{domainId}/verify', { params: { path: { domainId: d.id } } }))).data;
              list.reload();
              return r.status === 'verified' ? `${d.domain} is verified.` : `${d.domain}: not every record was found yet. DNS changes can take a while to appear.`;
            })}>Check the records</button>
            <button type="button" class="danger" onClick={() => ask({ title: `Remove ${d.domain}?`, action: 'Remove', body: <p>E-mails will no longer come from this domain; its signing key is deleted.</p>, run: async () => { await ok(client.DELETE('/email-domains/{domainId}', { params: { path: { domainId: d.id } } })); list.reload(); } })}>Remove…</button>
          </div>
        </div>
      ))}
      {dialog}
    </Section>
  );
}

/**
 * Other addresses e-mailed links may lead to: a label with its own site (where people sign in,
 * accept invitations or reset passwords) lists that site here; anything else is refused.
 */
function RedirectOrigins() {
  const loaded = useLoad(() => ok(client.GET('/settings/redirect-origins')), []);
  const [origin, setOrigin] = useState('');
  const a = useAction();
  const d = loaded.data?.data;
  const save = (origins: string[], done: string) => a.run(async () => {
    await ok(client.PUT('/settings/redirect-origins', { body: { origins } }));
    loaded.reload();
    return done;
  });
  return (
    <Section title="Your own sites in e-mailed links">
      <p>Links in invitations, sign-in and password e-mails lead to Rondo{d ? ` (${new URL(d.publicUrl).origin})` : ''}. If people sign in through a site of your own, add its address here: e-mailed links may then lead there too. Any other address is refused.</p>
      <ErrorBox error={loaded.error ?? a.error} /><Notice text={a.done} />
      {d ? (
        <Table<string> caption="Your own sites" rows={d.origins} rowKey={(o) => o} empty="None: links lead to Rondo only." columns={[
          { label: 'Address', cell: (o) => <code class="wrap-any">{o}</code> },
          { label: 'Actions', cell: (o) => <button type="button" disabled={a.busy} aria-label={`Remove ${o}`} onClick={() => save(d.origins.filter((x) => x !== o), `${o} removed: links no longer lead there.`)}>Remove</button> },
        ]} />
      ) : null}
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); if (d) void save([...d.origins, origin.trim()], `${origin.trim()} added.`).then(() => setOrigin('')); }}>
        <Field label="Address of your site" hint="Its start only, such as https://royalties.yourlabel.com (no page after it)."><input type="url" required maxLength={300} value={origin} onInput={(e) => setOrigin(e.currentTarget.value)} /></Field>
        <button type="submit" class="primary" disabled={a.busy || !d}>Add the site</button>
      </form>
    </Section>
  );
}

export function SettingsPage() {
  return (
    <>
      <h1>Workspace settings</h1>
      <BrandingSettings />
      <Webhooks />
      <EmailSettings />
      <EmailDomains />
      <EmailTemplates />
      <RedirectOrigins />
    </>
  );
}

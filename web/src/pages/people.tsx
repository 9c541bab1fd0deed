/**
 * People: the workspace's members with their roles, the invitations still open (send again,
 * cancel), and payees who do not sign in (a name, the e-mail their statements go to, payment
 * details), who can be named in splits and invited later.
 */
import { useState } from 'preact/hooks';
import { client, ok, type Body } from '../api';
import { useApp } from '../state';
import { ErrorBox, Field, Loading, Notice, Section, Table, date, useAction, useLoad } from '../ui';

type Member = { id: string; userId: string; email: string; firstName: string | null; lastName: string | null; role: string; status: string; createdAt: string; updatedAt: string };

/** The roles, in people's words. */
export const ROLE_WORDS: Record<string, string> = {
  owner: 'Owner — everything, including other owners',
  admin: 'Admin — runs the workspace',
  user: 'Payee — sees their own earnings and statements',
  guest: 'Guest — sees their own earnings only',
};
const ROLES = ['user', 'admin', 'owner', 'guest'];
const ROLE_SHORT: Record<string, string> = { owner: 'Owner', admin: 'Admin', user: 'Payee', guest: 'Guest' };

const nameOf = (m: Member) => [m.firstName, m.lastName].filter(Boolean).join(' ');

function RoleSelect(p: { member: Member; onChange: (role: string) => void; disabled?: boolean }) {
  return (
    <label class="field inline"><span class="visually-hidden">Role of {p.member.email}</span>
      <select value={p.member.role} disabled={p.disabled} onChange={(e) => p.onChange(e.currentTarget.value)}>
        {ROLES.map((r) => <option key={r} value={r}>{ROLE_SHORT[r]}</option>)}
      </select>
    </label>
  );
}

export function PeoplePage() {
  const { me } = useApp();
  const list = useLoad(() => ok(client.GET('/user/', { params: { query: { size: 200 } } })), []);
  const a = useAction();
  const [f, setF] = useState({ email: '', firstName: '', lastName: '', role: 'user' });
  const all = list.data?.data ?? [];
  const members = all.filter((m) => m.status === 'active' || m.status === 'disabled');
  const invited = all.filter((m) => m.status === 'invited');
  const listed = all.filter((m) => m.status === 'not_invited');

  const setRole = (m: Member, role: string) => a.run(async () => {
    await ok(client.PATCH('/user/{id}', { params: { path: { id: m.id } }, body: { role: role as Body<'/user/{id}', 'patch'>['role'] } }));
    list.reload();
    return `${m.email} is now ${ROLE_SHORT[role]!.toLowerCase()}.`;
  });
  const remove = (m: Member) => a.run(async () => {
    if (!confirm(`Remove ${m.email} from the workspace? They can no longer sign in to it.`)) return;
    await ok(client.DELETE('/user/{id}', { params: { path: { id: m.id } } }));
    list.reload();
    return `${m.email} was removed from the workspace.`;
  });
  const resend = (m: Member) => a.run(async () => {
    await ok(client.POST('/user/{id}/invitation', { params: { path: { id: m.id } } }));
    list.reload();
    return `The invitation was sent to ${m.email} again, with a new link. The earlier link no longer works.`;
  });
  const cancel = (m: Member) => a.run(async () => {
    if (!confirm(`Cancel the invitation of ${m.email}? Its link stops working.`)) return;
    await ok(client.DELETE('/user/{id}', { params: { path: { id: m.id } } }));
    list.reload();
    return `The invitation of ${m.email} was cancelled.`;
  });
  const invite = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      const body: Body<'/user/', 'post'> = { email: f.email.trim(), role: f.role as Body<'/user/', 'post'>['role'] };
      if (f.firstName.trim()) body.firstName = f.firstName.trim();
      if (f.lastName.trim()) body.lastName = f.lastName.trim();
      await ok(client.POST('/user/', { body }));
      list.reload();
      setF({ email: '', firstName: '', lastName: '', role: f.role });
      return `Invitation sent to ${body.email}. They join once they follow the link in the e-mail.`;
    });
  };

  return (
    <>
      <h1>People</h1>
      <Loading show={list.loading && !list.data} /><ErrorBox error={list.error} />
      <ErrorBox error={a.error} /><Notice text={a.done} />
      <Section title="Invite someone">
        <form class="stack" onSubmit={invite}>
          <div class="row wrap">
            <Field label="E-mail"><input type="email" required autoComplete="off" value={f.email} onInput={(e) => setF({ ...f, email: e.currentTarget.value })} /></Field>
            <Field label="First name (optional)"><input value={f.firstName} onInput={(e) => setF({ ...f, firstName: e.currentTarget.value })} /></Field>
            <Field label="Last name (optional)"><input value={f.lastName} onInput={(e) => setF({ ...f, lastName: e.currentTarget.value })} /></Field>
          </div>
          <fieldset>
            <legend>Role</legend>
            {ROLES.map((r) => (
              <label class="check" key={r}><input type="radio" name="invite-role" value={r} checked={f.role === r} onChange={() => setF({ ...f, role: r })} /> {ROLE_WORDS[r]}</label>
            ))}
          </fieldset>
          <p class="muted">They get an e-mail with a link: following it, they choose a password (or use the one they have) and are signed in to this workspace.</p>
          <div><button type="submit" class="primary" disabled={a.busy}>Send the invitation</button></div>
        </form>
      </Section>
      <ListedPayees listed={listed} busy={a.busy} run={a.run} onChange={list.reload} />
      <Section title="Invitations waiting">
        <Table<Member> caption="Invitations not yet accepted" rows={invited} rowKey={(m) => m.id} empty="No invitation is waiting." columns={[
          { label: 'E-mail', cell: (m) => m.email },
          { label: 'Name', cell: (m) => nameOf(m) || '—' },
          { label: 'Role', cell: (m) => <RoleSelect member={m} disabled={a.busy} onChange={(r) => setRole(m, r)} /> },
          { label: 'Invited', cell: (m) => date(m.createdAt) },
          { label: 'Actions', cell: (m) => (
            <div class="row tight">
              <button type="button" disabled={a.busy} onClick={() => resend(m)} aria-label={`Send again the invitation of ${m.email}`}>Send again</button>
              <button type="button" disabled={a.busy} onClick={() => cancel(m)} aria-label={`Cancel the invitation of ${m.email}`}>Cancel</button>
            </div>
          ) },
        ]} />
      </Section>
      <Section title="Members">
        <Table<Member> caption="Members of the workspace" rows={members} rowKey={(m) => m.id} columns={[
          { label: 'Name', cell: (m) => nameOf(m) || '—' },
          { label: 'E-mail', cell: (m) => m.email },
          { label: 'Role', cell: (m) => (m.id === me.id ? ROLE_SHORT[m.role] ?? m.role : <RoleSelect member={m} disabled={a.busy} onChange={(r) => setRole(m, r)} />) },
          { label: 'Access', cell: (m) => <span class={`badge s-${m.status}`}>{m.status === 'disabled' ? 'blocked' : m.status}</span> },
          { label: 'Since', cell: (m) => date(m.createdAt) },
          { label: 'Remove', cell: (m) => (m.id === me.id ? '—' : <button type="button" disabled={a.busy} onClick={() => remove(m)} aria-label={`Remove ${m.email}`}>Remove</button>) },
        ]} />
        <p class="muted">Roles: {ROLES.map((r) => ROLE_WORDS[r]).join('; ')}.</p>
      </Section>
    </>
  );
}

/** How a payee is paid, and the details each way needs (also the payee's own page). */
export const METHODS: { key: string; label: string; fields: [string, string][] }[] = [
  { key: '', label: 'None yet', fields: [] },
  { key: 'bank_transfer', label: 'Bank transfer', fields: [['accountHolder', 'Account holder'], ['iban', 'IBAN or account number'], ['bic', 'Bank code (BIC)']] },
  { key: 'paypal', label: 'PayPal', fields: [['email', 'PayPal e-mail']] },
  { key: 'other', label: 'Other', fields: [['instructions', 'How to pay them']] },
];

type Setting = { id: string; user: string; method: string; details: Record<string, string>; isDefault: boolean };

/** Payees listed without an invitation: add one (with payment details), invite later, remove. */
function ListedPayees(p: { listed: Member[]; busy: boolean; run: (fn: () => Promise<string | void>) => Promise<void>; onChange: () => void }) {
  const settings = useLoad(() => ok(client.GET('/payment-setting', { params: { query: { size: 200 } } })), [p.listed.length]);
  const [f, setF] = useState({ firstName: '', lastName: '', email: '', method: '', details: {} as Record<string, string> });
  const method = METHODS.find((m) => m.key === f.method)!;
  const payoutOf = (m: Member) => {
    const s = settings.data?.data.find((x) => x.user === m.id && x.isDefault) ?? settings.data?.data.find((x) => x.user === m.id);
    return s ? `${METHODS.find((x) => x.key === s.method)?.label ?? s.method} ${Object.values(s.details).join(' ')}` : 'None yet';
  };
  const add = (e: Event) => {
    e.preventDefault();
    p.run(async () => {
      const body: Body<'/user/', 'post'> = { email: f.email.trim(), firstName: f.firstName.trim(), role: 'user', invite: false };
      if (f.lastName.trim()) body.lastName = f.lastName.trim();
      const made = (await ok(client.POST('/user/', { body }))).data;
      const details = Object.fromEntries(Object.entries(f.details).filter(([k, v]) => v.trim() && method.fields.some(([fk]) => fk === k)).map(([k, v]) => [k, v.trim()]));
      if (f.method && Object.keys(details).length) await ok(client.POST('/payment-setting', { body: { user: made.id, method: f.method as Body<'/payment-setting', 'post'>['method'], details } }));
      p.onChange();
      settings.reload();
      setF({ firstName: '', lastName: '', email: '', method: '', details: {} });
      return `${[body.firstName, body.lastName].filter(Boolean).join(' ')} was added. Name them in splits now; their statements go to ${body.email}.`;
    });
  };
  const invite = (m: Member) => p.run(async () => {
    await ok(client.POST('/user/{id}/invitation', { params: { path: { id: m.id } } }));
    p.onChange();
    return `${m.email} was invited to sign in. Everything already about them stays.`;
  });
  const remove = (m: Member) => p.run(async () => {
    if (!confirm(`Remove ${nameOf(m) || m.email} from the workspace?`)) return;
    await ok(client.DELETE('/user/{id}', { params: { path: { id: m.id } } }));
    p.onChange();
    return `${nameOf(m) || m.email} was removed.`;
  });
  return (
    <Section title="Payees who do not sign in">
      <p class="muted">An artist or writer you pay who has no login: their statements are e-mailed to them, and you can name them in splits. Invite them later to let them sign in; nothing about them is lost.</p>
      <ErrorBox error={settings.error} />
      <Table<Member> caption="Payees without a login" rows={p.listed} rowKey={(m) => m.id} empty="None yet." columns={[
        { label: 'Name', cell: (m) => nameOf(m) || '—' },
        { label: 'E-mail for statements', cell: (m) => m.email },
        { label: 'Payment', cell: payoutOf },
        { label: 'Actions', cell: (m) => (
          <div class="row tight">
            <button type="button" disabled={p.busy} onClick={() => invite(m)} aria-label={`Invite to sign in: ${m.email}`}>Invite to sign in</button>
            <button type="button" disabled={p.busy} onClick={() => remove(m)} aria-label={`Remove ${m.email}`}>Remove</button>
          </div>
        ) },
      ]} />
      <form class="stack" onSubmit={add}>
        <h3>Add a payee</h3>
        <div class="row wrap">
          <Field label="Payee first name"><input required value={f.firstName} onInput={(e) => setF({ ...f, firstName: e.currentTarget.value })} /></Field>
          <Field label="Payee last name (optional)"><input value={f.lastName} onInput={(e) => setF({ ...f, lastName: e.currentTarget.value })} /></Field>
          <Field label="E-mail for statements"><input type="email" required value={f.email} onInput={(e) => setF({ ...f, email: e.currentTarget.value })} /></Field>
        </div>
        <div class="row wrap">
          <Field label="How they are paid">
            <select value={f.method} onChange={(e) => setF({ ...f, method: e.currentTarget.value, details: {} })}>
              {METHODS.map((m) => <option key={m.key} value={m.key}>{m.label}</option>)}
            </select>
          </Field>
          {method.fields.map(([k, label]) => (
            <Field key={k} label={label}><input value={f.details[k] ?? ''} onInput={(e) => setF({ ...f, details: { ...f.details, [k]: e.currentTarget.value } })} /></Field>
          ))}
        </div>
        <div><button type="submit" class="primary" disabled={p.busy}>Add the payee</button></div>
      </form>
    </Section>
  );
}

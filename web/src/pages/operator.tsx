/**
 * Operator (super-admins only): every workspace with its plan, state and usage; one workspace's
 * members, usage against limits, plan and subscription state, suspension; a person's account
 * erasure, its plan previewed before it runs, then the job followed to its end.
 */
import { useEffect, useState } from 'preact/hooks';
import { client, ok } from '../api';
import { useConfirm } from '../confirm';
import { date, ErrorBox, Field, Loading, Notice, Pager, SearchBox, Section, Table, useAction, useLoad } from '../ui';

type Any = Record<string, any>;
const SIZE = 20;
const STATES = ['trialing', 'active', 'past_due', 'canceled'] as const;
const STATE_WORDS: Record<string, string> = { trialing: 'trial', active: 'paying', past_due: 'payment overdue', canceled: 'cancelled' };
const ACTION_WORDS: Record<string, string> = { delete: 'deleted', anonymise: 'anonymised (names and addresses replaced)', redact: 'redacted (the person removed from the text)' };

function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return 'no limit';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${i ? v.toFixed(1) : v} ${units[i]}`;
}
const limit = (n: number | null | undefined) => (n === null || n === undefined ? 'no limit' : n.toLocaleString());
const name = (u: Any) => [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email;

function Workspaces({ onOpen }: { onOpen: (t: Any) => void }) {
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [q]);
  const list = useLoad(() => ok(client.GET('/godmin/tenants', { params: { query: { q: q.trim() || undefined, page, limit: SIZE } } })), [q, page]);
  const total = list.data?.data.total ?? 0;
  return (
    <Section title="Workspaces">
      <ErrorBox error={list.error} />
      <SearchBox label="Search workspaces (name, custom domain or number)" value={q} onInput={setQ} />
      <Table caption="Workspaces" rows={list.data?.data.items} rowKey={(r) => String(r.tenantId)} empty={list.loading ? 'Loading…' : 'No workspace matches.'} columns={[
        { label: 'Workspace', cell: (r) => <button type="button" aria-label={`Open ${r.name}`} onClick={() => onOpen(r)}>{r.name}</button> },
        { label: 'Number', cell: (r) => r.tenantId, num: true },
        { label: 'Plan', cell: (r) => r.plan },
        { label: 'Subscription', cell: (r) => STATE_WORDS[r.subscriptionState] ?? r.subscriptionState },
        { label: 'State', cell: (r) => (r.status === 'active' ? 'open' : 'suspended') },
        { label: 'Members', cell: (r) => r.members, num: true },
        { label: 'Since', cell: (r) => date(r.createdAt) },
      ]} />
      <Pager page={page} total={total} size={SIZE} onPage={setPage} label="Workspaces pages" noun={['workspace', 'workspaces']} />
    </Section>
  );
}

function Usage({ s }: { s: Any }) {
  return (
    <Table caption="Usage against the plan's limits" rows={[
      { what: 'Statement lines this month', used: s.usage.statementLinesPerMonth.toLocaleString(), max: limit(s.limits.statementLinesPerMonth) },
      { what: 'Members', used: s.usage.members.toLocaleString(), max: limit(s.limits.members) },
      { what: 'Stored files', used: bytes(s.usage.storageBytes), max: bytes(s.limits.storageBytes) },
    ]} rowKey={(r) => r.what} columns={[
      { label: 'What', cell: (r) => r.what }, { label: 'Used', cell: (r) => r.used, num: true }, { label: 'Limit', cell: (r) => r.max, num: true },
    ]} />
  );
}

function Subscription({ tenant, onChanged }: { tenant: Any; onChanged: () => void }) {
  const sub = useLoad(() => ok(client.GET('/godmin/tenants/{tenantId}/subscription', { params: { path: { tenantId: tenant.tenantId } } })), [tenant.tenantId]);
  const plans = useLoad(() => ok(client.GET('/billing/plans')), []);
  const [f, setF] = useState({ plan: '', state: '' });
  const a = useAction();
  const s = sub.data?.data;
  useEffect(() => { if (s) setF({ plan: s.plan, state: s.state }); }, [s]);
  return (
    <Section title="Plan and usage">
      <ErrorBox error={sub.error ?? plans.error ?? a.error} /><Notice text={a.done} />
      <Loading show={sub.loading && !s} />
      {s ? (
        <>
          <p data-testid="billing-state">
            {s.billing
              ? `Plans and limits apply on this installation. Plan ${s.plan} (${STATE_WORDS[s.state] ?? s.state}); the features of plan ${s.effectivePlan} apply now. Period ${s.period.start} to ${s.period.end}.`
              : `Plans and limits are turned off on this installation: every workspace has every feature and no limit. The plan and subscription state below are kept, but change nothing until billing is turned on.`}
          </p>
          <Usage s={s} />
          <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
            const body: Any = {};
            if (f.plan !== s.plan) body.plan = f.plan;
            if (f.state !== s.state) body.state = f.state;
            if (!Object.keys(body).length) return 'Nothing changed.';
            await ok(client.PUT('/godmin/tenants/{tenantId}/subscription', { params: { path: { tenantId: tenant.tenantId } }, body }));
            sub.reload(); onChanged();
            return `Saved: plan ${f.plan}, subscription ${STATE_WORDS[f.state] ?? f.state}.`;
          }); }}>
            <Field label="Plan">
              <select value={f.plan} onChange={(e) => setF({ ...f, plan: e.currentTarget.value })}>
                {(plans.data?.data ?? [{ code: s.plan, name: s.plan }]).map((p) => <option key={p.code} value={p.code}>{p.name}</option>)}
              </select>
            </Field>
            <Field label="Subscription">
              <select value={f.state} onChange={(e) => setF({ ...f, state: e.currentTarget.value })}>
                {STATES.map((x) => <option key={x} value={x}>{STATE_WORDS[x]}</option>)}
              </select>
            </Field>
            <button type="submit" class="primary" disabled={a.busy}>Save plan</button>
          </form>
        </>
      ) : null}
    </Section>
  );
}

function Suspension({ tenant, onChanged }: { tenant: Any; onChanged: (status: string) => void }) {
  const [reason, setReason] = useState('');
  const a = useAction();
  const { ask, dialog } = useConfirm();
  const open = tenant.status === 'active';
  const act = (action: 'suspend' | 'reactivate') => (async () => { const at = { params: { path: { tenantId: tenant.tenantId } }, body: reason.trim() ? { reason: reason.trim() } : {} }; return action === 'suspend' ? ok(client.POST('/godmin/tenants/{tenantId}/suspend', at)) : ok(client.POST('/godmin/tenants/{tenantId}/reactivate', at)); })();
  return (
    <Section title="Open or suspended">
      <ErrorBox error={a.error} /><Notice text={a.done} />
      <p>{open ? 'The workspace is open.' : 'The workspace is suspended: its members cannot use it and its API keys are refused until it is reactivated.'}</p>
      <div class="row wrap">
        <Field label="Reason (kept in the audit log)"><input maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} /></Field>
        {open
          ? <button type="button" class="danger" onClick={() => ask({ title: `Suspend ${tenant.name}?`, action: 'Suspend', body: <p>Its members can no longer use it and its API keys are refused until it is reactivated. Nothing is deleted.</p>, run: async () => { const r = await act('suspend'); onChanged(r.data.status); } })}>Suspend…</button>
          : <button type="button" class="primary" disabled={a.busy} onClick={() => a.run(async () => { const r = await act('reactivate'); onChanged(r.data.status); return 'The workspace is open again.'; })}>Reactivate</button>}
      </div>
      {dialog}
    </Section>
  );
}

function ErasurePlan({ plan }: { plan: Any }) {
  return (
    <div class="stack" data-testid="erasure-plan">
      <Table caption="What is erased" rows={plan.tables as Any[]} rowKey={(r) => r.table} empty="Nothing left to erase." columns={[
        { label: 'Records', cell: (r) => r.table.replace(/_/g, ' ') },
        { label: 'Rows', cell: (r) => r.rows, num: true },
        { label: 'What happens', cell: (r) => ACTION_WORDS[r.action] ?? r.action },
      ]} />
      <Table caption="What is kept, and why" rows={plan.retained as Any[]} rowKey={(r) => r.table} empty="Nothing is kept." columns={[
        { label: 'Records', cell: (r) => r.table.replace(/_/g, ' ') },
        { label: 'Rows', cell: (r) => r.rows, num: true },
        { label: 'Why', cell: (r) => r.reason },
      ]} />
      <ul>
        <li>{plan.apiKeys.length} API {plan.apiKeys.length === 1 ? 'key' : 'keys'} revoked</li>
        <li>{plan.cacheKeys.reduce((n: number, c: Any) => n + c.entries, 0)} cached entries dropped</li>
        <li>{plan.storedObjects.length} stored {plan.storedObjects.length === 1 ? 'file' : 'files'} deleted</li>
        <li>{plan.externalDeliveries.length} outgoing {plan.externalDeliveries.length === 1 ? 'message' : 'messages'} (webhooks, e-mails) stopped or cleaned</li>
      </ul>
    </div>
  );
}

function ErasureJob({ jobId }: { jobId: string }) {
  const [job, setJob] = useState<Any | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const j = (await ok(client.GET('/godmin/account-erasure/jobs/{jobId}', { params: { path: { jobId } } }))).data;
        if (!live) return;
        setJob(j);
        if (j.status === 'queued' || j.status === 'running') timer = setTimeout(poll, 1000);
      } catch (e) {
        if (live) setError(e);
      }
    };
    void poll();
    return () => { live = false; clearTimeout(timer); };
  }, [jobId]);
  const words: Record<string, string> = { queued: 'Waiting to start…', running: 'Erasing…', completed: 'Erased.', failed: 'The erasure failed; nothing was erased.' };
  return (
    <div class="stack" aria-live="polite">
      <ErrorBox error={error} />
      {job ? <p role="status" data-testid="erasure-status"><strong>{words[job.status]}</strong>{job.error ? ` ${job.error}` : ''}</p> : <Loading show />}
      {job?.result ? (
        <Table caption="Rows erased" rows={Object.entries(job.result.erased as Record<string, number>)} rowKey={([t]) => t} columns={[
          { label: 'Records', cell: ([t]) => t.replace(/_/g, ' ') }, { label: 'Rows', cell: ([, n]) => n, num: true },
        ]} />
      ) : null}
    </div>
  );
}

/** A person's erasure: preview (the plan), confirm, then the job's progress. */
function Erasure({ person, onClose }: { person: Any; onClose: () => void }) {
  const preview = useLoad(() => ok(client.POST('/godmin/account-erasure/preview', { body: { userId: person.id } })), [person.id]);
  const [jobId, setJobId] = useState<string | null>(null);
  const a = useAction();
  const { ask, dialog } = useConfirm();
  const plan = preview.data;
  return (
    <Section title={`Erase ${name(person)}`} actions={<button type="button" onClick={onClose}>Close</button>}>
      <p>Erasing removes this person from every workspace: their account, sign-ins, settings and messages go; financial records stay, with the name replaced, because the accounts of the workspaces must still add up.</p>
      <ErrorBox error={preview.error ?? a.error} />
      <Loading show={preview.loading} />
      {plan && !jobId ? (
        <>
          <ErasurePlan plan={plan} />
          {plan.empty
            ? <p>There is nothing left to erase for this person.</p>
            : <button type="button" class="danger" onClick={() => ask({
                title: `Erase ${name(person)}?`, action: 'Erase for good',
                body: <p>{person.email} will be erased as listed. This cannot be undone.</p>,
                run: async () => {
                  try {
                    setJobId((await ok(client.POST('/godmin/account-erasure/execute', { body: { userId: person.id, planHash: plan.planHash } }))).data.jobId);
                  } catch (e) {
                    if ((e as Any).code === 'PLAN_CHANGED') preview.reload(); // the new plan is shown to confirm again
                    throw e;
                  }
                },
              })}>Erase this person…</button>}
        </>
      ) : null}
      {jobId ? <ErasureJob jobId={jobId} /> : null}
      {dialog}
    </Section>
  );
}

function Members({ tenant, onErase }: { tenant: Any; onErase: (p: Any) => void }) {
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [q]);
  const list = useLoad(() => ok(client.GET('/godmin/users', { params: { query: { tenantId: tenant.tenantId, q: q.trim() || undefined, page, limit: SIZE } } })), [tenant.tenantId, q, page]);
  const role = (u: Any) => u.memberships.find((m: Any) => m.tenantId === tenant.tenantId)?.role ?? '—';
  return (
    <Section title="Members">
      <ErrorBox error={list.error} />
      <SearchBox label="Search members (e-mail or name)" value={q} onInput={setQ} />
      <Table caption="Members" rows={list.data?.data.items} rowKey={(r) => r.id} empty={list.loading ? 'Loading…' : 'No member matches.'} columns={[
        { label: 'Person', cell: (r) => name(r) },
        { label: 'E-mail', cell: (r) => r.email },
        { label: 'Role', cell: (r) => role(r) },
        { label: 'Workspaces', cell: (r) => r.memberships.length, num: true },
        { label: 'Erase', cell: (r) => (r.isSuperAdmin ? <span class="muted">super-admin</span> : <button type="button" aria-label={`Erase ${r.email}…`} onClick={() => onErase(r)}>Erase…</button>) },
      ]} />
      <Pager page={page} total={list.data?.data.total ?? 0} size={SIZE} onPage={setPage} label="Members pages" noun={['member', 'members']} />
    </Section>
  );
}

function Workspace({ tenant, onBack }: { tenant: Any; onBack: () => void }) {
  const [t, setT] = useState(tenant);
  const [erasing, setErasing] = useState<Any | null>(null);
  return (
    <>
      <p><button type="button" onClick={onBack}>← All workspaces</button></p>
      <h2>{t.name} <span class="muted">· workspace {t.tenantId} · {t.members} {t.members === 1 ? 'member' : 'members'}{t.customDomain ? ` · ${t.customDomain}` : ''}</span></h2>
      <Subscription tenant={t} onChanged={() => undefined} />
      <Suspension tenant={t} onChanged={(status) => setT({ ...t, status })} />
      {erasing ? <Erasure key={erasing.id} person={erasing} onClose={() => setErasing(null)} /> : null}
      <Members key={erasing ? 'with' : 'without'} tenant={t} onErase={setErasing} />
    </>
  );
}

export function OperatorPage() {
  const [open, setOpen] = useState<Any | null>(null);
  return (
    <div class="stack">
      <h1>Operator</h1>
      <p class="muted">Every workspace of this installation. Only super-admins see this page; searches of people and every change are kept in the audit log.</p>
      {open ? <Workspace key={open.tenantId} tenant={open} onBack={() => setOpen(null)} /> : <Workspaces onOpen={setOpen} />}
    </div>
  );
}

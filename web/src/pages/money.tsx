/**
 * Money: payees' balances and statements, expenses, payment requests (approve/decline), payments;
 * every list a page of the server's (20 rows, a pager when there are more).
 */
import { useState } from 'preact/hooks';
import { client, download, json, ok, type Answer } from '../api';
import { ErrorBox, Field, Loading, Notice, Pager, Section, Table, date, money, useAction, useLoad } from '../ui';
import { localDate, localMoney } from '../words';
import { PeriodsAndRuns } from './periods';

type Member = Answer<'/user/'>['data'][number];
export type Stats = Answer<'/accounting/{id}/stats'>['data'];
type PaymentRequest = Answer<'/payment-request/'>['data'][number];

const PAGE = 20;
/** One page of a list route (`load` calls it with the page asked for), with its pager. */
function usePaged<T extends { pagination?: { total: number } }>(load: (query: { page: number; size: number }) => Promise<T>, deps: unknown[]) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => load({ page, size: PAGE }), [page, ...deps]);
  const total = list.data?.pagination?.total ?? 0;
  const pager = (label: string, noun: [string, string]) => (total > PAGE ? <Pager page={page} size={PAGE} total={total} onPage={setPage} label={label} noun={noun} /> : null);
  return { list, pager };
}

export const memberName = (m: Member | undefined, id?: string) => (m ? [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email : id ?? '—');

/** Every month from first to last (YYYY-MM), newest first. */
export function periodsBetween(first: string | null, last: string | null): string[] {
  if (!first || !last) return [];
  const out: string[] = [];
  let [y, m] = first.split('-').map(Number);
  const [ly, lm] = last.split('-').map(Number);
  while ((y < ly || (y === ly && m <= lm)) && out.length < 240) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
    m++;
    if (m > 12) { m = 1; y++; }
  }
  return out.reverse();
}

/** A period picker and the statement downloads (PDF, CSV) of one payee. */
export function StatementDownload({ stats, label }: { stats: Stats; label: string }) {
  const periods = periodsBetween(stats.firstPeriod, stats.lastPeriod);
  const [period, setPeriod] = useState(periods[0] ?? '');
  const a = useAction();
  if (!periods.length) return <span class="muted">No statement yet</span>;
  const get = (format: 'pdf' | 'csv') => a.run(() => download(`/accounting/statement/${stats.user}?period=${period}&format=${format}`, `statement-${period}.${format}`));
  return (
    <div class="row tight">
      <label class="field inline"><span class="visually-hidden">Statement period for {label}</span>
        <select value={period} onChange={(e) => setPeriod(e.currentTarget.value)}>{periods.map((p) => <option key={p}>{p}</option>)}</select>
      </label>
      <button type="button" onClick={() => get('pdf')} aria-label={`Download the ${period} statement of ${label} as PDF`}>PDF</button>
      <button type="button" onClick={() => get('csv')} aria-label={`Download the ${period} statement of ${label} as CSV`}>CSV</button>
      <ErrorBox error={a.error} />
    </div>
  );
}

/** The balances of one page of members (their figures asked for that page only). */
function Balances({ gen }: { gen: number }) {
  const due = useLoad(() => ok(client.GET('/accounting/gettotaldue')), [gen]);
  const { list: people, pager } = usePaged((query) => ok(client.GET('/user/', { params: { query } })), [gen]);
  const onPage = people.data?.data ?? [];
  const stats = useLoad(() => Promise.all(onPage.map((x) => ok(client.GET('/accounting/{id}/stats', { params: { path: { id: x.id } } })).then((r) => r.data))), [onPage.map((x) => x.id).join(), gen]);
  const byId = new Map(onPage.map((m) => [m.id as string, m as Member]));
  return (
    <Section title="Balances">
      {due.data ? <p>Total due: <strong>{localMoney(due.data.data.totalDue, due.data.data.currency)}</strong> to {due.data.data.payeesOwed} payees</p> : null}
      <Loading show={people.loading || stats.loading} /><ErrorBox error={people.error ?? stats.error ?? due.error} />
      <Table caption="Payee balances" rows={stats.data} rowKey={(s) => s.user} columns={[
        { label: 'Payee', cell: (s) => memberName(byId.get(s.user), s.user) },
        { label: 'Earnings', cell: (s) => localMoney(s.earnings, s.currency), num: true },
        { label: 'Recouped', cell: (s) => localMoney(s.recouped, s.currency), num: true },
        { label: 'Paid', cell: (s) => localMoney(s.payments, s.currency), num: true },
        { label: 'Due', cell: (s) => localMoney(s.due, s.currency), num: true },
        { label: 'Statement', cell: (s) => <StatementDownload stats={s} label={memberName(byId.get(s.user), s.user)} /> },
      ]} />
      {pager('Balances pages', ['payee', 'payees'])}
    </Section>
  );
}

/**
 * The members (names and payee pickers) and the workspace's currency (the forms' default) are
 * asked for beside each section's own list, not before it: a section's rows wait for the names,
 * its form for both.
 */
type Known = Member[] | undefined;
const namesOf = (members: Known) => new Map((members ?? []).map((m) => [m.id as string, m]));

function Expenses({ members, base }: { members: Known; base: string | undefined }) {
  const { list, pager } = usePaged((query) => ok(client.GET('/expense/', { params: { query } })), []);
  const byId = namesOf(members);
  return (
    <Section title="Expenses">
      <ErrorBox error={list.error} />
      <Table caption="Expenses" rows={members && list.data?.data} rowKey={(r) => r.id} columns={[
        { label: 'Date', cell: (r) => localDate(r.date ?? r.createdAt) }, { label: 'Payee', cell: (r) => memberName(byId.get(r.user), r.user) },
        { label: 'Title', cell: (r) => r.title }, { label: 'Amount', cell: (r) => localMoney(r.amount, r.currency), num: true },
      ]} />
      {pager('Expenses pages', ['expense', 'expenses'])}
      {members && base ? <ExpenseForm members={members} base={base} onAdded={list.reload} /> : null}
    </Section>
  );
}

function ExpenseForm({ members, base, onAdded }: { members: Member[]; base: string; onAdded: () => void }) {
  const [f, setF] = useState({ user: '', title: '', amount: '', currency: base, recoupable: true });
  const a = useAction();
  return (
    <>
      <form class="row wrap" aria-label="Add an expense" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.POST('/expense/', { body: { user: f.user, title: f.title, amount: f.amount, currency: f.currency } }));
        onAdded();
        return 'Expense added.';
      }); }}>
        <Field label="Payee"><select required value={f.user} onChange={(e) => setF({ ...f, user: e.currentTarget.value })}><option value="">Choose…</option>{members.map((m) => <option key={m.id} value={m.id}>{memberName(m)}</option>)}</select></Field>
        <Field label="Title"><input required value={f.title} onInput={(e) => setF({ ...f, title: e.currentTarget.value })} /></Field>
        <Field label="Amount"><input required inputMode="decimal" pattern="\d+(\.\d+)?" value={f.amount} onInput={(e) => setF({ ...f, amount: e.currentTarget.value })} /></Field>
        <Field label="Currency"><input required maxLength={3} value={f.currency} onInput={(e) => setF({ ...f, currency: e.currentTarget.value.toUpperCase() })} /></Field>
        <button type="submit" class="primary" disabled={a.busy}>Add expense</button>
      </form>
      <ErrorBox error={a.error} /><Notice text={a.done} />
    </>
  );
}

export function requestColumns(byId: Map<string, Member>) {
  return [
    { label: 'Requested', cell: (r: PaymentRequest) => date(r.createdAt) },
    { label: 'Payee', cell: (r: PaymentRequest) => memberName(byId.get(r.user), r.user) },
    { label: 'Amount', cell: (r: PaymentRequest) => money(r.amount, r.currency), num: true },
    { label: 'Memo', cell: (r: PaymentRequest) => r.memo ?? '—' },
    { label: 'Status', cell: (r: PaymentRequest) => <span class={`badge s-${r.status}`}>{r.status}</span> },
  ];
}

function Requests({ members, onChange }: { members: Known; onChange: () => void }) {
  const { list, pager } = usePaged((query) => ok(client.GET('/payment-request/', { params: { query } })), []);
  const a = useAction();
  const byId = namesOf(members);
  const act = (r: PaymentRequest, verb: 'approve' | 'decline') => a.run(async () => {
    const at = { params: { path: { id: r.id } }, body: {} };
    if (verb === 'approve') await ok(client.PATCH('/payment-request/{id}/approve', at));
    else await ok(client.PATCH('/payment-request/{id}/decline', at));
    list.reload();
    onChange();
    return verb === 'approve' ? 'Request approved: a payment was created.' : 'Request declined.';
  });
  const paid = (r: PaymentRequest) => a.run(async () => {
    await ok(client.PUT('/payment/{id}', { params: { path: { id: r.paymentId! } }, body: { status: 'completed' } }));
    list.reload();
    onChange();
    return `The payout to ${memberName(byId.get(r.user), r.user)} is marked paid.`;
  });
  return (
    <Section title="Payment requests">
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <Table caption="Payment requests" rows={members && list.data?.data} rowKey={(r) => r.id} columns={[...requestColumns(byId), {
        label: 'Decision', cell: (r: PaymentRequest) => (r.status === 'pending' ? (
          <div class="row tight">
            <button type="button" class="primary" disabled={a.busy} onClick={() => act(r, 'approve')} aria-label={`Approve the request of ${memberName(byId.get(r.user), r.user)}`}>Approve</button>
            <button type="button" disabled={a.busy} onClick={() => act(r, 'decline')} aria-label={`Decline the request of ${memberName(byId.get(r.user), r.user)}`}>Decline</button>
          </div>
        ) : r.status === 'approved' && r.paymentId ? (
          <button type="button" disabled={a.busy} onClick={() => paid(r)} aria-label={`Mark paid: the payout to ${memberName(byId.get(r.user), r.user)}`}>Mark paid</button>
        ) : '—'),
      }]} />
      {pager('Payment requests pages', ['request', 'requests'])}
    </Section>
  );
}

function Payments({ members, gen, base, onChange }: { members: Known; gen: number; base: string | undefined; onChange: () => void }) {
  const { list, pager } = usePaged((query) => ok(client.GET('/payment/', { params: { query } })), [gen]);
  const byId = namesOf(members);
  const a = useAction();
  const paid = (r: Answer<'/payment/'>['data'][number]) => a.run(async () => {
    await ok(client.PUT('/payment/{id}', { params: { path: { id: r.id } }, body: { status: 'completed' } }));
    onChange();
    return `The payment to ${memberName(byId.get(r.user), r.user)} is marked paid.`;
  });
  return (
    <Section title="Payments">
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <Table caption="Payments" rows={members && list.data?.data} rowKey={(r) => r.id} columns={[
        { label: 'Date', cell: (r) => localDate(r.transactionDate ?? r.createdAt) }, { label: 'Payee', cell: (r) => memberName(byId.get(r.user), r.user) },
        { label: 'Title', cell: (r) => r.title ?? '—' }, { label: 'Amount', cell: (r) => localMoney(r.amount, r.currency), num: true },
        { label: 'Status', cell: (r) => <span class={`badge s-${r.status}`}>{r.status ?? '—'}</span> },
        { label: 'Action', cell: (r) => (r.status === 'pending' && !r.reference ? (
          <button type="button" disabled={a.busy} onClick={() => paid(r)} aria-label={`Mark paid: the payment to ${memberName(byId.get(r.user), r.user)}`}>Mark paid</button>
        ) : '—') },
      ]} />
      {pager('Payments pages', ['payment', 'payments'])}
      <h3>Record a payment</h3>
      <p class="muted">A payment made outside Rondo (a bank transfer, for instance): it is taken off the payee's balance.</p>
      {members && base ? <PaymentForm members={members} base={base} onChange={onChange} /> : null}
    </Section>
  );
}

function PaymentForm({ members, base, onChange }: { members: Member[]; base: string; onChange: () => void }) {
  const byId = namesOf(members);
  const today = new Date().toISOString().slice(0, 10);
  const [f, setF] = useState({ user: '', title: '', amount: '', currency: base, date: today });
  const a = useAction();
  return (
    <>
      <form class="row wrap" aria-label="Record a payment" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.POST('/payment/', { body: { user: f.user, title: f.title || undefined, amount: f.amount, currency: f.currency, transactionDate: `${f.date}T00:00:00Z`, status: 'completed' } }));
        setF({ ...f, title: '', amount: '' });
        onChange();
        return `Payment of ${localMoney(f.amount, f.currency)} to ${memberName(byId.get(f.user), f.user)} recorded.`;
      }); }}>
        <Field label="Payee"><select required value={f.user} onChange={(e) => setF({ ...f, user: e.currentTarget.value })}><option value="">Choose…</option>{members.map((m) => <option key={m.id} value={m.id}>{memberName(m)}</option>)}</select></Field>
        <Field label="Title"><input value={f.title} onInput={(e) => setF({ ...f, title: e.currentTarget.value })} /></Field>
        <Field label="Amount"><input required inputMode="decimal" pattern="\d+(\.\d+)?" value={f.amount} onInput={(e) => setF({ ...f, amount: e.currentTarget.value })} /></Field>
        <Field label="Currency"><input required maxLength={3} value={f.currency} onInput={(e) => setF({ ...f, currency: e.currentTarget.value.toUpperCase() })} /></Field>
        <Field label="Paid on"><input required type="date" value={f.date} onInput={(e) => setF({ ...f, date: e.currentTarget.value })} /></Field>
        <button type="submit" class="primary" disabled={a.busy}>Record payment</button>
      </form>
      <ErrorBox error={a.error} /><Notice text={a.done} />
    </>
  );
}

export function MoneyPage() {
  // the payee pickers of the forms (a payee is chosen among the workspace's members), the
  // workspace's currency and cadence, and the periods with earnings: asked for beside the
  // sections' own lists, each section showing its rows once the names are known
  const members = useLoad(() => ok(client.GET('/user/', { params: { query: { size: 200 } } })), []);
  const settings = useLoad(() => ok(client.GET('/settings/workspace')).then((r) => r.data), []);
  const m = members.data?.data;
  const base = settings.data?.baseCurrency;
  const [gen, setGen] = useState(0);
  const bump = () => setGen((g) => g + 1);
  // the accounting periods with earnings, first to last (the workspace's, not one page of payees')
  const periods = useLoad(() => ok(client.GET('/royalty/accountingperiod', { params: { query: { size: 1000 } } })).then((r) => json(r).data.rows.map((x) => String(x.accountingPeriod).slice(0, 7)).sort()), [gen]);
  const ps = periods.data ?? [];
  const months = ps.length ? periodsBetween(ps[0]!, ps[ps.length - 1]!) : [];
  return (
    <>
      <h1>Money</h1>
      <Loading show={members.loading || settings.loading} /><ErrorBox error={members.error ?? settings.error ?? periods.error} />
      <Balances gen={gen} />
      <PeriodsAndRuns members={m} months={months} currency={base} cadence={settings.data?.accountingCadence} onChange={bump} />
      <Requests members={m} onChange={bump} />
      <Payments members={m} gen={gen} base={base} onChange={bump} />
      <Expenses members={m} base={base} />
    </>
  );
}

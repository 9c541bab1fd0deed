/**
 * A payee's own view: balance, earnings by month, recording, store and country (bars and
 * tables), the statements issued to them (PDF, CSV), their payment requests. Every figure comes
 * from a route that answers a member with their own data only: their stats, the royalty
 * breakdowns (a member's own share), their statements and payment requests.
 */
import { useState } from 'preact/hooks';
import { download, client, json, ok, type Answer, type Body } from '../api';
import { useApp } from '../state';
import { ErrorBox, Field, Loading, Notice, Section, Table, date, decimal, money, param, useAction, useLoad } from '../ui';
import type { Stats } from './money';
import { METHODS } from './people';
import { useConfirm } from '../confirm';

type Breakdown = Answer<'/royalty/month'>['data'];
type Row = Breakdown['rows'][number];
type StatementMeta = Answer<'/statements'>['data'][number];
type PaySetting = Answer<'/payment-setting'>['data'][number];
type PayMethod = Body<'/payment-setting', 'post'>['method'];

/** Each view's breakdown: a member's own share (the group's key is a field of its rows). */
const VIEWS: { key: string; load: () => Promise<Breakdown>; tab: string; label: string; name: (r: Row) => string }[] = [
  { key: 'month', load: async () => json(await ok(client.GET('/royalty/month'))).data, tab: 'By month', label: 'Sale month', name: (r) => String(r.month) },
  { key: 'asset', load: async () => json(await ok(client.GET('/royalty/asset', { params: { query: { size: 50 } } }))).data, tab: 'By recording', label: 'Recording', name: (r) => String(r.asset ?? r.isrc ?? '—') },
  { key: 'dsp', load: async () => json(await ok(client.GET('/royalty/dsp'))).data, tab: 'By store', label: 'Store', name: (r) => String(r.dsp ?? '—') },
  { key: 'country', load: async () => json(await ok(client.GET('/royalty/country'))).data, tab: 'By country', label: 'Country', name: (r) => String(r.country ?? '—') },
];

/** Horizontal bars, each as wide as its share of the largest amount (display only; the table holds the exact figures). */
function Bars({ rows, name, currency }: { rows: Row[]; name: (r: Row) => string; currency: string }) {
  const top = Math.max(0, ...rows.map((r) => Math.abs(Number(r.revenue))));
  if (!rows.length || !top) return null;
  return (
    <ul class="bars" aria-hidden="true">
      {rows.slice(0, 24).map((r, i) => (
        <li key={i}>
          <span>{name(r)}</span>
          <span class="bar-track"><span class="bar-fill" style={{ width: `${(Math.abs(Number(r.revenue)) / top) * 100}%`, display: 'block' }} /></span>
          <span class="num">{money(r.revenue, currency)}</span>
        </li>
      ))}
    </ul>
  );
}

function Earnings() {
  const [view, setView] = useState(VIEWS[0]!);
  const data = useLoad(() => view.load(), [view.key]);
  const b = data.data;
  const rows = view.key === 'month' ? [...(b?.rows ?? [])].sort((x, y) => String(x.month).localeCompare(String(y.month))) : b?.rows ?? [];
  return (
    <Section title="My earnings">
      <div class="tabs" role="group" aria-label="Show my earnings">
        {VIEWS.map((v) => <button type="button" key={v.key} aria-pressed={v.key === view.key} onClick={() => setView(v)}>{v.tab}</button>)}
      </div>
      <Loading show={data.loading} /><ErrorBox error={data.error} />
      {b ? (
        <>
          <p class="total">Total: <strong data-testid="earnings-total" data-by={view.key} data-value={b.total.revenue}>{money(b.total.revenue, b.currency)}</strong></p>
          <Bars rows={rows} name={view.name} currency={b.currency} />
          <Table caption={`My earnings ${view.tab.toLowerCase()}`} rows={rows} columns={[
            { label: view.label, cell: view.name },
            { label: 'Units', cell: (r) => decimal(r.quantity, 0), num: true },
            { label: `Earnings (${b.currency})`, cell: (r) => decimal(r.revenue), num: true },
          ]} />
        </>
      ) : null}
    </Section>
  );
}

function Statements() {
  const list = useLoad(() => ok(client.GET('/statements', { params: { query: { size: 100 } } })), []);
  const a = useAction();
  const focus = param('statement');
  const get = (s: StatementMeta, kind: 'pdf' | 'csv') => a.run(async () => { await download(`/statements/${s.id}/${kind}`, `statement-${s.number ?? s.period}.${kind}`); });
  return (
    <Section title="My statements" id="statements">
      <ErrorBox error={list.error ?? a.error} />
      <Table<StatementMeta> caption="Statements issued to me" rows={list.data?.data} rowKey={(s) => s.id} empty="No statement has been issued to you yet." columns={[
        { label: 'No.', cell: (s) => (focus === s.id ? <strong data-testid="linked-statement">{s.number ?? '—'}</strong> : s.number ?? '—'), num: true },
        { label: 'Period', cell: (s) => s.period },
        { label: 'Issued', cell: (s) => date(s.issuedAt) },
        { label: 'Closing balance', cell: (s) => money(s.closingBalance, s.currency), num: true },
        { label: 'Download', cell: (s) => (
          <div class="row tight">
            <button type="button" onClick={() => get(s, 'pdf')} aria-label={`Statement ${s.number ?? s.period} as PDF`}>PDF</button>
            <button type="button" onClick={() => get(s, 'csv')} aria-label={`Statement ${s.number ?? s.period} as CSV`}>CSV</button>
          </div>
        ) },
      ]} />
    </Section>
  );
}

function Requests({ onChange }: { onChange: () => void }) {
  const requests = useLoad(() => ok(client.GET('/payment-request/', { params: { query: { size: 50 } } })), []);
  const [amount, setAmount] = useState('');
  const [memo, setMemo] = useState('');
  const a = useAction();
  return (
    <Section title="Payment requests">
      <ErrorBox error={requests.error} />
      <Table caption="My payment requests" rows={requests.data?.data} rowKey={(r) => r.id} empty="You have not asked for a payment yet." columns={[
        { label: 'Asked on', cell: (r) => date(r.createdAt) },
        { label: 'Amount', cell: (r) => money(r.amount, r.currency), num: true },
        { label: 'Memo', cell: (r) => r.memo ?? '—' },
        { label: 'Status', cell: (r) => <span class={`badge s-${r.status}`}>{r.status}</span> },
      ]} />
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.POST('/payment-request/', { body: { amount, memo: memo || undefined } }));
        requests.reload(); onChange(); setAmount(''); setMemo('');
        return 'Request sent to the label.';
      }); }}>
        <Field label="Amount"><input required inputMode="decimal" pattern="\d+(\.\d+)?" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} /></Field>
        <Field label="Memo"><input value={memo} onInput={(e) => setMemo(e.currentTarget.value)} /></Field>
        <button type="submit" class="primary" disabled={a.busy}>Request a payment</button>
      </form>
      <ErrorBox error={a.error} /><Notice text={a.done} />
    </Section>
  );
}

/** How I am paid: my payout methods (details shown masked once saved), the one used by default. */
function PaymentSettings() {
  const list = useLoad(() => ok(client.GET('/payment-setting', { params: { query: { size: 50 } } })), []);
  const [f, setF] = useState({ method: 'bank_transfer' as PayMethod, label: '', details: {} as Record<string, string>, isDefault: true });
  const a = useAction();
  const { ask, dialog } = useConfirm();
  const method = METHODS.find((m) => m.key === f.method)!;
  const words = (s: PaySetting) => METHODS.find((m) => m.key === s.method)?.label ?? s.method;
  const add = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      const details = Object.fromEntries(method.fields.map(([k]) => [k, (f.details[k] ?? '').trim()]).filter(([, v]) => v));
      if (!Object.keys(details).length) throw new Error('Fill in at least one of the details.');
      await ok(client.POST('/payment-setting', { body: { method: f.method, details, isDefault: f.isDefault, ...(f.label.trim() ? { label: f.label.trim() } : {}) } }));
      setF({ method: f.method, label: '', details: {}, isDefault: false });
      list.reload();
      return 'Saved. The label pays you this way from now on' + (f.isDefault ? '.' : ' when you choose it.');
    });
  };
  const settings = list.data?.data ?? [];
  return (
    <Section title="How I am paid">
      <p class="muted">Where the label sends your money. Once saved, details are shown only in part (the last characters), to keep them safe.</p>
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <Table<PaySetting> caption="My payment methods" rows={list.data?.data} rowKey={(s) => s.id} empty="None yet: add how you want to be paid." columns={[
        { label: 'Method', cell: (s) => <>{words(s)}{s.label ? ` (${s.label})` : ''}{s.isDefault ? <> <span class="badge s-processed">used by default</span></> : null}</> },
        { label: 'Details', cell: (s) => Object.entries(s.details).map(([k, v]) => `${METHODS.flatMap((m) => m.fields).find(([fk]) => fk === k)?.[1] ?? k} ${v}`).join(' · ') },
        { label: 'Actions', cell: (s) => (
          <div class="row tight">
            {!s.isDefault ? <button type="button" disabled={a.busy} aria-label={`Use by default: ${words(s)}`} onClick={() => a.run(async () => { await ok(client.PUT('/payment-setting/{id}', { params: { path: { id: s.id } }, body: { isDefault: true } })); list.reload(); return `${words(s)} is used by default now.`; })}>Use by default</button> : null}
            <button type="button" class="danger" aria-label={`Remove ${words(s)}`} onClick={() => ask({ title: `Remove ${words(s)}?`, action: 'Remove', body: <p>The label will no longer pay you this way.</p>, run: async () => { await ok(client.DELETE('/payment-setting/{id}', { params: { path: { id: s.id } } })); list.reload(); } })}>Remove…</button>
          </div>
        ) },
      ]} />
      <form class="stack narrow" onSubmit={add}>
        <h3>Add a way to be paid</h3>
        <Field label="Method">
          <select value={f.method} onChange={(e) => setF({ ...f, method: e.currentTarget.value as PayMethod, details: {} })}>
            {METHODS.filter((m) => m.key).map((m) => <option key={m.key} value={m.key}>{m.label}</option>)}
          </select>
        </Field>
        {method.fields.map(([k, label]) => (
          <Field key={`${f.method}:${k}`} label={label}><input maxLength={500} autoComplete="off" value={f.details[k] ?? ''} onInput={(e) => setF({ ...f, details: { ...f.details, [k]: e.currentTarget.value } })} /></Field>
        ))}
        <Field label="A name for it (optional)" hint="For example “Savings account”."><input maxLength={200} value={f.label} onInput={(e) => setF({ ...f, label: e.currentTarget.value })} /></Field>
        {settings.length ? <label class="check"><input type="checkbox" checked={f.isDefault} onChange={(e) => setF({ ...f, isDefault: e.currentTarget.checked })} /> Use it by default</label> : null}
        <div><button type="submit" class="primary" disabled={a.busy}>Save this way to be paid</button></div>
      </form>
      {dialog}
    </Section>
  );
}

export function PayeePage() {
  const { me } = useApp();
  const stats = useLoad(() => ok(client.GET('/accounting/{id}/stats', { params: { path: { id: me.id } } })), [me.id]);
  const s = stats.data?.data;
  return (
    <>
      <h1>My earnings</h1>
      <Loading show={stats.loading} /><ErrorBox error={stats.error} />
      {s ? (
        <Section title="Balance">
          <dl class="figures">
            <div><dt>Earnings</dt><dd data-testid="my-earnings" data-value={s.earnings}>{money(s.earnings, s.currency)}</dd></div>
            <div><dt>Recouped</dt><dd>{money(s.recouped, s.currency)}</dd></div>
            <div><dt>Paid to you</dt><dd data-testid="my-payments" data-value={s.payments}>{money(s.payments, s.currency)}</dd></div>
            <div><dt>Due</dt><dd>{money(s.due, s.currency)}</dd></div>
            <div><dt>Available to request</dt><dd>{money(s.available, s.currency)}</dd></div>
          </dl>
        </Section>
      ) : null}
      <Earnings />
      <Statements />
      <Requests onChange={stats.reload} />
      <PaymentSettings />
    </>
  );
}

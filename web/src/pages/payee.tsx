/** A payee's own view: their earnings, statements and payment requests, nothing of anyone else. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { useApp } from '../state';
import { ErrorBox, Field, Loading, Notice, Section, Table, decimal, money, useAction, useLoad } from '../ui';
import { StatementDownload, requestColumns, type Stats } from './money';

export function PayeePage() {
  const { me } = useApp();
  const stats = useLoad(() => api<{ data: Stats }>('GET', `/accounting/${me.id}/stats`), [me.id]);
  const monthly = useLoad(() => api<{ data: Record<string, any> }>('GET', `/user/${me.id}/monthly`), [me.id]);
  const requests = useLoad(() => api<{ data: Record<string, any>[] }>('GET', '/payment-request/?size=50'), [me.id]);
  const [amount, setAmount] = useState('');
  const [memo, setMemo] = useState('');
  const a = useAction();
  const s = stats.data?.data;
  const months: Record<string, any>[] = Array.isArray(monthly.data?.data) ? monthly.data!.data as any : monthly.data?.data?.rows ?? monthly.data?.data?.months ?? [];
  const self = new Map([[me.id, { id: me.id, email: me.email, firstName: me.firstName ?? undefined, lastName: me.lastName ?? undefined, role: me.role }]]);
  return (
    <>
      <h1>My earnings</h1>
      <Loading show={stats.loading} /><ErrorBox error={stats.error} />
      {s ? (
        <Section title="Balance">
          <dl class="figures">
            <div><dt>Earnings</dt><dd data-testid="my-earnings" data-value={s.earnings}>{money(s.earnings, s.currency)}</dd></div>
            <div><dt>Recouped</dt><dd>{money(s.recouped, s.currency)}</dd></div>
            <div><dt>Paid to you</dt><dd>{money(s.payments, s.currency)}</dd></div>
            <div><dt>Due</dt><dd>{money(s.due, s.currency)}</dd></div>
            <div><dt>Available to request</dt><dd>{money(s.available, s.currency)}</dd></div>
          </dl>
          <h3>Statements</h3>
          <StatementDownload stats={s} label="me" />
        </Section>
      ) : null}
      <Section title="Earnings by month">
        <ErrorBox error={monthly.error} />
        <Table caption="My earnings by sale month" rows={months} columns={[
          { label: 'Month', cell: (r) => r.month ?? r.saleMonth ?? '—' },
          { label: 'Earnings', cell: (r) => decimal(r.amount ?? r.earnings ?? r.revenue), num: true },
        ]} />
      </Section>
      <Section title="Payment requests">
        <ErrorBox error={requests.error} />
        <Table caption="My payment requests" rows={requests.data?.data} rowKey={(r) => r.id} columns={requestColumns(self as any)} />
        <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
          await api('POST', '/payment-request/', { body: { amount, memo: memo || undefined } });
          requests.reload(); stats.reload(); setAmount(''); setMemo('');
          return 'Request sent to the label.';
        }); }}>
          <Field label="Amount"><input required inputMode="decimal" pattern="\d+(\.\d+)?" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} /></Field>
          <Field label="Memo"><input value={memo} onInput={(e) => setMemo(e.currentTarget.value)} /></Field>
          <button type="submit" class="primary" disabled={a.busy}>Request a payment</button>
        </form>
        <ErrorBox error={a.error} /><Notice text={a.done} />
      </Section>
    </>
  );
}

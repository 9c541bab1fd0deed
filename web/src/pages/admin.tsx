/** Admin: a link to the statement layouts (layouts.tsx), exchange rates, settings. Members and invitations: people.tsx. */
import { useEffect, useState } from 'preact/hooks';
import { client, ok } from '../api';
import { ErrorBox, Field, Link, Loading, Notice, Section, Table, useAction, useLoad } from '../ui';

type Any = Record<string, any>;

/** Statement layouts live on their own page (pages/layouts.tsx). */
function Sources() {
  return (
    <Section title="Statement layouts">
      <p>Teach Rondo a statement layout it does not know from a sample file, view the built-in layouts, and choose which ones recognise your files.</p>
      <p><Link to="/layouts">Open statement layouts</Link></p>
    </Section>
  );
}

function Rates() {
  const list = useLoad(() => ok(client.GET('/currency/rates')), []);
  const [f, setF] = useState({ currency: '', month: '', rate: '' });
  const a = useAction();
  const base = list.data?.data.baseCurrency ?? '';
  return (
    <Section title="Exchange rates">
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <Table caption={`Monthly rates to ${base}`} rows={list.data?.data.rates} rowKey={(r) => r.currency + r.month} columns={[
        { label: 'Currency', cell: (r) => r.currency }, { label: 'Month', cell: (r) => r.month }, { label: `1 unit in ${base}`, cell: (r) => r.rate, num: true },
        { label: 'Remove', cell: (r) => <button type="button" aria-label={`Remove the ${r.currency} rate of ${r.month}`} onClick={() => a.run(async () => { await ok(client.DELETE('/currency/rates/{currency}/{month}', { params: { path: { currency: r.currency, month: r.month } } })); list.reload(); return 'Rate removed.'; })}>Remove</button> },
      ]} />
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.PUT('/currency/rates', { body: { rates: [{ currency: f.currency, month: f.month, rate: f.rate }] } }));
        list.reload();
        return `Rate saved: 1 ${f.currency} = ${f.rate} ${base} in ${f.month}.`;
      }); }}>
        <Field label="Currency"><input required maxLength={3} pattern="[A-Za-z]{3}" value={f.currency} onInput={(e) => setF({ ...f, currency: e.currentTarget.value.toUpperCase() })} /></Field>
        <Field label="Month (YYYY-MM)"><input required pattern="\d{4}-\d{2}" value={f.month} onInput={(e) => setF({ ...f, month: e.currentTarget.value })} /></Field>
        <Field label="Rate"><input required inputMode="decimal" pattern="\d+(\.\d+)?" value={f.rate} onInput={(e) => setF({ ...f, rate: e.currentTarget.value })} /></Field>
        <button type="submit" class="primary" disabled={a.busy}>Save rate</button>
      </form>
    </Section>
  );
}

function Settings() {
  const s = useLoad(() => ok(client.GET('/settings/workspace')), []);
  const [f, setF] = useState<Any>({});
  const a = useAction();
  useEffect(() => { if (s.data) setF(s.data.data); }, [s.data]);
  return (
    <Section title="Workspace settings">
      <Loading show={s.loading} /><ErrorBox error={s.error} />
      <form class="stack narrow" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        const body: Any = { name: f.name, accountingCadence: f.accountingCadence, autoCreateCatalogue: !!f.autoCreateCatalogue };
        if (f.baseCurrency !== s.data?.data.baseCurrency) body.baseCurrency = f.baseCurrency;
        await ok(client.PUT('/settings/workspace', { body }));
        s.reload();
        return 'Settings saved.';
      }); }}>
        <Field label="Name"><input required value={f.name ?? ''} onInput={(e) => setF({ ...f, name: e.currentTarget.value })} /></Field>
        <Field label="Base currency"><input required maxLength={3} value={f.baseCurrency ?? ''} onInput={(e) => setF({ ...f, baseCurrency: e.currentTarget.value.toUpperCase() })} /></Field>
        <Field label="Accounting cadence">
          <select value={f.accountingCadence ?? 'monthly'} onChange={(e) => setF({ ...f, accountingCadence: e.currentTarget.value })}>
            <option value="monthly">Monthly</option><option value="quarterly">Quarterly</option><option value="half-yearly">Half-yearly</option>
          </select>
        </Field>
        <label class="check"><input type="checkbox" checked={!!f.autoCreateCatalogue} onChange={(e) => setF({ ...f, autoCreateCatalogue: e.currentTarget.checked })} /> Create recordings and products from statements automatically</label>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <button type="submit" class="primary" disabled={a.busy}>Save settings</button>
      </form>
    </Section>
  );
}

export function AdminPage() {
  return (
    <>
      <h1>Admin</h1>
      <Sources />
      <Rates />
      <Settings />
    </>
  );
}

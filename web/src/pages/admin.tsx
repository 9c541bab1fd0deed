/** Admin: sources and patterns (with a dry run), exchange rates, settings. Members and invitations: people.tsx. */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, Field, Loading, Notice, Section, Table, useAction, useLoad } from '../ui';

type Any = Record<string, any>;

function Sources() {
  const configured = useLoad(() => api<{ data: Any[] }>('GET', '/sources'), []);
  const all = useLoad(() => api<{ data: Any[] }>('GET', '/file/sources'), []);
  const [file, setFile] = useState<File | null>(null);
  const [pattern, setPattern] = useState('');
  const [result, setResult] = useState<Any | null>(null);
  const a = useAction();
  const dryRun = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      if (!file) throw new Error('Choose a sample statement first');
      const form = new FormData();
      if (pattern.trim()) {
        try { JSON.parse(pattern); } catch { throw new Error('The pattern is not valid JSON'); }
        form.append('pattern', pattern);
      }
      form.append('file', file, file.name);
      setResult((await api<{ data: Any }>('POST', '/sources/dry-run', { form })).data);
    });
  };
  const toggle = (s: Any) => a.run(async () => { await api('POST', `/sources/${s.id}/${s.active ? 'deactivate' : 'activate'}`); configured.reload(); return `${s.name} ${s.active ? 'deactivated' : 'activated'}.`; });
  const read: Any | undefined = result?.read;
  const rows: Any[] | undefined = read?.lines;
  return (
    <Section title="Sources and patterns">
      <ErrorBox error={configured.error ?? all.error} />
      <Table caption="This workspace's sources" rows={configured.data?.data} rowKey={(s) => s.id} empty="None configured: every built-in source is used for detection." columns={[
        { label: 'Name', cell: (s) => s.name }, { label: 'Key', cell: (s) => s.key ?? '—' }, { label: 'Active', cell: (s) => (s.active ? 'yes' : 'no') },
        { label: 'Use', cell: (s) => <button type="button" onClick={() => toggle(s)} aria-label={`${s.active ? 'Deactivate' : 'Activate'} ${s.name}`}>{s.active ? 'Deactivate' : 'Activate'}</button> },
      ]} />
      <details>
        <summary>Available sources ({all.data?.data.length ?? 0})</summary>
        <Table caption="Available sources" rows={all.data?.data} rowKey={(s) => s.id} columns={[
          { label: 'Name', cell: (s) => s.name }, { label: 'Key', cell: (s) => s.key }, { label: 'Aggregator', cell: (s) => s.aggregator ?? '—' }, { label: 'Version', cell: (s) => s.version, num: true },
        ]} />
      </details>
      <h3>Dry run of a pattern</h3>
      <p class="muted">Try a pattern (or this workspace's sources) on a sample statement: nothing is saved.</p>
      <form class="stack" onSubmit={dryRun}>
        <Field label="Sample statement"><input type="file" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} /></Field>
        <Field label="Pattern (JSON; empty: detect with the existing sources)"><textarea rows={6} value={pattern} onInput={(e) => setPattern(e.currentTarget.value)} /></Field>
        <button type="submit" class="primary" disabled={a.busy}>Dry run</button>
      </form>
      <ErrorBox error={a.error} /><Notice text={a.done} />
      {result ? (
        <div data-testid="dry-run-result">
          <Table<Any> caption="Detection (best first)" rows={result.detection} rowKey={(d) => d.patternKey} columns={[
            { label: 'Pattern', cell: (d) => d.patternKey }, { label: 'Score', cell: (d) => d.score, num: true }, { label: 'Why', cell: (d) => (d.reasons ?? []).join('; ') },
          ]} />
          {read?.failed ? <p class="error" role="alert">Reading with {read.pattern} failed: {read.failed}</p> : null}
          {read?.summary ? (
            <p data-testid="dry-run-summary">Read with {read.pattern}: {read.summary.rowsRead} rows, {read.summary.rowsIngested} ingested, {read.summary.rowsFailed} failed, {read.summary.rowsSkipped} skipped; totals {Object.entries(read.summary.totals ?? {}).map(([c, v]) => `${v} ${c}`).join(', ') || '—'}</p>
          ) : null}
          {!read ? <p>No pattern reads this file above the detection threshold ({result.threshold}).</p> : null}
          {read?.errors?.length ? <Table<Any> caption="Rejected lines" rows={read.errors} columns={[{ label: 'Line', cell: (e) => e.lineNo ?? e.line_no ?? '—', num: true }, { label: 'Reason', cell: (e) => e.reason ?? JSON.stringify(e) }]} /> : null}
          {rows?.length ? <Table caption="Parsed lines (first 20)" rows={rows.slice(0, 20)} columns={Object.keys(rows[0]).slice(0, 9).map((k) => ({ label: k, cell: (r: Any) => (typeof r[k] === 'object' && r[k] !== null ? JSON.stringify(r[k]) : String(r[k] ?? '')) }))} /> : null}
        </div>
      ) : null}
    </Section>
  );
}

function Rates() {
  const list = useLoad(() => api<{ data: { baseCurrency: string; rates: Any[] } }>('GET', '/currency/rates'), []);
  const [f, setF] = useState({ currency: '', month: '', rate: '' });
  const a = useAction();
  const base = list.data?.data.baseCurrency ?? '';
  return (
    <Section title="Exchange rates">
      <ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      <Table caption={`Monthly rates to ${base}`} rows={list.data?.data.rates} rowKey={(r) => r.currency + r.month} columns={[
        { label: 'Currency', cell: (r) => r.currency }, { label: 'Month', cell: (r) => r.month }, { label: `1 unit in ${base}`, cell: (r) => r.rate, num: true },
        { label: 'Remove', cell: (r) => <button type="button" aria-label={`Remove the ${r.currency} rate of ${r.month}`} onClick={() => a.run(async () => { await api('DELETE', `/currency/rates/${r.currency}/${r.month}`); list.reload(); return 'Rate removed.'; })}>Remove</button> },
      ]} />
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await api('PUT', '/currency/rates', { body: { rates: [{ currency: f.currency, month: f.month, rate: f.rate }] } });
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
  const s = useLoad(() => api<{ data: Any }>('GET', '/settings/workspace'), []);
  const [f, setF] = useState<Any>({});
  const a = useAction();
  useEffect(() => { if (s.data) setF(s.data.data); }, [s.data]);
  return (
    <Section title="Workspace settings">
      <Loading show={s.loading} /><ErrorBox error={s.error} />
      <form class="stack narrow" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        const body: Any = { name: f.name, accountingCadence: f.accountingCadence, autoCreateCatalogue: !!f.autoCreateCatalogue };
        if (f.baseCurrency !== s.data?.data.baseCurrency) body.baseCurrency = f.baseCurrency;
        await api('PUT', '/settings/workspace', { body });
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

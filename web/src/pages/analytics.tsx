/** Analytics: royalty breakdowns as bar charts, with the API's filters; totals are the API's own. */
import { useState } from 'preact/hooks';
import { api, download, qs } from '../api';
import { ErrorBox, Field, Loading, Section, Table, decimal, useAction } from '../ui';
import { useLoad } from '../ui';
import { everyMonth, localMoney, monthName } from '../words';

const BREAKDOWNS: [string, string][] = [
  ['month', 'Month'], ['dsp', 'DSP'], ['country', 'Country'], ['artist', 'Artist'], ['product', 'Product'], ['asset', 'Recording'],
];
interface Row { revenue: string; quantity: string; lines: number; [k: string]: unknown }
interface Result { currency: string; rows: Row[]; total: { revenue: string; quantity: string; lines: number } }

function labelOf(r: Row, by: string): string {
  const pick = [by, 'title', 'name', 'month', 'dsp', 'country', 'artist', 'product', 'asset'].find((k) => typeof r[k] === 'string' && r[k]);
  return pick ? String(r[pick]) : '(unknown)';
}

function BarChart({ rows, by, currency }: { rows: Row[]; by: string; currency: string }) {
  // months: the latest 25 (every month in between is there, empty ones at zero); others: the largest 25
  const top = by === 'month' ? rows.slice(-25) : rows.slice(0, 25);
  const max = Math.max(0, ...top.map((r) => Math.abs(Number(r.revenue))));
  const bar = 22;
  const h = top.length * (bar + 6) + 4;
  return (
    <figure class="chart">
      <svg role="img" aria-labelledby="chart-title" viewBox={`0 0 640 ${h}`} width="100%" preserveAspectRatio="xMinYMin meet">
        <title id="chart-title">Revenue by {by} in {currency}</title>
        {top.map((r, i) => {
          const w = max ? Math.max(1, (Math.abs(Number(r.revenue)) / max) * 380) : 1;
          const y = i * (bar + 6) + 2;
          return (
            <g key={i}>
              <text x="0" y={y + 15} class="chart-label">{labelOf(r, by).slice(0, 26)}</text>
              <rect x="180" y={y} width={w} height={bar} rx="3" class={Number(r.revenue) < 0 ? 'bar neg' : 'bar'} />
              <text x={186 + w} y={y + 15} class="chart-value">{decimal(r.revenue)}</text>
            </g>
          );
        })}
      </svg>
      {rows.length > top.length ? <figcaption class="muted">The chart shows the first {top.length} of {rows.length}.</figcaption> : null}
    </figure>
  );
}

export function AnalyticsPage() {
  const [by, setBy] = useState('month');
  const [f, setF] = useState({ periodFilterType: 'sale', start: '', end: '', artist: '', dsp: '', country: '', saleType: '', file: '' });
  const artists = useLoad(() => api<{ data: { id: string; name: string }[] }>('GET', '/artist/?size=200'), []);
  const files = useLoad(() => api<{ data: { id: string; fileName: string }[] }>('GET', '/file/?size=100'), []);
  const [applied, setApplied] = useState(f);
  const query = qs({ ...applied, size: 500 });
  const data = useLoad(async () => ({ by, result: (await api<{ data: Result }>('GET', `/royalty/${by}${query}`)).data }), [by, query]);
  const res = data.data?.result;
  const rows = res ? (data.data!.by === 'month' && applied.periodFilterType === 'sale' ? everyMonth(res.rows, applied.start, applied.end) : res.rows) : [];
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const dl = useAction();
  // the whole breakdown, every row, written by the server as it reads them (not the page shown)
  const exportAs = (format: 'csv' | 'xlsx') => dl.run(() => download(`/royalty/${by}${qs({ ...applied, format })}`, `royalty-${by}.${format}`));
  return (
    <>
      <h1>Analytics</h1>
      <Section title="Filters">
        <form class="row wrap" onSubmit={(e) => { e.preventDefault(); setApplied(f); }}>
          <Field label="Period type">
            <select value={f.periodFilterType} onChange={set('periodFilterType')}>
              <option value="sale">Sale period</option><option value="accounting">Accounting period</option>
            </select>
          </Field>
          <Field label="From (YYYY-MM)"><input type="text" inputMode="numeric" pattern="\d{4}-\d{2}" placeholder="2026-01" value={f.start} onInput={set('start')} /></Field>
          <Field label="To (YYYY-MM)"><input type="text" inputMode="numeric" pattern="\d{4}-\d{2}" placeholder="2026-12" value={f.end} onInput={set('end')} /></Field>
          <Field label="Artist">
            <select value={f.artist} onChange={set('artist')}><option value="">All</option>{(artists.data?.data ?? []).map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}</select>
          </Field>
          <Field label="Statement file">
            <select value={f.file} onChange={set('file')}><option value="">All</option>{(files.data?.data ?? []).map((x) => <option key={x.id} value={x.id}>{x.fileName}</option>)}</select>
          </Field>
          <Field label="DSP"><input type="text" value={f.dsp} onInput={set('dsp')} /></Field>
          <Field label="Country (ISO)"><input type="text" maxLength={2} value={f.country} onInput={set('country')} /></Field>
          <Field label="Sale type"><input type="text" value={f.saleType} onInput={set('saleType')} /></Field>
          <button type="submit" class="primary">Apply</button>
        </form>
      </Section>
      <div role="group" aria-label="Breakdown" class="tabs">
        {BREAKDOWNS.map(([k, label]) => (
          <button key={k} type="button" aria-pressed={by === k} onClick={() => setBy(k)}>{label}</button>
        ))}
      </div>
      <Section title={`Revenue by ${BREAKDOWNS.find(([k]) => k === by)![1]}`} actions={(
        <div class="row tight">
          <button type="button" onClick={() => exportAs('csv')} disabled={!res || dl.busy}>Download CSV</button>
          <button type="button" onClick={() => exportAs('xlsx')} disabled={!res || dl.busy}>Download XLSX</button>
        </div>
      )}>
        <Loading show={data.loading} /><ErrorBox error={data.error ?? dl.error} />
        {res ? (
          <>
            <p class="total">Total: <strong data-testid="chart-total" data-by={data.data!.by} data-value={res.total.revenue}>{localMoney(res.total.revenue, res.currency)}</strong>
              <span class="muted"> · {decimal(res.total.quantity, 0)} units · {res.total.lines} lines</span></p>
            <BarChart rows={rows} by={by} currency={res.currency} />
            {res.rows.length >= 500 ? <p class="muted">The table shows the first 500 rows; “Download CSV” and “Download XLSX” have every row.</p> : null}
            <Table caption={`Revenue by ${by}`} rows={rows} columns={[
              { label: BREAKDOWNS.find(([k]) => k === by)![1], cell: (r) => (by === 'month' && typeof r.month === 'string' ? monthName(r.month) : labelOf(r, by)) },
              { label: `Revenue (${res.currency})`, cell: (r) => localMoney(r.revenue), num: true },
              { label: 'Quantity', cell: (r) => decimal(r.quantity, 0), num: true },
              { label: 'Lines', cell: (r) => r.lines, num: true },
            ]} />
          </>
        ) : null}
      </Section>
    </>
  );
}

/**
 * Analytics: royalty breakdowns with the API's filters, drawn by Chart.js (a month series, the
 * top rows as bars, the shares by store) beside sortable, paged tables; totals are the API's own.
 * With a From and To range the previous range of the same length is asked with the same filters
 * and shown beside the current one.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, download, qs, client, ok, type Answer, type ApiPath } from '../api';
import { ChartCanvas, CHART_COLOURS } from '../chart';
import { ErrorBox, Field, Loading, Pager, Section, decimal, useAction } from '../ui';
import { useLoad } from '../ui';
import { everyMonth, localMoney, monthName } from '../words';

type Group = 'month' | 'accountingperiod' | 'dsp' | 'country' | 'artist' | 'product' | 'asset' | 'saletype' | 'aggregator';
/** Each breakdown's route (a group without its route does not compile); every one answers the same shape. */
const routeOf = (g: Group): Extract<ApiPath, `/royalty/${Group}`> => `/royalty/${g}`;
const BREAKDOWNS: [Group, string][] = [
  ['month', 'Month'], ['accountingperiod', 'Accounting period'], ['dsp', 'Store'], ['country', 'Country'], ['artist', 'Artist'],
  ['product', 'Product'], ['asset', 'Recording'], ['saletype', 'Sale type'], ['aggregator', 'Aggregator'],
];
/** The key of a row of each breakdown (the row keys of the API's answer). */
const KEY: Record<string, string> = {
  month: 'month', accountingperiod: 'accountingPeriod', dsp: 'dsp', country: 'country', artist: 'artistId',
  product: 'productId', asset: 'assetId', saletype: 'saleType', aggregator: 'aggregator',
};
const NAME: Record<string, string> = { artist: 'artist', product: 'product', asset: 'asset' };
const PAGE = 50;
const TOP = 10;
const STORES = 6;
type Result = Answer<'/royalty/month'>['data'];
type Row = Result['rows'][number];
type Filters = { periodFilterType: string; start: string; end: string; artist: string; dsp: string; country: string; saleType: string; file: string };

function labelOf(r: Row, by: string): string {
  if (by === 'month' && typeof r.month === 'string') return monthName(r.month);
  const k = NAME[by] ?? KEY[by];
  const v = r[k];
  return typeof v === 'string' && v ? v : '(unknown)';
}
const keyOf = (r: Row, by: string) => String(r[KEY[by]] ?? '');

/** Months from YYYY-MM to YYYY-MM, inclusive. */
function monthsBetween(a: string, b: string): number {
  const [ya, ma] = a.split('-').map(Number);
  const [yb, mb] = b.split('-').map(Number);
  return (yb - ya) * 12 + (mb - ma) + 1;
}
function addMonths(ym: string, n: number): string {
  const [y, m] = ym.split('-').map(Number);
  const i = y * 12 + (m - 1) + n;
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
}
/** The range of the same length just before `start`..`end` (YYYY-MM), or null without a whole range. */
export function previousRange(start: string, end: string): { start: string; end: string } | null {
  const s = start.slice(0, 7);
  const e = end.slice(0, 7);
  if (!/^\d{4}-\d{2}$/.test(s) || !/^\d{4}-\d{2}$/.test(e) || s > e) return null;
  const n = monthsBetween(s, e);
  return { start: addMonths(s, -n), end: addMonths(s, -1) };
}

/**
 * A breakdown's table, sorted and paged by the server (`sort`/`order`/`page`/`size` on the
 * breakdown route); the previous period's figure of each row is the server's too
 * (`includePreviousPeriod`). The month breakdown is the time axis instead: every month of the
 * range in time order, the empty ones included (the rows the month chart draws).
 */
type Col = { id: string; label: string; num?: boolean; cell: (r: Row) => unknown; sort?: 'name' | 'revenue' | 'quantity' | 'lines' };
type Sort = { id: 'name' | 'revenue' | 'quantity' | 'lines'; dir: 'asc' | 'desc' };
function BreakdownTable({ caption, rows, columns, sort, onSort, paging }: {
  caption: string; rows: Row[]; columns: Col[]; sort: Sort | null; onSort: ((s: Sort) => void) | null;
  paging: { page: number; total: number; onPage: (p: number) => void } | null;
}) {
  const click = (c: Col) => onSort?.(sort?.id === c.sort ? { id: c.sort!, dir: sort!.dir === 'asc' ? 'desc' : 'asc' } : { id: c.sort!, dir: c.num ? 'desc' : 'asc' });
  return (
    <>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={caption}>
        <table>
          <caption>{caption}</caption>
          <thead><tr>{columns.map((c) => (
            <th scope="col" class={c.num ? 'num' : undefined} key={c.id} aria-sort={c.sort && sort?.id === c.sort ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
              {c.sort && onSort ? <button type="button" class="sort" onClick={() => click(c)}>{c.label}{sort?.id === c.sort ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}</button> : c.label}
            </th>
          ))}</tr></thead>
          <tbody>
            {rows.length === 0 ? <tr><td colSpan={columns.length} class="muted empty">No royalties match these filters.</td></tr> : null}
            {rows.map((r, i) => <tr key={i}>{columns.map((c) => <td class={c.num ? 'num' : undefined} data-label={c.label} key={c.id}>{c.cell(r) as string}</td>)}</tr>)}
          </tbody>
        </table>
      </div>
      {paging && paging.total > PAGE ? <Pager page={paging.page} size={PAGE} total={paging.total} onPage={paging.onPage} label={`Pages of ${caption}`} noun={['row', 'rows']} /> : null}
    </>
  );
}

function change(cur: string, prev: string | undefined): string {
  if (prev === undefined) return '—';
  const c = Number(cur);
  const p = Number(prev);
  if (p === 0) return c === 0 ? '0 %' : 'new';
  const pct = ((c - p) / Math.abs(p)) * 100;
  return `${pct > 0 ? '+' : ''}${pct.toFixed(1)} %`;
}

export function AnalyticsPage() {
  const [by, setBy] = useState<Group>('month');
  const [f, setF] = useState<Filters>({ periodFilterType: 'sale', start: '', end: '', artist: '', dsp: '', country: '', saleType: '', file: '' });
  const [applied, setApplied] = useState(f);
  const prevRange = previousRange(applied.start, applied.end);
  const prevFilters = prevRange ? { ...applied, ...prevRange } : null;
  const get = (group: Group, filters: Filters, size: number, more: Record<string, string | number | undefined> = {}) =>
    api<Answer<'/royalty/month'>>('GET', `${routeOf(group)}${qs({ ...filters, size, ...more })}`).then((r) => r.data);
  const key = JSON.stringify([by, applied]);
  const withPrevious = prevFilters ? { includePreviousPeriod: 'true' } : {};
  // The breakdown's first page in the server's own order (largest revenue first): the table's
  // first page until it is sorted, and, its first rows, the chart's top rows and (by store) the
  // largest stores. One call where there were three, each reading every row of the breakdown.
  const firstPage = useMemo(() => (by === 'month' ? null : get(by, applied, PAGE, { page: 1, ...withPrevious })), [key]);
  const firstRows = (r: Result, n: number): Result => ({ ...r, rows: r.rows.slice(0, n) });
  // What the charts draw: every month of the range, the top rows and the largest stores (each a bounded page).
  const data = useLoad(async () => {
    const [months, top, stores, prevMonths] = await Promise.all([
      get('month', applied, 1000),
      firstPage ? firstPage.then((r) => firstRows(r, TOP)) : null,
      by === 'dsp' && firstPage ? firstPage.then((r) => firstRows(r, STORES)) : get('dsp', applied, STORES),
      prevFilters ? get('month', prevFilters, 1000) : null,
    ]);
    return { by, applied, months, top, stores, prevMonths };
  }, [key]);
  // the filters' artists and files, asked for once the figures are shown (the page's first
  // data does not wait in the queue behind them; a list opened before has them a moment later)
  const shown = !!(data.data || data.error);
  const artists = useLoad(() => (shown ? ok(client.GET('/artist/', { params: { query: { size: 200 } } })) : Promise.resolve(undefined)), [shown]);
  const files = useLoad(() => (shown ? ok(client.GET('/file/', { params: { query: { size: 100 } } })) : Promise.resolve(undefined)), [shown]);
  // The table: one page, sorted by the server.
  const [sort, setSort] = useState<Sort | null>(null);
  const [page, setPage] = useState(1);
  const tableKey = JSON.stringify([key, page, sort]);
  const table = useLoad(async () => ({ key: tableKey, res: by === 'month' ? null
    : page === 1 && !sort && firstPage ? await firstPage
    : await get(by, applied, PAGE, { page, sort: sort?.id, order: sort?.dir, ...withPrevious }) }), [tableKey]);
  const tableRes = table.data?.key === tableKey ? table.data.res : null;
  const chooseBy = (k: Group) => { setBy(k); setSort(null); setPage(1); };
  const d = data.data;
  const res = d?.months;
  const fill = (r: Result, a: Filters) => (a.periodFilterType === 'sale' ? everyMonth(r.rows, a.start, a.end) : r.rows);
  const months = d ? fill(d.months, d.applied) : [];
  const prevMonths = d?.prevMonths && prevRange ? fill(d.prevMonths, { ...d.applied, ...prevRange }) : null;
  const tableRows = d?.by === 'month' ? months : tableRes?.rows ?? [];
  // the previous figure of a row: the same month offset (month), else the server's PreviousRoyalty
  const prevOf = (r: Row): string | undefined => {
    if (!prevRange || !d) return undefined;
    if (d.by === 'month') return prevMonths?.[months.indexOf(r)]?.revenue ?? '0';
    return typeof r.PreviousRoyalty === 'string' ? r.PreviousRoyalty : '0';
  };
  const set = (k: keyof Filters) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const dl = useAction();
  // the whole breakdown, every row, written by the server as it reads them (not the page shown)
  const exportAs = (format: 'csv' | 'xlsx') => dl.run(() => download(`/royalty/${by}${qs({ ...applied, format })}`, `royalty-${by}.${format}`));
  const byLabel = BREAKDOWNS.find(([k]) => k === (d?.by ?? by))![1];
  const cur = res?.currency ?? '';
  const money = (s: string) => localMoney(s);
  const top = d?.top ? d.top.rows : [];
  const storeRows = d ? d.stores.rows.filter((r) => Number(r.revenue) > 0) : [];
  const storeTotal = d ? Number(d.stores.total.revenue) : 0;
  const storesShown = storeRows.slice(0, STORES);
  const otherStores = d ? Number(d.stores.total.revenue) - storesShown.reduce((s, r) => s + Number(r.revenue), 0) : 0;
  const share = (v: number) => (storeTotal ? `${((v / storeTotal) * 100).toFixed(1)} %` : '0 %');
  const rangeWords = (r: { start: string; end: string }) => `${monthName(r.start)} to ${monthName(r.end)}`;
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
          <Field label="Store"><input type="text" value={f.dsp} onInput={set('dsp')} /></Field>
          <Field label="Country (ISO)"><input type="text" maxLength={2} value={f.country} onInput={set('country')} /></Field>
          <Field label="Sale type"><input type="text" value={f.saleType} onInput={set('saleType')} /></Field>
          <button type="submit" class="primary">Apply</button>
        </form>
        {prevRange ? null : <p class="muted">Choose From and To to see the previous period of the same length beside this one.</p>}
      </Section>
      <div role="group" aria-label="Breakdown" class="tabs">
        {BREAKDOWNS.map(([k, label]) => (
          <button key={k} type="button" aria-pressed={by === k} onClick={() => chooseBy(k)}>{label}</button>
        ))}
      </div>
      <Section title={`Revenue by ${byLabel.toLowerCase()}`} actions={(
        <div class="row tight">
          <button type="button" onClick={() => exportAs('csv')} disabled={!res || dl.busy}>Download CSV</button>
          <button type="button" onClick={() => exportAs('xlsx')} disabled={!res || dl.busy}>Download XLSX</button>
        </div>
      )}>
        <Loading show={data.loading || table.loading} /><ErrorBox error={data.error ?? table.error ?? dl.error} />
        {d && res ? (
          <>
            <dl class="figures">
              <div><dt>Total{prevRange ? ` (${rangeWords({ start: d.applied.start.slice(0, 7), end: d.applied.end.slice(0, 7) })})` : ''}</dt>
                <dd><strong data-testid="chart-total" data-by={d.by} data-value={res.total.revenue}>{localMoney(res.total.revenue, cur)}</strong>
                  <span class="muted"> · {decimal(res.total.quantity, 0)} units · {res.total.lines} lines</span></dd></div>
              {d.prevMonths && prevRange ? (
                <div><dt>Previous period ({rangeWords(prevRange)})</dt>
                  <dd><strong data-testid="previous-total" data-value={d.prevMonths.total.revenue}>{localMoney(d.prevMonths.total.revenue, cur)}</strong>
                    <span class="muted"> · {decimal(d.prevMonths.total.quantity, 0)} units · {d.prevMonths.total.lines} lines · change {change(res.total.revenue, d.prevMonths.total.revenue)}</span></dd></div>
              ) : null}
            </dl>
            <div class="charts">
              <figure class="chart">
                <figcaption>Revenue by month ({cur})</figcaption>
                <ChartCanvas testId="chart-months" label={`Revenue by month in ${cur}: ${months.map((r) => `${monthName(String(r.month))} ${money(r.revenue)}`).join('; ')}${prevMonths ? `. Previous period: ${prevMonths.map((r) => `${monthName(String(r.month))} ${money(r.revenue)}`).join('; ')}` : ''}.`}
                  config={{ type: 'line', data: {
                    labels: months.map((r) => String(r.month)),
                    datasets: [
                      { label: 'This period', data: months.map((r) => Number(r.revenue)), borderColor: CHART_COLOURS[0], backgroundColor: CHART_COLOURS[0], tension: 0.2 },
                      ...(prevMonths ? [{ label: 'Previous period', data: prevMonths.map((r) => Number(r.revenue)), borderColor: CHART_COLOURS[1], backgroundColor: CHART_COLOURS[1], borderDash: [6, 4], tension: 0.2 }] : []),
                    ] } }} />
              </figure>
              {top.length ? (
                <figure class="chart">
                  <figcaption>Top {top.length} by {byLabel.toLowerCase()} ({cur})</figcaption>
                  <ChartCanvas testId="chart-top" label={`Top ${top.length} by ${byLabel.toLowerCase()} in ${cur}: ${top.map((r) => `${labelOf(r, d.by)} ${money(r.revenue)}`).join('; ')}.`}
                    config={{ type: 'bar', options: { indexAxis: 'y', plugins: { legend: { display: !!prevRange } } }, data: {
                      labels: top.map((r) => labelOf(r, d.by).slice(0, 28)),
                      datasets: [
                        { label: 'This period', data: top.map((r) => Number(r.revenue)), backgroundColor: CHART_COLOURS[0] },
                        ...(prevRange ? [{ label: 'Previous period', data: top.map((r) => Number(prevOf(r) ?? 0)), backgroundColor: CHART_COLOURS[1] }] : []),
                      ] } }} />
                </figure>
              ) : null}
              {storesShown.length ? (
                <figure class="chart">
                  <figcaption>Shares by store</figcaption>
                  <ChartCanvas testId="chart-stores" label={`Shares of revenue by store: ${storesShown.map((r) => `${labelOf(r, 'dsp')} ${share(Number(r.revenue))}`).join('; ')}${otherStores ? `; other stores ${share(otherStores)}` : ''}.`}
                    config={{ type: 'doughnut', options: { plugins: { legend: { position: 'right' } } }, data: {
                      labels: [...storesShown.map((r) => labelOf(r, 'dsp')), ...(otherStores ? ['Other stores'] : [])],
                      datasets: [{ label: 'Revenue', data: [...storesShown.map((r) => Number(r.revenue)), ...(otherStores ? [otherStores] : [])], backgroundColor: CHART_COLOURS }],
                    } }} />
                </figure>
              ) : null}
            </div>
            <BreakdownTable caption={`Revenue by ${byLabel.toLowerCase()}`} rows={tableRows}
              sort={d.by === 'month' ? null : sort ?? { id: 'revenue', dir: 'desc' }} onSort={d.by === 'month' ? null : (s) => { setSort(s); setPage(1); }}
              paging={d.by === 'month' || !tableRes ? null : { page, total: tableRes.pagination?.total ?? 0, onPage: setPage }}
              columns={[
                { id: 'name', label: byLabel, cell: (r) => labelOf(r, d.by), sort: 'name' },
                { id: 'revenue', label: `Revenue (${cur})`, cell: (r) => money(r.revenue), num: true, sort: 'revenue' },
                ...(prevRange ? [
                  { id: 'previous', label: `Previous (${cur})`, cell: (r: Row) => money(prevOf(r) ?? '0'), num: true },
                  { id: 'change', label: 'Change', cell: (r: Row) => change(r.revenue, prevOf(r)), num: true },
                ] : []),
                { id: 'quantity', label: 'Quantity', cell: (r) => decimal(r.quantity, 0), num: true, sort: 'quantity' },
                { id: 'lines', label: 'Lines', cell: (r) => r.lines, num: true, sort: 'lines' },
              ]} />
          </>
        ) : null}
      </Section>
    </>
  );
}

/**
 * The analytics benches' combinations (issue 37): every /royalty/* route × filter set (single
 * and crossed) × view, the timing loops and the table they print. Shared by bench/analytics.ts
 * (10M over HTTP), bench/analytics-100m.ts (straight into the stores) and
 * bench/analytics-scaleout.ts (two API nodes).
 */
import { withTenant, type Db } from '../src/db';
import type { GroupBy } from '../src/modules/royalty/analytics';
import { VIEWS, type View } from './analytics-workspace';
import { pct } from './stats';

export const ROUTES: [string, GroupBy][] = [
  ['/royalty/', 'total'], ['/royalty/month', 'month'], ['/royalty/accountingperiod', 'accountingperiod'], ['/royalty/dsp', 'dsp'],
  ['/royalty/country', 'country'], ['/royalty/artist', 'artist'], ['/royalty/product', 'product'], ['/royalty/asset', 'asset'],
  ['/royalty/saletype', 'saletype'], ['/royalty/aggregator', 'aggregator'],
];

export interface Combo {
  label: string;
  path: string;
  group: GroupBy;
  q: Record<string, string>;
  view: View;
  /** filters counted as the issue does (the dates are one filter; paging none) */
  filters: number;
}

export interface Ids { artist: string; product: string; asset: string; file: string }

/**
 * The catalogue items the filters name: artist 500, its recording 500 (on product 500) — paid
 * to the label, to artist0 and (recording 500) to the 20-recording payee, so no view is empty.
 */
export async function filterIds(db: Db, tenantId: number, fileIds: string[]): Promise<Ids> {
  return withTenant(db.app, tenantId, async (trx) => ({
    artist: (await trx.raw(`SELECT id FROM artists WHERE name = 'Bench Artist 500'`)).rows[0].id,
    asset: (await trx.raw(`SELECT id FROM assets WHERE isrc = 'QZBEN2000500'`)).rows[0].id,
    product: (await trx.raw(`SELECT id FROM products WHERE title = 'Product 500'`)).rows[0].id,
    file: fileIds[Math.min(5, fileIds.length - 1)]!,
  }));
}

function countFilters(q: Record<string, string>): number {
  const keys = Object.keys(q);
  const dates = keys.some((k) => k === 'start' || k === 'end' || k === 'periodFilterType') ? 1 : 0;
  return dates + keys.filter((k) => !['start', 'end', 'periodFilterType', 'page', 'size'].includes(k)).length;
}

/**
 * Every route × filter set × view. The filter sets are today's (single and crossed); the
 * payees' views take the sets a member's page sends (marked true), the admin every set.
 * `views` narrows the views (BENCH_VIEWS), `only` the labels (BENCH_ONLY).
 */
export function combos(ids: Ids, views: readonly View[] = VIEWS, only: RegExp | null = null): Combo[] {
  const { artist, product, asset, file } = ids;
  const filters: [Record<string, string>, boolean][] = [
    [{}, true],
    [{ start: '2024-01', end: '2024-06' }, true],
    [{ periodFilterType: 'accounting', start: '2023-07', end: '2023-12', country: 'DE' }, false],
    [{ country: 'DE' }, true],
    [{ dsp: 'Spotify' }, true],
    [{ artist }, true],
    [{ product }, false],
    [{ asset }, false],
    [{ file }, false],
    [{ artist, start: '2024-01', end: '2024-06' }, false],
    [{ file, artist }, false],
    [{ asset, dsp: 'Spotify', periodFilterType: 'accounting', start: '2024-01', end: '2024-12' }, true],
    [{ artist, country: 'DE' }, true],
    [{ product, dsp: 'Spotify', country: 'DE' }, false],
  ];
  const short = (p: string) => p.replace(artist, '<artist>').replace(file, '<file>').replace(asset, '<asset>').replace(product, '<product>');
  const out: Combo[] = [];
  for (const [route, group] of ROUTES) {
    const extra: [Record<string, string>, boolean][] = group === 'asset' ? [[{ page: '5', size: '100' }, true]] : [];
    for (const [q, member] of [...filters, ...extra]) {
      for (const view of views) {
        if (view !== 'admin' && !member) continue;
        const qs = new URLSearchParams(q).toString();
        const path = `${route}${qs ? `?${qs}` : ''}`;
        const label = `${short(decodeURIComponent(path))} (${view})`;
        if (only && !only.test(label)) continue;
        out.push({ label, path, group, q, view, filters: countFilters(q) });
      }
    }
  }
  return out;
}

export interface Timing { p50: number; p95: number; n: number }

/** n calls over `conc` clients, stopping early (after at least `conc`) once maxSecs have passed. */
export async function timed(n: number, fn: () => Promise<unknown>, conc: number, maxSecs: number): Promise<Timing> {
  const times: number[] = [];
  let next = 0;
  const until = performance.now() + maxSecs * 1000;
  const worker = async () => {
    while (next < n && (next < conc || performance.now() < until)) {
      next++;
      const s = performance.now();
      await fn();
      times.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: conc }, worker));
  return { p50: pct(times, 50), p95: pct(times, 95), n: times.length };
}

/**
 * `conc` clients, each asking every one of `n` questions once, one after another, client i
 * starting at question i·n/conc (so that, at any time, the clients ask different questions):
 * each question's latencies, `conc` of them.
 */
export async function mixedLoad(n: number, ask: (i: number) => Promise<unknown>, conc: number): Promise<Timing[]> {
  const times: number[][] = Array.from({ length: n }, () => []);
  await Promise.all(
    Array.from({ length: conc }, async (_, c) => {
      for (let k = 0; k < n; k++) {
        const i = (Math.floor((c * n) / conc) + k) % n;
        const s = performance.now();
        await ask(i);
        times[i]!.push(performance.now() - s);
      }
    }),
  );
  return times.map((t) => ({ p50: pct(t, 50), p95: pct(t, 95), n: t.length }));
}

/** GET over HTTP; the answer's `source` (which engine answered). */
export async function httpGet(base: string, token: string, path: string): Promise<string> {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { source?: string }).source ?? '?';
}

export interface Row {
  label: string;
  filters: number;
  /** the engine: median one at a time, p95 with CONCURRENCY clients, who answered */
  alone?: Timing;
  loaded?: Timing;
  /** p95 while 8 clients each ask every combination in turn, from different starting points (`mixedLoad`) */
  mixed?: Timing;
  source?: string;
  /** the Postgres path: median one at a time; null when over MAX_SECS (then `pgOver` ms) */
  pg?: Timing | null;
  pgOver?: number;
}

export const ms = (x: number | undefined) => (x === undefined ? '' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(x < 100 ? 1 : 0)}`);

/** The full table (Markdown) and the summary against the issue's targets. */
export function printTable(rows: Row[], targets: { alone: number; loaded: number }, maxSecs: number): void {
  const mixed = rows.some((r) => r.mixed);
  console.log(`\n| route × filter (view) | filters | median alone (ms) | p95, 8 clients (ms) |${mixed ? ' p95, 8 clients on different questions (ms) |' : ''} source | Postgres path median alone (ms) |`);
  console.log(`|---|---:|---:|---:|${mixed ? '---:|' : ''}---|---:|`);
  for (const r of rows) {
    const pg = r.pg === undefined ? '' : r.pg === null ? `> ${maxSecs} s (${ms(r.pgOver)})` : `${ms(r.pg.p50)}`;
    console.log(`| ${r.label.replace(/\|/g, '\\|')} | ${r.filters} | ${ms(r.alone?.p50)} | ${ms(r.loaded?.p95)} |${mixed ? ` ${ms(r.mixed?.p95)} |` : ''} ${r.source ?? ''} | ${pg} |`);
  }
  const measured = rows.filter((r) => r.alone);
  const worstAlone = measured.reduce<Row | null>((w, r) => (!w || r.alone!.p50 > w.alone!.p50 ? r : w), null);
  const overAlone = measured.filter((r) => r.alone!.p50 >= targets.alone);
  console.log(`\n${measured.length} combinations; median alone: worst ${worstAlone ? `${ms(worstAlone.alone!.p50)} ms (${worstAlone.label})` : '-'}, ${overAlone.length} at or over ${targets.alone} ms`);
  for (const r of overAlone.sort((a, b) => b.alone!.p50 - a.alone!.p50)) console.log(`  ${ms(r.alone!.p50).padStart(8)} ms  ${r.label}  [${r.source}]`);
  const loaded = rows.filter((r) => r.loaded);
  if (loaded.length) {
    const worst = loaded.reduce((w, r) => (r.loaded!.p95 > w.loaded!.p95 ? r : w));
    const over = loaded.filter((r) => r.loaded!.p95 >= targets.loaded);
    console.log(`p95 with the clients: worst ${ms(worst.loaded!.p95)} ms (${worst.label}), ${over.length} at or over ${targets.loaded} ms`);
    for (const r of over.sort((a, b) => b.loaded!.p95 - a.loaded!.p95)) console.log(`  ${ms(r.loaded!.p95).padStart(8)} ms  ${r.label}  [${r.source}]`);
  }
  const mixedRows = rows.filter((r) => r.mixed);
  if (mixedRows.length) {
    const worst = mixedRows.reduce((w, r) => (r.mixed!.p95 > w.mixed!.p95 ? r : w));
    const over = mixedRows.filter((r) => r.mixed!.p95 >= targets.loaded);
    console.log(`p95 with the clients on different questions: worst ${ms(worst.mixed!.p95)} ms (${worst.label}), ${over.length} at or over ${targets.loaded} ms`);
    for (const r of over.sort((a, b) => b.mixed!.p95 - a.mixed!.p95)) console.log(`  ${ms(r.mixed!.p95).padStart(8)} ms  ${r.label}  [${r.source}]`);
  }
  const notEngine = measured.filter((r) => r.source && !r.source.startsWith('duckdb'));
  if (notEngine.length) console.log(`answered by Postgres, not the engine: ${notEngine.length} (${notEngine.slice(0, 5).map((r) => r.label).join('; ')}${notEngine.length > 5 ? '; …' : ''})`);
}

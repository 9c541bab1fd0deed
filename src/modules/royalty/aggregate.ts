/**
 * Rollups (migrations 20261123300200, 300300, 500000, 530000, 540000, 540100, 540200, 540300, 600000, 600100, 610000, 620000, 620100, 620200).
 *
 * Per file (rebuilt whole for a file, the source of truth for the compact tables):
 *   royalty_agg_file_dims       sale month × DSP × country × sale type × aggregator
 *   royalty_agg_file_catalogue  sale month × artist × product × recording
 *   royalty_agg_file_artist     sale month × ARTIST × all four statement dimensions
 *                               (workspace and member rows): artist × any dimensions
 *   royalty_agg_file_member_cross  members' artist × product × recording × ONE statement
 *                               dimension, no sale month (for royalty_agg_cross_period)
 *   royalty_agg_file_cross      sale month × artist × product × recording × ONE statement
 *                               dimension (dim 1 DSP, 2 country, 3 sale type, 4 aggregator)
 *                               for the workspace, with the rows' line numbers (what no
 *                               rollup answers fetches exactly its lines through them); for
 *                               members at artist grain
 *   (compact, from the artist rows: royalty_agg_artist_dim, artist × ONE dimension × month;
 *    from the dims rows: royalty_agg_dim[_all], ONE dimension; from the catalogue rows:
 *    royalty_agg_catalogue_q, catalogue × sale quarter, and royalty_agg_catalogue_h, catalogue
 *    × sale half-year and × sale year, royalty_agg_item_all, all-time per artist / product /
 *    recording, and royalty_agg_item_h, the same per sale half-year and year; from the
 *    workspace cross rows:
 *    royalty_agg_cross_period, catalogue × ONE dimension × accounting period, with the
 *    members' rows above, and its all-time twin royalty_agg_cross_all)
 * All of them from ONE statement that reads the file's lines once and its current earnings
 * once: catalogue and artist × dimension rows hashed together (GROUPING SETS), the dims rows
 * and the member cross rows summed from the artist rows, the workspace cross rows from the
 * same lines. Hash joins (the file's rows were written a moment ago:
 * their statistics are stale, and a nested loop over a misestimated "1 row" is quadratic).
 * Compact tables (no file) are kept by ONE upsert per table of the file's net change: its new
 * per-file rows minus its old ones (set aside in temporary tables before they are replaced),
 * summed per key, keys whose net change is zero left alone (INSERT … ON CONFLICT DO UPDATE),
 * so a file costs work proportional to its own groups, never a rebuild of the workspace, and
 * a re-aggregation after a re-allocation writes only the rows that changed (the members'
 * whose earnings moved; the workspace rows, sums of the unchanged lines, stay as they were).
 * Rows that fall to zero lines are removed (one DELETE, only when the upsert left such a row).
 *
 * Workspace rows (payee = ZERO_UUID) sum every line's base amount, matched or not; payee
 * rows sum that member's current earnings (revenue) and the quantity / count of the lines
 * they earn from.
 */
import type { Trx } from '../../db';
import { hashJoins, setWorkMem, ROLLUP_WORK_MEM, ZERO_UUID } from './allocate';

const DATED = ['payee', 'sale_month', 'accounting_period', 'ap_end'];
const DIMS = ['dsp', 'country', 'sale_type', 'aggregator'];
const CAT = ['artist_id', 'product_id', 'asset_id'];
/** A compact table's per-file source, over per-file tables named by `t` (the tables themselves, or a file's old rows set aside). */
type Source = (t: (perFile: string) => string) => string;
/** A per-file table's rows (all four dimensions), one row per dimension: dim, value. */
const oneRowPerDim = (table: string, extra: string) => `(SELECT a.tenant_id, a.file_id, a.payee, a.sale_month, a.accounting_period, a.ap_end, ${extra}d.dim, d.value, a.revenue, a.quantity, a.lines
    FROM ${table} a
    CROSS JOIN LATERAL (VALUES (1::smallint, a.dsp), (2::smallint, a.country), (3::smallint, a.sale_type), (4::smallint, a.aggregator)) d(dim, value)) x`;
const ARTIST_DIM_SOURCE: Source = (t) => oneRowPerDim(t('royalty_agg_file_artist'), 'a.artist_id, ');
const DIM_SOURCE: Source = (t) => oneRowPerDim(t('royalty_agg_file_dims'), '');
/** A per-file catalogue row by its sale quarter (royalty_agg_catalogue_q). */
const QUARTER_SOURCE: Source = (t) => `(SELECT tenant_id, file_id, payee, date_trunc('quarter', sale_month::timestamp)::date AS sale_quarter, artist_id, product_id, asset_id, revenue, quantity, lines
    FROM ${t('royalty_agg_file_catalogue')}) q`;
/** Two rows per row: its sale half-year (grain 6) and its sale year (grain 12) as g(grain, period_start), from sale month `m`. */
const SALE_HALF_AND_YEAR = (m: string) => `CROSS JOIN LATERAL (VALUES
      (6::smallint, (date_trunc('year', ${m}::timestamp) + make_interval(months => CASE WHEN extract(month FROM ${m}) > 6 THEN 6 ELSE 0 END))::date),
      (12::smallint, date_trunc('year', ${m}::timestamp)::date)) g(grain, period_start)`;
/** A per-file catalogue row by its sale half-year and sale year, for royalty_agg_catalogue_h. */
const HALF_YEAR_SOURCE: Source = (t) => `(SELECT c.tenant_id, c.file_id, c.payee, g.grain, g.period_start, c.artist_id, c.product_id, c.asset_id, c.revenue, c.quantity, c.lines
    FROM ${t('royalty_agg_file_catalogue')} c ${SALE_HALF_AND_YEAR('c.sale_month')}) h`;
/** A per-file catalogue row as one row per item: its artist (kind 1), product (2) and recording (3). */
const itemRows = (t: (perFile: string) => string) => `(SELECT c.tenant_id, c.file_id, c.payee, c.sale_month, k.kind, k.item, c.revenue, c.quantity, c.lines
    FROM ${t('royalty_agg_file_catalogue')} c
    CROSS JOIN LATERAL (VALUES (1::smallint, c.artist_id), (2::smallint, c.product_id), (3::smallint, c.asset_id)) k(kind, item))`;
/** …for royalty_agg_item_all; and by sale half-year and year, for royalty_agg_item_h. */
const ITEM_SOURCE: Source = (t) => `${itemRows(t)} i`;
const ITEM_PERIOD_SOURCE: Source = (t) => `(SELECT i.tenant_id, i.file_id, i.payee, i.kind, i.item, g.grain, g.period_start, i.revenue, i.quantity, i.lines
    FROM ${itemRows(t)} i ${SALE_HALF_AND_YEAR('i.sale_month')}) ih`;
/** A file's workspace cross rows and its members' catalogue × dimension rows, for royalty_agg_cross_period / _all. */
const CROSS_PERIOD_COLS = 'tenant_id, file_id, payee, dim, value, accounting_period, ap_end, artist_id, product_id, asset_id, revenue, quantity, lines';
const WORKSPACE = `payee = '${ZERO_UUID}'`;
const CROSS_PERIOD_SOURCE: Source = (t) => `(SELECT ${CROSS_PERIOD_COLS} FROM ${t('royalty_agg_file_cross')} WHERE ${WORKSPACE}
    UNION ALL SELECT ${CROSS_PERIOD_COLS} FROM ${t('royalty_agg_file_member_cross')}) c`;
const perFile = (name: string): Source => (t) => t(name);
/** compact table → [per-file source, its upsert key (after tenant_id)] */
const COMPACT: [string, Source, string[]][] = [
  ['royalty_agg_artist_dim', ARTIST_DIM_SOURCE, ['payee', 'dim', 'artist_id', 'value', 'sale_month', 'accounting_period', 'ap_end']],
  ['royalty_agg_dim', DIM_SOURCE, ['payee', 'dim', 'value', 'sale_month', 'accounting_period', 'ap_end']],
  ['royalty_agg_dim_all', DIM_SOURCE, ['payee', 'dim', 'value']],
  ['royalty_agg_period', perFile('royalty_agg_file_dims'), DATED],
  ['royalty_agg_dims', perFile('royalty_agg_file_dims'), [...DATED, ...DIMS]],
  ['royalty_agg_catalogue', perFile('royalty_agg_file_catalogue'), [...DATED, ...CAT]],
  ['royalty_agg_catalogue_q', QUARTER_SOURCE, ['payee', 'sale_quarter', ...CAT]],
  ['royalty_agg_catalogue_h', HALF_YEAR_SOURCE, ['payee', 'grain', 'period_start', ...CAT]],
  ['royalty_agg_cross_period', CROSS_PERIOD_SOURCE, ['payee', 'dim', 'value', 'accounting_period', 'ap_end', ...CAT]],
  ['royalty_agg_cross_all', CROSS_PERIOD_SOURCE, ['payee', 'dim', 'value', ...CAT]],
  ['royalty_agg_dims_all', perFile('royalty_agg_file_dims'), ['payee', ...DIMS]],
  ['royalty_agg_catalogue_all', perFile('royalty_agg_file_catalogue'), ['payee', ...CAT]],
  ['royalty_agg_item_all', ITEM_SOURCE, ['payee', 'kind', 'item']],
  ['royalty_agg_item_h', ITEM_PERIOD_SOURCE, ['payee', 'kind', 'grain', 'period_start', 'item']],
];
/** Per-file tables: [table, columns, rows] of a file's old rows to set aside (of the cross rows: what CROSS_PERIOD_SOURCE reads, no line lists). */
const FILE_TABLES: [string, string, string][] = [
  ['royalty_agg_file_dims', '*', ''],
  ['royalty_agg_file_catalogue', '*', ''],
  ['royalty_agg_file_cross', CROSS_PERIOD_COLS, ` AND ${WORKSPACE}`],
  ['royalty_agg_file_artist', '*', ''],
  ['royalty_agg_file_member_cross', '*', ''],
];
/** The per-file tables themselves (a file's current rows). */
const current = (n: string) => n;
/** The temporary copy of a file's old rows of per-file table `n` (aggregateFile). */
const setAside = (n: string) => `agg_old_${n.replace('royalty_agg_file_', '')}`;

/**
 * Moves a file's contribution in every compact table: + the rows of the per-file tables named
 * by `add`, − those named by `sub`, in ONE upsert per table of the net change per key; keys
 * whose net change is zero are not touched (a re-aggregation after a re-allocation leaves the
 * workspace rows as they were: only the changed members' rows are written). Returns the
 * tables where a row fell to zero lines.
 */
async function moveCompact(trx: Trx, tenantId: number, fileId: string, add: typeof current | null, sub: typeof current | null, lap?: Lap): Promise<string[]> {
  const zeroed: string[] = [];
  for (const [table, source, key] of COMPACT) {
    const cols = key.join(', ');
    const parts: string[] = [];
    const bindings: any[] = [];
    if (add) {
      parts.push(`SELECT tenant_id, ${cols}, revenue, quantity, lines FROM ${source(add)} WHERE tenant_id = ? AND file_id = ?`);
      bindings.push(tenantId, fileId);
    }
    if (sub) {
      parts.push(`SELECT tenant_id, ${cols}, -revenue AS revenue, -quantity AS quantity, -lines AS lines FROM ${source(sub)} WHERE tenant_id = ? AND file_id = ?`);
      bindings.push(tenantId, fileId);
    }
    const { rows } = await trx.raw(
      `WITH u AS (
         INSERT INTO ${table} (tenant_id, ${cols}, revenue, quantity, lines)
         SELECT tenant_id, ${cols}, sum(revenue), sum(quantity), sum(lines)
           FROM (${parts.join(' UNION ALL ')}) m
          GROUP BY tenant_id, ${cols}
         HAVING sum(revenue) <> 0 OR sum(quantity) <> 0 OR sum(lines) <> 0
          ORDER BY ${cols}
         ON CONFLICT (tenant_id, ${cols}) DO UPDATE SET
           revenue = ${table}.revenue + excluded.revenue,
           quantity = ${table}.quantity + excluded.quantity,
           lines = ${table}.lines + excluded.lines
         RETURNING lines)
       SELECT count(*) FILTER (WHERE lines = 0)::int AS zero FROM u`,
      bindings,
    );
    if (rows[0].zero > 0) zeroed.push(table);
    lap?.(table.replace('royalty_agg_', ''));
  }
  return zeroed;
}

async function dropZeroes(trx: Trx, tenantId: number, tables: string[]): Promise<void> {
  for (const t of new Set(tables)) await trx.raw(`DELETE FROM ${t} WHERE tenant_id = ? AND lines = 0`, [tenantId]);
}

/** Remove a file's contribution from every rollup. */
export async function removeFileRollups(trx: Trx, tenantId: number, fileId: string): Promise<void> {
  await dropZeroes(trx, tenantId, await moveCompact(trx, tenantId, fileId, null, current));
  for (const [t] of FILE_TABLES) await trx.raw(`DELETE FROM ${t} WHERE tenant_id = ? AND file_id = ?`, [tenantId, fileId]);
}

/** Records the milliseconds since the previous lap under `step`. */
type Lap = (step: string) => void;

/** (Re)build a file's rollups from its lines and current earnings; returns milliseconds per step (logged by the job, printed by bench:ingest). */
export async function aggregateFile(trx: Trx, tenantId: number, fileId: string): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  let t0 = Date.now();
  const lap: Lap = (step) => {
    const t = Date.now();
    timings[step] = (timings[step] ?? 0) + t - t0;
    t0 = t;
  };
  // The groups of a large file fit in memory: hashed passes instead of sorts or spills.
  await setWorkMem(trx, ROLLUP_WORK_MEM);
  // The file's old per-file rows, set aside (temporary tables: no WAL, no index), then deleted;
  // the compact tables get the net change (new − old) below, one upsert per table.
  for (const [t, cols, rows] of FILE_TABLES) {
    await trx.raw(`DROP TABLE IF EXISTS ${setAside(t)}`);
    await trx.raw(`CREATE TEMP TABLE ${setAside(t)} ON COMMIT DROP AS SELECT ${cols} FROM ${t} WHERE tenant_id = ? AND file_id = ?${rows}`, [tenantId, fileId]);
    await trx.raw(`DELETE FROM ${t} WHERE tenant_id = ? AND file_id = ?`, [tenantId, fileId]);
  }
  lap('setAside');
  const { rows } = await trx.raw(
    `SELECT to_char(f.accounting_period, 'YYYY-MM-DD') AS accounting_period,
            to_char(f.accounting_period + make_interval(months => CASE t.accounting_cadence WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END) - interval '1 day', 'YYYY-MM-DD') AS ap_end
       FROM files f JOIN tenants t ON t.id = f.tenant_id WHERE f.tenant_id = ? AND f.id = ?`,
    [tenantId, fileId],
  );
  if (!rows.length) {
    await dropZeroes(trx, tenantId, await moveCompact(trx, tenantId, fileId, null, setAside));
    return timings;
  }
  const { accounting_period: ap, ap_end: apEnd } = rows[0];
  const all = [...DIMS, ...CAT].map((c) => `l.${c}`).join(', ');
  const allE = [...DIMS, ...CAT].map((c) => `e.${c}`).join(', ');
  const cat = CAT.join(', ');
  const catE = CAT.map((c) => `e.${c}`).join(', ');
  const dims = DIMS.join(', ');
  const oneDim = (cols: string) => '(' + DIMS.map((d) => `(${cols}, ${d})`).join(', ') + ')';
  const dimNo = `CASE WHEN GROUPING(dsp) = 0 THEN 1 WHEN GROUPING(country) = 0 THEN 2 WHEN GROUPING(sale_type) = 0 THEN 3 ELSE 4 END`;
  const dimValue = `CASE WHEN GROUPING(dsp) = 0 THEN dsp WHEN GROUPING(country) = 0 THEN country WHEN GROUPING(sale_type) = 0 THEN sale_type ELSE aggregator END`;
  const per = `?, ?::date, ?::date, ?::uuid`; // tenant_id, accounting_period, ap_end, file_id
  const perB = [tenantId, ap, apEnd, fileId];
  await hashJoins(trx, async () => {
    // ONE statement, the file's lines read once (`l`, used twice: materialised):
    //  - g: lines + current earnings hashed into two grouping sets, catalogue (gset 1) and
    //    artist × all four dimensions (gset 2); the dims rows are the artist rows summed over
    //    the artist (a few rows, not a third hash of every line and earning);
    //  - the member cross rows (artist grain × ONE dimension) from g's member artist rows;
    //  - the members' catalogue × ONE dimension rows (no sale month) from the earnings;
    //  - the workspace cross rows (catalogue × ONE dimension, with their line numbers) from `l`.
    await trx.raw(
      `WITH l AS (
         SELECT line_no, sale_month, ${all}, l.base_amount, l.quantity
           FROM royalty_lines l WHERE l.tenant_id = ? AND l.file_id = ? AND l.base_amount IS NOT NULL
       ), src AS (
         SELECT ?::uuid AS payee, sale_month, ${[...DIMS, ...CAT].join(', ')}, base_amount AS revenue, quantity FROM l
         UNION ALL
         -- earnings carry their line's dimensions and quantity (migration 20261123510100): no join back to the lines
         SELECT e.tenant_user_id, e.sale_month, ${allE}, e.amount, e.quantity
           FROM royalty_earnings e WHERE e.tenant_id = ? AND e.file_id = ? AND e.superseded_at IS NULL
       ), g AS (
         -- gset: 1 catalogue, 2 artist × statement dimensions
         SELECT GROUPING(artist_id, product_id, dsp) AS gset, payee, sale_month, ${[...DIMS, ...CAT].join(', ')}, sum(revenue) AS revenue, sum(quantity) AS quantity, count(*) AS lines
           FROM src
          GROUP BY GROUPING SETS ((payee, sale_month, ${cat}), (payee, sale_month, artist_id, ${dims}))
       ), d AS (
         INSERT INTO royalty_agg_file_dims (tenant_id, accounting_period, ap_end, file_id, payee, sale_month, ${dims}, revenue, quantity, lines)
         SELECT ${per}, payee, sale_month, ${dims}, sum(revenue), sum(quantity), sum(lines) FROM g WHERE gset = 2
          GROUP BY payee, sale_month, ${dims}
       ), a AS (
         INSERT INTO royalty_agg_file_artist (tenant_id, accounting_period, ap_end, file_id, payee, sale_month, artist_id, ${dims}, revenue, quantity, lines)
         SELECT ${per}, payee, sale_month, artist_id, ${dims}, revenue, quantity, lines FROM g WHERE gset = 2
       ), c AS (
         INSERT INTO royalty_agg_file_catalogue (tenant_id, accounting_period, ap_end, file_id, payee, sale_month, ${cat}, revenue, quantity, lines)
         SELECT ${per}, payee, sale_month, ${cat}, revenue, quantity, lines FROM g WHERE gset = 1
       ), mx AS (
         -- member cross rows at ARTIST grain (product_id, asset_id NULL): a member's breakdown by
         -- artist under one dimension filter (the value index)
         INSERT INTO royalty_agg_file_cross (tenant_id, accounting_period, ap_end, file_id, payee, sale_month, artist_id, dim, value, revenue, quantity, lines)
         SELECT ${per}, payee, sale_month, artist_id, ${dimNo}, ${dimValue}, sum(revenue), sum(quantity), sum(lines)
           FROM g WHERE gset = 2 AND payee <> ?::uuid
          GROUP BY GROUPING SETS ${oneDim('payee, sale_month, artist_id')}
       ), mc AS (
         -- members' catalogue × ONE dimension rows, without the sale month (for the cross
         -- rollup by accounting period): the file's current earnings read a second time,
         -- rather than src (referenced twice, it would be materialised: lines and earnings)
         INSERT INTO royalty_agg_file_member_cross (tenant_id, accounting_period, ap_end, file_id, payee, ${cat}, dim, value, revenue, quantity, lines)
         SELECT ${per}, e.tenant_user_id, ${catE}, ${dimNo}, ${dimValue}, sum(e.amount), sum(e.quantity), count(*)
           FROM royalty_earnings e WHERE e.tenant_id = ? AND e.file_id = ? AND e.superseded_at IS NULL
          GROUP BY GROUPING SETS ${oneDim(`e.tenant_user_id, ${catE}`)}
       ), wx AS (
         -- workspace cross rows: catalogue × ONE statement dimension, with their line numbers
         -- (a request under several dimension filters fetches the intersection of their lists)
         INSERT INTO royalty_agg_file_cross (tenant_id, accounting_period, ap_end, file_id, payee, sale_month, ${cat}, dim, value, revenue, quantity, lines, line_nos)
         SELECT ${per}, ?::uuid, sale_month, ${cat}, ${dimNo}, ${dimValue}, sum(base_amount), sum(quantity), count(*), array_agg(line_no)
           FROM l GROUP BY GROUPING SETS ${oneDim(`sale_month, ${cat}`)}
          -- written in the value index's order (dim, value, artist): a file's rows of one DSP /
          -- country are neighbours on disk, so a request by value reads a few pages per file
          -- instead of one per row (EXPLAIN at 10M, a half-year × one country by product:
          -- 14.7 ms on rows in hash order, 7.5 ms clustered)
          ORDER BY 10, 11, 7
       )
       SELECT 1`,
      [
        tenantId, fileId, ZERO_UUID, tenantId, fileId,
        ...perB, ...perB, ...perB, ...perB, ZERO_UUID, ...perB, tenantId, fileId, ...perB, ZERO_UUID,
      ],
    );
  });
  lap('perFile');
  await dropZeroes(trx, tenantId, await moveCompact(trx, tenantId, fileId, current, setAside, lap));
  lap('dropZeroes');
  return timings;
}

/**
 * The replica's sums (docs/engine.md, "Sums"): a workspace's lines summed by share set and a
 * breakdown's columns, built from its lines and kept as its files change, in the apply's
 * transaction.
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

/**
 * The sums tables: a workspace's lines summed by share set and a breakdown's columns. A
 * breakdown with no filter, or
 * filtered on its sums' columns only, reads them instead of every line: a payee on every
 * share set reads a row per share set and group, not the lines (docs/engine.md, "Sums").
 * The line's amount and quantity scales are keys too (a sum's scale is the largest of its
 * terms': kept exact when a file's lines leave).
 *
 * Listed from the fewest rows to the most as a catalogue's lines usually make them (a read
 * takes the first that holds its columns: query.ts replicaSumsOf). The totals read the sums
 * by artist (about a row per share set) and a store's totals the sums by store and sale type
 * (a few sale types per store): kept apart, each was one more table to rewrite on every apply
 * for no faster read.
 */
export interface ReplicaSums {
  table: string;
  cols: readonly string[];
}
export const REPLICA_SUMS: readonly ReplicaSums[] = [
  { table: 'sums_artist_id', cols: ['artist_id'] },
  { table: 'sums_sale_type', cols: ['sale_type'] },
  { table: 'sums_product_id', cols: ['product_id'] },
  { table: 'sums_asset_id', cols: ['asset_id'] },
  { table: 'sums_aggregator', cols: ['aggregator'] },
  // By store and more: a store filter on a breakdown by sale type, aggregator, artist, product
  // or recording (a store is in every line; the lines are not in its order). By store and
  // recording, with the recording's product and artist (a few rows more than by store and
  // recording): one table for the three breakdowns, written again on an apply once instead of
  // three times (by store and product, by store and artist: 175 ms of 800 at 10M lines).
  { table: 'sums_dsp_sale_type', cols: ['dsp', 'sale_type'] },
  { table: 'sums_country', cols: ['country'] },
  { table: 'sums_dsp_catalogue', cols: ['dsp', 'asset_id', 'product_id', 'artist_id'] },
  { table: 'sums_dsp_aggregator', cols: ['dsp', 'aggregator'] },
  // By time and artist: month and period in one (a statement's sale months fall in a few
  // periods), with the artist (a share set's lines are mostly one artist's: 137,544 rows at
  // 10M lines, as many as by month alone). A breakdown by month or period, and the artists
  // under a date range: a payee on every share set in 16–27 ms, where the share set × artist
  // rollup in Postgres took 154 ms (and 797 ms at p95 with 8 clients).
  { table: 'sums_time', cols: ['sale_month', 'accounting_period', 'ap_end', 'artist_id'] },
  // By store and country: a store filter on a breakdown by country, or a country filter on one
  // by store (every share set × store × country: 608,600 rows at 10M lines). A statement names
  // every store and country but, of 104,000 lines, touches at most as many of its rows: merged,
  // 0.19–0.23 s an apply, for a payee on every share set by country under a store in 30 ms,
  // not 410 (its store's lines grouped by country and share set).
  { table: 'sums_dsp_country', cols: ['dsp', 'country'] },
  // By store and time (month and period in one: a statement's sale months fall in a few
  // periods): a store filter on a breakdown by month or period. A statement of one month
  // touches a 24th of its rows at two years of statements: merged, about 0.1 s an apply at
  // 10M lines, for a payee on every share set by month under a store in 20 ms, not 170.
  { table: 'sums_dsp_time', cols: ['dsp', 'sale_month', 'accounting_period', 'ap_end'] },
];
/** A sums table's key columns: share set, its breakdown's columns, the two scales. */
export const sumsKeys = (x: ReplicaSums) => ['share_set_id', ...x.cols, 'rs', 'qs'];

/**
 * A sums table of `schema` against the sums of its lines, row for row: one row of its rows
 * (`n`), its rows not among the lines' sums (`extra`) and the lines' sums not among its rows
 * (`missing`); both 0 when it holds exactly the lines' sums (tests, `bench:analytics --verify-sums`).
 */
export function sumsCheckSql(schema: string, x: ReplicaSums): string {
  const keys = sumsKeys(x).join(', ');
  const cols = `${keys}, h, lo, quantity, lines, streams, downloads`;
  const truth = `SELECT ${keys}, sum(revenue) AS h, sum(revenue_lo) AS lo, sum(quantity) AS quantity, count(*) AS lines, sum(streams) AS streams, sum(downloads) AS downloads FROM ${schema}.lines GROUP BY ${keys}`;
  return `SELECT (SELECT count(*) FROM ${schema}.${x.table}) AS n,
                 (SELECT count(*) FROM (SELECT ${cols} FROM ${schema}.${x.table} EXCEPT ALL SELECT ${cols} FROM (${truth}))) AS extra,
                 (SELECT count(*) FROM (SELECT ${cols} FROM (${truth}) EXCEPT ALL SELECT ${cols} FROM ${schema}.${x.table})) AS missing`;
}
/**
 * The sums' measures, each with its type and the line column it sums. Amounts keep 38 digits
 * (a sum of many lines' 18); the line count, quantities, streams and downloads are held in
 * 64 bits (DECIMAL(18,6): up to 10^12 units a row; writing and reading them is about a fifth
 * faster than in 128). A sums row past that fails its apply: Postgres answers the workspace.
 */
const SUMS_MEASURES: readonly (readonly [string, string, string])[] = [
  ['h', 'DECIMAL(38,8)', 'revenue'],
  ['lo', 'DECIMAL(38,12)', 'revenue_lo'],
  ['quantity', 'DECIMAL(18,6)', 'quantity'],
  ['lines', 'BIGINT', '1'],
  ['streams', 'DECIMAL(18,6)', 'streams'],
  ['downloads', 'DECIMAL(18,6)', 'downloads'],
];
/**
 * A workspace whose lines' quantities add up (in absolute value) to this many units or more
 * is answered by Postgres: no sums row of it could then be held in 64 bits.
 */
const REPLICA_UNITS_LIMIT = '1000000000000';
/** Each measure summed (of the lines' columns, or of sums rows' own), as its type (`cast` false: as summed, a change's intermediate sums). */
const summed = (of: 'lines' | 'sums', sign: 1 | -1 = 1, cast = true) =>
  SUMS_MEASURES.map(([m, type, line]) => {
    const sum = `${sign < 0 ? '-' : ''}sum(${of === 'lines' ? line : m})`;
    return `${cast ? `CAST(${sum} AS ${type})` : sum} AS ${m}`;
  }).join(', ');
/** The sums of `lines` rows (a sign of -1: to take a file's lines out). */
const sumsOfLines = (x: ReplicaSums, from: string, sign: 1 | -1 = 1) => `SELECT ${sumsKeys(x).join(', ')}, ${summed('lines', sign)} FROM ${from} GROUP BY ${sumsKeys(x).join(', ')}`;

/**
 * The sums tables from the most rows to the fewest, the order they are written in: a table
 * written in a transaction stays in DuckDB's memory until it commits unless it fills row
 * groups, which go to disk. Written first, the two largest aggregate while memory is free and
 * go to disk; written last (the list's order), the sums by store and country ran out of the
 * 100 MB the ten smaller ones and 1.2M new lines left them (a replica catching up on 11 files).
 */
const LARGEST_FIRST = [...REPLICA_SUMS].reverse();

/** Builds a workspace schema's sums from its lines (a new schema, or lines written by other means: the 100M bench). */
export async function buildReplicaSums(c: DuckDBConnection, schema: string): Promise<void> {
  for (const x of LARGEST_FIRST) await c.run(`CREATE OR REPLACE TABLE ${schema}.${x.table} AS ${sumsOfLines(x, `${schema}.lines`)}`);
}

/**
 * When a change's sums are merged into a sums table's rows rather than the table written
 * again: the rows it touches × MERGE_ROW_COST + MERGE_FIXED_ROWS fewer than the table's rows.
 * Measured at 10M lines (one statement file of 118,000 lines, 2 cores): writing a table again
 * costs about 1.3 µs a row, whatever the change; merging about 20 ms plus 3 µs a row touched.
 * A file of one month touches a 24th of the sums by month (merged: 60–75 ms instead of
 * 170–190) but nearly every row of the sums by store and recording (written again: 150–170 ms
 * instead of 300–370).
 */
const MERGE_ROW_COST = 2.5;
const MERGE_FIXED_ROWS = 15_000;

/** Whether a sums table of `rows` rows takes a change touching about `touched` of them by merging (`table`: its name). */
export const mergesSums = (touched: number, rows: number, _table?: string): boolean => touched * MERGE_ROW_COST + MERGE_FIXED_ROWS < rows;

/**
 * Brings every sums table of `schema` from the lines in `old_lines` (leaving) to those in
 * `new_lines` (entering), a temp table and a temp view of the connection's transaction. The rows each
 * table's change touches are estimated first, in one pass over the changed lines (HyperLogLog);
 * `merges` decides, per table, whether the change is merged or the table written again.
 */
export async function applyReplicaSums(w: DuckDBConnection, schema: string, merges: (touched: number, rows: number, table: string) => boolean = mergesSums): Promise<{ merged: string[]; ms: Record<string, number> }> {
  let mark = performance.now();
  const ms: Record<string, number> = {};
  const lap = (k: string) => (ms[k] = Math.round(-mark + (mark = performance.now())));
  const estimate = (await w.runAndReadAll(
    `SELECT ${REPLICA_SUMS.map((x) => `approx_count_distinct(hash(${sumsKeys(x).join(', ')}))::BIGINT`).join(', ')}
       FROM (SELECT * FROM old_lines UNION ALL SELECT * FROM new_lines)`,
  )).getRowsJson()[0] ?? [];
  const rows = new Map((await w.runAndReadAll(`SELECT table_name, estimated_size::BIGINT FROM duckdb_tables() WHERE schema_name = ?`, [schema])).getRowsJson().map(([t, n]) => [String(t), Number(n)]));
  const merged: string[] = [];
  lap('estimate');
  for (const x of LARGEST_FIRST) {
    const i = REPLICA_SUMS.indexOf(x);
    const keys = sumsKeys(x).join(', ');
    const change = `SELECT ${keys}, ${summed('sums', 1, false)} FROM (${sumsOfLines(x, 'old_lines', -1)} UNION ALL BY NAME ${sumsOfLines(x, 'new_lines')}) GROUP BY ${keys}`;
    if (merges(Number(estimate[i] ?? Infinity), rows.get(x.table) ?? 0, x.table)) {
      // Keys may be NULL (a line matched to no artist, product or share set): matched null-safe.
      const on = sumsKeys(x).map((k) => `t.${k} IS NOT DISTINCT FROM d.${k}`).join(' AND ');
      await w.run(
        `MERGE INTO ${schema}.${x.table} t USING (${change}) d ON ${on}
           WHEN MATCHED AND t.lines + d.lines = 0 THEN DELETE
           WHEN MATCHED THEN UPDATE SET ${SUMS_MEASURES.map(([m]) => `${m} = t.${m} + d.${m}`).join(', ')}
           WHEN NOT MATCHED THEN INSERT BY NAME`,
      );
      merged.push(x.table);
      lap(x.table);
    } else {
      await w.run(
        `CREATE OR REPLACE TABLE ${schema}.${x.table} AS
           SELECT ${keys}, ${summed('sums')} FROM (SELECT * FROM ${schema}.${x.table} UNION ALL BY NAME ${change}) GROUP BY ${keys} HAVING sum(lines) <> 0`,
      );
      lap(x.table);
    }
  }
  return { merged, ms };
}

/**
 * Brings a workspace's sums (schema `t<tenantId>`) along with its lines, once they changed
 * (`all`: built whole; `files`: the lines in `old_lines` left and those in `new_lines`
 * entered; `none`: no line changed). First whether the workspace is held exactly: none of
 * its lines too wide for their decimals (copied as NULL), and its lines' units under
 * REPLICA_UNITS_LIMIT (the units held with its version, less the old lines', plus the new).
 * Exact: the sums are changed as the lines were (or built whole, when new or exact again);
 * else dropped (Postgres answers the workspace).
 */
export async function keepSums(w: DuckDBConnection, tenantId: number, change: 'all' | 'files' | 'none'): Promise<{ exact: boolean; units: string; merged: string[]; ms: Record<string, number> }> {
  const s = `t${Number(tenantId)}`;
  const held = (await w.runAndReadAll(`SELECT exact, CAST(units AS VARCHAR) FROM main.replica_tenants WHERE tenant_id = ?`, [tenantId])).getRowsJson()[0];
  const wasExact = change !== 'all' && held?.[0] === true;
  const heldUnits = change !== 'all' && held?.[1] != null ? String(held[1]) : null;
  const value = async (sql: string, values: DuckDBValue[] = []) => String((await w.runAndReadAll(sql, values)).getRowsJson()[0]?.[0] ?? '0');
  const unitsOf = (from: string) => `coalesce((SELECT sum(abs(quantity)) FROM ${from}), 0)`;
  const wideIn = (from: string) => `SELECT count(*) FROM ${from} WHERE quantity IS NULL OR revenue IS NULL`;
  // Exact before: only new lines can be too wide.
  const wide = wasExact ? (change === 'files' ? await value(wideIn('new_lines')) : '0') : await value(wideIn(`${s}.lines`));
  const units = heldUnits === null
    ? await value(`SELECT CAST(${unitsOf(`${s}.lines`)} AS VARCHAR)`)
    : change === 'files'
      ? await value(`SELECT CAST(?::DECIMAL(38,6) - ${unitsOf('old_lines')} + ${unitsOf('new_lines')} AS VARCHAR)`, [heldUnits])
      : heldUnits;
  const exact = wide === '0' && (await value(`SELECT (?::DECIMAL(38,6) < ${REPLICA_UNITS_LIMIT}::DECIMAL(38,6))::INTEGER`, [units])) === '1';
  let merged: string[] = [];
  let ms: Record<string, number> = {};
  if (!exact) {
    for (const x of REPLICA_SUMS) await w.run(`DROP TABLE IF EXISTS ${s}.${x.table}`);
  } else if (change === 'files' && wasExact) {
    ({ merged, ms } = await applyReplicaSums(w, s));
  } else if (change === 'all' || !wasExact) {
    await buildReplicaSums(w, s); // new, or exact again
  }
  return { exact, units, merged, ms };
}

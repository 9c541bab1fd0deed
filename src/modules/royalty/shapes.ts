/**
 * The rollup shapes: each declared ONCE here (its key columns and time grain over the one
 * source, a file's allocated statement lines); its table's DDL (migrations), its per-file
 * rebuild (the aggregate step) and its backfill (migrations) are produced from the
 * declaration by the functions below, never written per shape.
 *
 * Every row sums the lines of ONE file with equal keys: revenue = Σ base_amount (exact
 * NUMERIC, no scale cap), quantity = Σ quantity, lines = count, streams and downloads = Σ
 * quantity of the lines of sale type `stream` and `download` (STREAM_SALE_TYPE, DOWNLOAD_SALE_TYPE). A shape keyed by
 * `share_set_id` serves members too: a payee's figures are Σ revenue × share over the share
 * sets naming them (applied at read; shares.ts of the planner's SQL), so no table holds a
 * row per payee. Rows are per file (a file's rows are replaced whole when it is aggregated
 * again and deleted with it): a shape never has more rows than the file has lines.
 *
 * No database access at import (the planner's unit tests import it). A migration after a
 * declaration changed holds the SQL of rebuildShapesSql as it was then (`npm run rondo --
 * shapes:sql --table …` prints it), never an import of this file (docs/engine.md).
 */
import type { Knex } from 'knex';

/**
 * The statement dimensions: a line column each (a line has one value of each; NULL is a value
 * too), its SQL type, and the analytics query parameter that filters by it (`upper`: the
 * value is compared upper-cased), if any.
 */
export const DIMENSIONS = {
  dsp: { type: 'text', param: 'dsp' },
  country: { type: 'text', param: 'country', upper: true },
  sale_type: { type: 'text', param: 'saleType' },
  aggregator: { type: 'text', param: null },
} as const satisfies Record<string, { type: string; param: string | null; upper?: boolean }>;
export type Dimension = keyof typeof DIMENSIONS;
export const DIMENSION_COLUMNS = Object.keys(DIMENSIONS) as Dimension[];

/** The catalogue columns a line is matched to. */
export const CATALOGUE = ['artist_id', 'product_id', 'asset_id'] as const;

/** The line columns a shape can key on, with their SQL types. */
export const KEY_TYPES: Record<'sale_month' | 'share_set_id' | (typeof CATALOGUE)[number] | Dimension, string> = {
  sale_month: 'date',
  share_set_id: 'uuid',
  artist_id: 'uuid',
  product_id: 'uuid',
  asset_id: 'uuid',
  ...Object.fromEntries(DIMENSION_COLUMNS.map((d) => [d, DIMENSIONS[d].type])) as Record<Dimension, string>,
};
export type KeyColumn = keyof typeof KEY_TYPES;

export interface ShapeDecl {
  /** Its table. */
  table: string;
  /** Key columns (besides tenant, file, the file's accounting period and the time grain). */
  keys: KeyColumn[];
  /** Time grain of the sale date: the sale month (key column `sale_month`), or none (the file's accounting period only). */
  grain: 'month' | 'file';
  /** Read indexes after tenant_id (every shape also has (tenant_id, file_id) for its per-file rebuild). */
  indexes: KeyColumn[][];
}

/**
 * The shapes, coarsest first: the planner takes the first that holds every column a request
 * needs (so a shape whose keys another's include comes before it). Members read only shapes
 * keyed by share set.
 */
export const SHAPES: readonly ShapeDecl[] = [
  // Totals by sale month and accounting period: the workspace.
  { table: 'royalty_roll_period', keys: [], grain: 'month', indexes: [] },
  // The four statement dimensions, any combination: the workspace.
  { table: 'royalty_roll_dims', keys: [...DIMENSION_COLUMNS], grain: 'month', indexes: [] },
  // Artists per share set: a member's totals, months, periods and artists; the workspace's artists.
  { table: 'royalty_roll_share_set_artist', keys: ['share_set_id', 'artist_id'], grain: 'month', indexes: [['artist_id']] },
  // The catalogue (artist × product × recording) per share set: the workspace and members.
  { table: 'royalty_roll_catalogue', keys: ['share_set_id', ...CATALOGUE], grain: 'month', indexes: [['asset_id'], ['product_id'], ['artist_id']] },
  // Artists crossed with statement dimensions: the workspace (by country: the most selective dimension's index).
  { table: 'royalty_roll_artist_dims', keys: ['artist_id', ...DIMENSION_COLUMNS], grain: 'month', indexes: [['artist_id'], ['country']] },
];

/** Columns every shape row has besides its keys. */
const FILE_COLUMNS = ['tenant_id', 'file_id', 'accounting_period', 'ap_end'];
const MEASURES = ['revenue', 'quantity', 'lines', 'streams', 'downloads'];

/** The sale types whose quantities the `streams` and `downloads` measures sum (the normalised sale types; docs/patterns.md). */
export const STREAM_SALE_TYPE = 'stream';
export const DOWNLOAD_SALE_TYPE = 'download';

/** The streams and downloads of one statement line `l` (its quantity when of that sale type, else 0). */
export const LINE_STREAMS = `CASE WHEN l.sale_type = '${STREAM_SALE_TYPE}' THEN coalesce(l.quantity, 0) ELSE 0 END`;
export const LINE_DOWNLOADS = `CASE WHEN l.sale_type = '${DOWNLOAD_SALE_TYPE}' THEN coalesce(l.quantity, 0) ELSE 0 END`;

/** A shape's key columns, its time grain's first. */
export function shapeKeys(s: ShapeDecl): KeyColumn[] {
  return s.grain === 'month' ? ['sale_month', ...s.keys] : [...s.keys];
}

export function shapeColumns(s: ShapeDecl): string[] {
  return [...FILE_COLUMNS, ...shapeKeys(s), ...MEASURES];
}

/**
 * CREATE TABLE and its indexes (RLS is the migration's: enableTenantRls). No foreign key: a
 * per-row trigger on every insert, and the lines these rows sum have none either.
 */
export function shapeDdl(s: ShapeDecl): string[] {
  const keys = shapeKeys(s).map((k) => `${k} ${KEY_TYPES[k]}`).join(',\n      ');
  return [
    `CREATE TABLE ${s.table} (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      accounting_period date,
      ap_end date,
      ${keys},
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL,
      streams numeric NOT NULL,
      downloads numeric NOT NULL
    )`,
    `CREATE INDEX ${s.table}_file ON ${s.table} (tenant_id, file_id)`,
    ...s.indexes.map((cols) => `CREATE INDEX ${s.table}_${cols.join('_')} ON ${s.table} (tenant_id, ${cols.join(', ')})`),
  ];
}

/**
 * INSERT … SELECT … GROUP BY of a shape's rows for the files `files` names: a SQL relation
 * with (tenant_id, file_id, accounting_period, ap_end), one row per file. One statement per
 * shape, whatever the number of files (the per-file rebuild passes one file; a backfill all).
 * Each file's lines are grouped by the shape's keys alone (LATERAL, read through the lines'
 * file index); the file's own columns are added to the groups, not hashed with every line.
 * `from`: a finer shape whose rows of those files are already built (shapeBuildOrder) is
 * summed instead of the lines — the same sums (every measure adds up), from a
 * few rows instead of every line.
 */
export function shapeInsert(s: ShapeDecl, files: string, from: ShapeDecl | null = null): string {
  const keys = shapeKeys(s).map((k) => `l.${k}`).join(', ');
  const [source, measures, allocated] = from
    ? [from.table, 'sum(l.revenue), sum(l.quantity), sum(l.lines), sum(l.streams), sum(l.downloads)', '']
    : ['royalty_lines', `sum(l.base_amount), coalesce(sum(l.quantity), 0), count(*), sum(${LINE_STREAMS}), sum(${LINE_DOWNLOADS})`, ' AND l.base_amount IS NOT NULL'];
  // Without keys: no row for a file without lines (an aggregate over no rows is one row).
  const groups = keys ? `GROUP BY ${keys}` : 'HAVING count(*) > 0';
  return `INSERT INTO ${s.table} (${shapeColumns(s).join(', ')})
    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*
      FROM ${files} p
     CROSS JOIN LATERAL (SELECT ${keys ? `${keys}, ` : ''}${measures}
                           FROM ${source} l
                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id${allocated}
                          ${groups}) g`;
}

/**
 * Keys with as many values as a catalogue has recordings, products, artists or splits; the
 * statement dimensions and the month have a few dozen each. A shape keyed by fewer of them
 * has fewer rows per file, whatever its number of keys.
 */
const MANY_VALUES = new Set<KeyColumn>(['share_set_id', ...CATALOGUE]);
const rowsRank = (s: ShapeDecl) => shapeKeys(s).filter((k) => MANY_VALUES.has(k)).length * 100 + shapeKeys(s).length;

/**
 * The order a set of shapes is built in, and what each is built from: a shape whose keys
 * (and time grain) a shape built before it holds is summed from that one's rows — the one
 * expected to have the fewest rows (fewest catalogue and share-set keys, then fewest keys) —,
 * others from the lines. Finer shapes first (more keys), so with the declared shapes one pass
 * over the lines builds each of catalogue and artist × dimensions, the dimensions come from
 * artist × dimensions, share set × artist from the catalogue and the totals from the
 * dimensions.
 */
export function shapeBuildOrder(shapes: readonly ShapeDecl[]): { shape: ShapeDecl; from: ShapeDecl | null }[] {
  const keyed = [...shapes].sort((a, b) => shapeKeys(b).length - shapeKeys(a).length);
  const out: { shape: ShapeDecl; from: ShapeDecl | null }[] = [];
  for (const shape of keyed) {
    const holders = out.map((o) => o.shape).filter((t) => t.grain === shape.grain && shapeKeys(shape).every((k) => shapeKeys(t).includes(k)));
    holders.sort((a, b) => rowsRank(a) - rowsRank(b));
    out.push({ shape, from: holders[0] ?? null });
  }
  return out;
}

/**
 * The build order cut into chains: a shape built from the lines starts one, a shape summed
 * from another's rows joins that one's chain. Chains share nothing, so each can be built in
 * a transaction of its own (pipeline.ts builds two at once). The chain whose first shape has
 * the most rows per file (the most to hash and insert) comes first.
 */
export function shapeChains(order: { shape: ShapeDecl; from: ShapeDecl | null }[] = shapeBuildOrder(SHAPES)): ShapeDecl[][] {
  const chains: ShapeDecl[][] = [];
  for (const { shape, from } of order) {
    const chain = from ? chains.find((c) => c.includes(from)) : undefined;
    if (chain) chain.push(shape);
    else chains.push([shape]);
  }
  return chains.sort((a, b) => rowsRank(b[0]!) - rowsRank(a[0]!));
}

/**
 * The shape that names, per file and share set, every recording, product and artist the
 * lines carry: the lines' read of a product, an artist or a member goes through its rows
 * (planner.ts viaRecordings, analytics.ts memberCatalogue).
 */
export const CATALOGUE_SHAPE: ShapeDecl = SHAPES.find((s) => ['share_set_id', ...CATALOGUE].every((k) => s.keys.includes(k as KeyColumn)))!;

/** The tables of every shape (erasure map, file deletes). */
export const SHAPE_TABLES = SHAPES.map((s) => s.table);

/** The last day of a file's accounting period under its workspace's cadence (files `f`, tenants `t`). */
const AP_END = `(f.accounting_period + make_interval(months => CASE t.accounting_cadence WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END) - interval '1 day')::date`;

/** The `files` relation of shapeInsert for the files matching `where` (over files `f`): their period as the cadence makes it today. */
export function filePeriods(where: string): string {
  return `(SELECT f.tenant_id, f.id AS file_id, f.accounting_period, ${AP_END} AS ap_end FROM files f JOIN tenants t ON t.id = f.tenant_id WHERE ${where})`;
}

/** Row-level security of a shape's table: the policy every tenant table has. */
function tenantRlsSql(table: string): string[] {
  return [
    `ALTER TABLE "${table}" ENABLE ROW LEVEL SECURITY`,
    `CREATE POLICY tenant_isolation ON "${table}" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`,
  ];
}

/**
 * (Re)create the tables of the shapes named from their declarations (table, indexes, RLS)
 * and backfill them from the lines of the files `files` names (a relation of tenant_id,
 * file_id, accounting_period, ap_end): the statements, in order.
 */
export function buildShapesSql(tables: string[], files: string): string[] {
  const out: string[] = [];
  for (const { shape: s, from } of shapeBuildOrder(SHAPES.filter((x) => tables.includes(x.table)))) {
    out.push(`DROP TABLE IF EXISTS ${s.table}`, ...shapeDdl(s), ...tenantRlsSql(s.table), shapeInsert(s, files, from), `ANALYZE ${s.table}`);
  }
  return out;
}

/**
 * What a migration after a shape's declaration changed (a dimension added, a key dropped)
 * runs: its table built again and backfilled, each file keeping the period the shapes held for it.
 */
export function rebuildShapesSql(tables: string[]): string[] {
  return [
    `CREATE TEMP TABLE shape_files ON COMMIT DROP AS SELECT DISTINCT tenant_id, file_id, accounting_period, ap_end FROM ${SHAPES[0]!.table}`,
    ...buildShapesSql(tables, 'shape_files'),
    `DROP TABLE shape_files`,
  ];
}

/** rebuildShapesSql run in `knex` (a transaction: the temp table drops on commit). */
export async function rebuildShapes(knex: Knex, tables: string[]): Promise<void> {
  for (const sql of rebuildShapesSql(tables)) await knex.raw(sql);
}

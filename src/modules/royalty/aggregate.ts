/**
 * The aggregate step: a file's rows of every rollup shape (shapes.ts), rebuilt whole from
 * its allocated lines — per shape ONE `DELETE` of the file's rows and ONE
 * `INSERT … SELECT … GROUP BY` (produced from the shape's declaration; a shape whose keys a
 * finer one holds is summed from that one's rows just built, not from the lines). Shares are not
 * applied here (the catalogue shape keeps the lines' share sets; members' figures are read
 * through them), so a re-allocation that moves a file's lines to other share sets is a
 * rebuild of that file's rows, and a re-aggregation is idempotent.
 */
import type { Knex } from 'knex';
import { hashJoins, type Trx } from '../../db';
import { setWorkMem, ROLLUP_WORK_MEM } from './allocate';
import { SHAPES, SHAPE_TABLES, filePeriods, shapeBuildOrder, shapeInsert, type ShapeDecl } from './shapes';

/** Remove a file's rows from every shape (or from `shapes`). */
export async function removeFileRollups(trx: Trx, tenantId: number, fileId: string, shapes: readonly ShapeDecl[] = SHAPES): Promise<void> {
  for (const s of shapes) await trx.raw(`DELETE FROM ${s.table} WHERE tenant_id = ? AND file_id = ?`, [tenantId, fileId]);
}

/** A file's accounting period as its rollup rows carry it (the period and its last day under the workspace's cadence). */
export interface FilePeriod {
  accountingPeriod: string | null;
  apEnd: string | null;
}

/**
 * (Re)build a file's rows of every shape, or of `shapes` only (whole chains of shapeChains:
 * a shape summed from another is built with it); returns milliseconds per shape (logged by
 * the job, printed by bench:ingest). `period`: the file's period as the allocation just set
 * it (pipeline.ts: the allocation step reads its file once); else read from the file (a
 * re-allocation, the rebuild of a shape).
 */
export async function aggregateFile(trx: Trx, tenantId: number, fileId: string, opts: { period?: FilePeriod; shapes?: readonly ShapeDecl[] } = {}): Promise<Record<string, number>> {
  const { period, shapes = SHAPES } = opts;
  const timings: Record<string, number> = {};
  let t0 = Date.now();
  // The groups of a large file fit in memory: hashed aggregates, no sort or spill.
  await setWorkMem(trx, ROLLUP_WORK_MEM);
  await removeFileRollups(trx, tenantId, fileId, shapes);
  timings.remove = Date.now() - t0;
  const [file, bindings] = period
    ? [`(SELECT ?::int AS tenant_id, ?::uuid AS file_id, ?::date AS accounting_period, ?::date AS ap_end)`, [tenantId, fileId, period.accountingPeriod, period.apEnd]]
    : [filePeriods('f.tenant_id = ? AND f.id = ?'), [tenantId, fileId]];
  await hashJoins(trx, async () => {
    for (const { shape: s, from } of shapeBuildOrder(shapes)) {
      t0 = Date.now();
      await trx.raw(shapeInsert(s, file, from), bindings);
      timings[s.table.replace('royalty_roll_', '')] = Date.now() - t0;
    }
  }, { hashAggregates: true });
  return timings;
}

/**
 * A table's statistics are refreshed when it holds this much more than they describe (a
 * fifth of the rows or pages ANALYZE last counted, and at least GROWN_MIN_ROWS rows changed:
 * autovacuum's own base threshold).
 */
export const GROWN_FACTOR = 0.2;
const GROWN_MIN_ROWS = 50;
/** The tables an analytics request reads that a statement's load grows. */
export const LOADED_TABLES = [...SHAPE_TABLES, 'royalty_lines'];

/**
 * ANALYZE each of `tables` whose statistics no longer describe it: its pages now (exact,
 * from its size on disk) or the rows changed since the last ANALYZE (the cumulative
 * statistics, which may lag a second) a fifth beyond what pg_class holds — the first files
 * of a workspace, a file as large as the table. Run by the owner (ANALYZE is the owner's)
 * after the aggregate step commits; autovacuum would do it too, a minute or more later,
 * while a label already reads its dashboard. ANALYZE reads a sample (30,000 rows at the
 * default statistics target), so its cost does not grow with the table. Returns the tables
 * analysed.
 */
export async function analyzeGrown(owner: Knex, tables: readonly string[] = LOADED_TABLES): Promise<string[]> {
  const { rows } = await owner.raw(
    `SELECT c.relname AS table FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE c.relname = ANY(?) AND c.relnamespace = 'public'::regnamespace
        AND (pg_relation_size(c.oid) / current_setting('block_size')::int > (1 + ?::float8) * greatest(c.relpages, 0)
             OR coalesce(s.n_mod_since_analyze, 0) > ?::float8 * greatest(c.reltuples, 0) + ?::int)`,
    [[...tables], GROWN_FACTOR, GROWN_FACTOR, GROWN_MIN_ROWS],
  );
  const grown = rows.map((r: { table: string }) => r.table);
  for (const t of grown) await owner.raw(`ANALYZE ${t}`);
  return grown;
}

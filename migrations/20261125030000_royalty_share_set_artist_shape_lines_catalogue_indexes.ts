import type { Knex } from 'knex';
import { rebuildShapes } from '../src/modules/royalty/shapes';

/**
 * Analytics at 10M lines (bench/RESULTS.md, "Analytics"):
 *
 *  - the rollup shape `royalty_roll_share_set_artist` (sale month × share set × artist, declared
 *    in shapes.ts): a member's totals, months, periods and artists, and the workspace's artists,
 *    read about a share set's row per file instead of one per recording of the catalogue shape
 *    (built from its declaration and backfilled from the lines, each file keeping its period);
 *  - indexes on the statement lines by recording and by product: what no shape holds (a
 *    recording or product filter crossed with a statement dimension, a member's recording
 *    filter) reads that recording's or product's lines instead of every line of the workspace.
 *    Re-allocation's reads of a changed recording's or product's lines use them too.
 */
export async function up(knex: Knex): Promise<void> {
  await rebuildShapes(knex, ['royalty_roll_share_set_artist']);
  await knex.raw(`CREATE INDEX royalty_lines_asset ON royalty_lines (tenant_id, asset_id)`);
  await knex.raw(`CREATE INDEX royalty_lines_product ON royalty_lines (tenant_id, product_id)`);
}

/**
 * The indexes only: the shape's table belongs to its declaration (the aggregate step writes it
 * while shapes.ts declares it), and the shapes migration's down drops every declared shape's.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS royalty_lines_product`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_lines_asset`);
}

import type { Knex } from 'knex';

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
/** The shape's table built again and backfilled, each file keeping its period: frozen as its declaration produced it then. */
const REBUILD_SHARE_SET_ARTIST = [
  `CREATE TEMP TABLE shape_files ON COMMIT DROP AS SELECT DISTINCT tenant_id, file_id, accounting_period, ap_end FROM royalty_roll_period`,
  `DROP TABLE IF EXISTS royalty_roll_share_set_artist`,
  `CREATE TABLE royalty_roll_share_set_artist (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      accounting_period date,
      ap_end date,
      sale_month date,
      share_set_id uuid,
      artist_id uuid,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    )`,
  `CREATE INDEX royalty_roll_share_set_artist_file ON royalty_roll_share_set_artist (tenant_id, file_id)`,
  `CREATE INDEX royalty_roll_share_set_artist_artist_id ON royalty_roll_share_set_artist (tenant_id, artist_id)`,
  `ALTER TABLE "royalty_roll_share_set_artist" ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY tenant_isolation ON "royalty_roll_share_set_artist" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`,
  `INSERT INTO royalty_roll_share_set_artist (tenant_id, file_id, accounting_period, ap_end, sale_month, share_set_id, artist_id, revenue, quantity, lines)
    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*
      FROM shape_files p
     CROSS JOIN LATERAL (SELECT l.sale_month, l.share_set_id, l.artist_id, sum(l.base_amount), coalesce(sum(l.quantity), 0), count(*)
                           FROM royalty_lines l
                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id AND l.base_amount IS NOT NULL
                          GROUP BY l.sale_month, l.share_set_id, l.artist_id) g`,
  `ANALYZE royalty_roll_share_set_artist`,
  `DROP TABLE shape_files`,
];

export async function up(knex: Knex): Promise<void> {
  for (const sql of REBUILD_SHARE_SET_ARTIST) await knex.raw(sql);
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

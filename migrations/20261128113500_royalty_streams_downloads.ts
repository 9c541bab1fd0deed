import type { Knex } from 'knex';

/**
 * The reference service's analytics row fields `Streams` and `Downloads`: every rollup shape
 * gains the measures `streams` and `downloads` (Σ quantity of the lines of sale type `stream`
 * and `download`), so every breakdown answers them, for the workspace and for members, from the
 * same rows as its other figures. Each shape's table is built again and backfilled from the
 * statement lines, each file keeping its period: frozen as the declarations produced it then
 * (`npm run rondo -- shapes:sql --table …`).
 */
/** Every shape rebuilt with its two new measures. */
const REBUILD = [
  "CREATE TEMP TABLE shape_files ON COMMIT DROP AS SELECT DISTINCT tenant_id, file_id, accounting_period, ap_end FROM royalty_roll_period",
  "DROP TABLE IF EXISTS royalty_roll_artist_dims",
  "CREATE TABLE royalty_roll_artist_dims (\n      tenant_id integer NOT NULL,\n      file_id uuid NOT NULL,\n      accounting_period date,\n      ap_end date,\n      sale_month date,\n      artist_id uuid,\n      dsp text,\n      country text,\n      sale_type text,\n      aggregator text,\n      revenue numeric NOT NULL,\n      quantity numeric NOT NULL,\n      lines bigint NOT NULL,\n      streams numeric NOT NULL,\n      downloads numeric NOT NULL\n    )",
  "CREATE INDEX royalty_roll_artist_dims_file ON royalty_roll_artist_dims (tenant_id, file_id)",
  "CREATE INDEX royalty_roll_artist_dims_artist_id ON royalty_roll_artist_dims (tenant_id, artist_id)",
  "CREATE INDEX royalty_roll_artist_dims_country ON royalty_roll_artist_dims (tenant_id, country)",
  "ALTER TABLE \"royalty_roll_artist_dims\" ENABLE ROW LEVEL SECURITY",
  "CREATE POLICY tenant_isolation ON \"royalty_roll_artist_dims\" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())",
  "INSERT INTO royalty_roll_artist_dims (tenant_id, file_id, accounting_period, ap_end, sale_month, artist_id, dsp, country, sale_type, aggregator, revenue, quantity, lines, streams, downloads)\n    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*\n      FROM shape_files p\n     CROSS JOIN LATERAL (SELECT l.sale_month, l.artist_id, l.dsp, l.country, l.sale_type, l.aggregator, sum(l.base_amount), coalesce(sum(l.quantity), 0), count(*), sum(CASE WHEN l.sale_type = 'stream' THEN coalesce(l.quantity, 0) ELSE 0 END), sum(CASE WHEN l.sale_type = 'download' THEN coalesce(l.quantity, 0) ELSE 0 END)\n                           FROM royalty_lines l\n                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id AND l.base_amount IS NOT NULL\n                          GROUP BY l.sale_month, l.artist_id, l.dsp, l.country, l.sale_type, l.aggregator) g",
  "ANALYZE royalty_roll_artist_dims",
  "DROP TABLE IF EXISTS royalty_roll_dims",
  "CREATE TABLE royalty_roll_dims (\n      tenant_id integer NOT NULL,\n      file_id uuid NOT NULL,\n      accounting_period date,\n      ap_end date,\n      sale_month date,\n      dsp text,\n      country text,\n      sale_type text,\n      aggregator text,\n      revenue numeric NOT NULL,\n      quantity numeric NOT NULL,\n      lines bigint NOT NULL,\n      streams numeric NOT NULL,\n      downloads numeric NOT NULL\n    )",
  "CREATE INDEX royalty_roll_dims_file ON royalty_roll_dims (tenant_id, file_id)",
  "ALTER TABLE \"royalty_roll_dims\" ENABLE ROW LEVEL SECURITY",
  "CREATE POLICY tenant_isolation ON \"royalty_roll_dims\" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())",
  "INSERT INTO royalty_roll_dims (tenant_id, file_id, accounting_period, ap_end, sale_month, dsp, country, sale_type, aggregator, revenue, quantity, lines, streams, downloads)\n    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*\n      FROM shape_files p\n     CROSS JOIN LATERAL (SELECT l.sale_month, l.dsp, l.country, l.sale_type, l.aggregator, sum(l.revenue), sum(l.quantity), sum(l.lines), sum(l.streams), sum(l.downloads)\n                           FROM royalty_roll_artist_dims l\n                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id\n                          GROUP BY l.sale_month, l.dsp, l.country, l.sale_type, l.aggregator) g",
  "ANALYZE royalty_roll_dims",
  "DROP TABLE IF EXISTS royalty_roll_catalogue",
  "CREATE TABLE royalty_roll_catalogue (\n      tenant_id integer NOT NULL,\n      file_id uuid NOT NULL,\n      accounting_period date,\n      ap_end date,\n      sale_month date,\n      share_set_id uuid,\n      artist_id uuid,\n      product_id uuid,\n      asset_id uuid,\n      revenue numeric NOT NULL,\n      quantity numeric NOT NULL,\n      lines bigint NOT NULL,\n      streams numeric NOT NULL,\n      downloads numeric NOT NULL\n    )",
  "CREATE INDEX royalty_roll_catalogue_file ON royalty_roll_catalogue (tenant_id, file_id)",
  "CREATE INDEX royalty_roll_catalogue_asset_id ON royalty_roll_catalogue (tenant_id, asset_id)",
  "CREATE INDEX royalty_roll_catalogue_product_id ON royalty_roll_catalogue (tenant_id, product_id)",
  "CREATE INDEX royalty_roll_catalogue_artist_id ON royalty_roll_catalogue (tenant_id, artist_id)",
  "ALTER TABLE \"royalty_roll_catalogue\" ENABLE ROW LEVEL SECURITY",
  "CREATE POLICY tenant_isolation ON \"royalty_roll_catalogue\" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())",
  "INSERT INTO royalty_roll_catalogue (tenant_id, file_id, accounting_period, ap_end, sale_month, share_set_id, artist_id, product_id, asset_id, revenue, quantity, lines, streams, downloads)\n    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*\n      FROM shape_files p\n     CROSS JOIN LATERAL (SELECT l.sale_month, l.share_set_id, l.artist_id, l.product_id, l.asset_id, sum(l.base_amount), coalesce(sum(l.quantity), 0), count(*), sum(CASE WHEN l.sale_type = 'stream' THEN coalesce(l.quantity, 0) ELSE 0 END), sum(CASE WHEN l.sale_type = 'download' THEN coalesce(l.quantity, 0) ELSE 0 END)\n                           FROM royalty_lines l\n                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id AND l.base_amount IS NOT NULL\n                          GROUP BY l.sale_month, l.share_set_id, l.artist_id, l.product_id, l.asset_id) g",
  "ANALYZE royalty_roll_catalogue",
  "DROP TABLE IF EXISTS royalty_roll_share_set_artist",
  "CREATE TABLE royalty_roll_share_set_artist (\n      tenant_id integer NOT NULL,\n      file_id uuid NOT NULL,\n      accounting_period date,\n      ap_end date,\n      sale_month date,\n      share_set_id uuid,\n      artist_id uuid,\n      revenue numeric NOT NULL,\n      quantity numeric NOT NULL,\n      lines bigint NOT NULL,\n      streams numeric NOT NULL,\n      downloads numeric NOT NULL\n    )",
  "CREATE INDEX royalty_roll_share_set_artist_file ON royalty_roll_share_set_artist (tenant_id, file_id)",
  "CREATE INDEX royalty_roll_share_set_artist_artist_id ON royalty_roll_share_set_artist (tenant_id, artist_id)",
  "ALTER TABLE \"royalty_roll_share_set_artist\" ENABLE ROW LEVEL SECURITY",
  "CREATE POLICY tenant_isolation ON \"royalty_roll_share_set_artist\" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())",
  "INSERT INTO royalty_roll_share_set_artist (tenant_id, file_id, accounting_period, ap_end, sale_month, share_set_id, artist_id, revenue, quantity, lines, streams, downloads)\n    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*\n      FROM shape_files p\n     CROSS JOIN LATERAL (SELECT l.sale_month, l.share_set_id, l.artist_id, sum(l.revenue), sum(l.quantity), sum(l.lines), sum(l.streams), sum(l.downloads)\n                           FROM royalty_roll_catalogue l\n                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id\n                          GROUP BY l.sale_month, l.share_set_id, l.artist_id) g",
  "ANALYZE royalty_roll_share_set_artist",
  "DROP TABLE IF EXISTS royalty_roll_period",
  "CREATE TABLE royalty_roll_period (\n      tenant_id integer NOT NULL,\n      file_id uuid NOT NULL,\n      accounting_period date,\n      ap_end date,\n      sale_month date,\n      revenue numeric NOT NULL,\n      quantity numeric NOT NULL,\n      lines bigint NOT NULL,\n      streams numeric NOT NULL,\n      downloads numeric NOT NULL\n    )",
  "CREATE INDEX royalty_roll_period_file ON royalty_roll_period (tenant_id, file_id)",
  "ALTER TABLE \"royalty_roll_period\" ENABLE ROW LEVEL SECURITY",
  "CREATE POLICY tenant_isolation ON \"royalty_roll_period\" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())",
  "INSERT INTO royalty_roll_period (tenant_id, file_id, accounting_period, ap_end, sale_month, revenue, quantity, lines, streams, downloads)\n    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*\n      FROM shape_files p\n     CROSS JOIN LATERAL (SELECT l.sale_month, sum(l.revenue), sum(l.quantity), sum(l.lines), sum(l.streams), sum(l.downloads)\n                           FROM royalty_roll_dims l\n                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id\n                          GROUP BY l.sale_month) g",
  "ANALYZE royalty_roll_period",
  "DROP TABLE shape_files",
];

export async function up(knex: Knex): Promise<void> {
  for (const sql of REBUILD) await knex.raw(sql);
}

/** The two measures dropped (the rows keep every other figure). */
export async function down(knex: Knex): Promise<void> {
  for (const t of ['royalty_roll_period', 'royalty_roll_dims', 'royalty_roll_share_set_artist', 'royalty_roll_catalogue', 'royalty_roll_artist_dims']) {
    await knex.raw(`ALTER TABLE ${t} DROP COLUMN IF EXISTS streams, DROP COLUMN IF EXISTS downloads`);
  }
}

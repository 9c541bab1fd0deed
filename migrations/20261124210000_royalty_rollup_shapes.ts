import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * The 19 royalty_agg_* rollup tables → the declared rollup shapes (src/modules/royalty/shapes.ts):
 * each shape's table, indexes and backfill are produced from its declaration (shapeDdl,
 * shapeInsert), the backfill reading the statement lines of every file the old rollups held,
 * with the accounting period (and its end) those rollups held for the file, so every figure
 * stays as it was. Members' figures are read through the lines' share sets (no payee rows).
 *
 * down(): the old tables, indexes, tenant triggers and RLS again (as they were); of their rows,
 * the files' workspace rows of royalty_agg_file_dims (from the dimensions shape: what up()
 * reads, so down → up keeps every figure). The code of that schema fills the others when a
 * file is aggregated again (POST /royalty/files/{id}/allocate, or POST /royalty/reallocate).
 */
const OLD_TABLES = ['royalty_agg_artist_dim', 'royalty_agg_catalogue', 'royalty_agg_catalogue_all', 'royalty_agg_catalogue_h', 'royalty_agg_catalogue_q', 'royalty_agg_cross_all', 'royalty_agg_cross_period', 'royalty_agg_dim', 'royalty_agg_dim_all', 'royalty_agg_dims', 'royalty_agg_dims_all', 'royalty_agg_file_artist', 'royalty_agg_file_catalogue', 'royalty_agg_file_cross', 'royalty_agg_file_dims', 'royalty_agg_file_member_cross', 'royalty_agg_item_all', 'royalty_agg_item_h', 'royalty_agg_period'];
/**
 * The shapes as declared when this migration landed, frozen: their tables, indexes, row-level
 * security and backfill from the files in `shape_files` (what the declarations produced then;
 * a later change to a declaration is a migration of its own).
 */
const SHAPE_TABLES = ['royalty_roll_artist_dims', 'royalty_roll_dims', 'royalty_roll_catalogue', 'royalty_roll_share_set_artist', 'royalty_roll_period'];
const BUILD_SHAPES = [
  `DROP TABLE IF EXISTS royalty_roll_artist_dims`,
  `CREATE TABLE royalty_roll_artist_dims (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      accounting_period date,
      ap_end date,
      sale_month date,
      artist_id uuid,
      dsp text,
      country text,
      sale_type text,
      aggregator text,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    )`,
  `CREATE INDEX royalty_roll_artist_dims_file ON royalty_roll_artist_dims (tenant_id, file_id)`,
  `CREATE INDEX royalty_roll_artist_dims_artist_id ON royalty_roll_artist_dims (tenant_id, artist_id)`,
  `CREATE INDEX royalty_roll_artist_dims_country ON royalty_roll_artist_dims (tenant_id, country)`,
  `ALTER TABLE "royalty_roll_artist_dims" ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY tenant_isolation ON "royalty_roll_artist_dims" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`,
  `INSERT INTO royalty_roll_artist_dims (tenant_id, file_id, accounting_period, ap_end, sale_month, artist_id, dsp, country, sale_type, aggregator, revenue, quantity, lines)
    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*
      FROM shape_files p
     CROSS JOIN LATERAL (SELECT l.sale_month, l.artist_id, l.dsp, l.country, l.sale_type, l.aggregator, sum(l.base_amount), coalesce(sum(l.quantity), 0), count(*)
                           FROM royalty_lines l
                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id AND l.base_amount IS NOT NULL
                          GROUP BY l.sale_month, l.artist_id, l.dsp, l.country, l.sale_type, l.aggregator) g`,
  `ANALYZE royalty_roll_artist_dims`,
  `DROP TABLE IF EXISTS royalty_roll_dims`,
  `CREATE TABLE royalty_roll_dims (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      accounting_period date,
      ap_end date,
      sale_month date,
      dsp text,
      country text,
      sale_type text,
      aggregator text,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    )`,
  `CREATE INDEX royalty_roll_dims_file ON royalty_roll_dims (tenant_id, file_id)`,
  `ALTER TABLE "royalty_roll_dims" ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY tenant_isolation ON "royalty_roll_dims" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`,
  `INSERT INTO royalty_roll_dims (tenant_id, file_id, accounting_period, ap_end, sale_month, dsp, country, sale_type, aggregator, revenue, quantity, lines)
    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*
      FROM shape_files p
     CROSS JOIN LATERAL (SELECT l.sale_month, l.dsp, l.country, l.sale_type, l.aggregator, sum(l.revenue), sum(l.quantity), sum(l.lines)
                           FROM royalty_roll_artist_dims l
                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id
                          GROUP BY l.sale_month, l.dsp, l.country, l.sale_type, l.aggregator) g`,
  `ANALYZE royalty_roll_dims`,
  `DROP TABLE IF EXISTS royalty_roll_catalogue`,
  `CREATE TABLE royalty_roll_catalogue (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      accounting_period date,
      ap_end date,
      sale_month date,
      share_set_id uuid,
      artist_id uuid,
      product_id uuid,
      asset_id uuid,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    )`,
  `CREATE INDEX royalty_roll_catalogue_file ON royalty_roll_catalogue (tenant_id, file_id)`,
  `CREATE INDEX royalty_roll_catalogue_asset_id ON royalty_roll_catalogue (tenant_id, asset_id)`,
  `CREATE INDEX royalty_roll_catalogue_product_id ON royalty_roll_catalogue (tenant_id, product_id)`,
  `CREATE INDEX royalty_roll_catalogue_artist_id ON royalty_roll_catalogue (tenant_id, artist_id)`,
  `ALTER TABLE "royalty_roll_catalogue" ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY tenant_isolation ON "royalty_roll_catalogue" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`,
  `INSERT INTO royalty_roll_catalogue (tenant_id, file_id, accounting_period, ap_end, sale_month, share_set_id, artist_id, product_id, asset_id, revenue, quantity, lines)
    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*
      FROM shape_files p
     CROSS JOIN LATERAL (SELECT l.sale_month, l.share_set_id, l.artist_id, l.product_id, l.asset_id, sum(l.base_amount), coalesce(sum(l.quantity), 0), count(*)
                           FROM royalty_lines l
                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id AND l.base_amount IS NOT NULL
                          GROUP BY l.sale_month, l.share_set_id, l.artist_id, l.product_id, l.asset_id) g`,
  `ANALYZE royalty_roll_catalogue`,
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
     CROSS JOIN LATERAL (SELECT l.sale_month, l.share_set_id, l.artist_id, sum(l.revenue), sum(l.quantity), sum(l.lines)
                           FROM royalty_roll_catalogue l
                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id
                          GROUP BY l.sale_month, l.share_set_id, l.artist_id) g`,
  `ANALYZE royalty_roll_share_set_artist`,
  `DROP TABLE IF EXISTS royalty_roll_period`,
  `CREATE TABLE royalty_roll_period (
      tenant_id integer NOT NULL,
      file_id uuid NOT NULL,
      accounting_period date,
      ap_end date,
      sale_month date,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    )`,
  `CREATE INDEX royalty_roll_period_file ON royalty_roll_period (tenant_id, file_id)`,
  `ALTER TABLE "royalty_roll_period" ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY tenant_isolation ON "royalty_roll_period" USING (tenant_id = app_tenant_id()) WITH CHECK (tenant_id = app_tenant_id())`,
  `INSERT INTO royalty_roll_period (tenant_id, file_id, accounting_period, ap_end, sale_month, revenue, quantity, lines)
    SELECT p.tenant_id, p.file_id, p.accounting_period, p.ap_end, g.*
      FROM shape_files p
     CROSS JOIN LATERAL (SELECT l.sale_month, sum(l.revenue), sum(l.quantity), sum(l.lines)
                           FROM royalty_roll_dims l
                          WHERE l.tenant_id = p.tenant_id AND l.file_id = p.file_id
                          GROUP BY l.sale_month) g`,
  `ANALYZE royalty_roll_period`,
];
const OLD_TRIGGERS = ['royalty_agg_artist_lines_tenant_gone', 'royalty_agg_file_cross_tenant_gone', 'royalty_agg_file_member_cross_tenant_gone'];

export async function up(knex: Knex): Promise<void> {
  // Every file the old rollups held, with its period as they held it (its workspace rows).
  await knex.raw(`CREATE TEMP TABLE shape_files ON COMMIT DROP AS
    SELECT DISTINCT tenant_id, file_id, accounting_period, ap_end FROM royalty_agg_file_dims WHERE payee = '00000000-0000-0000-0000-000000000000'`);
  for (const sql of BUILD_SHAPES) await knex.raw(sql);
  await knex.raw(`DROP TABLE shape_files`);
  for (const t of OLD_TRIGGERS) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${t} ON tenants`);
    await knex.raw(`DROP FUNCTION IF EXISTS ${t}()`);
  }
  for (const t of OLD_TABLES) await knex.raw(`DROP TABLE ${t}`);
}

/** The old schema as its last migration (20261123620200) left it. */
const OLD_DDL: string[] = [
  "CREATE TABLE royalty_agg_artist_dim (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_month date, accounting_period date, ap_end date, artist_id uuid, dim smallint NOT NULL, value text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_artist_dim_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE)",
  "CREATE UNIQUE INDEX royalty_agg_artist_dim_key ON royalty_agg_artist_dim USING btree (tenant_id, payee, dim, artist_id, value, sale_month, accounting_period, ap_end) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_catalogue (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_month date, accounting_period date, ap_end date, artist_id uuid, product_id uuid, asset_id uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_catalogue_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE)",
  "CREATE UNIQUE INDEX royalty_agg_catalogue_key ON royalty_agg_catalogue USING btree (tenant_id, payee, sale_month, accounting_period, ap_end, artist_id, product_id, asset_id) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_catalogue_all (tenant_id integer NOT NULL, payee uuid NOT NULL, artist_id uuid, product_id uuid, asset_id uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_catalogue_all_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE UNIQUE INDEX royalty_agg_catalogue_all_key ON royalty_agg_catalogue_all USING btree (tenant_id, payee, artist_id, product_id, asset_id) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_catalogue_h (tenant_id integer NOT NULL, payee uuid NOT NULL, grain smallint NOT NULL, period_start date, artist_id uuid, product_id uuid, asset_id uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_catalogue_h_grain_check CHECK ((grain = ANY (ARRAY[6, 12]))), CONSTRAINT royalty_agg_catalogue_h_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE UNIQUE INDEX royalty_agg_catalogue_h_key ON royalty_agg_catalogue_h USING btree (tenant_id, payee, grain, period_start, artist_id, product_id, asset_id) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_catalogue_q (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_quarter date, artist_id uuid, product_id uuid, asset_id uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_catalogue_q_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE UNIQUE INDEX royalty_agg_catalogue_q_key ON royalty_agg_catalogue_q USING btree (tenant_id, payee, sale_quarter, artist_id, product_id, asset_id) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_cross_all (tenant_id integer NOT NULL, payee uuid NOT NULL, dim smallint NOT NULL, value text, artist_id uuid, product_id uuid, asset_id uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_cross_all_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE INDEX royalty_agg_cross_all_asset ON royalty_agg_cross_all USING btree (tenant_id, payee, asset_id, dim)",
  "CREATE UNIQUE INDEX royalty_agg_cross_all_key ON royalty_agg_cross_all USING btree (tenant_id, payee, dim, value, artist_id, product_id, asset_id) NULLS NOT DISTINCT",
  "CREATE INDEX royalty_agg_cross_all_product ON royalty_agg_cross_all USING btree (tenant_id, payee, product_id, dim)",
  "CREATE TABLE royalty_agg_cross_period (tenant_id integer NOT NULL, payee uuid NOT NULL, dim smallint NOT NULL, value text, accounting_period date, ap_end date, artist_id uuid, product_id uuid, asset_id uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_cross_period_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=70)",
  "CREATE UNIQUE INDEX royalty_agg_cross_period_key ON royalty_agg_cross_period USING btree (tenant_id, payee, dim, value, accounting_period, ap_end, artist_id, product_id, asset_id) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_dim (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_month date, accounting_period date, ap_end date, dim smallint NOT NULL, value text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_dim_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE)",
  "CREATE UNIQUE INDEX royalty_agg_dim_key ON royalty_agg_dim USING btree (tenant_id, payee, dim, value, sale_month, accounting_period, ap_end) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_dim_all (tenant_id integer NOT NULL, payee uuid NOT NULL, dim smallint NOT NULL, value text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_dim_all_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE UNIQUE INDEX royalty_agg_dim_all_key ON royalty_agg_dim_all USING btree (tenant_id, payee, dim, value) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_dims (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_month date, accounting_period date, ap_end date, dsp text, country text, sale_type text, aggregator text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_dims_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE)",
  "CREATE UNIQUE INDEX royalty_agg_dims_key ON royalty_agg_dims USING btree (tenant_id, payee, sale_month, accounting_period, ap_end, dsp, country, sale_type, aggregator) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_dims_all (tenant_id integer NOT NULL, payee uuid NOT NULL, dsp text, country text, sale_type text, aggregator text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_dims_all_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE UNIQUE INDEX royalty_agg_dims_all_key ON royalty_agg_dims_all USING btree (tenant_id, payee, dsp, country, sale_type, aggregator) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_file_artist (tenant_id integer NOT NULL, payee uuid NOT NULL, file_id uuid NOT NULL, sale_month date, accounting_period date, ap_end date, artist_id uuid, dsp text, country text, sale_type text, aggregator text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL)",
  "CREATE INDEX royalty_agg_file_artist_artist ON royalty_agg_file_artist USING btree (tenant_id, payee, artist_id, dsp, country, sale_type, sale_month)",
  "CREATE INDEX royalty_agg_file_artist_file ON royalty_agg_file_artist USING btree (tenant_id, file_id, payee, artist_id)",
  "CREATE TABLE royalty_agg_file_catalogue (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_month date, accounting_period date, ap_end date, file_id uuid NOT NULL, artist_id uuid, product_id uuid, asset_id uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_file_catalogue_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE)",
  "CREATE INDEX royalty_agg_file_catalogue_file_idx ON royalty_agg_file_catalogue USING btree (tenant_id, file_id)",
  "CREATE INDEX royalty_agg_file_catalogue_payee_idx ON royalty_agg_file_catalogue USING btree (tenant_id, payee, file_id)",
  "CREATE TABLE royalty_agg_file_cross (tenant_id integer NOT NULL, payee uuid NOT NULL, file_id uuid NOT NULL, sale_month date, accounting_period date, ap_end date, artist_id uuid, product_id uuid, asset_id uuid, dim smallint NOT NULL, value text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, line_nos integer[])",
  "CREATE INDEX royalty_agg_file_cross_asset ON royalty_agg_file_cross USING btree (tenant_id, payee, dim, asset_id, value, sale_month)",
  "CREATE INDEX royalty_agg_file_cross_file ON royalty_agg_file_cross USING btree (tenant_id, file_id, payee, dim)",
  "CREATE INDEX royalty_agg_file_cross_product ON royalty_agg_file_cross USING btree (tenant_id, payee, dim, product_id, value, sale_month)",
  "CREATE INDEX royalty_agg_file_cross_value ON royalty_agg_file_cross USING btree (tenant_id, payee, dim, value, artist_id, ap_end, accounting_period, sale_month)",
  "CREATE TABLE royalty_agg_file_dims (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_month date, accounting_period date, ap_end date, file_id uuid NOT NULL, dsp text, country text, sale_type text, aggregator text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_file_dims_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE)",
  "CREATE INDEX royalty_agg_file_dims_file_idx ON royalty_agg_file_dims USING btree (tenant_id, file_id)",
  "CREATE INDEX royalty_agg_file_dims_payee_idx ON royalty_agg_file_dims USING btree (tenant_id, payee, file_id)",
  "CREATE TABLE royalty_agg_file_member_cross (tenant_id integer NOT NULL, file_id uuid NOT NULL, payee uuid NOT NULL, accounting_period date, ap_end date, artist_id uuid, product_id uuid, asset_id uuid, dim smallint NOT NULL, value text, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL)",
  "CREATE INDEX royalty_agg_file_member_cross_file ON royalty_agg_file_member_cross USING btree (tenant_id, file_id)",
  "CREATE TABLE royalty_agg_item_all (tenant_id integer NOT NULL, payee uuid NOT NULL, kind smallint NOT NULL, item uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_item_all_kind_check CHECK ((kind = ANY (ARRAY[1, 2, 3]))), CONSTRAINT royalty_agg_item_all_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE UNIQUE INDEX royalty_agg_item_all_key ON royalty_agg_item_all USING btree (tenant_id, payee, kind, item) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_item_h (tenant_id integer NOT NULL, payee uuid NOT NULL, kind smallint NOT NULL, grain smallint NOT NULL, period_start date, item uuid, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_item_h_grain_check CHECK ((grain = ANY (ARRAY[6, 12]))), CONSTRAINT royalty_agg_item_h_kind_check CHECK ((kind = ANY (ARRAY[1, 2, 3]))), CONSTRAINT royalty_agg_item_h_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE) WITH (fillfactor=50)",
  "CREATE UNIQUE INDEX royalty_agg_item_h_key ON royalty_agg_item_h USING btree (tenant_id, payee, kind, grain, period_start, item) NULLS NOT DISTINCT",
  "CREATE TABLE royalty_agg_period (tenant_id integer NOT NULL, payee uuid NOT NULL, sale_month date, accounting_period date, ap_end date, revenue numeric NOT NULL, quantity numeric NOT NULL, lines bigint NOT NULL, CONSTRAINT royalty_agg_period_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE)",
  "CREATE UNIQUE INDEX royalty_agg_period_key ON royalty_agg_period USING btree (tenant_id, payee, sale_month, accounting_period, ap_end) NULLS NOT DISTINCT",
  "CREATE OR REPLACE FUNCTION royalty_agg_artist_lines_tenant_gone()\n RETURNS trigger\n LANGUAGE plpgsql\nAS $function$\n    BEGIN\n      DELETE FROM royalty_agg_file_artist WHERE tenant_id = OLD.id;\n      RETURN OLD;\n    END $function$",
  "CREATE TRIGGER royalty_agg_artist_lines_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_agg_artist_lines_tenant_gone()",
  "CREATE OR REPLACE FUNCTION royalty_agg_file_cross_tenant_gone()\n RETURNS trigger\n LANGUAGE plpgsql\nAS $function$\n    BEGIN\n      DELETE FROM royalty_agg_file_cross WHERE tenant_id = OLD.id;\n      RETURN OLD;\n    END $function$",
  "CREATE TRIGGER royalty_agg_file_cross_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_agg_file_cross_tenant_gone()",
  "CREATE OR REPLACE FUNCTION royalty_agg_file_member_cross_tenant_gone()\n RETURNS trigger\n LANGUAGE plpgsql\nAS $function$\n    BEGIN\n      DELETE FROM royalty_agg_file_member_cross WHERE tenant_id = OLD.id;\n      RETURN OLD;\n    END $function$",
  "CREATE TRIGGER royalty_agg_file_member_cross_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_agg_file_member_cross_tenant_gone()"
];
const OLD_RLS = ['royalty_agg_artist_dim', 'royalty_agg_catalogue', 'royalty_agg_catalogue_all', 'royalty_agg_catalogue_h', 'royalty_agg_catalogue_q', 'royalty_agg_cross_all', 'royalty_agg_cross_period', 'royalty_agg_dim', 'royalty_agg_dim_all', 'royalty_agg_dims', 'royalty_agg_dims_all', 'royalty_agg_file_artist', 'royalty_agg_file_catalogue', 'royalty_agg_file_cross', 'royalty_agg_file_dims', 'royalty_agg_file_member_cross', 'royalty_agg_item_all', 'royalty_agg_item_h', 'royalty_agg_period'];

export async function down(knex: Knex): Promise<void> {
  for (const sql of OLD_DDL) await knex.raw(sql);
  for (const t of OLD_RLS) await enableTenantRls(knex, t);
  await knex.raw(`
    INSERT INTO royalty_agg_file_dims (tenant_id, accounting_period, ap_end, file_id, payee, sale_month, dsp, country, sale_type, aggregator, revenue, quantity, lines)
    SELECT tenant_id, accounting_period, ap_end, file_id, '00000000-0000-0000-0000-000000000000', sale_month, dsp, country, sale_type, aggregator, sum(revenue), sum(quantity), sum(lines)
      FROM royalty_roll_dims GROUP BY tenant_id, accounting_period, ap_end, file_id, sale_month, dsp, country, sale_type, aggregator`);
  for (const t of SHAPE_TABLES) await knex.raw(`DROP TABLE ${t}`);
}

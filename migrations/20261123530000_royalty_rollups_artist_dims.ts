import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Rollups for crossed requests the cross rollup (20261123500000, ONE statement dimension)
 * cannot answer:
 *
 *   royalty_agg_file_artist   per file: sale month × accounting period × ARTIST × all four
 *                             statement dimensions (DSP, country, sale type, aggregator);
 *                             workspace rows (payee = the all-zero uuid) and member rows.
 *                             Answers artist × any number of statement dimensions, for admins
 *                             and members (/royalty/dsp?artist=…&country=DE). Small: artists ×
 *                             the dimension values they sell in, far below the line count.
 *                             The member rows of the cross rollup (artist grain × one
 *                             dimension) are now computed from these rows (aggregate.ts).
 *   royalty_agg_file_lines    per file: the line numbers of each sale month × artist ×
 *                             product × recording (workspace only, `line_nos`). A
 *                             product's or recording's lines are then fetched through the
 *                             lines' own (tenant, file, line_no) index instead of scanning
 *                             every file, for what no rollup holds: a product / recording
 *                             filter crossed with two or more statement dimensions, or a
 *                             member's crossed request by product / recording (their
 *                             earnings through the earnings' (tenant, file, line) index).
 *                             No index is added to royalty_lines or royalty_earnings (their
 *                             writes are the ingest / allocation cost); one int per line here.
 *
 * No all-time twin of the artist rollup: keeping one costs an upsert per artist row on every
 * file (EXPLAIN ANALYZE, one dense 1M-line file: 143k rows, 3.5 s of a 13.6 s aggregateFile,
 * as much again to subtract them on a re-run); an undated request with an artist filter reads
 * that artist's rows of every file through the artist index instead.
 *
 * No tenant foreign key on either table (a per-row RI trigger on every insert: 0.56 s for the
 * 143k artist rows above): rows are only written by aggregateFile inside a tenant transaction
 * (RLS WITH CHECK: the tenant is the transaction's own, so it exists); a workspace's deletion
 * removes them by trigger, as for royalty_earnings (20261123510000) and the cross rollup
 * (20261123530100).
 *
 * Backfill: every file that has rollups gets its rows from its lines and current earnings.
 */
const ZERO = '00000000-0000-0000-0000-000000000000';
/** The files that have rollups, with their accounting period as aggregateFile stores it (backfill). */
const AGG_FILES = `agg_files AS (
    SELECT f.tenant_id, f.id AS file_id, f.accounting_period,
           (f.accounting_period + make_interval(months => CASE t.accounting_cadence WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END) - interval '1 day')::date AS ap_end
      FROM files f JOIN tenants t ON t.id = f.tenant_id
     WHERE EXISTS (SELECT 1 FROM royalty_agg_file_catalogue c WHERE c.tenant_id = f.tenant_id AND c.file_id = f.id))`;
const ROLLUP = `tenant_id integer NOT NULL`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE royalty_agg_file_artist (
      ${ROLLUP},
      payee uuid NOT NULL,
      file_id uuid NOT NULL,
      sale_month date,
      accounting_period date,
      ap_end date,
      artist_id uuid,
      dsp text,
      country text,
      sale_type text,
      aggregator text,
      revenue numeric NOT NULL,
      quantity numeric NOT NULL,
      lines bigint NOT NULL
    )`);
  await enableTenantRls(knex, 'royalty_agg_file_artist');
  await knex.raw(`CREATE INDEX royalty_agg_file_artist_file ON royalty_agg_file_artist (tenant_id, file_id)`);
  await knex.raw(`CREATE INDEX royalty_agg_file_artist_artist ON royalty_agg_file_artist (tenant_id, payee, artist_id, sale_month)`);

  await knex.raw(`
    CREATE TABLE royalty_agg_file_lines (
      ${ROLLUP},
      file_id uuid NOT NULL,
      sale_month date,
      artist_id uuid,
      product_id uuid,
      asset_id uuid,
      line_nos integer[] NOT NULL
    )`);
  await enableTenantRls(knex, 'royalty_agg_file_lines');
  await knex.raw(`CREATE INDEX royalty_agg_file_lines_file ON royalty_agg_file_lines (tenant_id, file_id)`);
  for (const c of ['artist_id', 'product_id', 'asset_id']) {
    await knex.raw(`CREATE INDEX royalty_agg_file_lines_${c.replace('_id', '')} ON royalty_agg_file_lines (tenant_id, ${c}, sale_month)`);
  }

  // A workspace's deletion removes its rows (no tenant FK, above).
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_agg_artist_lines_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM royalty_agg_file_artist WHERE tenant_id = OLD.id;
      DELETE FROM royalty_agg_file_lines WHERE tenant_id = OLD.id;
      RETURN OLD;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER royalty_agg_artist_lines_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_agg_artist_lines_tenant_gone()`,
  );

  // Backfill from the files that have rollups.
  await knex.raw(`
    WITH ${AGG_FILES}
    INSERT INTO royalty_agg_file_artist (tenant_id, payee, file_id, sale_month, accounting_period, ap_end, artist_id, dsp, country, sale_type, aggregator, revenue, quantity, lines)
    SELECT s.tenant_id, s.payee, s.file_id, s.sale_month, a.accounting_period, a.ap_end, s.artist_id, s.dsp, s.country, s.sale_type, s.aggregator,
           sum(s.revenue), sum(s.quantity), count(*)
      FROM (SELECT l.tenant_id, '${ZERO}'::uuid AS payee, l.file_id, l.sale_month, l.artist_id, l.dsp, l.country, l.sale_type, l.aggregator, l.base_amount AS revenue, l.quantity
              FROM royalty_lines l WHERE l.base_amount IS NOT NULL
            UNION ALL
            SELECT e.tenant_id, e.tenant_user_id, e.file_id, e.sale_month, e.artist_id, e.dsp, e.country, e.sale_type, e.aggregator, e.amount, e.quantity
              FROM royalty_earnings e WHERE e.superseded_at IS NULL) s
      JOIN agg_files a ON a.tenant_id = s.tenant_id AND a.file_id = s.file_id
     GROUP BY s.tenant_id, s.payee, s.file_id, s.sale_month, a.accounting_period, a.ap_end, s.artist_id, s.dsp, s.country, s.sale_type, s.aggregator`);
  await knex.raw(`
    WITH ${AGG_FILES}
    INSERT INTO royalty_agg_file_lines (tenant_id, file_id, sale_month, artist_id, product_id, asset_id, line_nos)
    SELECT l.tenant_id, l.file_id, l.sale_month, l.artist_id, l.product_id, l.asset_id, array_agg(l.line_no ORDER BY l.line_no)
      FROM royalty_lines l JOIN agg_files a ON a.tenant_id = l.tenant_id AND a.file_id = l.file_id
     WHERE l.base_amount IS NOT NULL
     GROUP BY l.tenant_id, l.file_id, l.sale_month, l.artist_id, l.product_id, l.asset_id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS royalty_agg_artist_lines_tenant_gone ON tenants`);
  await knex.raw(`DROP FUNCTION IF EXISTS royalty_agg_artist_lines_tenant_gone()`);
  for (const t of ['royalty_agg_file_lines', 'royalty_agg_file_artist']) await knex.schema.dropTableIfExists(t);
}

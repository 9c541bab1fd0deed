import type { Knex } from 'knex';

/**
 * aggregateFile speed: royalty_agg_file_cross is the largest rollup (1.3 rows per line in a
 * real statement) and its writes are bounded by index maintenance and the per-row RI trigger
 * of its tenant foreign key (EXPLAIN ANALYZE on a 300k-line file: each index ~1.2 s, the FK
 * ~1 s of 9.4 s). Two of them go:
 *
 *  - the artist index (tenant, payee, dim, artist_id, sale_month): a crossed request whose
 *    only catalogue column is the artist now reads royalty_agg_file_artist (20261123530000);
 *    the cross rollup is read by artist only together with a product / recording or a
 *    dimension value, whose indexes serve it;
 *  - the tenant foreign key: rows are only written by aggregateFile inside a tenant
 *    transaction (RLS WITH CHECK: the tenant is the transaction's own, so it exists); a
 *    workspace's deletion removes them by trigger (was: ON DELETE CASCADE), as for
 *    royalty_earnings (20261123510000).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS royalty_agg_file_cross_artist`);
  await knex.raw(`ALTER TABLE royalty_agg_file_cross DROP CONSTRAINT IF EXISTS royalty_agg_file_cross_tenant_id_fkey`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION royalty_agg_file_cross_tenant_gone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM royalty_agg_file_cross WHERE tenant_id = OLD.id;
      RETURN OLD;
    END $$`);
  await knex.raw(
    `CREATE TRIGGER royalty_agg_file_cross_tenant_gone AFTER DELETE ON tenants FOR EACH ROW EXECUTE FUNCTION royalty_agg_file_cross_tenant_gone()`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER IF EXISTS royalty_agg_file_cross_tenant_gone ON tenants`);
  await knex.raw(`DROP FUNCTION IF EXISTS royalty_agg_file_cross_tenant_gone()`);
  await knex.raw(`DELETE FROM royalty_agg_file_cross c WHERE NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = c.tenant_id)`);
  await knex.raw(`ALTER TABLE royalty_agg_file_cross ADD CONSTRAINT royalty_agg_file_cross_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE`);
  await knex.raw(`CREATE INDEX royalty_agg_file_cross_artist ON royalty_agg_file_cross (tenant_id, payee, dim, artist_id, sale_month)`);
}

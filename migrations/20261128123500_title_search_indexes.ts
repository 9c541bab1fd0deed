import type { Knex } from 'knex';

/**
 * Indexed candidate search for match suggestions (src/modules/royalty/match.ts,
 * `suggestMatches`), instead of scoring every recording / product of the workspace for every
 * statement key the catalogue does not know.
 *
 * - With pg_trgm: trigram GIN indexes on the lower-cased title of recordings and products, and
 *   `rondo_assets_titled_like(q)` / `rondo_products_titled_like(q)`: the ids of the current
 *   workspace's rows whose lower-cased title is `%`-similar to lower(q) at the caller's
 *   pg_trgm.similarity_threshold.
 * - Always: the normalised title (`rondo_norm`) by workspace, and `rondo_assets_titled(n)` /
 *   `rondo_products_titled(n)`: the ids of the current workspace's rows whose normalised title
 *   is n (the search without pg_trgm).
 *
 * The functions are SECURITY DEFINER because row-level security keeps the application role's
 * non-leakproof conditions (lower(), rondo_norm(), `%`) out of index scans: through the policy
 * every such search reads the workspace's whole table. Each function reads only the rows of
 * the workspace the transaction is set to (app_tenant_id(), the policies' own test) and
 * returns ids, which the caller joins back to the table under its policy. The trigram search
 * is fenced (OFFSET 0) from the workspace test and turns sequential scans off: planned for any
 * value (the generic plan a function's query gets after a few calls), `%` has no estimate and a
 * scan of the table, or of the workspace's rows by another index, looks as cheap as the index.
 */
export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`);
  const fns: string[] = [];
  for (const table of ['assets', 'products']) {
    if (rows.length) {
      await knex.raw(`CREATE INDEX ${table}_title_trgm_idx ON ${table} USING gin (lower(title) gin_trgm_ops)`);
      await knex.raw(`
        CREATE FUNCTION rondo_${table}_titled_like(q text) RETURNS SETOF uuid
        LANGUAGE sql STABLE SECURITY DEFINER ROWS 20 SET search_path = public, pg_temp SET enable_seqscan = off AS $$
          SELECT id FROM (SELECT id, tenant_id FROM ${table} WHERE lower(title) % lower($1) OFFSET 0) t WHERE tenant_id = app_tenant_id()
        $$`);
      fns.push(`rondo_${table}_titled_like(text)`);
    }
    await knex.raw(`CREATE INDEX ${table}_title_norm_idx ON ${table} (tenant_id, rondo_norm(title))`);
    await knex.raw(`
      CREATE FUNCTION rondo_${table}_titled(n text) RETURNS SETOF uuid
      LANGUAGE sql STABLE SECURITY DEFINER ROWS 5 SET search_path = public, pg_temp AS $$
        SELECT id FROM ${table} WHERE tenant_id = app_tenant_id() AND rondo_norm(title) = $1
      $$`);
    fns.push(`rondo_${table}_titled(text)`);
  }
  await knex.raw(`REVOKE ALL ON FUNCTION ${fns.join(', ')} FROM PUBLIC`);
  await knex.raw(`GRANT EXECUTE ON FUNCTION ${fns.join(', ')} TO rondo_app`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['assets', 'products']) {
    await knex.raw(`DROP FUNCTION IF EXISTS rondo_${table}_titled_like(text), rondo_${table}_titled(text)`);
    await knex.raw(`DROP INDEX IF EXISTS ${table}_title_trgm_idx, ${table}_title_norm_idx`);
  }
}

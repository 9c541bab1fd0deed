import type { Knex } from 'knex';

/**
 * Indexes for an artist's recordings and products, and for artists crossed with statement
 * dimensions (figures at 10M lines: bench/RESULTS.md, "Analytics"):
 *
 *  - the catalogue shape by artist and the artist × dimensions shape by country (their
 *    declarations in shapes.ts; the indexes shapeDdl produces for them, so a database built
 *    from the declarations already has them): an artist's recordings or products read that
 *    artist's rows, the workspace's artists under a country filter that country's rows, not
 *    every row of the shape;
 *  - the statement lines by artist: what no shape holds for one artist (its recordings or
 *    products under a dimension filter; a member's view of it by or under a dimension) reads
 *    that artist's lines, not every line of the workspace.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX IF NOT EXISTS royalty_roll_catalogue_artist_id ON royalty_roll_catalogue (tenant_id, artist_id)`);
  await knex.raw(`CREATE INDEX IF NOT EXISTS royalty_roll_artist_dims_country ON royalty_roll_artist_dims (tenant_id, country)`);
  await knex.raw(`CREATE INDEX royalty_lines_artist ON royalty_lines (tenant_id, artist_id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS royalty_lines_artist`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_roll_artist_dims_country`);
  await knex.raw(`DROP INDEX IF EXISTS royalty_roll_catalogue_artist_id`);
}

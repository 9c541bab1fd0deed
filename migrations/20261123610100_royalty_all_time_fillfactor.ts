import type { Knex } from 'knex';

/**
 * The all-time compact rollups (royalty_agg_catalogue_all, _dims_all, _dim_all) get
 * fillfactor 50 and are rewritten once in key order.
 *
 * Every file updates most of their rows (the all-time row of each recording / value it
 * touches). Created full (fillfactor 100), a page had no room for a row's new version, so
 * each update moved the row to another page; over a workspace's files the rows scattered
 * until each page held a few live rows among free space. At 10M lines (96 files)
 * royalty_agg_catalogue_all held 5,881 rows on 1,506 pages (4 a page): an undated recording
 * breakdown read all of them. Rewritten in key order (a payee's rows neighbours): 184 pages,
 * that scan 1.13 → 0.47 ms.
 *
 * With half of each page free, a file's update of a row is a HOT update on the same page
 * (the amounts are in no index), and the page's dead versions are pruned when the next file
 * updates it, so the rows stay where the rewrite put them.
 */
const TABLES = ['royalty_agg_catalogue_all', 'royalty_agg_dims_all', 'royalty_agg_dim_all'];

export async function up(knex: Knex): Promise<void> {
  for (const t of TABLES) {
    await knex.raw(`ALTER TABLE ${t} SET (fillfactor = 50)`);
    // A rewrite in the key index's order, at the new fillfactor (with a table named, CLUSTER
    // runs inside the migration's transaction).
    await knex.raw(`CLUSTER ${t} USING ${t}_key`);
    await knex.raw(`ANALYZE ${t}`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const t of TABLES) {
    await knex.raw(`ALTER TABLE ${t} RESET (fillfactor)`);
    await knex.raw(`ALTER TABLE ${t} SET WITHOUT CLUSTER`);
  }
}

import type { Knex } from 'knex';

/**
 * The allocation step builds a file's analytics rollups itself (there is no separate
 * aggregate step any more): a file left `aggregating` goes back to `allocating`, where stale-
 * step recovery hands it to the allocation again (a re-allocation of an allocated file is
 * idempotent), and the status leaves the column's allowed values.
 */
const STATUSES = ['uploaded', 'decompressing', 'detecting', 'needs_confirmation', 'queued', 'ingesting', 'allocating', 'processed', 'failed'];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE files SET status = 'allocating' WHERE status = 'aggregating'`);
  await knex.raw(`ALTER TABLE files DROP CONSTRAINT files_status_check`);
  await knex.raw(`ALTER TABLE files ADD CONSTRAINT files_status_check CHECK (status IN (${STATUSES.map((s) => `'${s}'`).join(',')}))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files DROP CONSTRAINT files_status_check`);
  await knex.raw(`ALTER TABLE files ADD CONSTRAINT files_status_check CHECK (status IN (${[...STATUSES, 'aggregating'].map((s) => `'${s}'`).join(',')}))`);
}

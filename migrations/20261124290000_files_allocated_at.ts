import type { Knex } from 'knex';

/**
 * When a file's lines were last allocated. The ingest may store a line with its share set
 * already decided (in flight), so a share set on a line no longer tells an allocated file
 * from a freshly ingested one; a forced re-run (which keeps earlier decisions as history)
 * reads this instead.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files ADD COLUMN allocated_at timestamptz`);
  await knex.raw(
    `UPDATE files f SET allocated_at = coalesce(f.processed_at, f.updated_at)
      WHERE EXISTS (SELECT 1 FROM royalty_lines l WHERE l.tenant_id = f.tenant_id AND l.file_id = f.id AND l.share_set_id IS NOT NULL)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE files DROP COLUMN allocated_at`);
}

import type { Knex } from 'knex';

/**
 * Uploaded release media (docs/catalogue.md, "Media"): release artwork is a `catalogue_media`
 * row owned by a release (exactly one of recording, product, release owns each row); a track's
 * uploaded audio or video is its `track_media` row with the object's `storage_key` (links have none).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE catalogue_media ADD COLUMN release_id uuid`);
  await knex.raw(`ALTER TABLE catalogue_media ADD CONSTRAINT catalogue_media_release_fk FOREIGN KEY (tenant_id, release_id) REFERENCES releases (tenant_id, id) ON DELETE CASCADE`);
  await knex.raw(`ALTER TABLE catalogue_media DROP CONSTRAINT catalogue_media_owner_check`);
  await knex.raw(`ALTER TABLE catalogue_media ADD CONSTRAINT catalogue_media_owner_check CHECK (num_nonnulls(asset_id, product_id, release_id) = 1)`);
  await knex.raw(`CREATE UNIQUE INDEX catalogue_media_release_name_key ON catalogue_media (tenant_id, release_id, name) WHERE release_id IS NOT NULL`);
  await knex.raw(`ALTER TABLE track_media ADD COLUMN storage_key text`);
  await knex.raw(`ALTER TABLE track_media ADD CONSTRAINT track_media_upload_ck CHECK (is_link OR storage_key IS NOT NULL)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE track_media DROP CONSTRAINT track_media_upload_ck`);
  await knex.raw(`ALTER TABLE track_media DROP COLUMN storage_key`);
  await knex.raw(`DROP INDEX IF EXISTS catalogue_media_release_name_key`);
  await knex.raw(`DELETE FROM catalogue_media WHERE release_id IS NOT NULL`);
  await knex.raw(`ALTER TABLE catalogue_media DROP CONSTRAINT catalogue_media_owner_check`);
  await knex.raw(`ALTER TABLE catalogue_media ADD CONSTRAINT catalogue_media_owner_check CHECK ((asset_id IS NULL) <> (product_id IS NULL))`);
  await knex.raw(`ALTER TABLE catalogue_media DROP COLUMN release_id`);
}

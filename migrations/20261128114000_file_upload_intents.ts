import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * file_upload_intents: what `POST /file/upload-url` was told about the file to come (its name
 * and content type) under the file id it answered, so the reference clients'
 * `POST /file/confirm-upload-completion {fileId}` can register the file without naming it
 * again (a statement's name helps its detection). Removed when the file is registered;
 * rows older than a day are dropped by the hourly clean-up.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE file_upload_intents (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      file_id uuid NOT NULL,
      file_name text,
      content_type text,
      created_by uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, file_id)
    )`);
  await knex.raw(`CREATE INDEX file_upload_intents_created ON file_upload_intents (created_at)`);
  await enableTenantRls(knex, 'file_upload_intents');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS file_upload_intents`);
}

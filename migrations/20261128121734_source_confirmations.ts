import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * source_confirmations: "a file confirmed once for a source is not asked about again". When a
 * person confirms a file's source, the file's shape is kept here with the source: its header's
 * fingerprint (`header_fp`, a hash of the delimiter and the header cells' names; '' for a file
 * without a header row) and its name with every digit run made `#` (`name_shape`). The next
 * file of the same shape (both) in the workspace is detected to that source with full
 * confidence. One row per shape: a later confirmation of the same shape replaces the source.
 * `file_id` is the file last confirmed (no foreign key: deleting that file keeps what the
 * person said about its shape).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('source_confirmations', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('header_fp').notNullable();
    t.text('name_shape').notNullable();
    t.uuid('source_pattern_id').notNullable().references('source_patterns.id').onDelete('CASCADE');
    t.uuid('file_id');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.unique(['tenant_id', 'header_fp', 'name_shape']);
  });
  await enableTenantRls(knex, 'source_confirmations');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('source_confirmations');
}

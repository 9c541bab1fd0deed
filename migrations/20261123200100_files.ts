import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/** Every status a statement file goes through (issue 4). allocating/aggregating: next steps. */
export const FILE_STATUSES = [
  'uploaded', 'decompressing', 'detecting', 'needs_confirmation', 'queued', 'ingesting',
  'allocating', 'aggregating', 'processed', 'failed',
] as const;

/** Uploaded statements (and the children of archives) and the lines they rejected. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files', (t) => {
    t.integer('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('parent_id'); // the archive this file was extracted from
    t.text('kind').notNullable().defaultTo('statement'); // statement | archive
    t.text('original_name').notNullable();
    t.text('content_type');
    t.text('storage_key'); // NULL until the bytes are stored (signed-URL uploads)
    t.bigInteger('size_bytes');
    t.text('sha256');
    t.uuid('duplicate_of');
    t.text('status').notNullable().defaultTo('uploaded');
    t.smallint('progress').notNullable().defaultTo(0);
    t.uuid('source_pattern_id'); // global pattern (no FK across the tenant boundary on purpose: patterns may be deleted, files keep the record)
    t.integer('pattern_version');
    t.text('source_key');
    t.text('source_name');
    t.jsonb('confidence'); // {source, period, schema}
    t.jsonb('detection'); // candidates considered (top few, with reasons)
    t.date('sale_period_start');
    t.date('sale_period_end');
    t.date('accounting_period');
    t.integer('rows_read');
    t.integer('rows_ingested');
    t.integer('rows_failed');
    t.integer('rows_skipped');
    t.jsonb('totals'); // {currency: decimal string}
    t.jsonb('control_totals'); // {rows?, totals?}
    t.boolean('reconciles');
    t.text('error_message');
    t.jsonb('options').notNullable().defaultTo('{}');
    t.uuid('uploaded_by');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('processed_at', { useTz: true });
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'parent_id']).references(['tenant_id', 'id']).inTable('files').onDelete('CASCADE');
    t.index(['tenant_id', 'sha256']);
    t.index(['tenant_id', 'status']);
    t.index(['tenant_id', 'created_at']);
    t.index(['tenant_id', 'parent_id']);
  });
  await knex.raw(`ALTER TABLE files ADD CONSTRAINT files_status_check CHECK (status IN (${FILE_STATUSES.map((s) => `'${s}'`).join(',')}))`);
  await knex.raw(`ALTER TABLE files ADD CONSTRAINT files_progress_check CHECK (progress BETWEEN 0 AND 100)`);
  await enableTenantRls(knex, 'files');

  await knex.schema.createTable('file_errors', (t) => {
    t.integer('tenant_id').notNullable().references('id').inTable('tenants').onDelete('CASCADE');
    t.bigIncrements('id', { primaryKey: false });
    t.uuid('file_id').notNullable();
    t.integer('line_no').notNullable();
    t.text('reason').notNullable();
    t.text('raw');
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'file_id']).references(['tenant_id', 'id']).inTable('files').onDelete('CASCADE');
    t.index(['tenant_id', 'file_id', 'line_no']);
  });
  await enableTenantRls(knex, 'file_errors');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('file_errors');
  await knex.schema.dropTableIfExists('files');
}

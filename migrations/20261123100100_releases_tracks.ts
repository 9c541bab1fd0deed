import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Releases (a product being prepared for distribution), their tracks, track media and the
 * review trail. Status moves (enforced in src/modules/releases/service.ts):
 *   draft → submitted (submit) → in_review (review) → approved | rejected (review);
 *   submitted → approved | rejected directly; rejected → submitted (resubmit);
 *   submitted | in_review → draft (feedback with requestChanges).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('releases', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('title').notNullable();
    t.text('artist_name');
    t.uuid('artist_id');
    t.uuid('product_id');
    t.text('type').notNullable().defaultTo('Single');
    t.text('format').notNullable().defaultTo('Digital');
    t.text('status').notNullable().defaultTo('draft');
    t.date('release_date');
    t.text('upc');
    t.text('label');
    t.specificType('genre', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.uuid('created_by');
    t.timestamp('submitted_at', { useTz: true });
    t.timestamp('reviewed_at', { useTz: true });
    t.uuid('reviewed_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'artist_id']).references(['tenant_id', 'id']).inTable('artists').onDelete('SET NULL');
    t.foreign(['tenant_id', 'product_id']).references(['tenant_id', 'id']).inTable('products').onDelete('SET NULL');
    t.check(`status IN ('draft','submitted','in_review','approved','rejected')`, [], 'releases_status_check');
  });
  await knex.raw(`CREATE INDEX releases_status_idx ON releases (tenant_id, status, created_at)`);
  await enableTenantRls(knex, 'releases');

  await knex.schema.createTable('release_events', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('release_id').notNullable();
    t.text('kind').notNullable(); // submit | review | feedback
    t.text('from_status');
    t.text('to_status');
    t.text('message');
    t.uuid('author_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'release_id']).references(['tenant_id', 'id']).inTable('releases').onDelete('CASCADE');
  });
  await knex.raw(`CREATE INDEX release_events_release_idx ON release_events (tenant_id, release_id, created_at)`);
  await enableTenantRls(knex, 'release_events');

  await knex.schema.createTable('tracks', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('release_id').notNullable();
    t.uuid('asset_id');
    t.text('title').notNullable();
    t.text('isrc');
    t.integer('position').notNullable().defaultTo(1);
    t.boolean('explicit').notNullable().defaultTo(false);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'release_id']).references(['tenant_id', 'id']).inTable('releases').onDelete('CASCADE');
    t.foreign(['tenant_id', 'asset_id']).references(['tenant_id', 'id']).inTable('assets').onDelete('SET NULL');
  });
  await knex.raw(`CREATE INDEX tracks_release_idx ON tracks (tenant_id, release_id, position)`);
  await enableTenantRls(knex, 'tracks');

  // Track media (docs/catalogue.md, "Media"). id is the record's cloudId. A track holds at most one audio or video file:
  // every track media row is audio or video, so one row per track.
  await knex.schema.createTable('track_media', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('release_id').notNullable();
    t.uuid('track_id').notNullable();
    t.text('type').notNullable();
    t.text('name').notNullable();
    t.text('url').notNullable();
    t.boolean('is_link').notNullable().defaultTo(true);
    t.text('release_path').notNullable();
    t.text('processing_status').notNullable().defaultTo('pending'); // pending | processed | failed
    t.jsonb('metadata').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'track_id']).references(['tenant_id', 'id']).inTable('tracks').onDelete('CASCADE');
    t.foreign(['tenant_id', 'release_id']).references(['tenant_id', 'id']).inTable('releases').onDelete('CASCADE');
    t.check(`type IN ('audio','video')`, [], 'track_media_type_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX track_media_one_per_track ON track_media (tenant_id, track_id)`);
  await enableTenantRls(knex, 'track_media');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['track_media', 'tracks', 'release_events', 'releases']) await knex.schema.dropTableIfExists(t);
}

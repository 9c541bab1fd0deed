import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Catalogue core: artists (and the members tied to them), assets (recordings), products,
 * and the links between them. Identifiers are stored normalised (see
 * src/modules/catalogue/identifiers.ts): ISRC as 12 upper-case characters without dashes,
 * UPC/EAN as GTIN-13 (13 digits, check digit valid). Both unique per tenant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('artists', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('external_id');
    t.text('country');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
  });
  await knex.raw(`CREATE INDEX artists_name_idx ON artists (tenant_id, lower(name))`);
  await enableTenantRls(knex, 'artists');

  // "Own artists": a member (tenant user) is tied to the artists listed here. Non-admin
  // members see summaries and checklists only for these artists and their catalogue.
  await knex.schema.createTable('artist_users', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('artist_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'artist_id', 'tenant_user_id']);
    t.foreign(['tenant_id', 'artist_id']).references(['tenant_id', 'id']).inTable('artists').onDelete('CASCADE');
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users').onDelete('CASCADE');
  });
  await knex.raw(`CREATE INDEX artist_users_user_idx ON artist_users (tenant_id, tenant_user_id)`);
  await enableTenantRls(knex, 'artist_users');

  await knex.schema.createTable('assets', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('title').notNullable();
    t.text('type').notNullable().defaultTo('Audio');
    t.text('isrc'); // normalised, 12 chars; null only for drafts
    t.text('iswc');
    t.text('display_artist');
    t.specificType('main_artist', 'text[]').notNullable().defaultTo('{}');
    t.text('version');
    t.specificType('main_genre', 'text[]').notNullable().defaultTo('{}');
    t.specificType('sub_genre', 'text[]').notNullable().defaultTo('{}');
    t.text('external_id');
    t.jsonb('contributors').notNullable().defaultTo('{"producers":[],"mixers":[]}');
    t.boolean('is_draft').notNullable().defaultTo(false);
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.check(`type IN ('Audio','Video','Other')`, [], 'assets_type_check');
    t.check(`isrc ~ '^[A-Z]{2}[A-Z0-9]{3}[0-9]{7}$'`, [], 'assets_isrc_check');
  });
  // The allocation job matches statement lines by (tenant, isrc).
  await knex.raw(`CREATE UNIQUE INDEX assets_tenant_isrc_key ON assets (tenant_id, isrc)`);
  await knex.raw(`CREATE INDEX assets_title_idx ON assets (tenant_id, lower(title))`);
  await knex.raw(`CREATE INDEX assets_created_idx ON assets (tenant_id, created_at, id)`);
  await enableTenantRls(knex, 'assets');

  await knex.schema.createTable('products', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('upc'); // normalised GTIN-13
    t.text('title').notNullable();
    t.text('display_artist');
    t.specificType('main_artist', 'text[]').notNullable().defaultTo('{}');
    t.text('type'); // e.g. Single, EP, Album
    t.text('format'); // e.g. Digital, CD, Vinyl
    t.date('release_date');
    t.specificType('main_genre', 'text[]').notNullable().defaultTo('{}');
    t.text('label');
    t.text('catalog_number');
    t.text('external_id');
    t.boolean('is_draft').notNullable().defaultTo(false);
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.check(`upc ~ '^[0-9]{13}$'`, [], 'products_upc_check');
  });
  // The allocation job matches statement lines by (tenant, upc).
  await knex.raw(`CREATE UNIQUE INDEX products_tenant_upc_key ON products (tenant_id, upc)`);
  await knex.raw(`CREATE INDEX products_title_idx ON products (tenant_id, lower(title))`);
  await knex.raw(`CREATE INDEX products_created_idx ON products (tenant_id, created_at, id)`);
  await enableTenantRls(knex, 'products');

  // position orders artists on a recording/product; position 0 is the primary artist,
  // whose default split applies when neither the asset nor the product has one.
  for (const [table, col, parent] of [
    ['asset_artists', 'asset_id', 'assets'],
    ['product_artists', 'product_id', 'products'],
  ] as const) {
    await knex.schema.createTable(table, (t) => {
      t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
      t.uuid(col).notNullable();
      t.uuid('artist_id').notNullable();
      t.integer('position').notNullable().defaultTo(0);
      t.text('role').notNullable().defaultTo('main');
      t.primary(['tenant_id', col, 'artist_id']);
      t.foreign(['tenant_id', col]).references(['tenant_id', 'id']).inTable(parent).onDelete('CASCADE');
      t.foreign(['tenant_id', 'artist_id']).references(['tenant_id', 'id']).inTable('artists').onDelete('CASCADE');
    });
    await knex.raw(`CREATE INDEX ${table}_artist_idx ON ${table} (tenant_id, artist_id)`);
    await enableTenantRls(knex, table);
  }

  // Tracks of a product, in order.
  await knex.schema.createTable('product_assets', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('product_id').notNullable();
    t.uuid('asset_id').notNullable();
    t.integer('disc_number').notNullable().defaultTo(1);
    t.integer('track_number').notNullable();
    t.primary(['tenant_id', 'product_id', 'asset_id']);
    t.foreign(['tenant_id', 'product_id']).references(['tenant_id', 'id']).inTable('products').onDelete('CASCADE');
    t.foreign(['tenant_id', 'asset_id']).references(['tenant_id', 'id']).inTable('assets').onDelete('CASCADE');
  });
  await knex.raw(`CREATE INDEX product_assets_asset_idx ON product_assets (tenant_id, asset_id)`);
  await enableTenantRls(knex, 'product_assets');

  // Uploaded media of assets and products (object store key + extracted metadata).
  await knex.schema.createTable('catalogue_media', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('asset_id');
    t.uuid('product_id');
    t.text('name').notNullable();
    t.text('kind').notNullable(); // audio | video | image | other
    t.text('storage_key').notNullable();
    t.text('mime_type');
    t.bigInteger('size').notNullable().defaultTo(0);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'asset_id']).references(['tenant_id', 'id']).inTable('assets').onDelete('CASCADE');
    t.foreign(['tenant_id', 'product_id']).references(['tenant_id', 'id']).inTable('products').onDelete('CASCADE');
    t.check(`(asset_id IS NULL) <> (product_id IS NULL)`, [], 'catalogue_media_owner_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX catalogue_media_asset_name_key ON catalogue_media (tenant_id, asset_id, name) WHERE asset_id IS NOT NULL`);
  await knex.raw(`CREATE UNIQUE INDEX catalogue_media_product_name_key ON catalogue_media (tenant_id, product_id, name) WHERE product_id IS NOT NULL`);
  await enableTenantRls(knex, 'catalogue_media');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['catalogue_media', 'product_assets', 'product_artists', 'asset_artists', 'products', 'assets', 'artist_users', 'artists']) {
    await knex.schema.dropTableIfExists(t);
  }
}

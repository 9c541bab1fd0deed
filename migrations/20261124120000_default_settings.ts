import type { Knex } from 'knex';
import { enableTenantRls, timestamps } from './helpers';

/**
 * Default settings and the two levels of their inheritance chain the catalogue had no table
 * for: catalogs (a workspace's groupings of labels, e.g. "Frontline", "Back catalogue") and
 * labels (imprints; an artist belongs to at most one label, a label to at most one catalog).
 *
 * Chain, most specific first: user → artist → label → catalog → tenant
 * (src/modules/defaultsettings/chain.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('catalogs', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
  });
  await knex.raw(`CREATE UNIQUE INDEX catalogs_name_key ON catalogs (tenant_id, lower(name))`);
  await enableTenantRls(knex, 'catalogs');

  await knex.schema.createTable('labels', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.uuid('catalog_id');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    // no ON DELETE action: a catalog still holding labels cannot be removed (the service says which)
    t.foreign(['tenant_id', 'catalog_id']).references(['tenant_id', 'id']).inTable('catalogs');
  });
  await knex.raw(`CREATE UNIQUE INDEX labels_name_key ON labels (tenant_id, lower(name))`);
  await knex.raw(`CREATE INDEX labels_catalog_idx ON labels (tenant_id, catalog_id)`);
  await enableTenantRls(knex, 'labels');

  // One label per artist (the primary key), so an artist's chain is never ambiguous.
  await knex.schema.createTable('label_artists', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('artist_id').notNullable();
    t.uuid('label_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'artist_id']);
    t.foreign(['tenant_id', 'artist_id']).references(['tenant_id', 'id']).inTable('artists').onDelete('CASCADE');
    t.foreign(['tenant_id', 'label_id']).references(['tenant_id', 'id']).inTable('labels').onDelete('CASCADE');
  });
  await knex.raw(`CREATE INDEX label_artists_label_idx ON label_artists (tenant_id, label_id)`);
  await enableTenantRls(knex, 'label_artists');

  // entity_id is the uuid of the user (tenant user), artist, label, catalog or workspace.
  await knex.schema.createTable('default_settings', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('entity_type').notNullable();
    t.uuid('entity_id').notNullable();
    t.text('category').notNullable();
    t.text('key').notNullable();
    t.jsonb('value').notNullable();
    t.uuid('created_by');
    t.uuid('updated_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
    t.check(`entity_type IN ('user','artist','label','catalog','tenant')`, [], 'default_settings_entity_type_check');
    t.check(`category IN ('content','business','ddex','validation')`, [], 'default_settings_category_check');
  });
  await knex.raw(`CREATE UNIQUE INDEX default_settings_key ON default_settings (tenant_id, entity_type, entity_id, category, key)`);
  await enableTenantRls(knex, 'default_settings');

  await knex.schema.createTable('default_setting_templates', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description');
    t.jsonb('settings').notNullable().defaultTo('[]'); // [{category, key, value}]
    t.uuid('created_by');
    timestamps(t, knex);
    t.primary(['tenant_id', 'id']);
  });
  await knex.raw(`CREATE UNIQUE INDEX default_setting_templates_name_key ON default_setting_templates (tenant_id, lower(name))`);
  await enableTenantRls(knex, 'default_setting_templates');

  // Every application of a template (its own or a built-in one, by key): the audit trail,
  // and what "popular" counts.
  await knex.schema.createTable('default_setting_template_uses', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('template_key').notNullable(); // a template uuid or a built-in key
    t.text('entity_type').notNullable();
    t.uuid('entity_id').notNullable();
    t.uuid('applied_by');
    t.timestamp('applied_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'id']);
  });
  await knex.raw(`CREATE INDEX default_setting_template_uses_key_idx ON default_setting_template_uses (tenant_id, template_key)`);
  await enableTenantRls(knex, 'default_setting_template_uses');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['default_setting_template_uses', 'default_setting_templates', 'default_settings', 'label_artists', 'labels', 'catalogs']) {
    await knex.schema.dropTableIfExists(t);
  }
}

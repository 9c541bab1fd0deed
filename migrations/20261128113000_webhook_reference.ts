import type { Knex } from 'knex';

/**
 * Webhooks in the reference service's terms (docs/webhooks.md, "The reference envelope"):
 * an endpoint chooses its envelope (`rondo`, the default, or `reference`); at most one
 * endpoint per workspace is the one the settings routes (`/tenant/settings/webhook-*`) manage;
 * a delivery keeps the envelope it was queued with; delivery statuses are the reference's
 * (`succeeded` becomes `success`; `timeout` and `cancelled` are new).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE webhook_endpoints ADD COLUMN envelope text NOT NULL DEFAULT 'rondo'`);
  await knex.raw(`ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_envelope_ck CHECK (envelope IN ('rondo', 'reference'))`);
  await knex.raw(`ALTER TABLE webhook_endpoints ADD COLUMN settings_managed boolean NOT NULL DEFAULT false`);
  await knex.raw(`CREATE UNIQUE INDEX webhook_endpoints_settings_uq ON webhook_endpoints (tenant_id) WHERE settings_managed`);

  await knex.raw(`ALTER TABLE webhook_deliveries ADD COLUMN envelope text NOT NULL DEFAULT 'rondo'`);
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_envelope_ck CHECK (envelope IN ('rondo', 'reference'))`);
  await knex.raw(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_ck`);
  await knex.raw(`UPDATE webhook_deliveries SET status = 'success' WHERE status = 'succeeded'`);
  await knex.raw(`UPDATE webhook_deliveries SET status = 'cancelled' WHERE status = 'failed' AND last_error = 'endpoint disabled'`);
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_ck CHECK (status IN ('pending', 'success', 'failed', 'timeout', 'cancelled'))`);
  await knex.raw(`CREATE INDEX webhook_deliveries_tenant_created_idx ON webhook_deliveries (tenant_id, created_at DESC)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS webhook_deliveries_tenant_created_idx`);
  await knex.raw(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_ck`);
  await knex.raw(`UPDATE webhook_deliveries SET status = CASE status WHEN 'success' THEN 'succeeded' WHEN 'pending' THEN 'pending' ELSE 'failed' END`);
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_ck CHECK (status IN ('pending', 'succeeded', 'failed'))`);
  await knex.raw(`ALTER TABLE webhook_deliveries DROP COLUMN envelope`);
  await knex.raw(`DROP INDEX IF EXISTS webhook_endpoints_settings_uq`);
  await knex.raw(`ALTER TABLE webhook_endpoints DROP COLUMN settings_managed`);
  await knex.raw(`ALTER TABLE webhook_endpoints DROP COLUMN envelope`);
}

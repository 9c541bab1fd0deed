import type { Knex } from 'knex';
import { enableTenantRls } from './helpers';

/**
 * Frozen payee statements (docs/statements.md).
 *
 * - accounting_period_closes: a closed accounting period accepts no new statement run.
 * - statement_runs: one run per request, for one accounting period (month, quarter or
 *   half-year) and all payees or a selection; `draft` until issued; a re-run of the period
 *   supersedes the previous draft and records it in previous_run_id.
 * - statements: one per payee and run; `figures` (JSON, minor units), the CSV and the PDF
 *   bytes and their SHA-256 `content_hash`. Once issued (`number` set) a row never changes:
 *   a trigger refuses UPDATE and DELETE of issued statements for every role.
 * - statement_adjustments: what changed since in periods that issued statements already
 *   accounted for (split change, late file, deleted file, …), posted once into the period of
 *   the statement that first shows it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounting_period_closes', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.date('period_start').notNullable();
    t.date('period_end').notNullable();
    t.text('label').notNullable();
    t.uuid('closed_by');
    t.timestamp('closed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'period_start']);
  });
  await knex.schema.createTable('statement_runs', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable();
    t.date('period_start').notNullable();
    t.date('period_end').notNullable();
    t.text('label').notNullable();
    t.specificType('payees', 'uuid[]');
    t.text('status').notNullable().defaultTo('draft');
    t.uuid('previous_run_id');
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('issued_at', { useTz: true });
    t.primary(['tenant_id', 'id']);
    t.check(`status IN ('draft','issued','superseded')`, [], 'statement_runs_status_check');
  });
  await knex.raw(`CREATE INDEX statement_runs_period_idx ON statement_runs (tenant_id, period_start, created_at)`);
  await knex.schema.createTable('statements', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.uuid('id').notNullable();
    t.uuid('run_id').notNullable();
    t.uuid('tenant_user_id').notNullable();
    t.date('period_start').notNullable();
    t.date('period_end').notNullable();
    t.text('label').notNullable();
    t.integer('number');
    t.jsonb('figures').notNullable();
    t.text('csv').notNullable();
    t.binary('pdf').notNullable();
    t.text('content_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('issued_at', { useTz: true });
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'run_id']).references(['tenant_id', 'id']).inTable('statement_runs');
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
    t.unique(['tenant_id', 'number']);
  });
  await knex.raw(`CREATE INDEX statements_run_idx ON statements (tenant_id, run_id)`);
  await knex.raw(`CREATE INDEX statements_payee_idx ON statements (tenant_id, tenant_user_id, period_start) WHERE number IS NOT NULL`);
  await knex.raw(`CREATE UNIQUE INDEX statements_issued_once ON statements (tenant_id, tenant_user_id, period_start, period_end) WHERE number IS NOT NULL`);
  await knex.schema.createTable('statement_adjustments', (t) => {
    t.integer('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
    t.bigIncrements('id', { primaryKey: false });
    t.uuid('tenant_user_id').notNullable();
    t.text('source_type').notNullable();
    t.uuid('source_id').notNullable();
    t.text('origin').notNullable();
    t.text('reason').notNullable();
    t.decimal('amount', 28, 12).notNullable();
    t.date('posted_period').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['tenant_id', 'id']);
    t.foreign(['tenant_id', 'tenant_user_id']).references(['tenant_id', 'id']).inTable('tenant_users');
    t.check(`origin IN ('split_change','late_file','deleted_file','revenue','expense','payment')`, [], 'statement_adjustments_origin_check');
  });
  await knex.raw(`CREATE INDEX statement_adjustments_payee_idx ON statement_adjustments (tenant_id, tenant_user_id, posted_period)`);
  for (const t of ['accounting_period_closes', 'statement_runs', 'statements', 'statement_adjustments']) await enableTenantRls(knex, t);
  await knex.raw(`REVOKE UPDATE, DELETE, TRUNCATE ON statement_adjustments FROM rondo_app`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION statements_frozen() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
    BEGIN
      -- the workspace's own deletion (cascade) may remove them; nothing else
      IF OLD.number IS NOT NULL AND EXISTS (SELECT 1 FROM tenants WHERE id = OLD.tenant_id) THEN
        RAISE EXCEPTION 'an issued statement never changes' USING ERRCODE = '42501';
      END IF;
      RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END $$;
  `);
  await knex.raw(`CREATE TRIGGER statements_frozen BEFORE UPDATE OR DELETE ON statements FOR EACH ROW EXECUTE FUNCTION statements_frozen()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('statement_adjustments');
  await knex.schema.dropTableIfExists('statements');
  await knex.schema.dropTableIfExists('statement_runs');
  await knex.schema.dropTableIfExists('accounting_period_closes');
  await knex.raw(`DROP FUNCTION IF EXISTS statements_frozen()`);
}

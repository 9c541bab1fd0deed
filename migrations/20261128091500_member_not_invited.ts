import type { Knex } from 'knex';

/**
 * A payee listed by the workspace who does not sign in (docs/auth.md, "Payees who do not sign
 * in"): membership status `not_invited`. Such a member has a person record (name, the e-mail
 * their statements go to), can be named in splits, paid and sent statements; inviting them
 * later turns the same membership `invited`, so nothing that names it changes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE tenant_users DROP CONSTRAINT tenant_users_status_check`);
  await knex.raw(`ALTER TABLE tenant_users ADD CONSTRAINT tenant_users_status_check CHECK (status IN ('active','invited','disabled','not_invited'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE tenant_users SET status = 'invited' WHERE status = 'not_invited'`);
  await knex.raw(`ALTER TABLE tenant_users DROP CONSTRAINT tenant_users_status_check`);
  await knex.raw(`ALTER TABLE tenant_users ADD CONSTRAINT tenant_users_status_check CHECK (status IN ('active','invited','disabled'))`);
}

import type { Knex } from 'knex';

/**
 * The plan every workspace has while billing is off (BILLING unset or `off`, the default of a
 * self-hosted install: docs/platform.md, "Plans and billing"): every feature, no limit. With
 * billing on it is an ordinary plan a super-admin can give.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `INSERT INTO plans (code, name, sort, features, limits)
     VALUES ('unlimited', 'Unlimited', 4, '{webhooks,fxpartner,custom_domains,email_domains,branding,publishing}'::text[],
             '{"statementLinesPerMonth": null, "members": null, "storageBytes": null}'::jsonb)
     ON CONFLICT (code) DO NOTHING`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE tenants SET plan = 'enterprise' WHERE plan = 'unlimited'`);
  await knex.raw(`DELETE FROM plans WHERE code = 'unlimited'`);
}

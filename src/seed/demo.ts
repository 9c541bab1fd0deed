/**
 * `npm run seed:demo`: a small, realistic demo label so a newcomer sees something real.
 * Idempotent: running it twice reuses the same workspace. Modules add their demo data
 * (catalogue, splits, statements) through DEMO_SEEDERS.
 */
import type { AppServices } from '../services';
import { createTenant, ensureGlobalUser, upsertMembership } from '../modules/users/service';
import { withTenant, type Trx } from '../db';
import type { RoleName } from '../http/schema';
import { catalogueSeeder } from './catalogue';
import { statementsSeeder } from './statements';
import { partnersSeeder } from './partners';
import { defaultSettingsSeeder } from './defaults';

export const DEMO_PASSWORD = 'rondo-demo-pass';
export const DEMO_TENANT = 'Moonlight Records (demo)';

export type { DemoContext } from './context';
import type { DemoContext } from './context';

/** Later modules push their seeders here (catalogue, statements…). */
export const DEMO_SEEDERS: { name: string; run(ctx: DemoContext): Promise<void> }[] = [];
DEMO_SEEDERS.push(catalogueSeeder, statementsSeeder, partnersSeeder);
DEMO_SEEDERS.push(defaultSettingsSeeder);

const PEOPLE: { email: string; first: string; last: string; role: RoleName; superAdmin?: boolean }[] = [
  { email: 'owner@moonlight.demo', first: 'Olivia', last: 'Owens', role: 'owner', superAdmin: true },
  { email: 'finance@moonlight.demo', first: 'Farid', last: 'Nasser', role: 'admin' },
  { email: 'ana@moonlight.demo', first: 'Ana', last: 'Lima', role: 'user' },
  { email: 'kofi@moonlight.demo', first: 'Kofi', last: 'Mensah', role: 'user' },
  { email: 'guest@moonlight.demo', first: 'Gus', last: 'Tate', role: 'guest' },
];

export async function seedDemo(svc: AppServices) {
  const owner = svc.db.owner;
  let tenant = await owner('tenants').where({ name: DEMO_TENANT }).first('id', 'uuid');
  if (!tenant) {
    tenant = await createTenant(owner, { name: DEMO_TENANT, baseCurrency: 'USD' });
    // every plan-gated area (FX payouts, webhooks, branding, domains, publishing) open to try
    await owner('tenants').where({ id: tenant.id }).update({ plan: 'enterprise' });
  }
  const hash = await svc.auth.hashPassword(DEMO_PASSWORD);
  const users: Record<string, string> = {};
  for (const p of PEOPLE) {
    const g = await ensureGlobalUser(owner, { email: p.email, passwordHash: hash, firstName: p.first, lastName: p.last, superAdmin: p.superAdmin });
    users[p.email.split('@')[0]!] = await upsertMembership(owner, tenant.id, g.id, p.role);
  }
  const seeded: string[] = [];
  for (const s of DEMO_SEEDERS) {
    await withTenant(svc.db.app, tenant.id, (trx) => s.run({ svc, trx, tenantId: tenant.id, users }));
    seeded.push(s.name);
  }
  return {
    tenantId: tenant.id,
    workspaceId: tenant.uuid,
    password: DEMO_PASSWORD,
    users: PEOPLE.map((p) => ({ email: p.email, role: p.role, superAdmin: !!p.superAdmin, userId: users[p.email.split('@')[0]!] })),
    seeded,
  };
}

/**
 * `npm run rondo -- <command> [options]`: workspace provisioning and keys (keys are never
 * obtainable through the API, spec part 5). Each command prints one JSON object.
 *
 *   tenant:create --name NAME --owner-email EMAIL --password PASS [--base-currency EUR] [--domain host]
 *   user:add      --tenant ID --email EMAIL --password PASS --role guest|user|admin|owner [--super-admin]
 *   key:create    --kind workspace|user|god [--tenant ID] [--user TENANT_USER_ID] [--name TEXT]
 *   key:revoke    --id KEY_UUID
 *   migrate
 *   seed:demo
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { boot } from './compose';
import { createTenant, ensureGlobalUser, upsertMembership } from './modules/users/service';
import type { RoleName } from './http/schema';
import { AppError } from './lib/errors';

const ROLES = ['guest', 'user', 'admin', 'owner'];

function fail(message: string): never {
  console.error(JSON.stringify({ error: message }));
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    name: { type: 'string' },
    'owner-email': { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    tenant: { type: 'string' },
    role: { type: 'string' },
    'super-admin': { type: 'boolean' },
    kind: { type: 'string' },
    user: { type: 'string' },
    id: { type: 'string' },
    'base-currency': { type: 'string' },
    domain: { type: 'string' },
  },
  allowPositionals: false,
  strict: true,
});

if (!command) fail('usage: npm run rondo -- tenant:create|user:add|key:create|key:revoke|migrate|seed:demo [options]');

const cfg = loadConfig(process.env, { logLevel: process.env.LOG_LEVEL || 'warn' });
const rt = await boot(cfg, { workers: false, queue: command === 'seed:demo', migrate: true });
const { svc } = rt;
const owner = svc.db.owner;

async function addUser(tenantId: number, email: string, password: string | undefined, role: RoleName, superAdmin: boolean) {
  if (password !== undefined && password.length < 8) fail('--password must be at least 8 characters');
  const g = await ensureGlobalUser(owner, { email, passwordHash: password ? await svc.auth.hashPassword(password) : null, superAdmin });
  const tenantUserId = await upsertMembership(owner, tenantId, g.id, role);
  const t = await owner('tenants').where({ id: tenantId }).first('uuid');
  return { tenantId, workspaceId: t.uuid as string, userId: tenantUserId, globalUserId: g.id, email, role, superAdmin: superAdmin || undefined };
}

try {
  let out: unknown;
  switch (command) {
    case 'tenant:create': {
      if (!values.name || !values['owner-email'] || !values.password) fail('tenant:create needs --name, --owner-email and --password');
      const t = await createTenant(owner, { name: values.name, baseCurrency: values['base-currency'] });
      if (values.domain) await owner('tenants').where({ id: t.id }).update({ custom_domain: values.domain.toLowerCase() });
      out = await addUser(t.id, values['owner-email'], values.password, 'owner', !!values['super-admin']);
      break;
    }
    case 'user:add': {
      const tenantId = Number(values.tenant);
      if (!Number.isInteger(tenantId) || !values.email || !values.role) fail('user:add needs --tenant ID, --email and --role (and --password for a new user)');
      if (!ROLES.includes(values.role)) fail(`--role must be one of ${ROLES.join(', ')}`);
      if (!(await owner('tenants').where({ id: tenantId }).first())) fail(`no tenant ${tenantId}`);
      out = await addUser(tenantId, values.email, values.password, values.role as RoleName, !!values['super-admin']);
      break;
    }
    case 'key:create': {
      const kind = values.kind as 'workspace' | 'user' | 'god';
      if (!['workspace', 'user', 'god'].includes(kind)) fail('--kind must be workspace, user or god');
      const key = await svc.auth.createApiKey(kind, { tenantId: values.tenant ? Number(values.tenant) : undefined, tenantUserId: values.user, name: values.name });
      out = { id: key.id, kind, key: key.token, note: 'Shown once: store it now. Revoke with key:revoke --id.' };
      break;
    }
    case 'key:revoke': {
      if (!values.id) fail('key:revoke needs --id');
      out = { id: values.id, revoked: await svc.auth.revokeApiKey(values.id) };
      break;
    }
    case 'migrate':
      out = { migrated: true };
      break;
    case 'seed:demo': {
      const { seedDemo } = await import('./seed/demo');
      out = await seedDemo(svc);
      break;
    }
    default:
      fail(`unknown command ${command}`);
  }
  console.log(JSON.stringify(out, null, 2));
} catch (err) {
  if (err instanceof AppError) fail(err.message);
  throw err;
} finally {
  await rt.shutdown();
}

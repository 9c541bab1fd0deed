/**
 * `npm run rondo -- <command> [options]`: workspace provisioning and keys (keys are never
 * obtainable through the API, docs/auth.md "API keys"). Each command prints one JSON object.
 * `npm run rondo -- --help` lists the commands; `<command> --help` its options.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import type { RoleName } from './http/schema';
import { COMMANDS, commandHelp, newDatabaseWarning, usage } from './cli-help';
import { defaultKeyFile, newKey, reencryptSecrets, rotateKeyFile, type KeyKind } from './keys';
import { keyId } from './lib/crypto';
import { activateOperatorDomain, operatorDomain } from './modules/platform/domains';

const ROLES = ['guest', 'user', 'admin', 'owner'];

function fail(message: string, help?: string): never {
  console.error(JSON.stringify({ error: message }));
  if (help) console.error(`\n${help}`);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
if (!command || command === '--help' || command === '-h' || command === 'help') {
  const topic = command === 'help' ? rest[0] : undefined;
  if (topic && !COMMANDS[topic]) fail(`unknown command ${topic}`);
  console.log(topic ? commandHelp(topic) : usage());
  process.exit(command ? 0 : 2);
}
if (!COMMANDS[command]) fail(`unknown command ${command}; npm run rondo -- --help lists them`);

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
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
  plan: { type: 'string' },
  domain: { type: 'string' },
  file: { type: 'string' },
  table: { type: 'string' },
} as const;
let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: false }>>;
try {
  parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: false, strict: true });
} catch (err) {
  fail(`${(err as Error).message}`, commandHelp(command));
}
const { values } = parsed;
if (values.help) {
  console.log(commandHelp(command));
  process.exit(0);
}
const allowed = new Set(['help', ...COMMANDS[command]!.options.map((o) => o.name)]);
for (const k of Object.keys(values)) if (!allowed.has(k)) fail(`${command} takes no --${k}`, commandHelp(command));

const cfg = loadConfig(process.env, { logLevel: process.env.LOG_LEVEL || 'warn' });
// A forgotten DATA_DIR (or DATABASE_URL) would quietly provision a database no server reads.
const warning = command === 'shapes:sql' ? null : newDatabaseWarning(cfg.databaseUrl, cfg.dataDir, (dir) => fs.existsSync(path.join(dir, 'pg', 'PG_VERSION')));
if (warning) console.error(warning);
const missing = COMMANDS[command]!.options.filter((o) => o.required && !values[o.name as keyof typeof values]);
if (missing.length) fail(`${command} needs ${missing.map((o) => `--${o.name}`).join(', ')}`, commandHelp(command));
// Everything that can be checked without the database is, before a workspace is half made.
if (values.password !== undefined && values.password.length < 8) fail('--password must be at least 8 characters');
if (values.role !== undefined && !ROLES.includes(values.role)) fail(`--role must be one of ${ROLES.join(', ')}`);
if (command === 'key:create' && !['workspace', 'user', 'god'].includes(values.kind!)) fail('--kind must be workspace, user or god');
if (command === 'keys:rotate' && !['jwt', 'encryption'].includes(values.kind!)) fail('--kind must be jwt or encryption');
if (command === 'keys:rotate') {
  // Before boot: a key file can be made before any database exists.
  const kind = values.kind as KeyKind;
  if (kind !== 'jwt' && kind !== 'encryption') fail('keys:rotate needs --kind jwt|encryption');
  const [envName, fromEnv] = kind === 'jwt' ? ['JWT_SECRET', cfg.jwtSecret] : ['ENCRYPTION_KEY', cfg.encryptionKey];
  const after = kind === 'jwt' ? 'once its tokens have expired (refresh: 24 h; invitations: 7 days; signed upload URLs: UPLOAD_URL_TTL_SECONDS)' : 'once secrets:reencrypt has run';
  if (fromEnv && !values.file) {
    // Keys in the environment live in the operator's secret store: print one, write nothing.
    const key = newKey();
    console.log(JSON.stringify({ kind, newKey: key, newKeyId: keyId(key), next: `set ${envName}=<newKey> and move the old value into ${envName}_PREVIOUS, restart every process${kind === 'encryption' ? ', run secrets:reencrypt' : ''}; drop the old value ${after}` }, null, 2));
    process.exit(0);
  }
  const file = values.file ?? (kind === 'jwt' ? cfg.jwtSecretFile : cfg.encryptionKeyFile) ?? defaultKeyFile(cfg, kind);
  const r = rotateKeyFile(kind, file);
  const next = `restart every process${kind === 'encryption' ? ', then run secrets:reencrypt' : ''}; remove the old line ${after}`;
  console.log(JSON.stringify({ kind, file, currentKeyId: r.keyId, keys: r.keys, next }, null, 2));
  process.exit(0);
}
if (command === 'shapes:sql') {
  // No database: the SQL a migration holds after a rollup shape's declaration changed (docs/engine.md).
  const { SHAPE_TABLES, rebuildShapesSql } = await import('./modules/royalty/shapes');
  const tables = values.table!.split(',').map((t) => t.trim());
  const unknown = tables.filter((t) => !SHAPE_TABLES.includes(t));
  if (unknown.length) fail(`unknown shape ${unknown.join(', ')}; the shapes are ${SHAPE_TABLES.join(', ')}`);
  const lines = rebuildShapesSql(tables).map((q) => `  ${JSON.stringify(q)},`);
  console.log(`const REBUILD = [\n${lines.join('\n')}\n];\nexport async function up(knex: Knex): Promise<void> {\n  for (const sql of REBUILD) await knex.raw(sql);\n}`);
  process.exit(0);
}
// Loaded here, not at the top: --help and argument errors answer without loading the app.
const { boot } = await import('./compose');
const { createTenant, ensureGlobalUser, upsertMembership } = await import('./modules/users/service');
const { AppError } = await import('./lib/errors');
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
      if (values.plan && !(await owner('plans').where({ code: values.plan }).first('code'))) {
        fail(`--plan must be one of: ${(await owner('plans').orderBy('sort').pluck('code')).join(', ')}`);
      }
      const domain = values.domain ? await operatorDomain(owner, values.domain) : null; // checked before anything is created
      const t = await createTenant(owner, { name: values.name, baseCurrency: values['base-currency'] });
      if (values.plan) await owner('tenants').where({ id: t.id }).update({ plan: values.plan });
      if (domain) await activateOperatorDomain(owner, t.id, domain);
      const member = await addUser(t.id, values['owner-email'], values.password, 'owner', !!values['super-admin']);
      const selects = domain ? !!(await svc.auth.workspaceByHost(domain)) : false;
      out = domain
        ? { ...member, domain, ...(selects ? {} : { note: `${domain} is the workspace's active custom domain; it selects the workspace by Host once the workspace's plan includes custom domains` }) }
        : member;
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
    case 'secrets:reencrypt':
      out = { currentKeyId: svc.secrets.currentKeyId, columns: await reencryptSecrets(owner, svc.secrets) };
      break;
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
  if (err instanceof AppError) fail([err.message, ...err.details].join(": "));
  throw err;
} finally {
  await rt.shutdown();
}

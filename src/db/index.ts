/**
 * Database access. Two knex pools on the same database:
 *  - `owner`: the schema owner. Runs migrations and the few deliberately cross-tenant
 *    queries (login lists a user's workspaces, API-key lookup, super-admin routes).
 *  - `app`: every connection does `SET ROLE rondo_app`, a role that neither owns the
 *    tables nor bypasses RLS, so row-level security holds beneath the application.
 * Tenant work always goes through withTenant(), which sets app.tenant_id for the
 * transaction only.
 */
import knexFactory, { type Knex } from 'knex';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageRoot } from '../lib/package-root';

export type { Knex };
export type Trx = Knex.Transaction;
export type TenantId = number;

export const APP_ROLE = 'rondo_app';
export const MIGRATIONS_DIR = path.join(packageRoot(import.meta.url), 'migrations');

export interface Db {
  owner: Knex;
  app: Knex;
  url: string;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
// knex's own Postgres dialect and transaction (knex exports no subclassing API for them).
const KnexPg: new (config: unknown) => object = require('knex/lib/dialects/postgres/index.js');
const KnexPgTransaction: new (...args: unknown[]) => { isolationLevel?: string; readOnly?: boolean } =
  require('knex/lib/dialects/postgres/execution/pg-transaction.js');

/**
 * A tenant transaction's BEGIN and its `app.tenant_id` in ONE round trip: a simple query of
 * two statements instead of `BEGIN;` then `SELECT set_config(…)`. Each round trip to
 * Postgres costs both processes a socket write and a wake-up (measured on the analytics
 * routes: the pg socket writes were 12% of the API process' CPU under 8 clients). The
 * tenant id is an integer checked by withTenant, so it can be written into the SQL.
 */
class TenantTransaction extends KnexPgTransaction {
  /** From the transaction's config (`tenantId`); knex starts BEGIN only after the constructor returns. */
  private readonly tenantId: unknown;
  constructor(client: unknown, container: unknown, config: { tenantId?: unknown } | undefined, outerTx: unknown) {
    super(client, container, config, outerTx);
    this.tenantId = outerTx ? undefined : config?.tenantId;
  }
  begin(conn: unknown): Promise<unknown> {
    const t = this.tenantId;
    if (t === undefined) return (KnexPgTransaction.prototype as unknown as { begin(conn: unknown): Promise<unknown> }).begin.call(this, conn);
    if (typeof t !== 'number' || !Number.isInteger(t) || t <= 0) return Promise.reject(new Error(`invalid tenant id ${String(t)}`));
    const mode = [this.isolationLevel ? `ISOLATION LEVEL ${this.isolationLevel}` : '', this.readOnly ? 'READ ONLY' : ''].join(' ').trim();
    return (this as unknown as { query(conn: unknown, sql: string): Promise<unknown> }).query(
      conn,
      `BEGIN${mode ? ` TRANSACTION ${mode}` : ''}; SELECT set_config('app.tenant_id', '${t}', true)`,
    );
  }
}
class RondoPg extends KnexPg {
  transaction(container: unknown, config: { tenantId?: unknown } | undefined, outerTx: unknown) {
    return new TenantTransaction(this, container, config, outerTx);
  }
}

// numeric and bigint stay strings (exact money, no float); counts are cast where wanted.
export function createKnex(url: string, opts: { role?: string; poolMax?: number } = {}): Knex {
  return knexFactory({
    client: RondoPg as unknown as typeof Knex.Client,
    connection: url,
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      afterCreate: (conn: { query: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, conn: unknown) => void) => {
        const sql = opts.role ? `SET ROLE ${opts.role}; SET TIME ZONE 'UTC'` : `SET TIME ZONE 'UTC'`;
        conn.query(sql, (err) => done(err, conn));
      },
    },
    migrations: { directory: MIGRATIONS_DIR, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
  });
}

export function connectDb(url: string, opts: { poolMax?: number } = {}): Db {
  const owner = createKnex(url, { poolMax: 5 });
  const app = createKnex(url, { role: APP_ROLE, poolMax: opts.poolMax ?? 10 });
  return {
    owner,
    app,
    url,
    async close() {
      await Promise.all([owner.destroy(), app.destroy()]);
    },
  };
}

export async function migrateLatest(owner: Knex): Promise<string[]> {
  await canLoadMigrations(owner);
  const [, applied] = (await owner.migrate.latest()) as [number, string[]];
  return applied;
}

/**
 * The migrations are TypeScript files, which knex imports when it applies one. The precompiled
 * server (dist/server.mjs, run by plain `node`) has no TypeScript loader: when a migration is
 * pending, tsx's loader is registered for them first (a start after an upgrade pays for it;
 * one with nothing to apply does not). Under tsx (this module's own URL is a .ts file) nothing
 * is needed.
 */
async function canLoadMigrations(owner: Knex): Promise<void> {
  if (import.meta.url.endsWith('.ts') || tsLoaderRegistered) return;
  const [, pending] = (await owner.migrate.list()) as [unknown[], unknown[]];
  if (!pending.length) return;
  const { register } = await import('tsx/esm/api');
  register();
  tsLoaderRegistered = true;
}
let tsLoaderRegistered = false;

/** Run fn in a transaction scoped to one tenant: RLS sees only that tenant's rows. */
export async function withTenant<T>(knex: Knex, tenantId: TenantId, fn: (trx: Trx) => Promise<T>, opts: { snapshot?: boolean } = {}): Promise<T> {
  if (!Number.isInteger(tenantId) || tenantId <= 0) throw new Error(`invalid tenant id ${tenantId}`);
  // TenantTransaction sets app.tenant_id in the BEGIN round trip. `snapshot`: every statement
  // reads the transaction's first snapshot (REPEATABLE READ), for a read made of several.
  return knex.transaction((trx) => fn(trx), { tenantId, ...(opts.snapshot ? { isolationLevel: 'repeatable read' } : {}) } as Knex.TransactionConfig);
}

/**
 * A named (prepared) statement on one of the pool's connections: Postgres parses and plans it
 * once per connection and re-executes the plan. For hot, fixed, key-lookup statements only
 * (a generic plan must be as good as a custom one): the per-request session and membership
 * check planned in 0.28 ms and executed in 0.04 ms. `text` uses $1…$n placeholders.
 */
export async function preparedQuery<R = Record<string, unknown>>(knex: Knex, name: string, text: string, values: unknown[]): Promise<R[]> {
  const client = knex.client as unknown as { acquireConnection(): Promise<import('pg').PoolClient>; releaseConnection(c: unknown): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    return (await conn.query({ name, text, values })).rows as R[];
  } finally {
    await client.releaseConnection(conn);
  }
}

/** The raw pg connection of a knex transaction (for pg-boss's db adapter and COPY). */
export async function rawConnection(trx: Trx): Promise<import('pg').PoolClient> {
  // Inside a transaction knex's client hands back the transaction's own connection.
  return (await (trx as unknown as { client: { acquireConnection(): Promise<import('pg').PoolClient> } }).client.acquireConnection());
}

/**
 * Runs batch statements with hash joins instead of nested loops. Statement lines are often
 * planned with stale statistics (just COPYed; base_amount / asset_id filled a moment ago),
 * and a nested loop over a misestimated "1 row" is quadratic; hash joins are linear either way.
 * `hashAggregates`: sorts are avoided too (grouping by hashing; a sort of a million
 * misestimated rows spills to disk).
 */
export async function hashJoins<T>(trx: Trx, fn: () => Promise<T>, opts: { hashAggregates?: boolean } = {}): Promise<T> {
  const sets = ['enable_nestloop', 'enable_mergejoin', ...(opts.hashAggregates ? ['enable_sort'] : [])];
  for (const s of sets) await trx.raw(`SET LOCAL ${s} = off`); // a merge join sorts both sides: the file's lines too
  try {
    return await fn();
  } finally {
    for (const s of sets) await trx.raw(`SET LOCAL ${s} = on`);
  }
}

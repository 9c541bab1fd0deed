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
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type { Knex };
export type Trx = Knex.Transaction;
export type TenantId = number;

export const APP_ROLE = 'rondo_app';
const here = path.dirname(fileURLToPath(import.meta.url));
export const MIGRATIONS_DIR = path.resolve(here, '../../migrations');

export interface Db {
  owner: Knex;
  app: Knex;
  url: string;
  close(): Promise<void>;
}

// numeric and bigint stay strings (exact money, no float); counts are cast where wanted.
export function createKnex(url: string, opts: { role?: string; poolMax?: number } = {}): Knex {
  return knexFactory({
    client: 'pg',
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
  const [, applied] = (await owner.migrate.latest()) as [number, string[]];
  return applied;
}

/** Run fn in a transaction scoped to one tenant: RLS sees only that tenant's rows. */
export async function withTenant<T>(knex: Knex, tenantId: TenantId, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (!Number.isInteger(tenantId) || tenantId <= 0) throw new Error(`invalid tenant id ${tenantId}`);
  return knex.transaction(async (trx) => {
    await trx.raw(`select set_config('app.tenant_id', ?, true)`, [String(tenantId)]);
    return fn(trx);
  });
}

/** The raw pg connection of a knex transaction (for pg-boss's db adapter and COPY). */
export async function rawConnection(trx: Trx): Promise<import('pg').PoolClient> {
  // Inside a transaction knex's client hands back the transaction's own connection.
  return (await (trx as unknown as { client: { acquireConnection(): Promise<import('pg').PoolClient> } }).client.acquireConnection());
}

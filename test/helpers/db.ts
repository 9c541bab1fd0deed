import pg from 'pg';
import crypto from 'node:crypto';

export const TEMPLATE_DB = 'rondo_template';
let serverUrl = '';

export function setServerUrl(url: string): void {
  serverUrl = url;
}

function withDb(name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh database cloned from the migrated template (`empty`: with no migration applied). */
export async function createTestDatabase(opts: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  if (!serverUrl) throw new Error('test/setup.ts did not run (use the mocha config)');
  const name = `rondo_t_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${opts.empty ? 'template0' : TEMPLATE_DB}`);
  await admin.end();
  return {
    url: withDb(name),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

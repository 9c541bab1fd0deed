import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';

describe('row-level security beneath the application', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'RlsA');
    b = await createTestTenant(app, 'RlsB');
    for (const t of [a, b]) {
      await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('notifications').insert({ tenant_id: t.tenantId, type: 'test', title: `for ${t.tenantId}` }));
    }
  });
  after(async () => app.close());

  it('a query with no WHERE clause in tenant A’s transaction sees only A’s rows', async () => {
    for (const table of ['tenant_users', 'notifications', 'tenants']) {
      const rows = await withTenant(app.svc.db.app, a.tenantId, (trx) => trx.raw(`SELECT * FROM ${table}`));
      assert.ok(rows.rows.length > 0, `${table} has A rows`);
      const key = table === 'tenants' ? 'id' : 'tenant_id';
      assert.ok(rows.rows.every((r: any) => r[key] === a.tenantId), `${table} leaks another tenant`);
    }
    const users = await withTenant(app.svc.db.app, a.tenantId, (trx) => trx.raw(`SELECT email FROM users`));
    assert.deepEqual(users.rows.map((r: any) => r.email).sort(), Object.values(a.users).map((u) => u.email).sort());
  });

  it('withTenant sets the tenant with its BEGIN, for that transaction only (the pooled connection forgets it)', async () => {
    const db = app.svc.db.app;
    // one pooled connection: every statement below runs on the same backend
    const seen = await withTenant(db, a.tenantId, async (trx) => {
      const { rows } = await trx.raw(`SELECT current_setting('app.tenant_id', true) AS t, pg_backend_pid() AS pid, now() = statement_timestamp() AS first`);
      return rows[0];
    });
    assert.equal(seen.t, String(a.tenantId));
    assert.equal(seen.first, false, 'the first statement runs inside the transaction BEGIN opened');
    const inB = await withTenant(db, b.tenantId, async (trx) => (await trx.raw(`SELECT current_setting('app.tenant_id', true) AS t`)).rows[0].t);
    assert.equal(inB, String(b.tenantId));
    // a plain transaction (no tenant) on the app role sees no tenant and no rows
    const plain = await db.transaction(async (trx) => (await trx.raw(`SELECT coalesce(current_setting('app.tenant_id', true), '') AS t, (SELECT count(*)::int FROM tenant_users) AS n`)).rows[0]);
    assert.deepEqual(plain, { t: '', n: 0 });
    // a failing handler rolls back (and the setting goes with it)
    await assert.rejects(withTenant(db, a.tenantId, async (trx) => {
      await trx('notifications').insert({ tenant_id: a.tenantId, type: 'test', title: 'rolled back' });
      throw new Error('boom');
    }), /boom/);
    const n = await withTenant(db, a.tenantId, async (trx) => (await trx('notifications').where({ title: 'rolled back' }).count<{ count: string }[]>('* as count'))[0]!.count);
    assert.equal(Number(n), 0);
    await assert.rejects(withTenant(db, 0, async () => 1), /invalid tenant id/);
  });

  it('without a tenant set, the application role sees nothing', async () => {
    const rows = await app.svc.db.app.raw('SELECT count(*)::int AS n FROM tenant_users');
    assert.equal(rows.rows[0].n, 0);
  });

  it('the application role cannot write rows for another tenant', async () => {
    await assert.rejects(
      withTenant(app.svc.db.app, a.tenantId, (trx) => trx('notifications').insert({ tenant_id: b.tenantId, type: 'x', title: 'smuggled' })),
      /row-level security/,
    );
    const n = await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('notifications').where({ tenant_id: b.tenantId }).update({ title: 'hijacked' }));
    assert.equal(n, 0);
  });

  it('the application role cannot switch RLS off or read credentials', async () => {
    await assert.rejects(withTenant(app.svc.db.app, a.tenantId, (trx) => trx.raw('ALTER TABLE notifications DISABLE ROW LEVEL SECURITY')), /must be owner/);
    await assert.rejects(withTenant(app.svc.db.app, a.tenantId, (trx) => trx.raw('SELECT * FROM sessions')), /permission denied/);
    await assert.rejects(withTenant(app.svc.db.app, a.tenantId, (trx) => trx.raw('SELECT * FROM api_keys')), /permission denied/);
    const role = await app.svc.db.app.raw('SELECT current_user AS u, (SELECT rolbypassrls FROM pg_roles WHERE rolname = current_user) AS bypass');
    assert.deepEqual(role.rows[0], { u: 'rondo_app', bypass: false });
  });

  it('every table with a tenant_id column has RLS enabled with a policy', async () => {
    const r = await app.svc.db.owner.raw(`
      SELECT c.relname, c.relrowsecurity, (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid)::int AS policies
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r','p')
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)`);
    const credentialTables = new Set(['api_keys', 'one_time_tokens']); // owner-only tables, no grant to the app role at all
    for (const row of r.rows) {
      if (credentialTables.has(row.relname)) continue;
      assert.ok(row.relrowsecurity && row.policies > 0, `${row.relname} lacks row-level security`);
    }
    assert.ok(r.rows.length >= 3);
  });
});

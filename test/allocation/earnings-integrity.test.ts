/**
 * Earnings (the royalty_earnings view: lines ⋈ share sets, history ⋈ share sets) have no
 * per-row foreign keys: the guarantees they gave are kept by triggers on the delete side. A member who has
 * earnings (current or superseded) cannot be removed; a workspace's deletion removes its
 * earnings.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { SHAPE_TABLES } from '../../src/modules/royalty/shapes';

const FILE = '00000000-0000-4000-8000-0000000000e1';

describe('royalty_earnings integrity without per-row foreign keys', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Integrity A');
    b = await createTestTenant(app, 'Integrity B');
  });
  after(async () => app.close());

  // An allocated line paying `payee` 100 %: current (the line's share set) or superseded (history).
  let lineNo = 1;
  const earn = (t: TestTenant, payee: string, superseded: boolean) =>
    withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      const set = crypto.randomUUID();
      await trx('royalty_share_sets').insert({ tenant_id: t.tenantId, share_set_id: set, tenant_user_id: payee, share: 100, gets_remainder: true });
      const n = lineNo++;
      await trx('royalty_lines').insert({
        tenant_id: t.tenantId, file_id: FILE, line_no: n, net: '1.5', currency: 'USD', base_amount: '1.5', base_currency: 'USD', share_set_id: superseded ? null : set,
      });
      if (superseded) {
        await trx('royalty_allocation_history').insert({
          tenant_id: t.tenantId, file_id: FILE, line_id: n, share_set_id: set, base_amount: '1.5', currency: 'USD', created_at: new Date(), superseded_at: new Date(),
        });
      }
    });

  it('a member with current earnings cannot be removed (400 IN_USE, as the foreign key answered); one without can', async () => {
    await earn(a, a.users.user!.tenantUserId, false);
    const r = await app.request('DELETE', `/user/${a.users.user!.tenantUserId}`, { token: a.users.owner!.token });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'IN_USE');
    const g = await app.request('GET', `/user/${a.users.user!.tenantUserId}`, { token: a.users.owner!.token });
    assert.equal(g.status, 200);
    const ok = await app.request('DELETE', `/user/${a.users.guest!.tenantUserId}`, { token: a.users.owner!.token });
    assert.ok(ok.status < 300, JSON.stringify(ok.body));
  });

  it('superseded earnings (history) keep their payee too', async () => {
    await earn(a, a.users.admin!.tenantUserId, true);
    const r = await app.request('DELETE', `/user/${a.users.admin!.tenantUserId}`, { token: a.users.owner!.token });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'IN_USE');
  });

  it("deleting a workspace removes its earnings and leaves another workspace's", async () => {
    await earn(b, b.users.user!.tenantUserId, false);
    const count = async (tenantId: number) =>
      Number((await app.svc.db.owner('royalty_earnings').where({ tenant_id: tenantId }).count({ n: '*' }))[0]!.n);
    assert.ok((await count(a.tenantId)) >= 2);
    // The rollup shapes' rows go with their workspace (the tenants trigger royalty_rollups_tenant_gone).
    const row = { file_id: '00000000-0000-0000-0000-000000000001', revenue: 1, quantity: 1, streams: 0, downloads: 0, lines: 1 };
    for (const table of SHAPE_TABLES) await app.svc.db.owner(table).insert([{ tenant_id: a.tenantId, ...row }, { tenant_id: b.tenantId, ...row }]);
    const rowsOf = async (table: string, tenantId: number) =>
      Number((await app.svc.db.owner(table).where({ tenant_id: tenantId }).count({ n: '*' }))[0]!.n);
    await app.svc.db.owner('tenants').where({ id: a.tenantId }).delete();
    assert.equal(await count(a.tenantId), 0);
    assert.equal(await count(b.tenantId), 1);
    for (const table of SHAPE_TABLES) {
      assert.equal(await rowsOf(table, a.tenantId), 0, table);
      assert.equal(await rowsOf(table, b.tenantId), 1, table);
    }
  });
});

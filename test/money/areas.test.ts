import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { allocateFile, uuid } from './helpers';

/**
 * The five money areas whose list/get/create/update/delete/bulk-delete routes come from one
 * factory behave alike: paging, 404 on an absent id, bulk delete's failedDeletions, a role
 * below the area's level → 403, another workspace's id → 404 (and nothing changes).
 */
interface Area {
  name: string;
  /** collection path as the spec spells it */
  path: string;
  /** role that creates (and writes); the role just below it must get 403 */
  writer: 'admin' | 'user';
  below: 'user' | 'guest';
  /** role that reads and its role just below */
  reader: 'user';
  readBelow: 'guest';
  hasDelete: boolean;
  /** the body key of POST {base}/bulk, for the areas with summary and bulk create */
  bulkKey?: string;
  body(payee: string, n: number): Record<string, unknown>;
  patch: Record<string, unknown>;
  patched(data: Record<string, unknown>): unknown;
  patchedValue: unknown;
}

const AREAS: Area[] = [
  {
    name: 'expense', path: '/expense/', writer: 'admin', below: 'user', reader: 'user', readBelow: 'guest', hasDelete: false, bulkKey: 'expenses',
    body: (payee, n) => ({ user: payee, title: `Expense ${n}`, amount: `${n}.10`, currency: 'USD' }),
    patch: { title: 'Changed' }, patched: (d) => d.title, patchedValue: 'Changed',
  },
  {
    name: 'revenue', path: '/revenue/', writer: 'admin', below: 'user', reader: 'user', readBelow: 'guest', hasDelete: true, bulkKey: 'revenues',
    body: (payee, n) => ({ title: `Revenue ${n}`, amount: `${n}.25`, currency: 'USD', splits: [{ user: payee, share: 100 }] }),
    patch: { title: 'Changed' }, patched: (d) => d.title, patchedValue: 'Changed',
  },
  {
    name: 'payment', path: '/payment/', writer: 'admin', below: 'user', reader: 'user', readBelow: 'guest', hasDelete: true, bulkKey: 'payments',
    body: (payee, n) => ({ user: payee, currency: 'USD', amount: `${n}.5`, title: `Payment ${n}` }),
    patch: { memo: 'Changed' }, patched: (d) => d.memo, patchedValue: 'Changed',
  },
  {
    name: 'payment request', path: '/payment-request/', writer: 'user', below: 'guest', reader: 'user', readBelow: 'guest', hasDelete: true,
    body: (_payee, n) => ({ amount: `${n}`, memo: `Request ${n}` }),
    patch: { memo: 'Changed' }, patched: (d) => d.memo, patchedValue: 'Changed',
  },
  {
    name: 'payment setting', path: '/payment-setting', writer: 'user', below: 'guest', reader: 'user', readBelow: 'guest', hasDelete: true,
    body: (_payee, n) => ({ method: 'other', label: `Setting ${n}`, details: { note: `n${n}` } }),
    patch: { label: 'Changed' }, patched: (d) => d.label, patchedValue: 'Changed',
  },
];

describe('money: the factory-made routes of the five areas behave alike', function () {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'AreasA');
    b = await createTestTenant(app, 'AreasB');
    // enough due for the payee's payment requests (and the payments against it)
    await allocateFile(app, a.tenantId, uuid(), [{ payee: a.users.user!.tenantUserId, amount: '10000' }]);
    await allocateFile(app, b.tenantId, uuid(), [{ payee: b.users.user!.tenantUserId, amount: '10000' }]);
  });
  after(async () => app.close());

  for (const area of AREAS) {
    const base = area.path.replace(/\/$/, '');
    describe(area.name, () => {
      const ids: string[] = [];
      let otherId = '';

      before(async () => {
        for (let n = 1; n <= 3; n++) {
          const r = await app.request('POST', area.path, { token: a.users[area.writer]!.token, body: area.body(a.users.user!.tenantUserId, n) });
          assert.equal(r.status, 201, r.text);
          assert.equal(r.body.status, 'success');
          ids.push(r.body.data.id);
        }
        const o = await app.request('POST', area.path, { token: b.users[area.writer]!.token, body: area.body(b.users.user!.tenantUserId, 1) });
        assert.equal(o.status, 201, o.text);
        otherId = o.body.data.id;
      });

      it('lists page by page with the pagination block', async () => {
        const p1 = await app.request('GET', `${area.path}?page=1&size=2`, { token: a.users.admin!.token });
        assert.equal(p1.status, 200, p1.text);
        assert.equal(p1.body.success, true);
        assert.deepEqual(p1.body.pagination, { page: 1, size: 2, total: 3 });
        assert.equal(p1.body.data.length, 2);
        const p2 = await app.request('GET', `${area.path}?page=2&size=2`, { token: a.users.admin!.token });
        assert.deepEqual(p2.body.pagination, { page: 2, size: 2, total: 3 });
        assert.equal(p2.body.data.length, 1);
        const seen = [...p1.body.data, ...p2.body.data].map((d: { id: string }) => d.id).sort();
        assert.deepEqual(seen, [...ids].sort());
        const bad = await app.request('GET', `${area.path}?size=0`, { token: a.users.admin!.token });
        assert.equal(bad.status, 400);
      });

      it('gets and updates one record; an absent id is 404 in the status error shape', async () => {
        const one = await app.request('GET', `${base}/${ids[0]}`, { token: a.users[area.reader]!.token });
        assert.equal(one.status, 200, one.text);
        assert.equal(one.body.data.id, ids[0]);
        const up = await app.request('PUT', `${base}/${ids[0]}`, { token: a.users[area.writer]!.token, body: area.patch });
        assert.equal(up.status, 200, up.text);
        assert.equal(area.patched(up.body.data), area.patchedValue);
        const absent = uuid();
        const g = await app.request('GET', `${base}/${absent}`, { token: a.users.admin!.token });
        assert.equal(g.status, 404);
        assert.equal(g.body.status, 'error');
        assert.equal(typeof g.body.message, 'string');
        assert.equal((await app.request('PUT', `${base}/${absent}`, { token: a.users[area.writer]!.token, body: area.patch })).status, 404);
        // an area without a one-record DELETE answers 405 (its own test below)
        assert.equal((await app.request('DELETE', `${base}/${absent}`, { token: a.users[area.writer]!.token })).status, area.hasDelete ? 404 : 405);
        assert.equal((await app.request('GET', `${base}/not-a-uuid`, { token: a.users.admin!.token })).status, 400);
      });

      it('a role below the area level gets 403', async () => {
        assert.equal((await app.request('POST', area.path, { token: a.users[area.below]!.token, body: area.body(a.users.user!.tenantUserId, 9) })).status, 403);
        assert.equal((await app.request('PUT', `${base}/${ids[0]}`, { token: a.users[area.below]!.token, body: area.patch })).status, 403);
        assert.equal((await app.request('POST', `${base}/bulk/delete`, { token: a.users[area.below]!.token, body: { ids: [ids[0]] } })).status, 403);
        assert.equal((await app.request('GET', area.path, { token: a.users[area.readBelow]!.token })).status, 403);
        assert.equal((await app.request('GET', `${base}/${ids[0]}`, { token: a.users[area.readBelow]!.token })).status, 403);
        assert.equal((await app.request('DELETE', `${base}/${ids[0]}`, { token: a.users[area.below]!.token })).status, area.hasDelete ? 403 : 405);
        assert.equal((await app.request('GET', `${base}/${ids[0]}`, { token: a.users.admin!.token })).status, 200, 'nothing was deleted');
      });

      it("another workspace's id answers 404 and nothing changes", async () => {
        const t = b.users.admin!.token;
        assert.equal((await app.request('GET', `${base}/${ids[1]}`, { token: t })).status, 404);
        assert.equal((await app.request('PUT', `${base}/${ids[1]}`, { token: b.users[area.writer]!.token, body: area.patch })).status, 404);
        assert.equal((await app.request('DELETE', `${base}/${ids[1]}`, { token: b.users[area.writer]!.token })).status, area.hasDelete ? 404 : 405);
        const bulk = await app.request('POST', `${base}/bulk/delete`, { token: b.users[area.writer]!.token, body: { ids: [ids[1]] } });
        assert.equal(bulk.status, 200, bulk.text);
        assert.equal(bulk.body.processedCount, 0);
        assert.deepEqual(bulk.body.failedDeletions.map((f: { id: string }) => f.id), [ids[1]]);
        const still = await app.request('GET', `${base}/${ids[1]}`, { token: a.users.admin!.token });
        assert.equal(still.status, 200);
        assert.notEqual(area.patched(still.body.data), area.patchedValue);
        assert.equal((await app.request('GET', `${base}/${otherId}`, { token: a.users.admin!.token })).status, 404);
        const list = await app.request('GET', `${area.path}?size=50`, { token: a.users.admin!.token });
        assert.ok(!list.body.data.some((d: { id: string }) => d.id === otherId));
      });

      it('bulk delete deletes what it finds and names every id it could not', async () => {
        const absent = uuid();
        const r = await app.request('POST', `${base}/bulk/delete`, { token: a.users[area.writer]!.token, body: { ids: [ids[2], absent, otherId] } });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.processedCount, 1);
        assert.equal(typeof r.body.message, 'string');
        assert.deepEqual(r.body.failedDeletions.map((f: { id: string }) => f.id), [absent, otherId]);
        for (const f of r.body.failedDeletions) assert.match(f.error, /not found/);
        assert.equal((await app.request('GET', `${base}/${ids[2]}`, { token: a.users.admin!.token })).status, 404);
        const empty = await app.request('POST', `${base}/bulk/delete`, { token: a.users[area.writer]!.token, body: { ids: [] } });
        assert.equal(empty.status, 400);
        assert.equal(empty.body.success, false, 'bulk routes answer in the bulk error shape');
        assert.equal((await app.request('GET', `${base}/${otherId}`, { token: b.users.admin!.token })).status, 200, "the other workspace's record is untouched");
      });

      if (area.bulkKey) {
        const key = area.bulkKey;
        it('summary: members get their own, guests 403; bulk create reports bad items by index and creates the rest', async () => {
          const own = await app.request('GET', `${base}/summary`, { token: a.users.user!.token });
          assert.equal(own.status, 200, own.text);
          assert.deepEqual(Object.keys(own.body).sort(), ['message', 'summary']);
          assert.equal(own.body.summary.currency, 'USD');
          assert.equal((await app.request('GET', `${base}/summary`, { token: a.users.guest!.token })).status, 403);
          const payee = a.users.user!.tenantUserId;
          const r = await app.request('POST', `${base}/bulk`, { token: a.users[area.writer]!.token, body: { [key]: [area.body(payee, 7), { nonsense: true }, area.body(payee, 8)] } });
          assert.equal(r.status, 200, r.text);
          const created = Object.entries(r.body).find(([k]) => k.startsWith('created'))![1] as string[];
          assert.equal(created.length, 2);
          assert.ok(r.body.errors.length >= 1);
          for (const e of r.body.errors) assert.ok(e.startsWith(`${key}[1]`), e);
          assert.equal((await app.request('POST', `${base}/bulk`, { token: a.users[area.below]!.token, body: { [key]: [area.body(payee, 9)] } })).status, 403);
          const bad = await app.request('POST', `${base}/bulk`, { token: a.users[area.writer]!.token, body: { [key]: [] } });
          assert.equal(bad.status, 400);
          assert.equal(bad.body.success, false);
          const bulkDeleted = await app.request('POST', `${base}/bulk/delete`, { token: a.users[area.writer]!.token, body: { ids: created } });
          assert.equal(bulkDeleted.body.processedCount, 2);
        });
      }

      if (area.hasDelete) {
        it('deletes one record; a second delete is 404', async () => {
          const r = await app.request('DELETE', `${base}/${ids[0]}`, { token: a.users[area.writer]!.token });
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(r.body, { status: 'success', message: `${area.name[0]!.toUpperCase()}${area.name.slice(1)} deleted`, data: null });
          assert.equal((await app.request('DELETE', `${base}/${ids[0]}`, { token: a.users[area.writer]!.token })).status, 404);
        });
      } else {
        it('has no DELETE of one record (not in the spec): deleting goes through bulk delete', async () => {
          const r = await app.request('DELETE', `${base}/${ids[0]}`, { token: a.users[area.writer]!.token });
          assert.equal(r.status, 405);
          assert.equal((await app.request('GET', `${base}/${ids[0]}`, { token: a.users.admin!.token })).status, 200);
        });
      }
    });
  }
});

import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { notify } from '../../src/modules/notifications/service';

describe('notifications (docs/notifications.md)', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  const ids: Record<string, string> = {};
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'NotA');
    b = await createTestTenant(app, 'NotB');
    await withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      ids.all = await notify(trx, { tenantId: a.tenantId, type: 'release.created', title: 'Release created', metadata: { type: 'Album', format: 'Digital', status: 'draft', artistName: 'Ana', releaseTitle: 'Dawn' } });
      ids.user = await notify(trx, { tenantId: a.tenantId, tenantUserId: a.users.user!.tenantUserId, type: 'royalty.processed', title: 'Statement processed', isImportant: true });
      ids.admin = await notify(trx, { tenantId: a.tenantId, tenantUserId: a.users.admin!.tenantUserId, type: 'royalty.processed', title: 'For the admin' });
    });
    await withTenant(app.svc.db.app, b.tenantId, (trx) => notify(trx, { tenantId: b.tenantId, type: 'x', title: 'B only' }));
  });
  after(async () => app.close());

  it('lists your own and workspace-wide notifications in the spec shape', async () => {
    const r = await app.request('GET', '/notifications', { token: a.users.user!.token });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'success');
    assert.deepEqual(Object.keys(r.body.data).sort(), ['notifications', 'page', 'pageSize', 'total', 'totalPages']);
    assert.deepEqual(r.body.data.notifications.map((n: any) => n.id).sort(), [ids.all, ids.user].sort());
    const rel = r.body.data.notifications.find((n: any) => n.id === ids.all);
    assert.deepEqual(rel.metadata, { type: 'Album', format: 'Digital', status: 'draft', artistName: 'Ana', releaseTitle: 'Dawn' });
    assert.equal(rel.TenantId, a.tenantId);
    for (const k of ['id', 'type', 'title', 'content', 'resourceType', 'resourceId', 'actionUrl', 'isRead', 'isImportant', 'isArchived', 'metadata', 'expiresAt', 'TenantId', 'TenantUserId', 'createdAt', 'updatedAt']) assert.ok(k in rel, k);
  });

  it('read state: own notifications and workspace-wide ones per person', async () => {
    assert.equal((await app.request('GET', '/notifications/unread/count', { token: a.users.user!.token })).body.data.count, 2);
    assert.equal((await app.request('PATCH', `/notifications/${ids.all}/read`, { token: a.users.user!.token })).status, 200);
    assert.equal((await app.request('GET', '/notifications/unread/count', { token: a.users.user!.token })).body.data.count, 1);
    // the admin has not read the workspace-wide one
    assert.equal((await app.request('GET', '/notifications/unread/count', { token: a.users.admin!.token })).body.data.count, 2);
    assert.equal((await app.request('PATCH', '/notifications/mark-all-read', { token: a.users.user!.token })).body.data.updated, 1);
    assert.equal((await app.request('GET', '/notifications?unread=true', { token: a.users.user!.token })).body.data.total, 0);
  });

  it('someone else’s or another tenant’s notification is 404; guests are refused', async () => {
    assert.equal((await app.request('PATCH', `/notifications/${ids.admin}/read`, { token: a.users.user!.token })).status, 404);
    const r = await app.request('PATCH', `/notifications/${ids.user}/read`, { token: b.users.owner!.token });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { status: 'error', message: 'Notification not found', code: 'NOT_FOUND' });
    const list = await app.request('GET', '/notifications', { token: b.users.owner!.token });
    assert.deepEqual(list.body.data.notifications.map((n: any) => n.title), ['B only']);
    assert.equal((await app.request('GET', '/notifications', { token: a.users.guest!.token })).status, 403);
  });

  it('preferences: defaults, merge on update', async () => {
    const d = await app.request('GET', '/notifications/preferences', { token: a.users.user!.token });
    assert.deepEqual(d.body.data, { channels: { inApp: true, email: true, sms: false, push: false }, types: {}, smsNumber: null });
    const u = await app.request('PUT', '/notifications/preferences', { token: a.users.user!.token, body: { channels: { email: false }, types: { 'royalty.processed': { email: true } } } });
    assert.deepEqual(u.body.data.channels, { inApp: true, email: false, sms: false, push: false });
    const p = await app.request('POST', '/notifications/preferences', { token: a.users.user!.token, body: { channels: { push: true } } });
    assert.deepEqual(p.body.data, { channels: { inApp: true, email: false, sms: false, push: true }, types: { 'royalty.processed': { email: true } }, smsNumber: null });
    assert.deepEqual((await app.request('GET', '/notifications/preferences', { token: a.users.admin!.token })).body.data.channels.email, true);
  });
});

import assert from 'node:assert/strict';
import webpush from 'web-push';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';
import { PushReceiver } from '../helpers/push-receiver';
import { waitFor } from '../allocation/helpers';
import { withTenant } from '../../src/db';
import { notify } from '../../src/modules/notifications/service';
import { FakeSmsGateway } from '../../src/sandbox';
import { addPushSubscription } from '../../src/modules/notifications/push';

describe('notification delivery: e-mail, SMS, Web Push by preference', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  const sms = new FakeSmsGateway('test-sms-key');
  const push = new PushReceiver();
  const vapid = { ...webpush.generateVAPIDKeys(), subject: 'mailto:ops@rondo.example' };
  const NUMBER = '+4512345678';

  const deliveriesOf = (ids: string[]) =>
    withTenant(app.svc.db.app, a.tenantId, (trx) => trx('notification_deliveries').whereIn('notification_id', ids).orderBy('channel').select('*'));
  const settled = (ids: string[], expected: number) =>
    waitFor(`${expected} settled deliveries`, async () => {
      const rows = await deliveriesOf(ids);
      return rows.length === expected && rows.every((r) => ['sent', 'failed', 'skipped'].includes(r.status)) && rows;
    }, 60_000);

  before(async () => {
    await sms.listen();
    await push.listen();
    app = await startTestApp({ workers: true, config: { smsGateway: { url: sms.url, key: 'test-sms-key' }, vapid } });
    a = await createTestTenant(app, 'DeliverA');
    b = await createTestTenant(app, 'DeliverB');
  });
  after(async () => {
    await app.close();
    await sms.close();
    await push.close();
  });

  it('registers push subscriptions per member (VAPID key shown; bad keys and other tenants refused)', async () => {
    const user = a.users.user!.token;
    assert.equal((await app.request('GET', '/notifications/push-key', { token: user })).body.data.publicKey, vapid.publicKey);
    const bad = await app.request('POST', '/notifications/push-subscriptions', { token: user, body: { endpoint: `${push.url}/x`, keys: { p256dh: 'AAAA', auth: 'AAAA' } } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /p256dh|key/i);
    const r = await app.request('POST', '/notifications/push-subscriptions', { token: user, body: push.subscription('/push/user') });
    assert.equal(r.status, 201);
    const again = await app.request('POST', '/notifications/push-subscriptions', { token: user, body: push.subscription('/push/user') });
    assert.equal(again.body.data.id, r.body.data.id);
    assert.deepEqual((await app.request('GET', '/notifications/push-subscriptions', { token: user })).body.data.map((s: any) => s.id), [r.body.data.id]);
    // another member and another workspace see none of it and cannot remove it
    assert.deepEqual((await app.request('GET', '/notifications/push-subscriptions', { token: a.users.admin!.token })).body.data, []);
    assert.equal((await app.request('DELETE', `/notifications/push-subscriptions/${r.body.data.id}`, { token: b.users.owner!.token })).status, 404);
    assert.equal((await app.request('DELETE', `/notifications/push-subscriptions/${r.body.data.id}`, { token: a.users.admin!.token })).status, 404);
    assert.equal((await app.request('GET', '/notifications/push-subscriptions', { token: a.users.guest!.token })).status, 403);
  });

  it('without ALLOW_PRIVATE_OUTBOUND a push endpoint must be https on a public address', async () => {
    const strict = { cfg: { ...app.cfg, allowPrivateOutbound: false } };
    const add = (endpoint: string) => withTenant(app.svc.db.app, a.tenantId, (trx) => addPushSubscription(strict, trx, a.tenantId, a.users.user!.tenantUserId, { ...push.subscription(), endpoint }, null));
    await assert.rejects(add(`${push.url}/p`), (e: any) => e.status === 400 && /https/.test(e.details[0]));
    await assert.rejects(add('https://127.0.0.1:9/p'), (e: any) => e.code === 'LINK_NOT_ALLOWED');
    await assert.rejects(add('https://[::1]/p'), (e: any) => e.code === 'LINK_NOT_ALLOWED');
  });

  it('the preference matrix decides which channels fire: every channel on and off', async () => {
    const user = a.users.user!;
    const channels = ['inApp', 'email', 'sms', 'push'] as const;
    const types: Record<string, Record<string, boolean>> = {};
    for (const c of channels) for (const v of [true, false]) types[`matrix.${c}.${v}`] = { [c]: v };
    const prefs = await app.request('PUT', '/notifications/preferences', { token: user.token, body: { channels: { inApp: false, email: false, sms: false, push: false }, types, smsNumber: NUMBER } });
    assert.equal(prefs.status, 200);
    const ids: Record<string, string> = {};
    await withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      for (const type of Object.keys(types)) ids[type] = await notify(trx, { tenantId: a.tenantId, tenantUserId: user.tenantUserId, type, title: `Title ${type}`, content: `Content ${type}`, actionUrl: '/releases' });
    });
    const rows = await settled(Object.values(ids), 3);
    for (const [type, id] of Object.entries(ids)) {
      const [, c, v] = type.split('.');
      const expected = c !== 'inApp' && v === 'true' ? [c] : [];
      assert.deepEqual(rows.filter((r) => r.notification_id === id).map((r) => r.channel), expected, type);
    }
    assert.deepEqual(rows.map((r) => r.status), ['sent', 'sent', 'sent']);
    // in-app: only the notification whose type turns in-app on is listed
    const list = await app.request('GET', '/notifications?pageSize=100', { token: user.token });
    assert.deepEqual(list.body.data.notifications.map((n: any) => n.type).filter((t: string) => t.startsWith('matrix.')), ['matrix.inApp.true']);
    // e-mail: exactly the one (the generic notification template: subject = title)
    const mails = (await mailsTo(app.dataDir, user.email)).filter((m) => m.includes('matrix.'));
    assert.equal(mails.length, 1);
    assert.match(mails[0]!, /^Subject: Title matrix\.email\.true\n/);
    // a notification with no page of its own links to it in the notification centre (a web app page, not an API route)
    assert.match(mails[0]!, new RegExp(`${app.cfg.publicUrl.replace(/[.:/?]/g, '\\$&')}/app/notifications\\?id=${ids['matrix.email.true']}`));
    // SMS: one message to the member's number, through the gateway with its key
    assert.deepEqual(sms.messages.map((m) => [m.to, m.text.split(' — ')[0]]), [[NUMBER, 'Title matrix.sms.true']]);
    assert.equal(sms.requests.at(-1)!.headers.authorization, 'Bearer test-sms-key');
    // push: VAPID-signed, decrypted by the subscription's key
    assert.deepEqual(push.refused, []);
    assert.equal(push.received.length, 1);
    assert.equal(push.received[0]!.vapidKey, vapid.publicKey);
    assert.equal(push.received[0]!.claims.sub, vapid.subject);
    assert.deepEqual(JSON.parse(push.received[0]!.payload), { notificationId: ids['matrix.push.true'], type: 'matrix.push.true', title: 'Title matrix.push.true', body: 'Content matrix.push.true', url: '/releases' });
  });

  it('a failed SMS delivery is retried, then succeeds, and every attempt is visible', async () => {
    const user = a.users.user!;
    await app.request('PUT', '/notifications/preferences', { token: user.token, body: { types: { 'retry.sms': { sms: true, inApp: true } } } });
    sms.inject({ kind: '5xx', match: 'POST /messages', status: 503, times: 1 });
    const before = sms.messages.length;
    const id = await withTenant(app.svc.db.app, a.tenantId, (trx) => notify(trx, { tenantId: a.tenantId, tenantUserId: user.tenantUserId, type: 'retry.sms', title: 'Retry me' }));
    const [row] = await settled([id], 1);
    assert.equal(row.status, 'sent');
    assert.equal(row.attempts, 2);
    assert.equal(sms.messages.length, before + 1);
    const r = await app.request('GET', `/notifications/${id}/deliveries`, { token: user.token });
    assert.equal(r.status, 200);
    const [d] = r.body.data;
    assert.equal(d.channel, 'sms');
    assert.equal(d.status, 'sent');
    assert.deepEqual(d.history.map((h: any) => h.ok), [false, true]);
    assert.match(d.history[0].error, /503/);
    // the same list is on the notification in GET /notifications
    const item = (await app.request('GET', '/notifications?type=retry.sms', { token: user.token })).body.data.notifications[0];
    assert.deepEqual(item.deliveries.map((x: any) => [x.channel, x.status, x.attempts]), [['sms', 'sent', 2]]);
    // another workspace cannot see the deliveries; a member sees only a notification of theirs
    assert.equal((await app.request('GET', `/notifications/${id}/deliveries`, { token: b.users.owner!.token })).status, 404);
    assert.equal((await app.request('GET', `/notifications/${id}/deliveries`, { token: a.users.guest!.token })).status, 403);
    const other = await withTenant(app.svc.db.app, a.tenantId, (trx) => notify(trx, { tenantId: a.tenantId, tenantUserId: a.users.admin!.tenantUserId, type: 'x', title: 'admin only' }));
    assert.equal((await app.request('GET', `/notifications/${other}/deliveries`, { token: user.token })).status, 404);
    assert.equal((await app.request('GET', `/notifications/${id}/deliveries`, { token: a.users.admin!.token })).status, 200);
  });

  it('a channel that cannot deliver is skipped with the reason; a rolled-back change delivers nothing', async () => {
    const admin = a.users.admin!;
    await app.request('PUT', '/notifications/preferences', { token: admin.token, body: { types: { 'skip.me': { sms: true, push: true, email: false } } } });
    const id = await withTenant(app.svc.db.app, a.tenantId, (trx) => notify(trx, { tenantId: a.tenantId, tenantUserId: admin.tenantUserId, type: 'skip.me', title: 'Nowhere to go' }));
    const rows = await settled([id], 2);
    assert.deepEqual(rows.map((r) => [r.channel, r.status]), [['push', 'skipped'], ['sms', 'skipped']]);
    assert.match(rows[0].last_error, /no push subscription/);
    assert.match(rows[1].last_error, /no SMS number/);
    await assert.rejects(
      withTenant(app.svc.db.app, a.tenantId, async (trx) => {
        await notify(trx, { tenantId: a.tenantId, tenantUserId: admin.tenantUserId, type: 'skip.me', title: 'rolled back' });
        throw new Error('the change fails');
      }),
      /the change fails/,
    );
    const left = await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('notifications').where({ title: 'rolled back' }).count({ n: '*' }).first());
    assert.equal(Number(left!.n), 0);
  });

  it('a release review outcome notifies its creator, who gets it by e-mail', async () => {
    const user = a.users.user!;
    await app.request('PUT', '/notifications/preferences', { token: user.token, body: { types: { 'release.reviewed': { inApp: true, email: true } } } });
    const created = await app.request('POST', '/releases', { token: user.token, body: { title: 'Night Drive', tracks: [{ title: 'Night Drive' }] } });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    assert.equal((await app.request('POST', `/releases/${id}/submit`, { token: user.token, body: {} })).status, 200);
    assert.equal((await app.request('POST', `/releases/${id}/review`, { token: a.users.admin!.token, body: { status: 'rejected', message: 'Cover art <missing>' } })).status, 200);
    const n = await waitFor('the review notification', async () => {
      const r = await app.request('GET', '/notifications?type=release.reviewed', { token: user.token });
      return r.body.data.notifications[0];
    });
    assert.equal(n.resourceId, id);
    assert.equal(n.metadata.status, 'rejected');
    const mail = await waitFor('the review e-mail', async () => (await mailsTo(app.dataDir, user.email)).find((m) => m.includes('Night Drive')));
    assert.match(mail, /^Subject: Release "Night Drive": rejected\n/);
    assert.match(mail, /Cover art <missing>/);
  });
});

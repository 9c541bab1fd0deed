/**
 * Every route that stores an address Rondo later dials refuses the IPv6 literals that carry a
 * private IPv4 address (the URL parser rewrites `[::127.0.0.1]` to `[::7f00:1]`).
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

const PUSH_KEYS = { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: Buffer.alloc(16, 7).toString('base64url') };
/** The reported literals; each is refused on every route. */
const HOSTS = ['[::169.254.169.254]', '[::127.0.0.1]:9', '[::7f00:1]', '[64:ff9b::10.0.0.1]', '[2002:a9fe:a9fe::1]', '[2001:0:4136:e378:8000:63bf:80ff:fffe]'];

describe('outbound guard on every route that stores an address to dial', () => {
  let app: TestApp;
  let t: TestTenant;
  /** 400 naming the address as private (the webhook area answers in its own error shape, the others with LINK_NOT_ALLOWED). */
  const refused = (r: { status: number; text: string }, what: string) => {
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.match(r.text, /is a private or local address/, `${what}: ${r.text}`);
  };

  before(async () => {
    app = await startTestApp({ config: { allowPrivateOutbound: false } });
    t = await createTestTenant(app, 'Guard');
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'pro' });
  });
  after(async () => {
    await app.close();
  });

  it('webhook endpoints, on create and on update', async () => {
    const admin = t.users.admin!.token;
    for (const host of HOSTS) refused(await app.request('POST', '/webhooks', { token: admin, body: { url: `http://${host}/x`, events: ['*'] } }), `create ${host}`);
    const ok = await app.request('POST', '/webhooks', { token: admin, body: { url: 'http://[::ffff:93.184.216.34]/hook', events: ['*'] } });
    assert.equal(ok.status, 201, ok.text);
    for (const host of HOSTS) refused(await app.request('PUT', `/webhooks/${ok.body.data.id}`, { token: admin, body: { url: `http://${host}/x` } }), `update ${host}`);
    const kept = await app.request('GET', `/webhooks/${ok.body.data.id}`, { token: admin });
    assert.equal(kept.body.data.url, ok.body.data.url);
  });

  it("the workspace's SMTP host", async () => {
    for (const host of ['::169.254.169.254', '::127.0.0.1', '::7f00:1', '64:ff9b::10.0.0.1', '2002:a9fe:a9fe::1']) {
      refused(await app.request('PUT', '/settings/email', { token: t.users.admin!.token, body: { smtp: { host, port: 587 } } }), `smtp ${host}`);
    }
  });

  it('push-subscription endpoints', async () => {
    for (const host of HOSTS) {
      refused(await app.request('POST', '/notifications/push-subscriptions', { token: t.users.user!.token, body: { endpoint: `https://${host}/push`, keys: PUSH_KEYS } }), `push ${host}`);
    }
  });

  it('track media links', async () => {
    const rel = await app.request('POST', '/releases', { token: t.users.user!.token, body: { title: 'Guarded', artistName: 'Nina Sol', type: 'EP', format: 'Digital', tracks: [{ title: 'One' }] } });
    assert.equal(rel.status, 201, rel.text);
    for (const host of HOSTS) {
      refused(await app.request('POST', `/releases/${rel.body.data.id}/tracks/${rel.body.data.tracks[0].id}/media/link`, { token: t.users.user!.token, body: { url: `http://${host}/a.mp3` } }), `media ${host}`);
    }
  });
});

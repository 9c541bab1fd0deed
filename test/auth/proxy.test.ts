import assert from 'node:assert/strict';
import { activateCustomDomain, startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { loadConfig, type Config } from '../../src/config';
import { proxyTrust } from '../../src/http/client-address';

/** Issue class: the client address (and so every per-address limit) holds behind proxies. */
describe('client address behind proxies', () => {
  it('TRUST_PROXY and TRUSTED_PROXIES: off by default; a hop count or a list', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustedProxies, 1);
    assert.equal(loadConfig({ TRUST_PROXY: 'true', TRUSTED_PROXIES: '2' }).trustedProxies, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: 'true', TRUSTED_PROXIES: 'loopback, 10.0.0.0/8 ,192.0.2.7' }).trustedProxies, ['loopback', '10.0.0.0/8', '192.0.2.7']);
    assert.throws(() => proxyTrust({ trustProxy: true, trustedProxies: ['not-an-address'] }));
  });

  /** A login from behind the given X-Forwarded-For; the session records the address the server saw. */
  async function seenAddress(app: TestApp, t: TestTenant, xff: string): Promise<string> {
    const u = t.users.owner!;
    const r = await app.request('POST', '/auth/login', { body: { email: u.email, password: u.password }, headers: { 'x-forwarded-for': xff } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const s = await app.svc.db.owner('sessions as s').join('users as u', 'u.id', 's.user_id').where('u.email', u.email).orderBy('s.created_at', 'desc').first('s.ip');
    return s.ip;
  }

  function withApp(config: Partial<Config>, body: (ctx: { app: () => TestApp; t: () => TestTenant }) => void) {
    let app: TestApp;
    let t: TestTenant;
    before(async () => {
      app = await startTestApp({ config });
      t = await createTestTenant(app, 'Proxy', ['owner']);
    });
    after(async () => app.close());
    body({ app: () => app, t: () => t });
  }

  describe('one trusted hop (the default)', () => {
    withApp({ trustProxy: true, trustedProxies: 1 }, ({ app, t }) => {
      it('the address the proxy appended, not one the client sent', async () => {
        assert.equal(await seenAddress(app(), t(), '203.0.113.5'), '203.0.113.5');
        assert.equal(await seenAddress(app(), t(), '6.6.6.6, 203.0.113.5'), '203.0.113.5');
        assert.equal(await seenAddress(app(), t(), '127.0.0.1, 10.0.0.1, 203.0.113.6'), '203.0.113.6');
      });

      it('a client changing its own X-Forwarded-For part does not escape the per-address limit', async () => {
        for (let i = 0; i < 20; i++) {
          const r = await app().request('POST', '/auth/login', { body: { email: `spoof${i}@nowhere.example`, password: 'guess guess' }, headers: { 'x-forwarded-for': `192.0.2.${i}, 203.0.113.50` } });
          assert.equal(r.status, 401, `attempt ${i + 1}`);
        }
        const r = await app().request('POST', '/auth/login', { body: { email: 'spoof99@nowhere.example', password: 'guess guess' }, headers: { 'x-forwarded-for': '192.0.2.200, 203.0.113.50' } });
        assert.equal(r.status, 429);
      });
    });
  });

  describe('a list of trusted proxies', () => {
    withApp({ trustProxy: true, trustedProxies: ['loopback', '198.51.100.0/24'] }, ({ app, t }) => {
      it('the right-most address that is not a trusted proxy', async () => {
        assert.equal(await seenAddress(app(), t(), '6.6.6.6, 203.0.113.7, 198.51.100.3'), '203.0.113.7');
        assert.equal(await seenAddress(app(), t(), '203.0.113.8, 198.51.100.3, 198.51.100.9'), '203.0.113.8');
      });
    });
  });

  describe('two trusted hops', () => {
    withApp({ trustProxy: true, trustedProxies: 2 }, ({ app, t }) => {
      it('skips exactly one forwarded hop', async () => {
        assert.equal(await seenAddress(app(), t(), '6.6.6.6, 203.0.113.9, 192.0.2.1'), '203.0.113.9');
      });
    });
  });

  describe('TRUST_PROXY off', () => {
    withApp({ trustProxy: false }, ({ app, t }) => {
      it('the socket address; forwarded address and host are ignored', async () => {
        assert.equal(await seenAddress(app(), t(), '203.0.113.5'), '127.0.0.1');
        await activateCustomDomain(app(), t().tenantId, 'royalties.proxy.test');
        const r = await app().request('GET', '/auth/authtoken', { token: t().users.owner!.refresh, headers: { 'x-forwarded-host': 'royalties.proxy.test' } });
        assert.equal(r.status, 400);
        assert.equal(r.body.error.code, 'WORKSPACE_REQUIRED');
      });
    });
  });

  describe('a peer that is not a trusted proxy', () => {
    withApp({ trustProxy: true, trustedProxies: ['10.0.0.0/8'] }, ({ app, t }) => {
      it('its forwarded headers count for nothing', async () => {
        assert.equal(await seenAddress(app(), t(), '203.0.113.5'), '127.0.0.1');
        await activateCustomDomain(app(), t().tenantId, 'royalties.peer.test');
        const r = await app().request('GET', '/auth/authtoken', { token: t().users.owner!.refresh, headers: { 'x-forwarded-host': 'royalties.peer.test' } });
        assert.equal(r.status, 400);
      });
    });
  });
});

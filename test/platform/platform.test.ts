import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createTestTenant, signIn, startTestApp, type TestApp, type TestTenant } from '../helpers/app';
import { routeRegistry } from '../../src/http/route';
import { FakeTxtResolver } from '../../src/lib/dns';
import { ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';

describe('platform: plans, feature gates, super-admin, custom domains', function () {
  let app: TestApp;
  let t: TestTenant;
  let god: string;
  const dns = new FakeTxtResolver();
  const setPlan = (tenantId: number, plan: string, state = 'active') => app.request('PUT', `/godmin/tenants/${tenantId}/subscription`, { token: god, body: { plan, state } });

  before(async () => {
    app = await startTestApp();
    app.svc.dns = dns;
    t = await createTestTenant(app, 'Platform');
    god = (await app.svc.auth.createApiKey('god', { name: 'ops' })).token;
  });
  after(() => app.close());

  describe('plans and subscription', () => {
    it('GET /billing/plans lists free, pro, enterprise and unlimited with features and limits', async () => {
      const r = await app.request('GET', '/billing/plans');
      assert.equal(r.status, 200);
      const codes = r.body.data.map((p: { code: string }) => p.code);
      assert.deepEqual(codes, ['free', 'pro', 'enterprise', 'unlimited']);
      const free = r.body.data[0];
      for (const f of ['webhooks', 'fxpartner', 'publishing', 'custom_domains']) assert.ok(!free.features.includes(f), `free lacks ${f}`);
      assert.equal(typeof free.limits.statementLinesPerMonth, 'number');
      assert.equal(r.body.data[2].limits.statementLinesPerMonth, null);
    });

    it('GET /billing/subscription shows plan, state, period and usage against limits (admin and above)', async () => {
      const r = await app.request('GET', '/billing/subscription', { token: t.users.admin!.token });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.plan, 'free');
      assert.equal(r.body.data.state, 'active');
      assert.match(r.body.data.period.start, /^\d{4}-\d{2}-01$/);
      assert.equal(r.body.data.usage.members, 4);
      assert.equal(r.body.data.usage.statementLinesPerMonth, 0);
      const guest = await app.request('GET', '/billing/subscription', { token: t.users.user!.token });
      assert.equal(guest.status, 403);
    });

    it('a super-admin sets plan and state: audited, and a billing event is queued for webhooks', async () => {
      const other = await createTestTenant(app, 'Billed', ['owner']);
      const r = await setPlan(other.tenantId, 'pro', 'past_due');
      assert.equal(r.status, 200);
      assert.equal(r.body.data.plan, 'pro');
      assert.equal(r.body.data.state, 'past_due');
      const ev = await app.svc.db.owner('outbound_events').where({ tenant_id: other.tenantId, family: 'billing' });
      assert.equal(ev.length, 1);
      assert.equal(ev[0].type, 'billing.subscription.updated');
      assert.equal(ev[0].payload.plan, 'pro');
      const audit = await app.request('GET', `/godmin/audit?action=tenant.subscription&tenantId=${other.tenantId}`, { token: god });
      assert.equal(audit.body.data.items.length, 1);
      assert.deepEqual(audit.body.data.items[0].details.after, { plan: 'pro', state: 'past_due' });
      const bad = await setPlan(other.tenantId, 'platinum');
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.details[0], /body\.plan must be one of: free, pro, enterprise/);
    });
  });

  describe('feature gates', () => {
    const gated = () => routeRegistry.filter((r) => r.feature);

    it('every gated route is marked in the OpenAPI document (x-feature, and the 403)', async () => {
      assert.ok(gated().length >= 4);
      const doc = (await app.request('GET', '/openapi.json')).body;
      for (const r of gated()) {
        const op = doc.paths[r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')][r.method];
        assert.equal(op['x-feature'], r.feature, `${r.method} ${r.path}`);
        assert.match(op.description, /FEATURE_REQUIRED/);
        assert.equal(op.responses['403'].content['application/json'].example.error.code, 'FEATURE_REQUIRED');
      }
    });

    it('matrix: every gated route under every plan answers FEATURE_REQUIRED exactly when the plan lacks the feature', async () => {
      const plans = (await app.request('GET', '/billing/plans')).body.data as Array<{ code: string; features: string[] }>;
      const m = await createTestTenant(app, 'Matrix', ['owner']);
      for (const plan of plans) {
        assert.equal((await setPlan(m.tenantId, plan.code)).status, 200);
        for (const r of gated()) {
          const path = r.path.replace(/:([A-Za-z0-9_]+)/g, '00000000-0000-4000-8000-000000000000');
          const res = await app.request(r.method.toUpperCase(), path, { token: m.users.owner!.token, body: r.method === 'get' ? undefined : {} });
          const where = `${plan.code}: ${r.method} ${r.path}`;
          if (plan.features.includes(r.feature!)) {
            assert.notEqual(res.body?.error?.code, 'FEATURE_REQUIRED', where);
            assert.notEqual(res.status, 403, where);
          } else {
            assert.equal(res.status, 403, where);
            assert.deepEqual(Object.keys(res.body), ['success', 'error'], where);
            assert.equal(res.body.success, false);
            assert.equal(res.body.error.code, 'FEATURE_REQUIRED', where);
            assert.ok(res.body.error.details.includes(`feature: ${r.feature}`), where);
            assert.ok(res.body.error.details.includes(`plan: ${plan.code}`), where);
          }
        }
      }
    });

    it('a canceled subscription falls back to the free plan\'s features; the role check comes first', async () => {
      const m = await createTestTenant(app, 'Canceled', ['owner', 'user']);
      await setPlan(m.tenantId, 'enterprise', 'canceled');
      const r = await app.request('GET', '/domains', { token: m.users.owner!.token });
      assert.equal(r.status, 403);
      assert.equal(r.body.error.code, 'FEATURE_REQUIRED');
      assert.ok(r.body.error.details.includes('plan: free'));
      const low = await app.request('GET', '/domains', { token: m.users.user!.token });
      assert.equal(low.body.error.code, 'INSUFFICIENT_ROLE');
    });
  });

  describe('custom domains', () => {
    let pro: TestTenant;
    before(async () => {
      pro = await createTestTenant(app, 'Domains', ['owner', 'admin']);
      await setPlan(pro.tenantId, 'pro');
    });

    it('add, verify by DNS TXT, resolve the workspace by Host at authtoken, one active per tenant, remove', async () => {
      const add = await app.request('POST', '/domains', { token: pro.users.admin!.token, body: { domain: 'Royalties.Domains.Example.' } });
      assert.equal(add.status, 201);
      const d = add.body.data;
      assert.equal(d.domain, 'royalties.domains.example');
      assert.equal(d.status, 'pending');
      assert.equal(d.verification.name, '_rondo-verify.royalties.domains.example');

      const early = await app.request('POST', `/domains/${d.id}/verify`, { token: pro.users.admin!.token });
      assert.equal(early.status, 400);
      assert.equal(early.body.error.code, 'DOMAIN_NOT_VERIFIED');
      assert.match(early.body.error.details[0], new RegExp(d.verification.value));
      // before verification the host resolves nothing
      const before = await app.request('GET', '/auth/authtoken', { token: pro.users.owner!.refresh, headers: { 'x-forwarded-host': 'royalties.domains.example' } });
      assert.equal(before.status, 400);

      dns.set(d.verification.name, ['v=spf1 -all', d.verification.value]);
      const ok = await app.request('POST', `/domains/${d.id}/verify`, { token: pro.users.admin!.token });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.status, 'active');

      const tok = await app.request('GET', '/auth/authtoken', { token: pro.users.owner!.refresh, headers: { 'x-forwarded-host': 'royalties.domains.example' } });
      assert.equal(tok.status, 200);
      const me = await app.request('GET', '/billing/subscription', { token: tok.body.data.access_token });
      assert.equal(me.status, 200);
      assert.equal(me.body.data.plan, 'pro'); // the Domains workspace, not another

      // a second domain cannot be active at the same time (docs/platform.md, "Custom domains")
      const second = (await app.request('POST', '/domains', { token: pro.users.admin!.token, body: { domain: 'pay.domains.example' } })).body.data;
      dns.set(second.verification.name, [second.verification.value]);
      const two = await app.request('POST', `/domains/${second.id}/verify`, { token: pro.users.admin!.token });
      assert.equal(two.status, 400);
      assert.equal(two.body.error.code, 'ONE_ACTIVE_DOMAIN');

      // another workspace cannot add a domain this one holds, active or pending, in any spelling
      const rival = await createTestTenant(app, 'Rival', ['owner']);
      await setPlan(rival.tenantId, 'pro');
      for (const domain of ['royalties.domains.example', 'Pay.Domains.Example.']) {
        const taken = await app.request('POST', '/domains', { token: rival.users.owner!.token, body: { domain } });
        assert.equal(taken.status, 400, taken.text);
        assert.equal(taken.body.error.code, 'DOMAIN_CLAIMED');
        assert.match(taken.body.error.details[0], /already added to another workspace/);
      }
      // and cannot see or delete the first workspace's domain
      assert.equal((await app.request('DELETE', `/domains/${d.id}`, { token: rival.users.owner!.token })).status, 404);
      assert.deepEqual((await app.request('GET', '/domains', { token: rival.users.owner!.token })).body.data, []);

      const del = await app.request('DELETE', `/domains/${d.id}`, { token: pro.users.admin!.token });
      assert.equal(del.status, 200);
      const after = await app.request('GET', '/auth/authtoken', { token: pro.users.owner!.refresh, headers: { 'x-forwarded-host': 'royalties.domains.example' } });
      assert.equal(after.status, 400);
      assert.equal(after.body.error.code, 'WORKSPACE_REQUIRED');
      // now the second one may become active
      assert.equal((await app.request('POST', `/domains/${second.id}/verify`, { token: pro.users.admin!.token })).body.data.status, 'active');
    });

    it('refuses what is not a host name, naming the field', async () => {
      for (const domain of ['https://x.example', 'localhost', '10.0.0.1', 'a..b.example', 'x.example:8080']) {
        const r = await app.request('POST', '/domains', { token: pro.users.admin!.token, body: { domain } });
        assert.equal(r.status, 400, domain);
        assert.match(r.body.error.details[0], /body\.domain/);
      }
    });
  });

  describe('sign-in by Host on a verified custom domain (docs/platform.md)', () => {
    let h: TestTenant;
    let x: TestTenant;
    const HOST = 'login.hosts.example';
    /** A request with a real Host header, no proxy header (node:http, not fetch). */
    const hostRequest = (method: string, path: string, host: string, o: { token?: string; body?: unknown } = {}) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const u = new URL(app.url + path);
        const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
        const headers: Record<string, string> = { host, 'x-forwarded-for': '10.200.1.1' };
        if (o.token) headers.authorization = `Bearer ${o.token}`;
        if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
        const req = http.request({ hostname: u.hostname, port: u.port, path: u.pathname + u.search, method, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
        });
        req.on('error', reject);
        req.end(payload);
      });
    const login = (role: 'owner' | 'user', of: TestTenant, host: string) => hostRequest('POST', '/auth/login', host, { body: { email: of.users[role]!.email, password: of.users[role]!.password } });

    before(async () => {
      h = await createTestTenant(app, 'Hosted', ['owner', 'admin']);
      x = await createTestTenant(app, 'Elsewhere', ['owner', 'user']);
      await setPlan(h.tenantId, 'pro');
      // the Hosted owner belongs to Elsewhere too
      const person = await app.svc.db.owner('users').whereRaw('lower(email) = lower(?)', [h.users.owner!.email]).first('id');
      await upsertMembership(app.svc.db.owner, x.tenantId, person.id, 'user');
      const d = (await app.request('POST', '/domains', { token: h.users.admin!.token, body: { domain: HOST } })).body.data;
      dns.set(d.verification.name, [d.verification.value]);
      assert.equal((await app.request('POST', `/domains/${d.id}/verify`, { token: h.users.admin!.token })).body.data.status, 'active');
    });

    it('login on the domain lists that workspace only, and authtoken needs no currentWorkspace', async () => {
      const elsewhere = await login('owner', h, new URL(app.url).host);
      assert.equal(elsewhere.status, 200);
      assert.deepEqual(elsewhere.body.workspaces.map((w: { workspaceId: string }) => w.workspaceId).sort(), [h.workspaceId, x.workspaceId].sort());

      const r = await login('owner', h, `${HOST}:443`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.workspaces.map((w: { workspaceId: string }) => w.workspaceId), [h.workspaceId]);
      const tok = await hostRequest('GET', '/auth/authtoken', HOST, { token: r.body.refresh_token });
      assert.equal(tok.status, 200, JSON.stringify(tok.body));
      const ws = await hostRequest('GET', '/settings/workspace', HOST, { token: tok.body.data.access_token });
      assert.equal(ws.body.data.name, (await app.svc.db.owner('tenants').where({ id: h.tenantId }).first('name')).name);
      // the same refresh token on the platform's own host still needs currentWorkspace
      const plain = await hostRequest('GET', '/auth/authtoken', new URL(app.url).host, { token: r.body.refresh_token });
      assert.equal(plain.status, 400);
      assert.equal(plain.body.error.code, 'WORKSPACE_REQUIRED');
    });

    it('a person who is not a member gets NOT_A_MEMBER at login and authtoken; a suspended workspace WORKSPACE_INACTIVE', async () => {
      const stranger = await login('user', x, HOST);
      assert.equal(stranger.status, 403);
      assert.equal(stranger.body.error.code, 'NOT_A_MEMBER');
      const tok = await hostRequest('GET', '/auth/authtoken', HOST, { token: x.users.user!.refresh });
      assert.equal(tok.status, 403);
      assert.equal(tok.body.error.code, 'NOT_A_MEMBER');
      await app.svc.db.owner('tenants').where({ id: h.tenantId }).update({ status: 'inactive' });
      try {
        const r = await login('owner', h, HOST);
        assert.equal(r.status, 403);
        assert.equal(r.body.error.code, 'WORKSPACE_INACTIVE');
      } finally {
        await app.svc.db.owner('tenants').where({ id: h.tenantId }).update({ status: 'active' });
      }
    });

    it('an unverified domain, a domain typed into settings or a plan without custom domains resolves nothing', async () => {
      const d = (await app.request('POST', '/domains', { token: x.users.owner!.token, body: { domain: 'pending.hosts.example' } }));
      assert.equal(d.status, 403, 'Elsewhere is on the free plan');
      const typed = await app.request('PUT', '/settings/workspace', { token: x.users.owner!.token, body: { customDomain: 'typed.hosts.example' } });
      assert.equal(typed.status, 400);
      assert.equal(typed.body.error.code, 'DOMAIN_NOT_VERIFIED');
      const pending = (await app.request('POST', '/domains', { token: h.users.admin!.token, body: { domain: 'pending.hosts.example' } })).body.data;
      assert.equal(pending.status, 'pending');
      const r = await login('owner', h, 'pending.hosts.example');
      assert.equal(r.body.workspaces.length, 2, 'no narrowing on an unverified domain');
      assert.equal((await hostRequest('GET', '/auth/authtoken', 'pending.hosts.example', { token: r.body.refresh_token })).body.error.code, 'WORKSPACE_REQUIRED');
      await setPlan(h.tenantId, 'free');
      try {
        const down = await hostRequest('GET', '/auth/authtoken', HOST, { token: r.body.refresh_token });
        assert.equal(down.status, 400);
        assert.equal(down.body.error.code, 'WORKSPACE_REQUIRED');
      } finally {
        await setPlan(h.tenantId, 'pro');
      }
    });
  });

  describe('super-admin', () => {
    let superJwt: string;
    before(async () => {
      const hash = await app.svc.auth.hashPassword('super secret pass');
      const g = await ensureGlobalUser(app.svc.db.owner, { email: 'root@platform.test', passwordHash: hash, superAdmin: true });
      await upsertMembership(app.svc.db.owner, t.tenantId, g.id, 'user');
      superJwt = (await signIn(app, 'root@platform.test', 'super secret pass', t.workspaceId)).token;
    });

    it('god key and super-admin JWT reach /godmin; an owner does not', async () => {
      assert.equal((await app.request('GET', '/godmin/tenants', { token: god })).status, 200);
      assert.equal((await app.request('GET', '/godmin/tenants', { token: superJwt })).status, 200);
      const owner = await app.request('GET', '/godmin/tenants', { token: t.users.owner!.token });
      assert.equal(owner.status, 403);
      assert.equal(owner.body.error.code, 'SUPER_ADMIN_REQUIRED');
      assert.equal((await app.request('POST', '/godmin/account-erasure/preview', { token: t.users.owner!.token, body: { userId: '00000000-0000-4000-8000-000000000000' } })).status, 403);
    });

    it('lists and searches tenants and users; a search of people is audited', async () => {
      const ts = await app.request('GET', `/godmin/tenants?q=${encodeURIComponent('Platform')}`, { token: god });
      assert.ok(ts.body.data.items.some((x: { tenantId: number }) => x.tenantId === t.tenantId));
      assert.ok(ts.body.data.items.every((x: { name: string }) => x.name.includes('Platform')));
      const us = await app.request('GET', `/godmin/users?q=${encodeURIComponent(t.users.guest!.email)}`, { token: superJwt });
      assert.equal(us.body.data.total, 1);
      assert.equal(us.body.data.items[0].memberships[0].tenantId, t.tenantId);
      const audit = await app.request('GET', '/godmin/audit?action=users.search', { token: god });
      assert.equal(audit.body.data.items[0].actorKind, 'user');
      assert.equal(audit.body.data.items[0].details.q, t.users.guest!.email);
    });

    it('suspend: members get WORKSPACE_INACTIVE (requests and authtoken); reactivate restores; both audited', async () => {
      const s = await createTestTenant(app, 'Suspended', ['owner']);
      const r = await app.request('POST', `/godmin/tenants/${s.tenantId}/suspend`, { token: god, body: { reason: 'unpaid' } });
      assert.equal(r.status, 200);
      const denied = await app.request('GET', '/billing/subscription', { token: s.users.owner!.token });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'WORKSPACE_INACTIVE');
      const tok = await app.request('GET', `/auth/authtoken?currentWorkspace=${s.workspaceId}`, { token: s.users.owner!.refresh });
      assert.equal(tok.body.error.code, 'WORKSPACE_INACTIVE');
      await app.request('POST', `/godmin/tenants/${s.tenantId}/reactivate`, { token: god, body: {} });
      assert.equal((await app.request('GET', '/billing/subscription', { token: s.users.owner!.token })).status, 200);
      const audit = (await app.request('GET', `/godmin/audit?tenantId=${s.tenantId}`, { token: god })).body.data.items.map((x: { action: string }) => x.action);
      assert.deepEqual(audit, ['tenant.reactivate', 'tenant.suspend']);
      assert.equal((await app.request('POST', '/godmin/tenants/999999/suspend', { token: god, body: {} })).status, 404);
    });

    it('impersonation is read-only and audited', async () => {
      const who = await app.svc.db.owner('tenant_users').where({ id: t.users.admin!.tenantUserId }).first('user_id');
      const r = await app.request('POST', '/godmin/impersonate', { token: superJwt, body: { tenantId: t.tenantId, userId: who.user_id, reason: 'ticket 42' } });
      assert.equal(r.status, 201);
      const token = r.body.data.access_token;
      assert.equal((await app.request('GET', '/billing/subscription', { token })).status, 200);
      const write = await app.request('POST', '/domains', { token, body: { domain: 'x.platform.example' } });
      assert.equal(write.status, 403);
      assert.equal(write.body.error.code, 'READ_ONLY_SESSION');
      // the impersonated member is no super-admin through it, whoever issued it
      assert.equal((await app.request('GET', '/godmin/tenants', { token })).status, 403);
      const audit = (await app.request('GET', '/godmin/audit?action=user.impersonate', { token: god })).body.data.items;
      assert.equal(audit.length, 1);
      assert.equal(audit[0].targetId, who.user_id);
      assert.equal(audit[0].details.reason, 'ticket 42');
    });
  });

  describe('plan limits: members and storage', () => {
    let l: TestTenant;
    const objects = async (dir = path.join(app.dataDir, 'objects')): Promise<number> => {
      const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
      let n = 0;
      for (const e of entries) n += e.isDirectory() ? await objects(path.join(dir, e.name)) : e.name.endsWith('.meta.json') ? 0 : 1; // partial uploads count
      return n;
    };
    const upload = (bytes: number, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(bytes, 'a')]), name);
      return app.request('POST', '/file/royalty', { token: l.users.owner!.token, raw: form });
    };

    before(async () => {
      // a small plan of its own (added after the tests that list the catalogue)
      await app.svc.db.owner('plans').insert({ code: 'tiny', name: 'Tiny', sort: 9, features: app.svc.db.owner.raw(`'{}'::text[]`), limits: JSON.stringify({ statementLinesPerMonth: 100, members: 2, storageBytes: 1000 }) });
      l = await createTestTenant(app, 'Limited', ['owner']);
      assert.equal((await setPlan(l.tenantId, 'tiny')).status, 200);
    });

    it('members: an invitation past the limit is 403 PLAN_LIMIT_REACHED naming the limit; nothing is added', async () => {
      const first = await app.request('POST', '/auth/invite', { token: l.users.owner!.token, body: { email: 'seat.two@limits.test' } });
      assert.equal(first.status, 201, first.text);
      const over = await app.request('POST', '/auth/invite', { token: l.users.owner!.token, body: { email: 'seat.three@limits.test' } });
      assert.equal(over.status, 403);
      assert.equal(over.body.error.code, 'PLAN_LIMIT_REACHED');
      assert.deepEqual(over.body.error.details, ['limit: members', 'plan: tiny', 'allowed: 2', 'used: 2', 'adding: 1']);
      assert.equal(await app.svc.db.owner('tenant_users').where({ tenant_id: l.tenantId }).count({ n: '*' }).first().then((r) => Number(r!.n)), 2);
      const bulk = await app.request('POST', '/user/bulk', { token: l.users.owner!.token, body: { users: [{ email: 'seat.four@limits.test', role: 'user' }] } });
      assert.equal(bulk.status, 200, bulk.text);
      assert.match(JSON.stringify(bulk.body), /allows 2 members/);
      const sub = await app.request('GET', '/billing/subscription', { token: l.users.owner!.token });
      assert.deepEqual([sub.body.data.usage.members, sub.body.data.limits.members], [2, 2]);
    });

    it('storage: an upload past the room left is 403 PLAN_LIMIT_REACHED and nothing is stored', async () => {
      const before = await objects();
      const big = await upload(1500, 'big.csv');
      assert.equal(big.status, 403, big.text);
      assert.equal(big.body.error.code, 'PLAN_LIMIT_REACHED');
      assert.ok(big.body.error.details.includes('limit: storageBytes'));
      assert.equal(await objects(), before, 'no object kept');
      assert.equal((await app.svc.db.owner('files').where({ tenant_id: l.tenantId })).length, 0);

      const fits = await upload(600, 'fits.csv');
      assert.equal(fits.status, 201, fits.text);
      const second = await upload(600, 'second.csv');
      assert.equal(second.status, 403);
      assert.ok(second.body.error.details.includes('used: 600'));
      assert.equal(await objects(), before + 1);
      const sub = await app.request('GET', '/billing/subscription', { token: l.users.owner!.token });
      assert.deepEqual([sub.body.data.usage.storageBytes, sub.body.data.limits.storageBytes], [600, 1000]);
    });
  });
});

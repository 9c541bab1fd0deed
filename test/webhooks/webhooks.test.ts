import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { startFakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { boot, type Runtime } from '../../src/compose';
import { withTenant } from '../../src/db';
import { emitEvent } from '../../src/modules/webhooks/events';

/** The receiver of docs/webhooks.md ("Verifying a delivery"), as a receiver author would write it. */
function verify(secret: string, header: string, rawBody: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isFinite(t) || Math.abs(nowSeconds - t) > 300) return false;
  const expected = Buffer.from(crypto.createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex'));
  return parts.filter(([k]) => k === 'v1').some(([, sig]) => sig!.length === expected.length && crypto.timingSafeEqual(Buffer.from(sig!), expected));
}

interface Received { path: string; headers: http.IncomingHttpHeaders; body: string; answered: number }

/** A real HTTP receiver on loopback: answers 500 for the next `failNext` requests, then 200. */
async function receiver() {
  const got: Received[] = [];
  const state = { failNext: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const fail = state.failNext > 0;
      if (fail) state.failNext--;
      const answered = fail ? 500 : 200;
      got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(fail ? 'receiver down ' + 'x'.repeat(2000) : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { got, state, url, close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }) };
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('webhooks: endpoints, signed deliveries, retries, outbox', function () {
  this.timeout(120_000);
  let app: TestApp;
  let workers: Runtime | null = null;
  let a: TestTenant;
  let b: TestTenant;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let smtp: FakeSmtp;
  let god: string;

  const setPlan = (t: TestTenant, plan: string) => app.request('PUT', `/godmin/tenants/${t.tenantId}/subscription`, { token: god, body: { plan, state: 'active' } });
  const create = (t: TestTenant, body: unknown) => app.request('POST', '/webhooks', { token: t.users.admin!.token, body });

  before(async () => {
    // the API process; the worker process starts in the crash test, as after a restart
    smtp = await startFakeSmtp();
    app = await startTestApp({ config: { smtpUrl: smtp.url, webhooks: { timeoutMs: 5000, retryScale: 0.01, ratePerMinute: 1000, disableAfterSeconds: 86400, sweepSeconds: 0.2 } } });
    god = (await app.svc.auth.createApiKey('god', { name: 'ops' })).token;
    a = await createTestTenant(app, 'HookA');
    b = await createTestTenant(app, 'HookB');
    // webhooks are a plan feature (the free plan lacks it)
    for (const t of [a, b]) assert.equal((await setPlan(t, 'pro')).status, 200);
    await app.svc.db.owner('outbound_events').delete(); // the plan changes' billing events: not this file's subject until its billing test
    rx = await receiver();
  });
  after(async () => {
    await workers?.shutdown();
    await rx.close();
    await app.close();
    await smtp.close();
  });

  let endpoint: { id: string; secret: string };

  it('admins create an endpoint; the secret is answered once and stored sealed with headers and auth', async () => {
    const r = await create(a, { url: rx.url, events: ['asset.*', 'payment.completed'], description: 'ERP', headers: { 'X-Team': 'royalties-42' }, auth: { type: 'bearer', token: 'tok_' + 'abcdef123456' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'success');
    assert.match(r.body.data.secret, /^whsec_[0-9a-f]{64}$/);
    assert.deepEqual(r.body.data.headerNames, ['X-Team']);
    assert.equal(r.body.data.authType, 'bearer');
    endpoint = { id: r.body.data.id, secret: r.body.data.secret };
    const one = await app.request('GET', `/webhooks/${endpoint.id}`, { token: a.users.admin!.token });
    assert.equal(one.status, 200);
    assert.ok(!one.text.includes(endpoint.secret) && !one.text.includes('royalties-42') && !one.text.includes('abcdef123456'));
    assert.equal(one.body.data.secret, undefined);
    const list = await app.request('GET', '/webhooks', { token: a.users.owner!.token });
    assert.deepEqual(list.body.data.map((e: { id: string }) => e.id), [endpoint.id]);
    const row = await app.svc.db.owner('webhook_endpoints').where({ id: endpoint.id }).first();
    const all = JSON.stringify(row);
    assert.ok(!all.includes(endpoint.secret) && !all.includes('royalties-42') && !all.includes('abcdef123456'));
    assert.equal(app.svc.secrets.open(row.secret_sealed), endpoint.secret);
  });

  it('refuses unknown events, reserved headers and bad URLs with a 400 naming the field', async () => {
    const bad = await create(a, { url: rx.url, events: ['asset.exploded'] });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /events: asset\.exploded/);
    const hdr = await create(a, { url: rx.url, events: ['*'], headers: { 'Rondo-Signature': 'x' } });
    assert.equal(hdr.status, 400);
    assert.match(hdr.text, /Rondo-Signature/);
    const scheme = await create(a, { url: 'ftp://example.com/x', events: ['*'] });
    assert.equal(scheme.status, 400);
    const none = await create(a, { url: rx.url, events: [] });
    assert.equal(none.status, 400);
    assert.match(none.text, /events/);
  });

  it('private addresses are refused unless ALLOW_PRIVATE_OUTBOUND is set', async () => {
    const strict = await startTestApp({ config: { allowPrivateOutbound: false } });
    try {
      const t = await createTestTenant(strict, 'Strict');
      await strict.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'pro' });
      const r = await strict.request('POST', '/webhooks', { token: t.users.admin!.token, body: { url: 'http://127.0.0.1:9/x', events: ['*'] } });
      assert.equal(r.status, 400, r.text);
      assert.match(r.text, /private or local/);
    } finally {
      await strict.close();
    }
  });

  it('a workspace on the free plan gets 403 FEATURE_REQUIRED on every webhook route', async () => {
    const free = await createTestTenant(app, 'HookFree', ['admin']);
    const r = await create(free, { url: rx.url, events: ['*'] });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.body.error.code, 'FEATURE_REQUIRED');
    assert.ok(r.body.error.details.includes('feature: webhooks'));
    const list = await app.request('GET', '/webhooks', { token: free.users.admin!.token });
    assert.equal(list.status, 403);
    assert.equal(list.body.error.code, 'FEATURE_REQUIRED');
  });

  it('members below admin get 403; another workspace sees 404', async () => {
    assert.equal((await app.request('GET', '/webhooks', { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('GET', `/webhooks/${endpoint.id}`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await app.request('DELETE', `/webhooks/${endpoint.id}`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await app.request('POST', `/webhooks/${endpoint.id}/test`, { token: b.users.admin!.token })).status, 404);
  });

  it('a rolled-back change emits nothing; a committed one waits in the outbox while no worker runs', async () => {
    await assert.rejects(withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      await emitEvent(trx, a.tenantId, 'asset.created', { assetId: 'rolled-back' });
      throw new Error('abort');
    }), /abort/);
    const r = await app.request('POST', '/asset', { token: a.users.admin!.token, body: { title: 'Outbox Track', isrc: 'USRC17607839' } });
    assert.equal(r.status, 201, r.text);
    const rows = await app.svc.db.owner('outbound_events').where({ tenant_id: a.tenantId });
    assert.deepEqual(rows.map((e) => [e.type, e.status]), [['asset.created', 'pending']]);
    assert.equal(rows[0].payload.assetId, r.body.data.id);
    assert.equal(rx.got.length, 0);
  });

  it('after a crash between commit and delivery, the restarted worker delivers the committed event, signed', async () => {
    workers = await boot(app.cfg, { workers: true, migrate: false, databaseUrl: app.cfg.databaseUrl! });
    const req = await until('the delivery', async () => rx.got.find((g) => g.headers['rondo-event-type'] === 'asset.created'));
    const ev = JSON.parse(req.body);
    assert.deepEqual(Object.keys(ev).sort(), ['createdAt', 'data', 'id', 'type', 'workspaceId']);
    assert.equal(ev.type, 'asset.created');
    assert.equal(ev.workspaceId, a.workspaceId);
    assert.equal(req.headers['rondo-event-id'], ev.id);
    assert.ok(verify(endpoint.secret, String(req.headers['rondo-signature']), req.body));
    assert.equal(req.headers.authorization, 'Bearer tok_abcdef123456');
    assert.equal(req.headers['x-team'], 'royalties-42');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.ok(!rx.got.some((g) => g.body.includes('rolled-back')));
  });

  it('a receiver down for two attempts gets exactly one successful delivery; every attempt is listed', async () => {
    rx.got.length = 0;
    rx.state.failNext = 2;
    const r = await app.request('POST', '/asset', { token: a.users.admin!.token, body: { title: 'Retry Track', isrc: 'USRC17607840' } });
    assert.equal(r.status, 201, r.text);
    const list = await until('a succeeded delivery', async () => {
      const l = await app.request('GET', `/webhooks/${endpoint.id}/deliveries`, { token: a.users.admin!.token });
      return l.body.data.find((d: { status: string; attemptCount: number }) => d.status === 'success' && d.attemptCount === 3) as { id: string; eventId: string } | undefined;
    });
    const one = await app.request('GET', `/webhook-deliveries/${list.id}`, { token: a.users.admin!.token });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.data.attempts.map((x: { statusCode: number }) => x.statusCode), [500, 500, 200]);
    assert.deepEqual(one.body.data.attempts.map((x: { success: boolean }) => x.success), [false, false, true]);
    assert.equal(one.body.data.attempts[0].responseBody.length, 1024);
    assert.equal(one.body.data.attempts[0].error, 'HTTP 500');
    assert.ok(one.body.data.attempts.every((x: { latencyMs: number; attemptedAt: string }) => Number.isInteger(x.latencyMs) && !Number.isNaN(Date.parse(x.attemptedAt))));
    const forEvent = rx.got.filter((g) => g.headers['rondo-event-id'] === list.eventId);
    assert.deepEqual(forEvent.map((g) => g.answered), [500, 500, 200]);
    assert.equal(new Set(forEvent.map((g) => g.body)).size, 1);
    for (const g of forEvent) assert.ok(verify(endpoint.secret, String(g.headers['rondo-signature']), g.body));
  });

  it('the retry route re-delivers with the same event id; 404 when absent', async () => {
    const l = await app.request('GET', `/webhooks/${endpoint.id}/deliveries`, { token: a.users.admin!.token });
    const d = l.body.data[0] as { id: string; eventId: string };
    const before = rx.got.filter((g) => g.headers['rondo-event-id'] === d.eventId).length;
    const r = await app.request('POST', `/webhook-deliveries/${d.id}/retry`, { token: a.users.admin!.token });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'success');
    assert.equal(typeof r.body.message, 'string');
    assert.equal(r.body.data.deliveryId, d.id);
    assert.match(r.body.data.jobId, /^[0-9a-f-]{36}$/);
    await until('the re-delivery', async () => rx.got.filter((g) => g.headers['rondo-event-id'] === d.eventId).length > before);
    const missing = await app.request('POST', `/webhook-deliveries/${crypto.randomUUID()}/retry`, { token: a.users.admin!.token });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.status, 'error');
    assert.equal((await app.request('POST', `/webhook-deliveries/${d.id}/retry`, { token: b.users.admin!.token })).status, 404);
  });

  it('during a rotation both secrets sign (two v1); the test event reaches the endpoint', async () => {
    const r = await app.request('POST', `/webhooks/${endpoint.id}/rotate-secret`, { token: a.users.admin!.token });
    assert.equal(r.status, 200, r.text);
    const fresh = r.body.data.secret as string;
    assert.notEqual(fresh, endpoint.secret);
    assert.ok(r.body.data.previousSecretValidUntil);
    const t = await app.request('POST', `/webhooks/${endpoint.id}/test`, { token: a.users.admin!.token });
    assert.equal(t.status, 200, t.text);
    const req = await until('the test event', async () => rx.got.find((g) => g.headers['rondo-event-id'] === t.body.data.eventId));
    assert.equal(req.headers['rondo-event-type'], 'webhook.test');
    const sig = String(req.headers['rondo-signature']);
    assert.equal(sig.split(',').filter((p) => p.startsWith('v1=')).length, 2);
    assert.ok(verify(fresh, sig, req.body));
    assert.ok(verify(endpoint.secret, sig, req.body));
    assert.ok(!verify(fresh, sig, req.body + ' '));
    assert.ok(!verify(fresh, sig, req.body, Math.floor(Date.now() / 1000) + 301), 'a timestamp older than 5 minutes is rejected');
    endpoint.secret = fresh;
  });

  it('events the endpoint did not subscribe to are not delivered; other workspaces never see them', async () => {
    const other = await create(b, { url: rx.url, events: ['*'] });
    assert.equal(other.status, 201);
    rx.got.length = 0;
    await withTenant(app.svc.db.app, a.tenantId, (trx) => emitEvent(trx, a.tenantId, 'release.submitted', { releaseId: 'r1' }));
    await withTenant(app.svc.db.app, a.tenantId, (trx) => emitEvent(trx, a.tenantId, 'payment.completed', { paymentId: 'p1' }));
    await until('payment.completed', async () => rx.got.find((g) => g.headers['rondo-event-type'] === 'payment.completed'));
    await until('the outbox to drain', async () => !(await app.svc.db.owner('outbound_events').where({ status: 'pending' }).first()));
    assert.deepEqual(rx.got.map((g) => g.headers['rondo-event-type']), ['payment.completed']);
    const bDeliveries = await app.svc.db.owner('webhook_deliveries').where({ tenant_id: b.tenantId });
    assert.equal(bDeliveries.length, 0);
  });

  it('an endpoint failing for a day is disabled; admins get a notification and an e-mail', async () => {
    const down = await create(a, { url: rx.url.replace(/\/hook$/, '/down'), events: ['release.*'] });
    assert.equal(down.status, 201);
    await app.svc.db.owner('webhook_endpoints').where({ id: down.body.data.id }).update({ failing_since: new Date(Date.now() - 25 * 3600 * 1000) });
    rx.state.failNext = 1000;
    await withTenant(app.svc.db.app, a.tenantId, (trx) => emitEvent(trx, a.tenantId, 'release.reviewed', { releaseId: 'r2' }));
    const ep = await until('the endpoint to be disabled', async () => {
      const r = await app.request('GET', `/webhooks/${down.body.data.id}`, { token: a.users.admin!.token });
      return r.body.data.isEnabled === false ? r.body.data : null;
    });
    rx.state.failNext = 0;
    assert.match(ep.disabledReason, /HTTP 500/);
    const n = await app.request('GET', '/notifications', { token: a.users.admin!.token });
    assert.ok(n.body.data.notifications.some((x: { type: string }) => x.type === 'webhook.endpoint.disabled'));
    const disabledMails = (to: string) => smtp.to(to).filter((m) => m.subject.includes('webhook endpoint disabled'));
    await until('the e-mails', async () => disabledMails(a.users.owner!.email).length && disabledMails(a.users.admin!.email).length);
    for (const who of ['owner', 'admin']) {
      const mails = disabledMails(a.users[who]!.email);
      assert.equal(mails.length, 1, who);
      assert.ok(mails[0]!.text.includes(down.body.data.url), who);
      assert.match(mails[0]!.text, /HTTP 500/);
      // in words, with a link to the settings page (never an API route)
      assert.ok(mails[0]!.text.includes(`${app.svc.cfg.publicUrl.replace(/\/+$/, '')}/app/settings`), who);
      assert.doesNotMatch(mails[0]!.text, /\b(GET|POST|PUT|PATCH|DELETE) \/|workspace \d+/);
    }
    for (const who of ['user', 'guest']) assert.equal(disabledMails(a.users[who]!.email).length, 0, who);
    const forUser = await app.request('GET', '/notifications', { token: a.users.user!.token });
    assert.ok(!forUser.body.data.notifications.some((x: { type: string }) => x.type === 'webhook.endpoint.disabled'));
    const again = await app.request('PUT', `/webhooks/${down.body.data.id}`, { token: a.users.admin!.token, body: { isEnabled: true } });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.isEnabled, true);
    assert.equal(again.body.data.failingSince, null);
  });

  it('billing changes are events: plan, state, suspension; after a downgrade only billing events are delivered', async () => {
    const r = await create(a, { url: rx.url.replace(/\/hook$/, '/billing'), events: ['billing.*', 'asset.*'] });
    assert.equal(r.status, 201, r.text);
    const billing = () => rx.got.filter((g) => g.path === '/billing');
    const delivered = (type: string) =>
      until(type, async () => {
        const got = billing().filter((g) => g.headers['rondo-event-type'] === type).map((g) => JSON.parse(g.body));
        return got.length ? got : null;
      });
    rx.got.length = 0;
    assert.equal((await setPlan(a, 'enterprise')).status, 200);
    const [up] = await delivered('billing.subscription.updated');
    assert.equal(up.workspaceId, a.workspaceId);
    assert.deepEqual({ ...up.data, features: undefined }, { plan: 'enterprise', state: 'active', previous: { plan: 'pro', state: 'active' }, features: undefined });
    assert.ok(up.data.features.includes('webhooks'));
    assert.ok(verify(r.body.data.secret, String(billing()[0]!.headers['rondo-signature']), billing()[0]!.body));

    const suspend = await app.request('POST', `/godmin/tenants/${a.tenantId}/suspend`, { token: god, body: { reason: 'unpaid invoice' } });
    assert.equal(suspend.status, 200, suspend.text);
    const [sus] = await delivered('billing.workspace.suspended');
    assert.deepEqual(sus.data, { status: 'inactive', previousStatus: 'active', reason: 'unpaid invoice' });
    assert.equal((await app.request('POST', `/godmin/tenants/${a.tenantId}/reactivate`, { token: god, body: {} })).status, 200);
    const [re] = await delivered('billing.workspace.reactivated');
    assert.deepEqual(re.data, { status: 'active', previousStatus: 'inactive', reason: null });

    // a downgrade: its own event still arrives, the workspace's other events no longer do
    rx.got.length = 0;
    assert.equal((await setPlan(a, 'free')).status, 200);
    const [down] = await delivered('billing.subscription.updated');
    assert.equal(down.data.plan, 'free');
    assert.ok(!down.data.features.includes('webhooks'));
    await withTenant(app.svc.db.app, a.tenantId, (trx) => emitEvent(trx, a.tenantId, 'asset.created', { assetId: 'after-downgrade' }));
    await until('the outbox to drain', async () => !(await app.svc.db.owner('outbound_events').where({ status: 'pending' }).first()));
    const afterDowngrade = await app.svc.db.owner('webhook_deliveries').where({ tenant_id: a.tenantId, event_type: 'asset.created' }).whereLike('body', '%after-downgrade%');
    assert.equal(afterDowngrade.length, 0);
    assert.equal(rx.got.filter((g) => g.body.includes('after-downgrade')).length, 0);
    assert.equal((await app.request('GET', '/webhooks', { token: a.users.admin!.token })).status, 403);
    assert.equal((await setPlan(a, 'pro')).status, 200);
  });

  it('DELETE removes the endpoint', async () => {
    const r = await app.request('DELETE', `/webhooks/${endpoint.id}`, { token: a.users.admin!.token });
    assert.equal(r.status, 200);
    assert.equal((await app.request('GET', `/webhooks/${endpoint.id}`, { token: a.users.admin!.token })).status, 404);
  });

  it('a worker stopping while a receiver hangs: the request is aborted and recorded, no handler outlives the shutdown', async () => {
    await workers?.shutdown();
    workers = null;
    const hung: http.ServerResponse[] = [];
    const hang = http.createServer((_req, res) => void hung.push(res)); // never answers
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
    try {
      const ep = await create(a, { url: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/slow`, events: ['release.*'] });
      assert.equal(ep.status, 201, ep.text);
      const slow = await boot({ ...app.cfg, shutdownTimeoutSeconds: 2, webhooks: { ...app.cfg.webhooks, timeoutMs: 600_000 } }, { workers: true, migrate: false, databaseUrl: app.cfg.databaseUrl! });
      await withTenant(app.svc.db.app, a.tenantId, (trx) => emitEvent(trx, a.tenantId, 'release.submitted', { releaseId: 'slow' }));
      await until('the hanging request', async () => hung.length > 0);
      await slow.shutdown();
      // the attempt was recorded before the pools closed: the handler finished inside the shutdown
      const d = await app.svc.db.owner('webhook_deliveries').where({ endpoint_id: ep.body.data.id }).first();
      assert.equal(d.status, 'pending');
      assert.equal(d.attempt_count, 1);
      assert.equal(d.last_error, 'interrupted: the worker was shutting down');
      assert.ok(d.next_attempt_at, 'the next attempt is scheduled');
    } finally {
      hang.closeAllConnections();
      await new Promise<void>((r) => hang.close(() => r()));
    }
  });
});

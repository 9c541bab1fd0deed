/**
 * A client written to the reference service's webhook conventions (docs/webhooks.md, "The
 * reference envelope" and "One webhook url"): it sets the workspace webhook url, picks events
 * by their reference names, receives the reference envelope on a local receiver and checks the
 * signature, then reads the deliveries list, summary and detail with the reference's statuses.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { waitFor } from '../allocation/helpers';
import { webhookReceiver } from '../helpers/webhook-receiver';



/** Rondo's signature header `t=<seconds>,v1=<hex>`: HMAC-SHA256 of "<t>.<body>". */
function signedBy(secret: string, header: string, body: string): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const want = crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return parts.some(([k, v]) => k === 'v1' && v === want);
}


describe('reference client flow: webhooks (settings url, envelope, deliveries)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let rx: Awaited<ReturnType<typeof webhookReceiver>>;
  let secret = '';
  let settingsId = '';
  let assetId = '';
  const admin = () => a.users.admin!.token;
  const put = (t: TestTenant, what: string, body: unknown, token = t.users.admin!.token) => app.request('PUT', `/tenant/settings/${what}`, { token, body });
  const deliveries = (q = '', token = admin()) => app.request('GET', `/webhook-deliveries${q}`, { token });

  before(async () => {
    app = await startTestApp({ workers: true, config: { webhooks: { timeoutMs: 1500, retryScale: 0.01, ratePerMinute: 1000, disableAfterSeconds: 86400, sweepSeconds: 0.2 } } });
    const god = (await app.svc.auth.createApiKey('god', { name: 'ops' })).token;
    a = await createTestTenant(app, 'RefHookA');
    b = await createTestTenant(app, 'RefHookB');
    for (const t of [a, b]) assert.equal((await app.request('PUT', `/godmin/tenants/${t.tenantId}/subscription`, { token: god, body: { plan: 'pro', state: 'active' } })).status, 200);
    rx = await webhookReceiver((path) => (path === '/hang' ? null : path === '/fail' ? 500 : 200));
    // the plan changes' billing events are dispatched (to no endpoint) before any endpoint exists
    await waitFor('the outbox emptied', async () => !(await app.svc.db.owner('outbound_events').where({ status: 'pending' }).first('id')));
  });
  after(async () => {
    await rx.close();
    await app.close();
  });

  it('webhook-isActive and webhook-enabledEvents before any url: 404 WEBHOOK_URL_NOT_SET', async () => {
    const r = await put(a, 'webhook-isActive', { isActive: true });
    assert.equal(r.status, 404, r.text);
    assert.equal(r.body.code, 'WEBHOOK_URL_NOT_SET');
    assert.equal((await put(a, 'webhook-enabledEvents', { enabledEvents: ['ASSET_CREATED'] })).body.code, 'WEBHOOK_URL_NOT_SET');
  });

  it('webhook-url creates one endpoint with the reference envelope and every event; a second url changes it', async () => {
    const r = await put(a, 'webhook-url', { webhookUrl: `${rx.base}/first` });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.data.secret, /^whsec_[0-9a-f]{64}$/);
    assert.deepEqual({ ...r.body.data, secret: undefined, endpointId: undefined }, { webhookUrl: `${rx.base}/first`, isActive: true, enabledEvents: ['*'], envelope: 'reference', secret: undefined, endpointId: undefined });
    secret = r.body.data.secret;
    settingsId = r.body.data.endpointId;
    const again = await put(a, 'webhook-url', { webhookUrl: `${rx.base}/ok` });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.endpointId, settingsId);
    assert.equal(again.body.data.secret, undefined);
    const eps = await app.request('GET', '/webhooks', { token: admin() });
    assert.deepEqual(eps.body.data.map((e: any) => [e.id, e.url, e.envelope, e.managedBySettings]), [[settingsId, `${rx.base}/ok`, 'reference', true]]);
  });

  it('webhook-enabledEvents takes reference names and refuses a name that is no event, naming it', async () => {
    const bad = await put(a, 'webhook-enabledEvents', { enabledEvents: ['ASSET_CREATED', 'PAYMENT_TELEPORTED'] });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /PAYMENT_TELEPORTED is not an event type, a family wildcard or \*/);
    const ok = await put(a, 'webhook-enabledEvents', { enabledEvents: ['ASSET_CREATED', 'ASSET_UPDATED', 'PAYMENT_COMPLETED'] });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.data.enabledEvents, ['ASSET_CREATED', 'ASSET_UPDATED', 'PAYMENT_COMPLETED']);
    const off = await put(a, 'webhook-isActive', { isActive: false });
    assert.equal(off.body.data.isActive, false);
    const on = await put(a, 'webhook-isActive', { isActive: true });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.body.data.isActive, true);
  });

  it('members below admin get 403; another workspace has its own (unset) webhook', async () => {
    assert.equal((await put(a, 'webhook-url', { webhookUrl: `${rx.base}/ok` }, a.users.user!.token)).status, 403);
    assert.equal((await deliveries('', a.users.user!.token)).status, 403);
    assert.equal((await put(b, 'webhook-isActive', { isActive: true })).body.code, 'WEBHOOK_URL_NOT_SET');
  });

  it('a private or local webhook url is refused', async () => {
    const was = app.svc.cfg.allowPrivateOutbound;
    app.svc.cfg.allowPrivateOutbound = false;
    try {
      const r = await put(a, 'webhook-url', { webhookUrl: 'http://10.1.2.3/hook' });
      assert.equal(r.status, 400, r.text);
      assert.match(r.text, /private or local/);
    } finally {
      app.svc.cfg.allowPrivateOutbound = was;
    }
  });

  it('ASSET_CREATED arrives in the reference envelope, signed; a Rondo-envelope endpoint gets the same event in Rondo\'s shape', async () => {
    const own = await app.request('POST', '/webhooks', { token: admin(), body: { url: `${rx.base}/rondo`, events: ['asset.created'] } });
    assert.equal(own.status, 201, own.text);
    assert.equal(own.body.data.envelope, 'rondo');
    const made = await app.request('POST', '/asset', { token: admin(), body: { title: 'Harbour Lights', isrc: 'GBAYE0601498' } });
    assert.equal(made.status, 201, made.text);
    assetId = made.body.data.id;
    const ref = await waitFor('the reference delivery', async () => rx.got.find((g) => g.path === '/ok' && g.body.includes(assetId)));
    const rondo = await waitFor('the Rondo delivery', async () => rx.got.find((g) => g.path === '/rondo' && g.body.includes(assetId)));
    assert.ok(signedBy(secret, String(ref.headers['rondo-signature']), ref.body), 'signed with the secret webhook-url answered');
    const env = JSON.parse(ref.body);
    const ev = JSON.parse(rondo.body);
    assert.deepEqual(Object.keys(env), ['id', 'event', 'timestamp', 'version', 'tenant', 'source', 'data', 'delivery']);
    assert.match(env.id, /^whd_[0-9a-f-]{36}$/);
    assert.equal(env.event, 'ASSET_CREATED');
    assert.equal(env.version, '1.0');
    assert.equal(env.timestamp, ev.createdAt);
    const name = (await app.svc.db.owner('tenants').where({ id: a.tenantId }).first('name')).name;
    assert.deepEqual(env.tenant, { id: a.workspaceId, name, domain: null });
    assert.deepEqual(env.source, { service: 'rondo', environment: 'development', traceId: ev.id });
    assert.deepEqual(env.data.event, { id: ev.id, type: 'ASSET_CREATED', category: 'asset', timestamp: ev.createdAt, importance: 'normal' });
    assert.deepEqual(env.data.actor, { id: null, type: 'system', name: 'Rondo', email: null });
    assert.deepEqual(env.data.resource, { type: 'asset', id: assetId, url: `/asset/${assetId}`, displayName: 'Harbour Lights' });
    assert.deepEqual(env.data.attributes, ev.data);
    assert.equal('previous' in env.data, false, 'previous only on *_UPDATED');
    assert.equal(env.delivery.attempt, 1);
    assert.equal(env.delivery.maxAttempts, 3, 'the reference convention for its envelope');
    assert.ok(Date.parse(env.delivery.nextRetryAt) > Date.parse(env.timestamp));
    // Rondo's own shape is unchanged for the endpoint that did not ask for the reference's
    assert.deepEqual(Object.keys(ev), ['id', 'type', 'createdAt', 'workspaceId', 'data']);
    assert.equal(ev.type, 'asset.created');
    // the envelope's id is the delivery's: the detail route takes it as written
    const one = await app.request('GET', `/webhook-deliveries/${env.id}`, { token: admin() });
    assert.equal(one.status, 200, one.text);
    assert.equal(`whd_${one.body.data.id}`, env.id);
    assert.equal(one.body.data.event, 'ASSET_CREATED');
    assert.equal(one.body.data.envelope, 'reference');
    await waitFor('the delivery marked success', async () => (await app.request('GET', `/webhook-deliveries/${env.id}`, { token: admin() })).body.data.status === 'success');
  });

  it('ASSET_UPDATED carries the changed fields\' previous values', async () => {
    const r = await app.request('PUT', `/asset/${assetId}`, { token: admin(), body: { title: 'Harbour Lights (Remastered)' } });
    assert.equal(r.status, 200, r.text);
    const got = await waitFor('ASSET_UPDATED', async () => rx.got.find((g) => g.path === '/ok' && g.body.includes('"ASSET_UPDATED"')));
    const env = JSON.parse(got.body);
    assert.deepEqual(env.data.previous, { title: 'Harbour Lights' });
    assert.deepEqual(env.data.attributes.changed, ['title']);
    assert.equal(env.data.resource.displayName, 'Harbour Lights (Remastered)', 'the resource named as it is now');
    await waitFor('every asset delivery answered', async () => {
      const l = (await deliveries('?eventType=ASSET_UPDATED')).body.data.concat((await deliveries('?eventType=ASSET_CREATED')).body.data);
      return l.length === 3 && l.every((d: any) => d.status === 'success');
    });
  });

  it('delivery statuses: pending while an attempt runs, cancelled when turned off, failed and timeout after a retry', async () => {
    const hang = await app.request('POST', '/webhooks', { token: admin(), body: { url: `${rx.base}/hang`, events: ['release.*'], envelope: 'reference' } });
    assert.equal(hang.status, 201, hang.text);
    const id = hang.body.data.id;
    const t = await app.request('POST', `/webhooks/${id}/test`, { token: admin() });
    assert.equal(t.status, 200, t.text);
    const deliveryId = t.body.data.deliveryId;
    const detail = async () => (await app.request('GET', `/webhook-deliveries/${deliveryId}`, { token: admin() })).body.data;
    const arrived = await waitFor('the hanging attempt', async () => rx.got.find((g) => g.path === '/hang'));
    assert.equal(JSON.parse(arrived.body).event, 'WEBHOOK_TEST');
    assert.equal((await detail()).status, 'pending');
    assert.equal((await app.request('PUT', `/webhooks/${id}`, { token: admin(), body: { isEnabled: false } })).status, 200);
    const cancelled = await waitFor('the attempt recorded', async () => { const d = await detail(); return d.attemptCount === 1 && d; });
    assert.equal(cancelled.status, 'cancelled');
    assert.match(cancelled.attempts[0].error, /no answer within 1500 ms/);

    assert.equal((await app.request('PUT', `/webhooks/${id}`, { token: admin(), body: { url: `${rx.base}/fail` } })).status, 200);
    assert.equal((await app.request('POST', `/webhook-deliveries/whd_${deliveryId}/retry`, { token: admin() })).status, 200);
    const failed = await waitFor('the failed retry', async () => { const d = await detail(); return d.attemptCount === 2 && d; });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.lastStatusCode, 500);
    const bodies = rx.got.filter((g) => g.body.includes(`whd_${deliveryId}`)).map((g) => JSON.parse(g.body).delivery);
    assert.deepEqual(bodies.map((d) => [d.attempt, d.nextRetryAt]), [[1, bodies[0].nextRetryAt], [2, null]], 'a manual retry is the last attempt');

    assert.equal((await app.request('PUT', `/webhooks/${id}`, { token: admin(), body: { url: `${rx.base}/hang` } })).status, 200);
    assert.equal((await app.request('POST', `/webhook-deliveries/${deliveryId}/retry`, { token: admin() })).status, 200);
    const timedOut = await waitFor('the timed-out retry', async () => { const d = await detail(); return d.attemptCount === 3 && d; });
    assert.equal(timedOut.status, 'timeout');
  });

  it('GET /webhook-deliveries: every endpoint, filtered by status, event type (either name) and UTC days, paged and sorted', async () => {
    const all = await deliveries();
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.totalItems, all.body.data.length);
    assert.equal(all.body.currentPage, 1);
    assert.deepEqual(new Set(all.body.data.map((d: any) => d.status)), new Set(['success', 'timeout']));
    assert.equal(all.body.data.length, 4, 'asset created to two endpoints, asset updated, the test event');
    const byRef = await deliveries('?eventType=ASSET_CREATED');
    const byRondo = await deliveries('?eventType=asset.created');
    assert.deepEqual(byRef.body.data.map((d: any) => d.id).sort(), byRondo.body.data.map((d: any) => d.id).sort());
    assert.deepEqual(byRef.body.data.map((d: any) => d.envelope).sort(), ['reference', 'rondo']);
    assert.deepEqual((await deliveries('?status=timeout')).body.data.map((d: any) => d.event), ['WEBHOOK_TEST']);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    assert.equal((await deliveries(`?start=${today}&end=${today}`)).body.totalItems, 4);
    assert.equal((await deliveries(`?end=${yesterday}`)).body.totalItems, 0);
    const paged = await deliveries('?size=1&page=2&sort=status&order=asc');
    assert.equal(paged.status, 200, paged.text);
    assert.deepEqual([paged.body.totalItems, paged.body.totalPages, paged.body.currentPage, paged.body.data.length], [4, 4, 2, 1]);
    const sorted = (await deliveries('?sort=status&order=asc')).body.data.map((d: any) => d.status);
    assert.deepEqual(sorted, ['success', 'success', 'success', 'timeout']);
    for (const [q, re] of [['?eventType=PAYMENT_TELEPORTED', /PAYMENT_TELEPORTED is not an event Rondo sends/], [`?start=${today}&end=${yesterday}`, /after end/], ['?status=succeeded', /status/], ['?event=x', /event: unknown parameter/]] as const) {
      const r = await deliveries(q);
      assert.equal(r.status, 400, `${q}: ${r.text}`);
      assert.match(r.text, re);
    }
  });

  it('GET /webhook-deliveries/summary counts what the list shows, by status, type and reference name', async () => {
    const r = await deliveries('/summary');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.summary, {
      total: 4,
      byStatus: { pending: 0, success: 3, failed: 0, timeout: 1, cancelled: 0 },
      byType: { 'asset.created': 2, 'asset.updated': 1, 'webhook.test': 1 },
      byEvent: { ASSET_CREATED: 2, ASSET_UPDATED: 1, WEBHOOK_TEST: 1 },
    });
    const filtered = await deliveries('/summary?status=success&eventType=ASSET_CREATED');
    assert.deepEqual([filtered.body.summary.total, filtered.body.summary.byEvent], [2, { ASSET_CREATED: 2 }]);
  });

  it('another workspace sees none of them', async () => {
    const list = await deliveries('', b.users.admin!.token);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.totalItems, 0);
    assert.equal((await deliveries('/summary', b.users.admin!.token)).body.summary.total, 0);
    const mine = (await deliveries()).body.data[0].id;
    assert.equal((await app.request('GET', `/webhook-deliveries/${mine}`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await app.request('POST', `/webhook-deliveries/${mine}/retry`, { token: b.users.admin!.token })).status, 404);
  });

  it('webhook-url null removes the workspace webhook (its deliveries with it); the other endpoints stay', async () => {
    const r = await put(a, 'webhook-url', { webhookUrl: null });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data, null);
    assert.equal((await put(a, 'webhook-isActive', { isActive: true })).body.code, 'WEBHOOK_URL_NOT_SET');
    const eps = (await app.request('GET', '/webhooks', { token: admin() })).body.data;
    assert.deepEqual(eps.map((e: any) => e.url).sort(), [`${rx.base}/hang`, `${rx.base}/rondo`]);
  });
});

import assert from 'node:assert/strict';
import { createTestTenant, type TestTenant } from '../helpers/app';
import { signDistributor } from '../../src/sandbox/distributor';
import { startPartnerRun, type PartnerRun } from './helpers';

/** Inbound distributor deliveries: signed by the workspace's webhookSecret, once per event id, in order. */
describe('partners: distributor delivery webhook', function () {
  let run: PartnerRun;
  let a: TestTenant;
  let b: TestTenant;
  let releaseA: string;
  let releaseB: string;
  const UPC = '0886440000011';
  const secretA = 'whsec_a_' + '5f4dcc3b5aa765d61d83';
  const secretB = 'whsec_b_' + '9e107d9d372bb6826bd8';
  const hook = (t: TestTenant) => `${run.app.url}/ddex/distributor/webhook/${t.workspaceId}`;
  const release = async (t: TestTenant, id: string) => (await run.app.request('GET', `/releases/${id}`, { token: t.users.admin!.token })).body.data;
  const deliveryEvents = async (t: TestTenant, id: string) => (await run.app.svc.db.owner('release_events').where({ tenant_id: t.tenantId, release_id: id, kind: 'delivery' })).length;

  before(async () => {
    run = await startPartnerRun();
    a = await createTestTenant(run.app, 'HookA');
    b = await createTestTenant(run.app, 'HookB');
    for (const [t, secret] of [[a, secretA], [b, secretB]] as const) {
      const c = await run.app.request('PUT', '/ddex/distributor/credentials', { token: t.users.admin!.token, body: { token: `dtok_${t.tenantId}_0123456789abcdef`, webhookSecret: secret } });
      assert.equal(c.status, 200, c.text);
    }
    releaseA = (await run.app.request('POST', '/releases', { token: a.users.admin!.token, body: { title: 'Night Drive', upc: UPC } })).body.data.id;
    releaseB = (await run.app.request('POST', '/releases', { token: b.users.admin!.token, body: { title: 'Night Drive (B)', upc: UPC } })).body.data.id;
  });
  after(async () => run.close());

  it('a signed delivery sets the release delivery state once, however often it is sent', async () => {
    const r = await run.sb.distributor.deliver(hook(a), secretA, { id: 'evt_delivered_1', type: 'release.delivered', occurredAt: '2026-11-20T10:00:00Z', data: { upc: UPC, store: 'Spotify' } }, 3);
    assert.deepEqual(r.map((x) => x.status), [200, 200, 200]);
    assert.deepEqual(r.map((x) => (x.body as { applied: boolean; duplicate: boolean })), [
      { status: 'success', applied: true, duplicate: false },
      { status: 'success', applied: false, duplicate: true },
      { status: 'success', applied: false, duplicate: true },
    ]);
    const rel = await release(a, releaseA);
    assert.deepEqual(rel.delivery, { status: 'delivered', message: 'store: Spotify', at: '2026-11-20T10:00:00.000Z' });
    assert.equal(await deliveryEvents(a, releaseA), 1);
    assert.equal((await release(b, releaseB)).delivery.status, null, 'the other workspace\'s release with the same UPC is untouched');
  });

  it('events out of order: an older one is recorded, not applied', async () => {
    const live = await run.sb.distributor.deliver(hook(a), secretA, { id: 'evt_live_2', type: 'release.live', occurredAt: '2026-11-22T08:00:00Z', data: { releaseId: releaseA } });
    assert.equal((live[0]!.body as { applied: boolean }).applied, true);
    const late = await run.sb.distributor.deliver(hook(a), secretA, { id: 'evt_failed_0', type: 'release.failed', occurredAt: '2026-11-21T08:00:00Z', data: { upc: UPC, reason: 'artwork' } });
    assert.deepEqual(late[0]!.body, { status: 'success', applied: false, duplicate: false });
    assert.equal((await release(a, releaseA)).delivery.status, 'live');
    const rec = await run.app.svc.db.owner('distributor_events').where({ tenant_id: a.tenantId }).orderBy('occurred_at').select('event_id', 'applied');
    assert.deepEqual(rec, [
      { event_id: 'evt_delivered_1', applied: true },
      { event_id: 'evt_failed_0', applied: false },
      { event_id: 'evt_live_2', applied: true },
    ]);
  });

  it('refuses a wrong or missing signature, another workspace\'s secret and an unknown workspace (401); nothing changes', async () => {
    const ev = { id: 'evt_forged', type: 'release.taken_down', occurredAt: '2026-11-23T00:00:00Z', data: { upc: UPC } };
    for (const [url, secret] of [[hook(a), 'whsec_wrong_000000000000'], [hook(a), secretB], [`${run.app.url}/ddex/distributor/webhook/00000000-0000-4000-8000-000000000000`, secretA]] as const) {
      const r = await run.sb.distributor.deliver(url, secret, ev);
      assert.equal(r[0]!.status, 401, url);
      assert.deepEqual(Object.keys(r[0]!.body as object).sort(), ['code', 'message', 'status']);
    }
    const raw = JSON.stringify(ev);
    const unsigned = await fetch(hook(a), { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
    assert.equal(unsigned.status, 401);
    assert.equal((await release(a, releaseA)).delivery.status, 'live');
    assert.equal(await run.app.svc.db.owner('distributor_events').where({ event_id: 'evt_forged' }).first(), undefined);
  });

  it('a signed but malformed event is a 400 naming the field; the secret never shows', async () => {
    const raw = JSON.stringify({ id: 'evt_bad', type: 'release.exploded', occurredAt: 'yesterday', data: { upc: UPC } });
    const r = await fetch(hook(a), { method: 'POST', headers: { 'content-type': 'application/json', 'x-distributor-signature': signDistributor(raw, secretA) }, body: raw });
    assert.equal(r.status, 400);
    const body = (await r.json()) as { message: string; details: string[] };
    assert.match(body.message, /Invalid event/);
    assert.deepEqual(body.details, ['body.type must be one of release.delivered, release.live, release.failed, release.taken_down', 'body.occurredAt must be a date-time']);
    run.bodies.push(JSON.stringify(body));
    run.assertNoLeak([secretA, secretB]);
  });
});

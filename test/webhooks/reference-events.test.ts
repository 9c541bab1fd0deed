/**
 * The reference service's events for products, artists, members, revenue, expenses, payment
 * requests, payment deletion and split members (docs/webhooks.md, "Events" and "The reference
 * envelope"): each change is delivered to a local receiver under its reference name, with its
 * resource, attributes and (updates) the changed fields' previous values; a rolled-back change
 * sends nothing; another workspace's endpoint receives nothing. Reference-envelope endpoints
 * get 3 attempts, Rondo's keep retrying.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { waitFor } from '../allocation/helpers';
import { webhookReceiver } from '../helpers/webhook-receiver';



describe('webhooks: the reference events of products, artists, members, money and splits', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let rx: Awaited<ReturnType<typeof webhookReceiver>>;
  const admin = () => a.users.admin!.token;
  const req = (method: string, path: string, body?: unknown, token = admin()) => app.request(method, path, { token, body });

  /** The reference envelope of `event` about resource `id` received at `/a`. */
  const arrived = (event: string, id: string, pred: (e: any) => boolean = () => true) =>
    waitFor(`${event} of ${id}`, async () => rx.got.find((g) => g.path === '/a' && g.json.event === event && g.json.data.resource.id === id && pred(g.json))?.json);

  before(async () => {
    app = await startTestApp({ workers: true, config: { webhooks: { timeoutMs: 1500, retryScale: 0.01, ratePerMinute: 1000, disableAfterSeconds: 86400, sweepSeconds: 0.2 } } });
    const god = (await app.svc.auth.createApiKey('god', { name: 'ops' })).token;
    a = await createTestTenant(app, 'RefEventsA');
    b = await createTestTenant(app, 'RefEventsB');
    for (const t of [a, b]) assert.equal((await app.request('PUT', `/godmin/tenants/${t.tenantId}/subscription`, { token: god, body: { plan: 'pro', state: 'active' } })).status, 200);
    rx = await webhookReceiver((path) => (path.startsWith('/fail') ? 500 : 200));
    await waitFor('the outbox emptied', async () => !(await app.svc.db.owner('outbound_events').where({ status: 'pending' }).first('id')));
    for (const [t, path] of [[a, '/a'], [b, '/b']] as const) {
      const r = await app.request('POST', '/webhooks', { token: t.users.admin!.token, body: { url: `${rx.base}${path}`, events: ['*'], envelope: 'reference' } });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => {
    await rx.close();
    await app.close();
  });

  it('subscribing by the new reference names is accepted; a name that is no event is refused, naming it', async () => {
    const names = ['PAYMENT_PROCESSING', 'ROYALTY_FILE_UPLOADED', 'PRODUCT_CREATED', 'ARTIST_UPDATED', 'USER_CREATED', 'USER_INVITATION_SENT', 'REVENUE_DELETED', 'EXPENSE_UPDATED', 'PAYMENT_REQUEST_SENT', 'PAYMENT_DELETED', 'USER_ADDED_TO_SPLIT', 'USER_REMOVED_FROM_SPLIT'];
    const ok = await req('POST', '/webhooks', { url: `${rx.base}/named`, events: names, envelope: 'reference' });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.body.data.events, names);
    assert.equal((await req('DELETE', `/webhooks/${ok.body.data.id}`)).status, 200);
    const bad = await req('POST', '/webhooks', { url: `${rx.base}/named`, events: ['PRODUCT_CREATED', 'PAYMENT_TELEPORTED'] });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /PAYMENT_TELEPORTED is not an event type, a family wildcard or \*/);
    assert.equal((await req('GET', '/webhook-deliveries?eventType=REVENUE_CREATED')).status, 200);
  });

  it('products: PRODUCT_CREATED, PRODUCT_UPDATED with previous, PRODUCT_DELETED; a bulk create sends one per product', async () => {
    const p = await req('POST', '/product', { title: 'Northern Skies', upc: '036000291452' });
    assert.equal(p.status, 201, p.text);
    const id = p.body.data.id;
    const created = await arrived('PRODUCT_CREATED', id);
    assert.deepEqual(created.data.resource, { type: 'product', id, url: `/product/${id}`, displayName: 'Northern Skies' });
    assert.deepEqual(created.data.attributes, { productId: id, upc: '0036000291452', title: 'Northern Skies', isDraft: false });
    assert.equal(created.data.event.category, 'product');
    assert.equal('previous' in created.data, false);
    assert.equal((await req('PUT', `/product/${id}`, { title: 'Northern Skies (Deluxe)' })).status, 200);
    const updated = await arrived('PRODUCT_UPDATED', id);
    assert.deepEqual(updated.data.previous, { title: 'Northern Skies' });
    assert.deepEqual(updated.data.attributes.changed, ['title']);
    assert.equal(updated.data.resource.displayName, 'Northern Skies (Deluxe)');
    assert.equal((await req('DELETE', `/product/${id}`)).status, 200);
    assert.deepEqual((await arrived('PRODUCT_DELETED', id)).data.attributes, { productId: id });

    const bulk = await req('POST', '/product/bulk', { products: [{ title: 'One', upc: '012345678905' }, { title: 'Two', upc: '042100005264' }] });
    assert.ok(bulk.status < 300, bulk.text);
    const ids = (await app.svc.db.owner('products').where({ tenant_id: a.tenantId }).whereIn('upc', ['0012345678905', '0042100005264']).orderBy('upc').select('id', 'title')) as { id: string; title: string }[];
    assert.deepEqual(ids.map((x) => x.title), ['One', 'Two']);
    for (const x of ids) assert.deepEqual((await arrived('PRODUCT_CREATED', x.id)).data.attributes, { productId: x.id, upc: ids[0] === x ? '0012345678905' : '0042100005264', title: x.title, isDraft: false });
  });

  it('a change that is rolled back sends nothing', async () => {
    const one = (await req('POST', '/product', { title: 'Keeper', upc: '614141000036' })).body.data.id;
    assert.equal((await req('POST', '/product', { title: 'Taken', upc: '725272730706' })).status, 201);
    const count = async () => Number((await app.svc.db.owner('outbound_events').where({ tenant_id: a.tenantId, type: 'product.updated' }).count<{ n: string }[]>({ n: '*' }))[0]!.n);
    const before = await count();
    const dup = await req('PUT', `/product/${one}`, { title: 'Renamed', upc: '725272730706' });
    assert.equal(dup.status, 400, dup.text);
    assert.equal(await count(), before);
    assert.equal((await req('GET', `/product/${one}`)).body.data.title, 'Keeper');
  });

  it('artists: ARTIST_CREATED, ARTIST_UPDATED with previous, ARTIST_DELETED', async () => {
    const r = await req('POST', '/artist', { name: 'Mara Lind', country: 'SE' });
    assert.equal(r.status, 201, r.text);
    const id = r.body.data.id;
    const created = await arrived('ARTIST_CREATED', id);
    assert.deepEqual(created.data.resource, { type: 'artist', id, url: `/artist/${id}`, displayName: 'Mara Lind' });
    assert.deepEqual(created.data.attributes, { artistId: id, name: 'Mara Lind', externalId: null, country: 'SE' });
    assert.equal((await req('PUT', `/artist/${id}`, { name: 'Mara Lindqvist', country: 'NO' })).status, 200);
    const updated = await arrived('ARTIST_UPDATED', id);
    assert.deepEqual(updated.data.previous, { country: 'SE', name: 'Mara Lind' });
    assert.deepEqual(updated.data.attributes.changed, ['country', 'name']);
    assert.equal((await req('DELETE', `/artist/${id}`)).status, 200);
    assert.equal((await arrived('ARTIST_DELETED', id)).data.attributes.artistId, id);

    // an artist named by a new recording (single or bulk) that does not exist yet is created, and said so
    assert.equal((await req('POST', '/asset', { title: 'Named', isrc: 'GBAYE0601500', artists: ['Auto Artist'] })).status, 201);
    assert.equal((await req('POST', '/asset/bulk', { assets: [{ title: 'Named too', isrc: 'GBAYE0601501', artists: ['Bulk Auto Artist'] }] })).status < 300, true);
    for (const name of ['Auto Artist', 'Bulk Auto Artist']) {
      const artist = await app.svc.db.owner('artists').where({ tenant_id: a.tenantId, name }).first('id');
      assert.ok(artist, name);
      assert.deepEqual((await arrived('ARTIST_CREATED', artist.id)).data.attributes, { artistId: artist.id, name, externalId: null, country: null });
    }
  });

  it('members: USER_CREATED and USER_INVITATION_SENT, USER_UPDATED with previous, a resent invitation, USER_DELETED', async () => {
    const r = await req('POST', '/user/', { email: 'jo.invited@example.test', role: 'user', firstName: 'Jo' });
    assert.equal(r.status, 201, r.text);
    const id = r.body.data.id;
    const created = await arrived('USER_CREATED', id);
    assert.deepEqual(created.data.resource, { type: 'user', id, url: `/user/${id}`, displayName: 'jo.invited@example.test' });
    assert.deepEqual(created.data.attributes, { userId: id, email: 'jo.invited@example.test', firstName: 'Jo', lastName: null, role: 'user', status: 'invited' });
    assert.deepEqual((await arrived('USER_INVITATION_SENT', id)).data.attributes, { userId: id, email: 'jo.invited@example.test', role: 'user', resent: false });
    assert.equal((await req('PATCH', `/user/${id}`, { role: 'guest' })).status, 200);
    const updated = await arrived('USER_UPDATED', id);
    assert.deepEqual(updated.data.previous, { role: 'user' });
    assert.deepEqual(updated.data.attributes.changed, ['role']);
    assert.equal((await req('POST', `/user/${id}/invitation`)).status, 200);
    await arrived('USER_INVITATION_SENT', id, (e) => e.data.attributes.resent === true);
    assert.equal((await req('DELETE', `/user/${id}`)).status, 200);
    assert.deepEqual((await arrived('USER_DELETED', id)).data.attributes, { userId: id, email: 'jo.invited@example.test', role: 'guest', status: 'invited' });
  });

  it('revenue and expenses: *_CREATED, *_UPDATED with previous, *_DELETED', async () => {
    const payee = a.users.user!.tenantUserId;
    const rev = await req('POST', '/revenue/', { title: 'Sync fee', amount: '250.50', currency: 'USD', date: '2026-11-02', splits: [{ user: payee, share: 100 }] });
    assert.equal(rev.status, 201, rev.text);
    const rid = rev.body.data.id;
    const rc = await arrived('REVENUE_CREATED', rid);
    assert.deepEqual(rc.data.resource, { type: 'revenue', id: rid, url: `/revenue/${rid}`, displayName: 'Sync fee' });
    assert.deepEqual(rc.data.attributes, { revenueId: rid, title: 'Sync fee', amount: '250.5', currency: 'USD', baseAmount: '250.5', date: '2026-11-02', users: [payee] });
    assert.equal((await req('PUT', `/revenue/${rid}`, { title: 'Sync fee (TV)' })).status, 200);
    const ru = await arrived('REVENUE_UPDATED', rid);
    assert.deepEqual(ru.data.previous, { title: 'Sync fee' });
    assert.equal((await req('DELETE', `/revenue/${rid}`)).status, 200);
    assert.deepEqual((await arrived('REVENUE_DELETED', rid)).data.attributes, { revenueId: rid });

    const exp = await req('POST', '/expense/', { user: payee, title: 'Mastering', amount: '40', currency: 'USD', date: '2026-11-03', recoupable: false });
    assert.equal(exp.status, 201, exp.text);
    const eid = exp.body.data.id;
    const ec = await arrived('EXPENSE_CREATED', eid);
    assert.deepEqual(ec.data.resource, { type: 'expense', id: eid, url: `/expense/${eid}`, displayName: 'Mastering' });
    assert.deepEqual(ec.data.attributes, { expenseId: eid, userId: payee, title: 'Mastering', category: null, amount: '40', currency: 'USD', baseAmount: '40', date: '2026-11-03', recoupable: false });
    assert.equal((await req('PUT', `/expense/${eid}`, { title: 'Mastering and mixing', category: 'studio' })).status, 200);
    const eu = await arrived('EXPENSE_UPDATED', eid);
    assert.deepEqual(eu.data.previous, { category: null, title: 'Mastering' });
    assert.equal((await req('POST', '/expense/bulk/delete', { ids: [eid] })).body.processedCount, 1);
    assert.deepEqual((await arrived('EXPENSE_DELETED', eid)).data.attributes, { expenseId: eid, userId: payee });
  });

  it('payment requests: PAYMENT_REQUEST_SENT, _REJECTED, _APPROVED; PAYMENT_DELETED', async () => {
    const payee = a.users.user!.tenantUserId;
    const user = a.users.user!.token;
    assert.equal((await req('POST', '/revenue/', { title: 'Advance', amount: '100', currency: 'USD', splits: [{ user: payee, share: 100 }] })).status, 201);
    const r1 = await req('POST', '/payment-request/', { amount: '2', memo: 'November' }, user);
    assert.equal(r1.status, 201, r1.text);
    const q1 = r1.body.data.id;
    const sent = await arrived('PAYMENT_REQUEST_SENT', q1);
    assert.deepEqual(sent.data.resource, { type: 'payment_request', id: q1, url: `/payment-request/${q1}`, displayName: null });
    assert.deepEqual(sent.data.attributes, { requestId: q1, userId: payee, amount: '2', currency: 'USD', status: 'pending', memo: 'November' });
    assert.equal((await req('PATCH', `/payment-request/${q1}/decline`, { reason: 'Wrong month' })).status, 200);
    const rejected = await arrived('PAYMENT_REQUEST_REJECTED', q1);
    assert.equal(rejected.data.attributes.status, 'declined');
    assert.equal(rejected.data.attributes.reason, 'Wrong month');

    const q2 = (await req('POST', '/payment-request/', { amount: '1' }, user)).body.data.id;
    const ok = await req('PATCH', `/payment-request/${q2}/approve`, {});
    assert.equal(ok.status, 200, ok.text);
    const paymentId = ok.body.data.payment.id;
    const approved = await arrived('PAYMENT_REQUEST_APPROVED', q2);
    assert.deepEqual(approved.data.attributes, { requestId: q2, userId: payee, amount: '1', currency: 'USD', status: 'approved', memo: null, paymentId });
    assert.equal((await req('DELETE', `/payment/${paymentId}`)).status, 200);
    const deleted = await arrived('PAYMENT_DELETED', paymentId);
    assert.deepEqual(deleted.data.resource, { type: 'payment', id: paymentId, url: `/payment/${paymentId}`, displayName: null });
    assert.equal(deleted.data.attributes.paymentRequestId, q2);
    assert.equal(deleted.data.attributes.userId, payee);
  });

  it('splits: USER_ADDED_TO_SPLIT per member added, USER_REMOVED_FROM_SPLIT per member removed', async () => {
    const payee = a.users.user!.tenantUserId;
    const other = a.users.admin!.tenantUserId;
    const asset = (await req('POST', '/asset', { title: 'Split Song', isrc: 'GBAYE0601499' })).body.data.id;
    const s = await req('POST', '/split/', { asset, split: [{ user: payee, share: 60 }, { user: other, share: 40 }] });
    assert.equal(s.status, 201, s.text);
    const sid = s.body.data.id;
    for (const [u, share] of [[payee, '60'], [other, '40']]) {
      const added = await arrived('USER_ADDED_TO_SPLIT', sid, (e) => e.data.attributes.userId === u);
      assert.deepEqual(added.data.attributes, { splitId: sid, userId: u, share });
      assert.equal(added.data.resource.url, `/split/${sid}`);
    }
    assert.equal((await req('PUT', `/split/${sid}`, { split: [{ user: payee, share: 100 }] })).status, 200);
    const removed = await arrived('USER_REMOVED_FROM_SPLIT', sid);
    assert.deepEqual(removed.data.attributes, { splitId: sid, userId: other, share: '40' });
    assert.equal(rx.got.filter((g) => g.json.event === 'USER_REMOVED_FROM_SPLIT' && g.json.data.resource.id === sid).length, 1, 'the member who stays is not removed');
  });

  it('another workspace\'s endpoint receives none of them', async () => {
    await waitFor('workspace A\'s events dispatched', async () => !(await app.svc.db.owner('outbound_events').where({ tenant_id: a.tenantId, status: 'pending' }).first('id')));
    const theirs = await app.svc.db.owner('webhook_deliveries as d').join('webhook_endpoints as e', 'e.id', 'd.endpoint_id').where('e.tenant_id', b.tenantId).count<{ n: string }[]>({ n: '*' });
    assert.equal(Number(theirs[0]!.n), 0);
    assert.equal(rx.got.filter((g) => g.path === '/b').length, 0);
    assert.ok(rx.got.filter((g) => g.path === '/a').length > 20);
    assert.ok(rx.got.filter((g) => g.path === '/a').every((g) => g.json.tenant.id === a.workspaceId));
  });

  it('retries: a reference-envelope endpoint gets 3 attempts (maxAttempts 3), a Rondo endpoint keeps retrying', async () => {
    const ref = await req('POST', '/webhooks', { url: `${rx.base}/fail-ref`, events: ['ARTIST_CREATED'], envelope: 'reference' });
    const own = await req('POST', '/webhooks', { url: `${rx.base}/fail-rondo`, events: ['artist.created'] });
    assert.equal(ref.status, 201, ref.text);
    assert.equal(own.status, 201, own.text);
    assert.equal((await req('POST', '/artist', { name: 'Retry Band' })).status, 201);
    const list = async (endpointId: string) => (await req('GET', `/webhook-deliveries?endpointId=${endpointId}`)).body.data[0];
    const failed = await waitFor('the reference delivery failed', async () => { const d = await list(ref.body.data.id); return d?.status === 'failed' && d; });
    assert.equal(failed.attemptCount, 3);
    const bodies = rx.got.filter((g) => g.path === '/fail-ref').map((g) => g.json.delivery);
    assert.deepEqual(bodies.map((d) => [d.attempt, d.maxAttempts, d.nextRetryAt === null]), [[1, 3, false], [2, 3, false], [3, 3, true]]);
    const rondo = await waitFor('the Rondo delivery\'s third attempt', async () => { const d = await list(own.body.data.id); return d?.attemptCount >= 3 && d; });
    assert.equal(rondo.status, 'pending');
    assert.ok(rondo.nextAttemptAt, 'a fourth attempt is due');
  });
});

/**
 * The reference's PAYMENT_PROCESSING, ROYALTY_FILE_UPLOADED, ROYALTY_FILE_PROCESSED and
 * ROYALTY_FILE_PROCESSING_FAILED (docs/webhooks.md, "Events"):
 * a payment request approved in a workspace with a processor sends `payment.processing`; a
 * statement a person uploads sends `royalty.file.uploaded` (a duplicate too), a zip's members
 * none. Each reaches a local receiver under its reference name in the reference envelope.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { waitFor } from '../allocation/helpers';
import { webhookReceiver } from '../helpers/webhook-receiver';
import { startFakeProcessor, type FakeProcessor } from '../money/helpers';
import { fixture, seedRates, upload, waitChildren, waitFile } from '../ingest/helpers';
import { zipBuffers } from '../ingest/zip-writer';



describe('webhooks: PAYMENT_PROCESSING and ROYALTY_FILE_UPLOADED', function () {
  this.timeout(120_000);
  let app: TestApp;
  let fp: FakeProcessor;
  let a: TestTenant;
  let rx: Awaited<ReturnType<typeof webhookReceiver>>;
  const secret = 'sk_test_R_' + crypto.randomUUID().replace(/-/g, '');
  const admin = () => a.users.admin!.token;
  const req = (method: string, path: string, body?: unknown, token = admin()) => app.request(method, path, { token, body });
  const arrived = (event: string, id: string) =>
    waitFor(`${event} of ${id}`, async () => rx.got.find((g) => g.path === '/a' && g.json.event === event && g.json.data.resource.id === id)?.json);
  /** The outbox rows of `type` in workspace A naming file `fileId` (written in the transaction that registered the file). */
  const outboxed = async (type: string, fileId: string) =>
    Number((await app.svc.db.owner('outbound_events').where({ tenant_id: a.tenantId, type }).whereRaw("payload->>'fileId' = ?", [fileId]).count<{ n: string }[]>({ n: '*' }))[0]!.n);

  before(async () => {
    fp = await startFakeProcessor(() => [secret]);
    app = await startTestApp({ workers: true, config: { processorApiUrl: fp.url, webhooks: { timeoutMs: 1500, retryScale: 0.01, ratePerMinute: 1000, disableAfterSeconds: 86400, sweepSeconds: 0.2 } } });
    const god = (await app.svc.auth.createApiKey('god', { name: 'ops' })).token;
    a = await createTestTenant(app, 'RefSentA');
    await seedRates(app, a.tenantId); // the original must be read (a failed file is no original of a duplicate)
    assert.equal((await app.request('PUT', `/godmin/tenants/${a.tenantId}/subscription`, { token: god, body: { plan: 'pro', state: 'active' } })).status, 200);
    assert.equal((await req('POST', '/integrations/workspace', { secretKey: secret })).status, 201);
    rx = await webhookReceiver();
    const r = await req('POST', '/webhooks', { url: `${rx.base}/a`, events: ['PAYMENT_PROCESSING', 'ROYALTY_FILE_UPLOADED', 'ROYALTY_FILE_PROCESSED', 'ROYALTY_FILE_PROCESSING_FAILED'], envelope: 'reference' });
    assert.equal(r.status, 201, r.text);
  });
  after(async () => {
    await rx?.close();
    await app?.close();
    await fp?.close();
  });

  it('an approved request sent to the processor: PAYMENT_PROCESSING with the payment-status payload', async () => {
    const payee = a.users.user!.tenantUserId;
    assert.equal((await req('POST', '/revenue/', { title: 'Advance', amount: '100', currency: 'USD', splits: [{ user: payee, share: 100 }] })).status, 201);
    const setting = await req('POST', '/payment-setting', { method: 'processor', label: 'Bank', currency: 'USD', details: { accountNumber: '0123456789', bankCode: '058', accountName: 'Una User' } }, a.users.user!.token);
    assert.equal(setting.status, 201, setting.text);
    const q = (await req('POST', '/payment-request/', { amount: '12.5' }, a.users.user!.token)).body.data.id;
    const ok = await req('PATCH', `/payment-request/${q}/approve`, {});
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.payment.status, 'processing');
    const paymentId = ok.body.data.payment.id;
    const ev = await arrived('PAYMENT_PROCESSING', paymentId);
    assert.equal(ev.data.event.type, 'PAYMENT_PROCESSING');
    assert.equal(ev.data.event.category, 'payment');
    assert.deepEqual(ev.data.resource, { type: 'payment', id: paymentId, url: `/payment/${paymentId}`, displayName: null });
    assert.deepEqual(ev.data.attributes, { paymentId, userId: payee, amount: '12.5', currency: 'USD', status: 'processing', previousStatus: null, reason: null });
  });

  it('a statement a person uploads: ROYALTY_FILE_UPLOADED with id, name, size and duplicateOf; again as a duplicate', async () => {
    const bytes = fixture('believe-english.csv');
    const r = await upload(app, admin(), 'believe-english.csv', bytes);
    assert.equal(r.status, 201, r.text);
    const id = r.body.data.id;
    const ev = await arrived('ROYALTY_FILE_UPLOADED', id);
    assert.equal(ev.data.event.category, 'royalty');
    assert.deepEqual(ev.data.resource, { type: 'royalty_file', id, url: `/file/${id}`, displayName: 'believe-english.csv' });
    assert.deepEqual(ev.data.attributes, { fileId: id, name: 'believe-english.csv', size: bytes.length, duplicateOf: null });
    assert.equal((await waitFile(app, admin(), id)).status, 'processed');
    const again = await upload(app, admin(), 'believe-again.csv', bytes);
    assert.equal(again.status, 201, again.text);
    assert.deepEqual((await arrived('ROYALTY_FILE_UPLOADED', again.body.data.id)).data.attributes, { fileId: again.body.data.id, name: 'believe-again.csv', size: bytes.length, duplicateOf: id });
  });

  it('a statement read to its end: ROYALTY_FILE_PROCESSED; one its source cannot read: ROYALTY_FILE_PROCESSING_FAILED', async () => {
    const good = await upload(app, admin(), 'believe-processed.csv', Buffer.concat([fixture('believe-english.csv'), Buffer.from('\n\n\n\n')]));
    assert.equal(good.status, 201, good.text);
    assert.equal((await waitFile(app, admin(), good.body.data.id)).status, 'processed');
    const done = await arrived('ROYALTY_FILE_PROCESSED', good.body.data.id);
    assert.deepEqual([done.data.event.type, done.data.event.category, done.data.resource.type, done.data.resource.url], ['ROYALTY_FILE_PROCESSED', 'royalty', 'royalty_file', `/file/${good.body.data.id}`]);
    const bad = await upload(app, admin(), 'notes.csv', 'hello there\nnothing to read\n');
    assert.equal(bad.status, 201, bad.text);
    assert.equal((await waitFile(app, admin(), bad.body.data.id)).status, 'needs_confirmation');
    const confirmed = await req('POST', `/file/confirm-detection/${bad.body.data.id}`, { source: 'distrokid-2023', confirmed: true });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal((await waitFile(app, admin(), bad.body.data.id, ['processed', 'failed'])).status, 'failed');
    const failed = await arrived('ROYALTY_FILE_PROCESSING_FAILED', bad.body.data.id);
    assert.deepEqual([failed.data.event.type, failed.data.resource.id], ['ROYALTY_FILE_PROCESSING_FAILED', bad.body.data.id]);
    assert.equal(rx.got.filter((g) => g.json.event === 'ROYALTY_FILE_PROCESSED' && g.json.data.resource.id === bad.body.data.id).length, 0);
  });

  it('a zip sends one ROYALTY_FILE_UPLOADED, its members none', async () => {
    const zip = zipBuffers([
      { name: 'one.csv', data: Buffer.concat([fixture('believe-english.csv'), Buffer.from('\n\n\n')]) },
      { name: 'two.csv', data: fixture('tunecore-sales-report.csv').toString() + '\n\n\n' },
    ]);
    const r = await upload(app, admin(), 'bundle.zip', zip);
    assert.equal(r.status, 201, r.text);
    const kids = await waitChildren(app, admin(), r.body.data.id, 2);
    assert.deepEqual((await arrived('ROYALTY_FILE_UPLOADED', r.body.data.id)).data.attributes, { fileId: r.body.data.id, name: 'bundle.zip', size: zip.length, duplicateOf: null });
    assert.equal(await outboxed('royalty.file.uploaded', r.body.data.id), 1);
    for (const k of kids) assert.equal(await outboxed('royalty.file.uploaded', k.id), 0, `member ${k.fileName}`);
  });
});

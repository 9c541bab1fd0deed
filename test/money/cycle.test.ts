import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { PDFParse } from 'pdf-parse';
import Papa from 'papaparse';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { clock } from '../../src/lib/clock';
import { allocateFile, deliver, same, startFakeProcessor, transferEvent, uuid, type FakeProcessor } from './helpers';
import { printAmount } from '../../src/modules/money/statement-pdf';

/**
 * The whole money cycle through real HTTP: allocated earnings → ledger → due; a recoupable
 * expense eating the first earnings; payment requests approved and refused; the processor
 * (a local fake server) paid, failed and reversed through signed webhooks; redelivery.
 */
describe('money: full cycle', function () {
  let app: TestApp;
  let fp: FakeProcessor;
  let a: TestTenant;
  let b: TestTenant;
  const secretA = 'sk_test_A_' + uuid().replace(/-/g, '');
  const secretB = 'sk_test_B_' + uuid().replace(/-/g, '');
  let payee: string;
  let admin: string;
  const artistX = uuid();
  const productP = uuid();
  const file1 = uuid();
  const file2 = uuid();
  let expenseId: string;

  const due = async (who = payee, token?: string) => {
    const r = await app.request('GET', `/accounting/getcurrentdue?userId=${who}`, { token: token ?? a.users.admin!.token });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as { due: string; pendingRequests: string; available: string };
  };
  const ledgerCount = async () => withTenant(app.svc.db.app, a.tenantId, async (trx) => Number((await trx('ledger_entries').count({ n: '*' }))[0]!.n));

  before(async () => {
    fp = await startFakeProcessor(() => [secretA, secretB]);
    app = await startTestApp({ config: { processorApiUrl: fp.url } });
    a = await createTestTenant(app, 'MoneyA');
    b = await createTestTenant(app, 'MoneyB');
    payee = a.users.user!.tenantUserId;
    admin = a.users.admin!.tenantUserId;
    clock.freeze(new Date('2026-11-20T12:00:00Z'));
    await withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      await trx('artists').insert({ tenant_id: a.tenantId, id: artistX, name: 'Artist X' });
      await trx('products').insert({ tenant_id: a.tenantId, id: productP, title: 'Night Album', upc: '0000000000017' });
    });
  });
  after(async () => {
    clock.reset();
    await app.close();
    await fp.close();
  });

  it('stores the processor secret encrypted and shows it only masked', async () => {
    const r = await app.request('POST', '/integrations/workspace', { token: a.users.admin!.token, body: { secretKey: secretA } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.hasSecret, true);
    assert.equal(r.body.data.secretHint, `…${secretA.slice(-4)}`);
    assert.ok(!JSON.stringify(r.body).includes(secretA.slice(0, 12)));
    const g = await app.request('GET', '/integrations/workspace', { token: a.users.owner!.token });
    assert.equal(g.body.data.hasSecret, true);
    assert.ok(g.body.data.secretUpdatedAt);
    assert.ok(!g.text.includes(secretA));
    const row = await app.svc.db.owner('processor_integrations').where({ tenant_id: a.tenantId }).first();
    assert.ok(!row.secret_sealed.includes(secretA));
    assert.equal((await app.request('GET', '/integrations/workspace', { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('POST', '/integrations/workspace', { token: a.users.user!.token, body: { secretKey: 'x'.repeat(20) } })).status, 403);
    assert.equal((await app.request('POST', '/integrations/workspace', { token: b.users.admin!.token, body: { secretKey: secretB } })).status, 201);
    const info = await app.request('GET', '/integrations/workspace/info', { token: a.users.admin!.token });
    assert.equal(info.body.data.referencePrefix, `rondo_${a.workspaceId.replace(/-/g, '')}_`);
  });

  it('a recoupable expense on an artist eats the first earnings on that artist, nothing else', async () => {
    const e = await app.request('POST', '/expense/', {
      token: a.users.admin!.token,
      body: { user: payee, title: 'Video shoot', amount: 30, currency: 'USD', date: '2026-09-15', recoupable: true, targetType: 'artist', targetId: artistX },
    });
    assert.equal(e.status, 201, JSON.stringify(e.body));
    expenseId = e.body.data.id;
    assert.equal(e.body.data.recouped, '0');
    const posted = await allocateFile(app, a.tenantId, file1, [
      { payee, amount: '25', artistId: artistX, productId: productP, dsp: 'Spotify' },
      { payee, amount: '10', dsp: 'Apple Music' },
      { payee: admin, amount: '5', artistId: artistX },
    ]);
    assert.deepEqual(posted, { royaltyEntries: 2, recoupEntries: 1 });
    const d = await due();
    assert.ok(same(d.due, '10'), `due ${d.due}`); // 35 earned − 25 recouped
    assert.ok(same((await due(admin)).due, '5')); // someone else's earnings on the artist are untouched
    const ex = await app.request('GET', `/expense/${expenseId}`, { token: a.users.user!.token });
    assert.equal(ex.body.data.recouped, '25');
    assert.equal(ex.body.data.unrecouped, '5');
    // the next period's earnings on the artist recoup the remaining 5
    await allocateFile(app, a.tenantId, file2, [{ payee, amount: '20', artistId: artistX, period: '2026-11' }]);
    assert.ok(same((await due()).due, '25'));
    // posting a file again posts nothing (idempotent)
    const n = await ledgerCount();
    assert.deepEqual(await allocateFile(app, a.tenantId, file1, []), { royaltyEntries: 0, recoupEntries: 0 });
    assert.equal(await ledgerCount(), n);
  });

  it('re-allocation of a file posts only the difference', async () => {
    // file2 re-allocated: 20 → 22 on the artist
    const r = await allocateFile(app, a.tenantId, file2, [{ payee, amount: '22', artistId: artistX, period: '2026-11' }], { supersedePrevious: true });
    assert.deepEqual(r, { royaltyEntries: 1, recoupEntries: 0 });
    assert.ok(same((await due()).due, '27'));
    const t = await app.request('GET', `/accounting/transactions?userId=${payee}&kind=royalty`, { token: a.users.admin!.token });
    // one royalty entry per (file, payee, period); the re-allocation added a +2 correction
    assert.deepEqual(t.body.data.map((x: { amount: string }) => x.amount).sort(), ['2', '20', '35']);
    // back to 20
    await allocateFile(app, a.tenantId, file2, [{ payee, amount: '20', artistId: artistX, period: '2026-11' }], { supersedePrevious: true });
    assert.ok(same((await due()).due, '25'));
    const all = await app.request('GET', `/accounting/transactions?userId=${payee}&kind=royalty`, { token: a.users.admin!.token });
    assert.deepEqual(all.body.data.map((x: { amount: string }) => x.amount).sort(), ['-2', '2', '20', '35']);
  });

  it('a payment request above what is due is refused; within it, approved and sent to the processor', async () => {
    const tooMuch = await app.request('POST', '/payment-request/', { token: a.users.user!.token, body: { amount: 30 } });
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.status, 'error');
    const setting = await app.request('POST', '/payment-setting', {
      token: a.users.user!.token,
      body: { method: 'processor', label: 'My bank', currency: 'USD', details: { accountNumber: '0123456789', bankCode: '058', accountName: 'Una User' } },
    });
    assert.equal(setting.status, 201, JSON.stringify(setting.body));
    assert.deepEqual(setting.body.data.details, { accountNumber: '…6789', bankCode: '…', accountName: '…User' });
    const row = await app.svc.db.owner('payment_settings').where({ id: setting.body.data.id }).first();
    assert.ok(!row.details_sealed.includes('0123456789'));
    const req = await app.request('POST', '/payment-request/', { token: a.users.user!.token, body: { amount: 20, memo: 'November payout' } });
    assert.equal(req.status, 201, JSON.stringify(req.body));
    assert.equal(req.body.data.status, 'pending');
    const d = await due();
    assert.ok(same(d.available, '5') && same(d.pendingRequests, '20'));
    assert.equal((await app.request('POST', '/payment-request/', { token: a.users.user!.token, body: { amount: 6 } })).status, 400);
    assert.equal((await app.request('PATCH', `/payment-request/${req.body.data.id}/approve`, { token: a.users.user!.token, body: {} })).status, 403);
    const ok = await app.request('PATCH', `/payment-request/${req.body.data.id}/approve`, { token: a.users.admin!.token, body: {} });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.data.status, 'approved');
    assert.equal(ok.body.data.payment.status, 'processing');
    const ref = `rondo_${a.workspaceId.replace(/-/g, '')}_${ok.body.data.payment.id.replace(/-/g, '')}`;
    assert.equal(ok.body.data.payment.reference, ref);
    const t = fp.transfers.find((x) => x.reference === ref)!;
    assert.ok(t, 'the processor received the transfer');
    assert.equal(t.amount, 2000);
    assert.equal(t.auth, `Bearer ${secretA}`);
    assert.deepEqual(t.recipient, { method: 'processor', accountNumber: '0123456789', bankCode: '058', accountName: 'Una User' });
    assert.equal(ok.body.data.payment.processorTransferId, String(t.id));
    assert.ok(same((await due()).due, '5'));
  });

  it('webhook: missing or bad signatures and unknown references are refused and change nothing', async () => {
    const p = (await app.request('GET', `/payment/?user=${payee}&status=processing`, { token: a.users.admin!.token })).body.data[0];
    const t = fp.transfers.find((x) => x.reference === p.reference)!;
    const ev = transferEvent('transfer.success', t);
    const before = await ledgerCount();
    const checks: [string, Awaited<ReturnType<typeof deliver>>, number, string][] = [
      ['missing', await deliver(app, ev, null), 401, 'MISSING_SIGNATURE'],
      ['garbage', await deliver(app, ev, null, { signature: 'deadbeef' }), 401, 'INVALID_SIGNATURE'],
      ['other workspace secret', await deliver(app, ev, secretB), 401, 'INVALID_SIGNATURE'],
      // signed over different bytes than those sent (re-serialised body)
      ['other bytes', await deliver(app, ev, null, { raw: JSON.stringify(ev, null, 2), signature: (await import('../../src/modules/money/processor')).signBody(JSON.stringify(ev), secretA) }), 401, 'INVALID_SIGNATURE'],
      ['unknown reference', await deliver(app, transferEvent('transfer.success', { ...t, reference: `rondo_${a.workspaceId.replace(/-/g, '')}_${uuid().replace(/-/g, '')}` }), secretA), 404, 'UNKNOWN_REFERENCE'],
      ['foreign format', await deliver(app, transferEvent('transfer.success', { ...t, reference: 'TRX-123' }), secretA), 404, 'UNKNOWN_REFERENCE'],
      ['over 1 MiB', await deliver(app, ev, secretA, { raw: JSON.stringify({ ...ev, pad: 'x'.repeat(1024 * 1024) }) }), 400, 'PAYLOAD_TOO_LARGE'],
      ['unknown workspace', await deliver(app, transferEvent('transfer.success', { ...t, reference: `rondo_${uuid().replace(/-/g, '')}_${uuid().replace(/-/g, '')}` }), secretA), 404, 'UNKNOWN_REFERENCE'],
    ];
    for (const [name, r, status, code] of checks) {
      assert.equal(r.status, status, `${name}: ${r.text}`);
      assert.equal(r.body.status, 'error', name);
      assert.equal(r.body.code, code, name);
      assert.equal(typeof r.body.message, 'string');
      assert.equal(typeof r.body.details, 'object');
    }
    assert.equal(await ledgerCount(), before);
    assert.equal((await app.request('GET', `/payment/${p.id}`, { token: a.users.admin!.token })).body.data.status, 'processing');
  });

  it('transfer.success completes the payment (once); transfer.reversed restores what is due', async () => {
    const p = (await app.request('GET', `/payment/?user=${payee}&status=processing`, { token: a.users.admin!.token })).body.data[0];
    const t = fp.transfers.find((x) => x.reference === p.reference)!;
    const ev = transferEvent('transfer.success', t);
    const r = await deliver(app, ev, secretA);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { status: 'success', event: 'transfer.success' });
    const done = (await app.request('GET', `/payment/${p.id}`, { token: a.users.user!.token })).body.data;
    assert.equal(done.status, 'completed');
    assert.equal(done.completedAt, '2026-11-05T10:00:00.000Z');
    const reqAfter = (await app.request('GET', `/payment-request/${done.paymentRequestId}`, { token: a.users.user!.token })).body.data;
    assert.equal(reqAfter.status, 'paid');
    const n = await ledgerCount();
    const again = await deliver(app, ev, secretA);
    assert.equal(again.status, 200);
    assert.equal(await ledgerCount(), n, 'a redelivered event changes nothing');
    assert.ok(same((await due()).due, '5'));

    const rev = transferEvent('transfer.reversed', t);
    assert.equal((await deliver(app, rev, secretA)).status, 200);
    const reversed = (await app.request('GET', `/payment/${p.id}`, { token: a.users.admin!.token })).body.data;
    assert.equal(reversed.status, 'reversed');
    assert.equal(reversed.reason, 'Account closed');
    assert.ok(same((await due()).due, '25'), 'reversal restores what is due');
    const back = (await app.request('GET', `/payment-request/${done.paymentRequestId}`, { token: a.users.user!.token })).body.data;
    assert.equal(back.status, 'pending');
    const kinds = (await app.request('GET', `/accounting/transactions?userId=${payee}&kind=reversal`, { token: a.users.admin!.token })).body.data;
    assert.equal(kinds.length, 1);
    assert.equal(kinds[0].amount, '20');
    const n2 = await ledgerCount();
    assert.equal((await deliver(app, rev, secretA)).status, 200);
    assert.equal(await ledgerCount(), n2);
  });

  it('transfer.failed and a refusing processor both put the money and the request back', async () => {
    const reqId = (await app.request('GET', `/payment-request/?status=pending`, { token: a.users.user!.token })).body.data[0].id;
    const ok = await app.request('PATCH', `/payment-request/${reqId}/approve`, { token: a.users.admin!.token, body: {} });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(same((await due()).due, '5'));
    const t = fp.transfers.find((x) => x.reference === ok.body.data.payment.reference)!;
    assert.equal((await deliver(app, transferEvent('transfer.failed', t), secretA)).status, 200);
    assert.equal((await app.request('GET', `/payment/${ok.body.data.payment.id}`, { token: a.users.admin!.token })).body.data.status, 'failed');
    assert.ok(same((await due()).due, '25'));
    assert.equal((await app.request('GET', `/payment-request/${reqId}`, { token: a.users.admin!.token })).body.data.status, 'pending');

    fp.mode = 'refuse';
    const refused = await app.request('PATCH', `/payment-request/${reqId}/approve`, { token: a.users.admin!.token, body: {} });
    fp.mode = 'ok';
    assert.equal(refused.status, 200);
    assert.equal(refused.body.data.status, 'pending');
    assert.equal(refused.body.data.payment.status, 'failed');
    assert.match(refused.body.data.payment.reason, /Insufficient balance/);
    assert.ok(same((await due()).due, '25'));
  });

  it('approval re-checks what is due under a lock: two approvals cannot spend the same balance', async () => {
    // pending: 20 (from before). A manual payment of 10 leaves 15 due: approving 20 is refused.
    const reqId = (await app.request('GET', `/payment-request/?status=pending`, { token: a.users.user!.token })).body.data[0].id;
    const manual = await app.request('POST', '/payment/', { token: a.users.admin!.token, body: { user: payee, currency: 'USD', amount: 10, title: 'Cash advance' } });
    assert.equal(manual.status, 201, JSON.stringify(manual.body));
    const refused = await app.request('PATCH', `/payment-request/${reqId}/approve`, { token: a.users.admin!.token, body: {} });
    assert.equal(refused.status, 400);
    assert.match(JSON.stringify(refused.body), /exceeds what is due/);
    await app.request('DELETE', `/payment-request/${reqId}`, { token: a.users.user!.token });
    // two requests of 10 against 15 due, approved at the same time: exactly one goes through
    const r1 = (await app.request('POST', '/payment-request/', { token: a.users.user!.token, body: { amount: 10 } })).body.data.id;
    const r2 = (await app.request('POST', '/payment-request/', { token: a.users.admin!.token, body: { amount: 5, user: payee } })).body.data.id;
    // make room for the race: the admin books another 5-advance after both requests exist
    await app.request('POST', '/payment/', { token: a.users.admin!.token, body: { user: payee, currency: 'USD', amount: 3 } });
    const [x, y] = await Promise.all([
      app.request('PATCH', `/payment-request/${r1}/approve`, { token: a.users.admin!.token, body: {} }),
      app.request('PATCH', `/payment-request/${r2}/approve`, { token: a.users.owner!.token, body: {} }),
    ]);
    assert.deepEqual([x.status, y.status].sort(), [200, 400], `${x.text} ${y.text}`);
    const left = await due();
    assert.ok(Number(left.due) >= 0, `due never negative: ${left.due}`);
  });

  it('payee statement: JSON, CSV and PDF agree', async () => {
    const j = await app.request('GET', `/accounting/statement/${payee}?period=2026-10`, { token: a.users.user!.token });
    assert.equal(j.status, 200, j.text);
    const s = j.body.data;
    assert.equal(s.openingBalance, '0');
    assert.equal(s.royaltiesTotal, '35');
    assert.equal(s.recoupedTotal, '-25', 'signed by its effect on the balance');
    assert.equal(s.closingBalance, '10');
    assert.equal(s.status, 'live');
    // the live statement has the issued one's shape: recordings in cents adding up to the royalties
    assert.equal(s.recordings.reduce((t: Decimal, r: { amount: string }) => t.plus(r.amount), new Decimal(0)).toFixed(), '35');
    assert.equal(s.recouped[0].title, 'Video shoot');
    const nov = (await app.request('GET', `/accounting/statement/${payee}?period=2026-11`, { token: a.users.admin!.token })).body.data;
    assert.equal(nov.openingBalance, '10');
    assert.equal(nov.royaltiesTotal, '20');
    assert.equal(nov.recoupedTotal, '-5');
    assert.ok(same(nov.closingBalance, (await due()).due));
    const csv = await app.request('GET', `/accounting/statement/${payee}?period=2026-11&format=csv`, { token: a.users.user!.token });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /text\/csv/);
    const rows = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true }).data;
    assert.equal(rows.find((r) => r.section === 'opening_balance')!.amount, '10.00');
    assert.equal(rows.find((r) => r.section === 'closing_balance')!.amount, new Decimal(nov.closingBalance).toFixed(2));
    assert.equal(rows.find((r) => r.section === 'recouped_total')!.amount, '-5.00');
    const pdfRes = await fetch(`${app.url}/accounting/statement/${payee}?period=2026-11&format=pdf`, { headers: { authorization: `Bearer ${a.users.user!.token}` } });
    assert.equal(pdfRes.status, 200);
    assert.equal(pdfRes.headers.get('content-type'), 'application/pdf');
    const pdf = Buffer.from(await pdfRes.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    const text = (await new PDFParse({ data: pdf }).getText()).text;
    assert.match(text, /Royalty statement/);
    assert.match(text, /NOT ISSUED/);
    assert.match(text, /2026-11 \(2026-11-01 to 2026-11-30\)/);
    assert.ok(text.includes(`Closing balance ${printAmount(new Decimal(nov.closingBalance).toFixed(2))}`), text);
    assert.ok(text.includes(`Opening balance ${printAmount('10.00')}`), text);
    assert.match(text, /Closing balance/);
    // members read only their own statement; other workspaces not at all
    assert.equal((await app.request('GET', `/accounting/statement/${admin}?period=2026-11`, { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('GET', `/accounting/statement/${payee}?period=2026-11`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await app.request('GET', `/accounting/statement/${payee}?period=2026-11`, { token: a.users.guest!.token })).status, 403);
  });

  it('refresh re-derives nothing when nothing changed; refreshstats reports the identities', async () => {
    const n = await ledgerCount();
    const r = await app.request('GET', '/accounting/refresh', { token: a.users.admin!.token });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.posted, { royalty: 0, revenue: 0, payment: 0, recoupment: 0, recovery: 0 });
    assert.equal(await ledgerCount(), n);
    const s = await app.request('GET', '/accounting/refreshstats', { token: a.users.admin!.token });
    assert.equal(s.body.data.consistent, true, JSON.stringify(s.body));
    assert.equal(s.body.data.royaltiesAllocated, '60');
    assert.equal((await app.request('GET', '/accounting/refresh', { token: a.users.user!.token })).status, 403);
  });
});

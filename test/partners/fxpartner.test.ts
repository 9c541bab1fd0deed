import assert from 'node:assert/strict';
import type { TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { syncAllFxPayouts, syncFxPayouts } from '../../src/modules/partners/fx-payouts';
import { signFx } from '../../src/sandbox/fxpartner';
import { planTenant, startPartnerRun, type PartnerRun } from './helpers';

/**
 * The FX payout partner against the sandbox: connection, wallets (paging), beneficiaries and
 * links, purpose codes, payout requests v1/v2 with idempotency, callbacks (duplicated, out
 * of order, forged), polling, failure injection (timeout, 5xx) and the ledger.
 */
describe('partners: FX payout partner', function () {
  let run: PartnerRun;
  let a: TestTenant;
  let b: TestTenant;
  const keyA = 'fxk_live_' + 'A1b2C3d4E5f6G7h8';
  const keyA2 = 'fxk_live_' + 'rotated9Z8y7X6w5';
  const keyB = 'fxk_live_' + 'B9b8B7b6B5b4B3b2';
  const base = '/integrations/fxpartner';
  let benLinked: string;
  let benFree: string;
  let payee: string;

  const admin = () => a.users.admin!.token;
  const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => run.app.request(method, path, { token: admin(), body, headers });
  const fxRow = (id: string) => withTenant(run.app.svc.db.app, a.tenantId, (trx) => trx('fx_payment_requests').where({ id }).first());
  const ledger = (user: string) =>
    withTenant(run.app.svc.db.app, a.tenantId, (trx) => trx('ledger_entries').where({ tenant_user_id: user, source_type: 'payment' }).orderBy('id').select('kind', trx.raw('amount::text AS amount')));
  const payoutBody = (over: Record<string, unknown> = {}) => ({ beneficiaryId: benLinked, amount: 100.25, currency: 'EUR', walletId: '2', reference: 'Q3 royalties', memo: 'Thanks', ...over });

  before(async () => {
    run = await startPartnerRun();
    a = await planTenant(run.app, 'FxA');
    b = await planTenant(run.app, 'FxB', 'enterprise');
    payee = a.users.user!.tenantUserId;
  });
  after(async () => run.close());

  it('connects with an API key: checked with the partner, stored encrypted, answered masked', async () => {
    for (const role of ['user', 'guest']) assert.equal((await run.app.request('POST', base, { token: a.users[role]!.token, body: { apiKey: keyA } })).status, 403);
    const r = await req('POST', base, { apiKey: keyA, label: 'Main' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.hasApiKey, true);
    assert.equal(r.body.data.apiKeyHint, `…${keyA.slice(-4)}`);
    assert.equal(r.body.data.webhookUrl, `${run.app.url}/integrations/fxpartner/webhook/${a.workspaceId}`);
    const acct = run.sb.fxpartner.accounts.get(keyA)!;
    assert.equal(acct.webhookUrl, r.body.data.webhookUrl, 'the callback URL is registered with the partner');
    const row = await run.app.svc.db.owner('fx_integrations').where({ tenant_id: a.tenantId }).first();
    assert.ok(!JSON.stringify(row).includes(keyA));
    assert.equal(run.app.svc.secrets.open(row.api_key_sealed), keyA);
    const all = await req('GET', `${base}/all`);
    assert.equal(all.body.data[0].configured, true);
    const info = await run.app.request('GET', `${base}/info`, { token: a.users.user!.token });
    assert.equal(info.status, 200);
    assert.equal(info.body.data.available, true);
    assert.equal(info.body.data.connected, true);
    assert.equal((await run.app.request('GET', `${base}/all`, { token: b.users.admin!.token })).body.data[0].configured, false);
  });

  it('update rotates the key; delete disconnects; PUT without a connection is 404', async () => {
    const r = await req('PUT', base, { apiKey: keyA2 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.apiKeyHint, `…${keyA2.slice(-4)}`);
    assert.equal((await req('PUT', base, {})).status, 400);
    assert.equal((await req('DELETE', base)).status, 200);
    assert.equal((await req('DELETE', base)).status, 404);
    assert.equal((await req('PUT', base, { isEnabled: true })).status, 404);
    assert.equal((await req('GET', `${base}/wallets`)).status, 404);
    assert.equal((await req('POST', base, { apiKey: keyA })).status, 201);
    assert.equal((await run.app.request('POST', base, { token: b.users.owner!.token, body: { apiKey: keyB } })).status, 201);
  });

  it('wallets: page 1 and size 10 by default, at most 50 (51 is refused)', async () => {
    const r = await req('GET', `${base}/wallets`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.success, true);
    assert.deepEqual(r.body.pagination, { page: 1, size: 10, total: 12 });
    assert.equal(r.body.data.length, 10);
    assert.deepEqual(r.body.data[0], { id: 1, customReferenceLabel: 'USD wallet', currency: 'USD', balance: '250000.00' });
    const p2 = await req('GET', `${base}/wallets?page=2`);
    assert.deepEqual(p2.body.pagination, { page: 2, size: 10, total: 12 });
    assert.deepEqual(p2.body.data.map((w: any) => w.id), [11, 12]);
    assert.equal((await req('GET', `${base}/wallets?size=50`)).body.data.length, 12);
    const big = await req('GET', `${base}/wallets?size=51`);
    assert.equal(big.status, 400);
    assert.equal(big.body.status, 'error');
    assert.equal((await req('GET', `${base}/wallets?page=0`)).status, 400);
  });

  it('a partner that fails (5xx) answers 500 in the status shape; the next call works', async () => {
    run.sb.fxpartner.inject({ kind: '5xx', match: 'GET /v1/wallets' });
    const r = await req('GET', `${base}/wallets`);
    assert.equal(r.status, 500);
    assert.equal(r.body.status, 'error');
    assert.equal((await req('GET', `${base}/wallets`)).status, 200);
  });

  it('beneficiaries: create, read, update, list, delete; link to a member and unlink', async () => {
    const c = await req('POST', `${base}/beneficiaries`, { name: 'Una User', currency: 'EUR', country: 'DE', accountNumber: 'DE89370400440532013000' });
    assert.equal(c.status, 201, c.text);
    benLinked = c.body.data.id;
    benFree = (await req('POST', `${base}/beneficiaries`, { name: 'Free Lancer', currency: 'GBP', country: 'GB', accountNumber: '12345678', bankCode: '400515' })).body.data.id;
    assert.equal((await req('POST', `${base}/beneficiaries`, { name: 'No account', currency: 'EUR', country: 'DE' })).status, 400);
    const u = await req('PUT', `${base}/beneficiaries/${benFree}`, { bankName: 'Lloyds' });
    assert.equal(u.body.data.bankName, 'Lloyds');
    const link = await req('POST', `${base}/beneficiaries/link`, { beneficiaryId: benLinked, userId: payee });
    assert.equal(link.status, 200, link.text);
    const g = await req('GET', `${base}/beneficiaries/${benLinked}`);
    assert.equal(g.body.data.linkedUserId, payee);
    assert.equal(g.body.data.accountNumber, 'DE89370400440532013000');
    const list = await req('GET', `${base}/beneficiaries`);
    assert.deepEqual(list.body.data.map((x: any) => [x.id, x.linkedUserId]), [[benLinked, payee], [benFree, null]]);
    // a member of another workspace, an unknown beneficiary
    assert.equal((await req('POST', `${base}/beneficiaries/link`, { beneficiaryId: benFree, userId: b.users.user!.tenantUserId })).status, 404);
    assert.equal((await req('POST', `${base}/beneficiaries/link`, { beneficiaryId: 'ben_999', userId: payee })).status, 404);
    assert.equal((await req('POST', `${base}/beneficiaries/link`, { beneficiaryId: benFree, userId: payee })).status, 200);
    assert.equal((await req('DELETE', `${base}/beneficiaries/${benFree}/unlink`)).status, 200);
    assert.equal((await req('DELETE', `${base}/beneficiaries/${benFree}/unlink`)).status, 404);
    // another workspace's account at the partner does not hold ours
    assert.equal((await run.app.request('GET', `${base}/beneficiaries/${benLinked}`, { token: b.users.admin!.token })).status, 404);
    const tmp = (await req('POST', `${base}/beneficiaries`, { name: 'Tmp', currency: 'USD', country: 'US', accountNumber: '999' })).body.data.id;
    assert.equal((await req('DELETE', `${base}/beneficiaries/${tmp}`)).status, 200);
    assert.equal((await req('GET', `${base}/beneficiaries/${tmp}`)).status, 404);
  });

  it('purpose codes come from the partner', async () => {
    const r = await req('GET', `${base}/purpose-codes`);
    assert.equal(r.status, 200);
    assert.ok(r.body.data.some((p: any) => p.code === 'ROY'));
  });

  let first: string;
  it('v1 payment request: created pending with an idempotency key sent to the partner', async () => {
    const r = await req('POST', `${base}/payment-requests`, payoutBody());
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['data', 'message', 'success']);
    assert.equal(r.body.success, true);
    assert.equal(r.body.data.status, 'pending');
    first = r.body.data.paymentId;
    const row = await fxRow(first);
    const sent = run.sb.fxpartner.requests.filter((q) => q.method === 'POST' && q.path === '/v1/payouts');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.headers['idempotency-key'], row.idempotency_key);
    assert.equal(sent[0]!.body.amount, '100.25', 'amounts travel as exact decimal strings');
    assert.equal(sent[0]!.body.external_id, first);
    const g = await req('GET', `${base}/payment-requests/${first}`);
    assert.equal(g.body.data.status, 'pending');
    assert.equal(g.body.data.userId, payee);
    assert.equal(g.body.data.submitted, true);
    assert.equal((await run.app.request('GET', `${base}/payment-requests/${first}`, { token: b.users.admin!.token })).status, 404);
  });

  it('a duplicated completion callback pays once: one payment, one ledger entry, exact decimals', async () => {
    const pid = (await fxRow(first)).partner_payment_id;
    await run.sb.fxpartner.settle(pid, 'processing');
    assert.equal((await fxRow(first)).status, 'processing');
    await run.sb.fxpartner.settle(pid, 'completed', { duplicate: true });
    const cbs = run.sb.fxpartner.callbacks.filter((c) => c.body.data.id === pid && c.body.data.status === 'completed');
    assert.equal(cbs.length, 2);
    assert.deepEqual(cbs.map((c) => c.status), [200, 200]);
    const row = await fxRow(first);
    assert.equal(row.status, 'completed');
    assert.ok(row.payment_id);
    // 100.25 EUR at 1.08 USD/EUR (the workspace's base currency is USD)
    assert.deepEqual(await ledger(payee), [{ kind: 'payment', amount: '-108.270000000000' }]);
    const pays = await withTenant(run.app.svc.db.app, a.tenantId, (trx) => trx('payments').where({ tenant_user_id: payee }).select('id', 'status', trx.raw('amount::text AS amount')));
    assert.equal(pays.length, 1);
    assert.equal(pays[0].status, 'completed');
    assert.equal(pays[0].amount, '100.250000000000');
  });

  it('an out-of-order (stale) callback does not move a payout back', async () => {
    const r = await req('POST', `${base}/payment-requests`, payoutBody({ amount: '20', reference: 'ooo' }));
    const id = r.body.data.paymentId;
    const pid = (await fxRow(id)).partner_payment_id;
    await run.sb.fxpartner.settle(pid, 'completed', { staleAfter: true });
    assert.equal(run.sb.fxpartner.callbacks.at(-1)!.body.data.status, 'processing');
    assert.equal((await fxRow(id)).status, 'completed');
    assert.equal((await ledger(payee)).length, 2);
  });

  it('a forged, unsigned or other-workspace-signed callback is refused and changes nothing', async () => {
    const r = await req('POST', `${base}/payment-requests`, payoutBody({ amount: '5', reference: 'forged' }));
    const id = r.body.data.paymentId;
    const pid = (await fxRow(id)).partner_payment_id;
    const raw = JSON.stringify({ id: 'evt_forged', type: 'payout.updated', data: { id: pid, external_id: id, status: 'completed' } });
    const hook = `/integrations/fxpartner/webhook/${a.workspaceId}`;
    const post = (sig?: string) => run.app.request('POST', hook, { raw, headers: { 'content-type': 'application/json', ...(sig ? { 'x-fxpartner-signature': sig } : {}) } });
    assert.equal((await post()).status, 401);
    assert.equal((await post(signFx(raw, keyB))).status, 401);
    assert.equal((await post('t=1,v1=' + '0'.repeat(64))).status, 401, 'stale timestamp');
    assert.equal((await post(signFx(raw + ' ', keyA))).status, 401);
    const elsewhere = (ws: string) => run.app.request('POST', `/integrations/fxpartner/webhook/${ws}`, { raw, headers: { 'content-type': 'application/json', 'x-fxpartner-signature': signFx(raw, keyA) } });
    assert.equal((await elsewhere('00000000-0000-4000-8000-000000000000')).status, 401, 'an unknown workspace looks like a bad signature');
    assert.equal((await elsewhere(b.workspaceId)).status, 401, 'signed with A’s key, sent to B');
    assert.equal((await fxRow(id)).status, 'pending');
    // signed, but holding what Postgres cannot store: a 400, not a 500
    const nul = JSON.stringify({ id: 'evt_nul\u0000', type: 'payout.updated', data: { id: pid, status: 'completed' } });
    const bad = await run.app.request('POST', hook, { raw: nul, headers: { 'content-type': 'application/json', 'x-fxpartner-signature': signFx(nul, keyA) } });
    assert.equal(bad.status, 400, bad.text);
    const ok = await post(signFx(raw, keyA));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.applied, true);
    assert.equal((await fxRow(id)).status, 'completed');
  });

  it('a timeout on create, then success: the retry uses the same key and the partner pays once', async () => {
    run.sb.fxpartner.inject({ kind: 'timeout', match: 'POST /v1/payouts' });
    const before = run.sb.fxpartner.payouts().length;
    const r = await req('POST', `${base}/payment-requests`, payoutBody({ amount: '7.5', reference: 'timeout' }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.status, 'pending');
    const id = r.body.data.paymentId;
    let row = await fxRow(id);
    assert.equal(row.submitted, false);
    assert.match(row.last_error, /did not answer/);
    assert.equal(run.sb.fxpartner.payouts().length, before + 1, 'the partner did make the payout');
    const out = await syncFxPayouts(run.app.svc, a.tenantId);
    assert.equal(out.resent, 1);
    row = await fxRow(id);
    assert.equal(row.submitted, true);
    assert.equal(run.sb.fxpartner.payouts().length, before + 1, 'no second payout');
    const keys = run.sb.fxpartner.requests.filter((q) => q.method === 'POST' && q.path === '/v1/payouts' && q.body.external_id === id).map((q) => q.headers['idempotency-key']);
    assert.deepEqual(keys, [row.idempotency_key, row.idempotency_key]);
    await run.sb.fxpartner.settle(row.partner_payment_id, 'completed');
    assert.equal((await fxRow(id)).status, 'completed');
    assert.equal((await ledger(payee)).length, 4);
  });

  it('a 5xx on create leaves the request pending; polling resends it; a silent completion is found by polling', async () => {
    run.sb.fxpartner.inject({ kind: '5xx', match: 'POST /v1/payouts', status: 502 });
    const r = await req('POST', `${base}/payment-requests`, payoutBody({ amount: '3', reference: 'five-oh-two' }));
    assert.equal(r.status, 201);
    const id = r.body.data.paymentId;
    assert.equal((await fxRow(id)).submitted, false);
    // the job's entry point: every workspace with open requests
    await syncAllFxPayouts(run.app.svc);
    const row = await fxRow(id);
    assert.equal(row.submitted, true);
    await run.sb.fxpartner.settle(row.partner_payment_id, 'completed', { silent: true });
    assert.equal((await fxRow(id)).status, 'pending');
    const out = await syncFxPayouts(run.app.svc, a.tenantId);
    assert.equal(out.changed, 1);
    assert.equal((await fxRow(id)).status, 'completed');
    assert.equal((await ledger(payee)).length, 5);
  });

  it('a client retry with the same Idempotency-Key answers the same request; another body with it is refused', async () => {
    const h = { 'idempotency-key': 'client-retry-0001' };
    const r1 = await req('POST', `${base}/payment-requests`, payoutBody({ amount: 12, reference: 'retry' }), h);
    const r2 = await req('POST', `${base}/payment-requests`, payoutBody({ amount: '12.00', reference: 'retry' }), h);
    assert.equal(r1.status, 201);
    assert.equal(r2.body.data.paymentId, r1.body.data.paymentId);
    const same = run.sb.fxpartner.payouts().filter((p) => p.reference === 'retry');
    assert.equal(same.length, 1);
    const r3 = await req('POST', `${base}/payment-requests`, payoutBody({ amount: 13, reference: 'retry' }), h);
    assert.equal(r3.status, 400);
    assert.equal(r3.body.status, 'error');
  });

  it('v2 needs a purpose code and takes its idempotency key in the body', async () => {
    const missing = await req('POST', `${base}/payment-requests/v2`, payoutBody());
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body), /purposeCode/);
    const body = { ...payoutBody({ amount: '1.5', reference: 'v2' }), purposeCode: 'ROY', idempotencyKey: 'v2-key-000001' };
    const r = await req('POST', `${base}/payment-requests/v2`, body);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.status, 'pending');
    const again = await req('POST', `${base}/payment-requests/v2`, body);
    assert.equal(again.body.data.paymentId, r.body.data.paymentId);
    const row = await fxRow(r.body.data.paymentId);
    assert.equal(row.version, 2);
    assert.equal(row.purpose_code, 'ROY');
    assert.equal(row.idempotency_key, 'v2-key-000001');
  });

  it('bad amounts are 400s naming the field; a partner refusal fails the request; failure posts nothing', async () => {
    const neg = await req('POST', `${base}/payment-requests`, payoutBody({ amount: -1 }));
    assert.equal(neg.status, 400);
    assert.match(JSON.stringify(neg.body), /amount/);
    const digits = await req('POST', `${base}/payment-requests`, payoutBody({ amount: '1.001' }));
    assert.equal(digits.status, 400);
    assert.match(JSON.stringify(digits.body), /amount/);
    const cur = await req('POST', `${base}/payment-requests`, payoutBody({ currency: 'XXZ' }));
    assert.equal(cur.status, 400);
    const refused = await req('POST', `${base}/payment-requests`, payoutBody({ walletId: '99', reference: 'no-wallet' }));
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.status, 'error');
    assert.match(refused.body.message, /No such wallet/);
    const failed = await withTenant(run.app.svc.db.app, a.tenantId, (trx) => trx('fx_payment_requests').where({ reference: 'no-wallet' }).first());
    assert.equal(failed.status, 'failed');
    const n = (await ledger(payee)).length;
    const r = await req('POST', `${base}/payment-requests`, payoutBody({ amount: '2', reference: 'will-fail' }));
    await run.sb.fxpartner.settle((await fxRow(r.body.data.paymentId)).partner_payment_id, 'failed');
    assert.equal((await fxRow(r.body.data.paymentId)).status, 'failed');
    assert.equal((await ledger(payee)).length, n);
  });

  it('a payout to an unlinked beneficiary is tracked but posts to no ledger', async () => {
    const r = await req('POST', `${base}/payment-requests`, payoutBody({ beneficiaryId: benFree, currency: 'GBP', amount: '10', reference: 'free' }));
    const row = await fxRow(r.body.data.paymentId);
    assert.equal(row.tenant_user_id, null);
    await run.sb.fxpartner.settle(row.partner_payment_id, 'completed');
    const done = await fxRow(row.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.payment_id, null);
  });

  it('lists payment requests newest first, filtered by status, paged; members are refused', async () => {
    const r = await req('GET', `${base}/payment-requests?status=completed&size=2`);
    assert.equal(r.status, 200);
    assert.equal(r.body.data.length, 2);
    assert.equal(r.body.pagination.size, 2);
    assert.ok(r.body.pagination.total >= 5);
    assert.ok(r.body.data.every((x: any) => x.status === 'completed'));
    assert.equal((await run.app.request('GET', `${base}/payment-requests`, { token: a.users.user!.token })).status, 403);
    const other = await run.app.request('GET', `${base}/payment-requests`, { token: b.users.admin!.token });
    assert.equal(other.body.pagination.total, 0);
  });

  it('no response body and no log line of this run carries an API key', () => {
    run.assertNoLeak([keyA, keyA2, keyB]);
  });
});

/**
 * Issue 31, case 7: a JSON number is kept exactly as written (within the documented limits)
 * or refused with a 400 naming the field — never rounded through a double.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';

describe('JSON bodies: numbers kept exactly as written', function () {
  let app: TestApp;
  let t: TestTenant;
  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Lossless', ['admin', 'user']);
  });
  after(async () => app.close());

  const post = (raw: string) =>
    app.request('POST', '/expense/', { token: t.users.admin!.token, headers: { 'content-type': 'application/json' }, raw });

  it('an amount of 18 significant digits sent as a JSON number is stored exactly', async () => {
    const r = await post(`{"user":"${t.users.user!.tenantUserId}","title":"Exact","amount": 123456789012.123456,"currency":"USD","conversionRate":1}`);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.amount, '123456789012.123456');
    assert.equal(r.body.data.baseAmount, '123456789012.123456');
    const row = await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('expenses').where({ id: r.body.data.id }).first(trx.raw('amount::text AS amount')));
    assert.equal(row.amount.replace(/0+$/, ''), '123456789012.123456');
  });

  it('a number past the documented limits is a 400 naming the field', async () => {
    const user = t.users.user!.tenantUserId;
    const scale = await post(`{"user":"${user}","title":"Rate","amount":30,"currency":"EUR","conversionRate":1.08423170000000000001}`);
    assert.equal(scale.status, 400, scale.text);
    assert.match(JSON.stringify(scale.body.details), /body\.conversionRate must have at most 12 decimal places/);
    const whole = await post(`{"user":"${user}","title":"Big","amount":12345678901234567.5,"currency":"USD"}`);
    assert.equal(whole.status, 400, whole.text);
    assert.match(JSON.stringify(whole.body.details), /body\.amount must be less than 1e16/);
    const huge = await post(`{"user":"${user}","title":"Huge","amount":1e400,"currency":"USD"}`);
    assert.equal(huge.status, 400, huge.text);
    assert.match(JSON.stringify(huge.body.details), /body\.amount/);
  });

  it('numbers a double holds are still accepted as numbers (the schemas type amounts as numbers)', async () => {
    const r = await post(`{"user":"${t.users.user!.tenantUserId}","title":"Plain","amount":30,"currency":"EUR","conversionRate":1.0842317}`);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.baseAmount, '32.526951');
  });
});

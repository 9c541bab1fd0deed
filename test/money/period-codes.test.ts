/**
 * Refusals around periods carry their documented codes (docs/statements.md), and a payment
 * edit has its own section name in statement CSVs (`payment_adjustment`), distinct from the
 * adjustments to closed periods (`adjustment`).
 */
import assert from 'node:assert/strict';
import Papa from 'papaparse';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { allocateFile, uuid } from './helpers';

describe('money: period refusals carry their codes; payment edits have their own CSV section', function () {
  let app: TestApp;
  let t: TestTenant;
  let payee: string;
  const admin = () => ({ token: t.users.admin!.token });

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Codes', ['admin', 'user']);
    payee = t.users.user!.tenantUserId;
    await allocateFile(app, t.tenantId, uuid(), [{ payee, amount: '50', period: '2026-10' }]);
  });
  after(async () => app.close());

  it('PERIOD_OVERLAPS, PERIOD_HAS_ISSUED_STATEMENTS and PERIOD_CLOSED are in the error body', async () => {
    const run = await app.request('POST', '/statements/runs', { ...admin(), body: { period: '2026-10' } });
    assert.equal(run.status, 201, run.text);
    assert.equal((await app.request('POST', `/statements/runs/${run.body.data.id}/issue`, admin())).status, 200);

    const overlap = await app.request('POST', '/statements/runs', { ...admin(), body: { period: '2026-Q4' } });
    assert.equal(overlap.status, 400);
    assert.equal(overlap.body.status, 'error');
    assert.equal(overlap.body.code, 'PERIOD_OVERLAPS', overlap.text);

    assert.equal((await app.request('POST', '/accounting/periods/2026-10/close', admin())).status, 200);
    const reopen = await app.request('POST', '/accounting/periods/2026-10/reopen', admin());
    assert.equal(reopen.status, 400);
    assert.equal(reopen.body.code, 'PERIOD_HAS_ISSUED_STATEMENTS', reopen.text);

    assert.equal((await app.request('POST', '/accounting/periods/2026-12/close', admin())).status, 200);
    const closed = await app.request('POST', '/statements/runs', { ...admin(), body: { period: '2026-12' } });
    assert.equal(closed.status, 400);
    assert.equal(closed.body.code, 'PERIOD_CLOSED', closed.text);
  });

  it('a payment edit is a payment_adjustment row in the live and the issued statement CSV', async () => {
    const p = await app.request('POST', '/payment/', { ...admin(), body: { user: payee, title: 'Payout', amount: 20, currency: 'USD', transactionDate: '2026-11-15T12:00:00Z' } });
    assert.equal(p.status, 201, p.text);
    const edit = await app.request('PUT', `/payment/${p.body.data.id}`, { ...admin(), body: { amount: 25 } });
    assert.equal(edit.status, 200, edit.text);
    const sections = (csv: string) =>
      (Papa.parse(csv.trim(), { header: true }).data as Record<string, string>[]).filter((r) => r.reference === p.body.data.id).map((r) => [r.section, r.amount]);

    const live = await app.request('GET', `/accounting/statement/${payee}?period=2026-11&format=csv`, admin());
    assert.equal(live.status, 200, live.text);
    assert.deepEqual(sections(live.text).sort(), [['payment', '-20.00'], ['payment_adjustment', '-5.00']]);
    assert.ok(!sections(live.text).some((r) => r[0] === 'adjustment'));

    const run = await app.request('POST', '/statements/runs', { ...admin(), body: { period: '2026-11' } });
    assert.equal(run.status, 201, run.text);
    const mine = run.body.data.statements.find((s: { user: string }) => s.user === payee);
    const res = await fetch(`${app.url}/statements/${mine.id}/csv`, { headers: { authorization: `Bearer ${t.users.admin!.token}` } });
    assert.equal(res.status, 200);
    const issued = sections(await res.text());
    assert.deepEqual(issued.map((r) => r[0]).sort(), ['payment', 'payment_adjustment']);
    assert.equal(issued.find((r) => r[0] === 'payment_adjustment')![1], '-5.00');
  });
});

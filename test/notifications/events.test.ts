import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';
import { waitFor } from '../allocation/helpers';
import { allocateFile, uuid } from '../money/helpers';

describe('notifications from payments and statements (by e-mail per preferences)', function () {
  this.timeout(90_000);
  let app: TestApp;
  let a: TestTenant;
  const notes = async (token: string, type: string) => (await app.request('GET', `/notifications?type=${type}`, { token })).body.data.notifications;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Events');
  });
  after(async () => app.close());

  it("a payment's state change notifies its payee, who gets the payment e-mail", async () => {
    const user = a.users.user!;
    const created = await app.request('POST', '/payment/', { token: a.users.admin!.token, body: { user: user.tenantUserId, currency: 'USD', amount: '25.50', status: 'pending' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data?.id ?? created.body.id;
    assert.ok(id, created.text);
    const done = await app.request('PUT', `/payment/${id}`, { token: a.users.admin!.token, body: { status: 'completed' } });
    assert.equal(done.status, 200, done.text);
    const [n] = await notes(user.token, 'payment.completed');
    assert.equal(n.resourceId, id);
    assert.equal(n.metadata.previousStatus, 'pending');
    assert.equal(n.metadata.amount, '25.50');
    const mail = await waitFor('the payment e-mail', async () => (await mailsTo(app.dataDir, user.email)).find((m) => m.includes('Payment completed')));
    assert.match(mail, /^Subject: Payment completed: 25\.50 USD\n/);
    assert.match(mail, /is now completed \(was pending\)/);
  });

  it('issuing a run tells nobody; sending it (its own step) notifies each payee of their statement and e-mails them', async () => {
    const payee = a.users.user!;
    await allocateFile(app, a.tenantId, uuid(), [{ payee: payee.tenantUserId, amount: '12.5', period: '2026-10' }]);
    const run = await app.request('POST', '/statements/runs', { token: a.users.admin!.token, body: { period: '2026-10', payees: [payee.tenantUserId] } });
    assert.equal(run.status, 201, run.text);
    const early = await app.request('POST', `/statements/runs/${run.body.data.id}/send`, { token: a.users.admin!.token });
    assert.equal(early.status, 400, early.text);
    assert.equal(early.body.code, 'RUN_NOT_ISSUED');
    const issued = await app.request('POST', `/statements/runs/${run.body.data.id}/issue`, { token: a.users.admin!.token });
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.body.data.sentAt, null);
    assert.deepEqual(await notes(payee.token, 'statement.issued'), [], 'issuing alone sends nothing');
    assert.equal((await app.request('POST', `/statements/runs/${run.body.data.id}/send`, { token: payee.token })).status, 403);
    const sent = await app.request('POST', `/statements/runs/${run.body.data.id}/send`, { token: a.users.admin!.token });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.data.sent, 1);
    assert.ok(Date.parse(sent.body.data.sentAt) > 0, sent.text);
    assert.equal((await app.request('GET', `/statements/runs/${run.body.data.id}`, { token: a.users.admin!.token })).body.data.sentAt, sent.body.data.sentAt);
    const st = issued.body.data.statements[0];
    const [n] = await notes(payee.token, 'statement.issued');
    assert.equal(n.resourceId, st.id);
    assert.equal(n.metadata.period, '2026-10');
    assert.equal(n.metadata.number, st.number);
    // the admin, not a payee of the run, has none
    assert.deepEqual(await notes(a.users.admin!.token, 'statement.issued'), []);
    const mail = await waitFor('the statement e-mail', async () => (await mailsTo(app.dataDir, payee.email)).find((m) => m.includes('statement for 2026-10')));
    assert.match(mail, new RegExp(`statement no\\. ${st.number} for 2026-10 is ready\\. Closing balance: ${st.closingBalance.replace('.', '\\.')} `));
  });
});

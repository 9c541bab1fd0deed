import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { createTestTenant, signIn, startTestApp, type TestApp, type TestTenant } from '../helpers/app';
import { scanText, settledErasure } from '../helpers/erasure';
import { ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';
import { undeclaredTables } from '../../src/modules/platform/erasure';
import { runErasureJob } from '../../src/modules/platform/erasure-jobs';
import { lineQuotaProblem } from '../../src/modules/platform/plans';
import { withTenant } from '../../src/db';
import { dispatchPending } from '../../src/modules/webhooks/dispatch';
import { sha256 } from '../../src/lib/crypto';
import { clock } from '../../src/lib/clock';

const EMAIL = 'Zelda.Quixotevski@erase.test';
const FIRST = 'Zelda';
const LAST = 'Quixotevski';

async function ledgerTotals(app: TestApp) {
  const { rows } = await app.svc.db.owner.raw(`SELECT tenant_id, tenant_user_id, currency, sum(amount)::text AS total, count(*)::int AS n FROM ledger_entries GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`);
  return rows;
}

describe('account erasure', function () {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let god: string;
  let userId: string;
  const tuids: string[] = [];

  before(async () => {
    app = await startTestApp({ workers: true });
    const owner = app.svc.db.owner;
    a = await createTestTenant(app, 'EraseA', ['owner', 'admin']);
    b = await createTestTenant(app, 'EraseB', ['owner']);
    god = (await app.svc.auth.createApiKey('god', {})).token;
    const g = await ensureGlobalUser(owner, { email: EMAIL, passwordHash: await app.svc.auth.hashPassword('a long password'), firstName: FIRST, lastName: LAST });
    userId = g.id;
    for (const t of [a, b]) tuids.push(await upsertMembership(owner, t.tenantId, userId, 'user'));
    const [ta, tb] = tuids as [string, string];

    // across every module: identity, notifications, catalogue, money, rate limits, webhooks
    await signIn(app, EMAIL, 'a long password', a.workspaceId);
    await app.svc.auth.issueOneTime('reset', userId, 3600, { withCode: true });
    await app.svc.auth.createApiKey('user', { tenantId: a.tenantId, tenantUserId: ta, name: 'Zelda laptop' });
    await app.svc.auth.limits.hitAddressAndAccountLimits('login', '10.77.0.1', EMAIL, { max: 100, windowSeconds: 600 });
    await owner('notifications').insert({ tenant_id: a.tenantId, tenant_user_id: ta, type: 'payment', title: `Payment to ${FIRST} ${LAST}`, content: `Sent to ${EMAIL}` });
    await owner('notification_preferences').insert({ tenant_id: a.tenantId, tenant_user_id: ta, channels: '{}', types: '{}' });
    const [{ id: artistId }] = await owner('artists').insert({ tenant_id: a.tenantId, name: 'The Band' }).returning('id');
    await owner('artist_users').insert({ tenant_id: a.tenantId, artist_id: artistId, tenant_user_id: ta });
    await owner('payment_settings').insert({ tenant_id: a.tenantId, tenant_user_id: ta, method: 'bank_transfer', label: `${LAST} current account`, details_sealed: 'sealed' });
    await owner('payment_requests').insert({ tenant_id: a.tenantId, tenant_user_id: ta, amount: '10.50', currency: 'USD', memo: `please pay ${FIRST}` });
    for (const [t, tu] of [[a.tenantId, ta], [b.tenantId, tb]] as const) {
      await owner('payments').insert({ tenant_id: t, tenant_user_id: tu, first_name: FIRST, last_name: LAST, transaction_date: new Date(), currency: 'USD', amount: '10.50', base_amount: '10.50', title: 'October royalties' });
      await owner('ledger_entries').insert([
        { tenant_id: t, tenant_user_id: tu, kind: 'royalty', amount: '100.123456789012', currency: 'USD', accounting_period: '2026-10-01', source_type: 'file', source_id: crypto.randomUUID() },
        { tenant_id: t, tenant_user_id: tu, kind: 'payment', amount: '-10.5', currency: 'USD', accounting_period: '2026-10-01', source_type: 'payment', source_id: crypto.randomUUID() },
      ]);
    }
    await owner('outbound_events').insert({ tenant_id: a.tenantId, family: 'users', type: 'member.invited', payload: JSON.stringify({ email: EMAIL, tenantUserId: ta }) });
    // someone else, who must keep everything
    await owner('payments').insert({ tenant_id: a.tenantId, tenant_user_id: a.users.admin!.tenantUserId, first_name: 'Other', last_name: 'Person', transaction_date: new Date(), currency: 'USD', amount: '5', base_amount: '5' });
    await owner('ledger_entries').insert({ tenant_id: a.tenantId, tenant_user_id: a.users.admin!.tenantUserId, kind: 'royalty', amount: '7.25', currency: 'USD', accounting_period: '2026-10-01', source_type: 'file', source_id: crypto.randomUUID() });
  });
  after(() => app.close());

  it('every table of the database is declared in the erasure map', async () => {
    assert.deepEqual(await undeclaredTables(app.svc.db.owner), []);
  });

  it('preview names every table, cache key, API key and delivery holding the person, and writes nothing', async () => {
    const auditBefore = await app.svc.db.owner('platform_audit').count({ n: '*' });
    const r = await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId } });
    assert.equal(r.status, 200, r.text);
    const plan = r.body;
    const tables = plan.tables.map((t: { table: string }) => t.table).sort();
    assert.deepEqual(tables, ['api_keys', 'artist_users', 'notification_preferences', 'notifications', 'one_time_tokens', 'payment_requests', 'payment_settings', 'payments', 'sessions', 'tenant_users', 'users']);
    assert.deepEqual(plan.tables.find((t: { table: string }) => t.table === 'payments').rows, 2);
    assert.deepEqual(plan.tables.find((t: { table: string }) => t.table === 'tenant_users').rows, 2);
    assert.deepEqual(plan.retained.find((t: { table: string }) => t.table === 'ledger_entries').rows, 4);
    assert.equal(plan.apiKeys.length, 1);
    assert.equal(plan.cacheKeys.length, 1);
    assert.equal(plan.externalDeliveries.length, 1);
    assert.deepEqual(plan.storedObjects, []);
    assert.equal(plan.empty, false);
    assert.match(plan.planHash, /^[0-9a-f]{64}$/);
    const again = await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId } });
    assert.equal(again.body.planHash, plan.planHash);
    assert.deepEqual(await app.svc.db.owner('platform_audit').count({ n: '*' }), auditBefore);
    assert.equal((await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId: crypto.randomUUID() } })).status, 404);
  });

  it('execute: a stale planHash changes nothing; the right one erases, keeps the ledger, and leaves nothing identifying in any text column', async () => {
    const totals = await ledgerTotals(app);
    assert.ok((await scanText(app, [EMAIL, FIRST, LAST])).length > 0, 'the scan finds the person before');
    const plan = (await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId } })).body;

    const stale = await app.request('POST', '/godmin/account-erasure/execute', { token: god, body: { userId, planHash: '0'.repeat(64) } });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error.code, 'PLAN_CHANGED');
    assert.equal((await app.svc.db.owner('users').where({ id: userId }).first('email')).email, EMAIL);

    const r = await app.request('POST', '/godmin/account-erasure/execute', { token: god, body: { userId, planHash: plan.planHash } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.status, 'queued');
    const job = await settledErasure(app, god, r.body.data.jobId);
    assert.equal(job.status, 'completed', job.error);
    assert.equal(job.result.erased.sessions, 1);

    assert.deepEqual(await scanText(app, [EMAIL, FIRST, LAST]), []);
    assert.deepEqual(await ledgerTotals(app), totals);
    const kept = await app.svc.db.owner('payments').whereIn('tenant_user_id', tuids).select('first_name', 'last_name', 'amount');
    assert.equal(kept.length, 2);
    for (const p of kept) {
      assert.match(p.first_name, /^Erased user [0-9a-f]{10}$/);
      assert.equal(p.last_name, null);
      assert.equal(p.amount, '10.500000000000');
    }
    const other = await app.svc.db.owner('payments').where({ tenant_user_id: a.users.admin!.tenantUserId }).first('first_name');
    assert.equal(other.first_name, 'Other');

    const after = (await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId } })).body;
    assert.equal(after.empty, true);
    assert.deepEqual([after.tables, after.cacheKeys, after.apiKeys, after.externalDeliveries, after.storedObjects], [[], [], [], [], []]);
    await assert.rejects(app.svc.auth.login(EMAIL, 'a long password', {}), /Invalid email or password/);
    const audit = (await app.request('GET', '/godmin/audit?action=account.erase', { token: god })).body.data.items;
    assert.equal(audit.length, 1);
    assert.equal(audit[0].targetId, userId);
    assert.equal(audit[0].details.planHash, plan.planHash);
  });

  it('a job whose plan no longer matches (data moved after the request) fails with PLAN_CHANGED and erases nothing', async () => {
    const owner = app.svc.db.owner;
    const g = await ensureGlobalUser(owner, { email: 'moved.data@erase.test', firstName: 'Moved', lastName: 'Data' });
    await upsertMembership(owner, b.tenantId, g.id, 'user');
    const plan = (await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId: g.id } })).body;
    const [row] = await owner('account_erasures').insert({ user_id: g.id, plan_hash: plan.planHash, actor_kind: 'god_key', actor_id: null }).returning('id');
    await owner('sessions').insert({ user_id: g.id, refresh_hash: crypto.randomBytes(16).toString('hex'), via: 'password', expires_at: new Date(Date.now() + 3600_000) }); // the data moves
    await runErasureJob(app.svc, row.id);
    const job = (await app.request('GET', `/godmin/account-erasure/jobs/${row.id}`, { token: god })).body.data;
    assert.equal(job.status, 'failed');
    assert.match(job.error, /^PLAN_CHANGED: /);
    assert.equal((await owner('users').where({ id: g.id }).first('email')).email, 'moved.data@erase.test');
    assert.equal((await owner('platform_audit').where({ action: 'account.erase', target_id: g.id })).length, 0);
    await runErasureJob(app.svc, row.id); // a redelivered job leaves a finished erasure alone
    assert.equal((await owner('account_erasures').where({ id: row.id }).first('status')).status, 'failed');
  });

  it('the plan hash covers only what the erasure changes: an event dispatched and a rate-limit hit leave it valid; a new statement naming the person changes it', async () => {
    const owner = app.svc.db.owner;
    const preview = async (id: string) => {
      const r = await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId: id } });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };
    const email = 'stable.plan@erase.test';
    const g = await ensureGlobalUser(owner, { email, firstName: 'Stable', lastName: 'Plan' });
    const tu = await upsertMembership(owner, a.tenantId, g.id, 'user');
    const [{ id: eventId }] = await owner('outbound_events').insert({ tenant_id: a.tenantId, family: 'payment', type: 'payment.created', payload: JSON.stringify({ userId: tu }) }).returning('id');
    // both sign-in attempts in one 10-second bucket, however long the steps between them take
    const at = clock.now();
    const attempt = async (ip: string) => {
      clock.freeze(at);
      try {
        await app.svc.auth.limits.hitAddressAndAccountLimits('login', ip, email, { max: 100, windowSeconds: 600 });
      } finally {
        clock.reset();
      }
    };
    await attempt('10.78.0.1');
    const plan = await preview(g.id);
    assert.deepEqual(plan.externalDeliveries.map((e: { id: string }) => e.id), [eventId]);
    // the dispatcher moves the event on; the person tries to sign in again: nothing the erasure decides on moved
    await dispatchPending(app.svc);
    assert.equal((await owner('outbound_events').where({ tenant_id: a.tenantId, id: eventId }).first('status')).status, 'dispatched');
    await attempt('10.78.0.2');
    // and a counter of an earlier 10-second bucket
    await owner('rate_limit_hits').insert({ key: `login:to:${sha256(email)}`, window_start: new Date(at.getTime() - 60_000), count: 3 });
    const now = await preview(g.id);
    assert.equal(now.externalDeliveries[0].status, 'dispatched');
    assert.deepEqual(now.cacheKeys.map((k: { entries: number }) => k.entries), [plan.cacheKeys[0].entries + 1]);
    assert.equal(now.planHash, plan.planHash);
    const r = await app.request('POST', '/godmin/account-erasure/execute', { token: god, body: { userId: g.id, planHash: plan.planHash } });
    assert.equal(r.status, 201, r.text);
    const job = await settledErasure(app, god, r.body.data.jobId);
    assert.equal(job.status, 'completed', job.error);
    assert.equal(await owner('rate_limit_hits').whereLike('key', `%:to:${sha256(email)}`).first('key'), undefined);

    // a real change: a new statement naming the person
    const h = await ensureGlobalUser(owner, { email: 'changed.plan@erase.test', firstName: 'Changed', lastName: 'Plan' });
    const tu2 = await upsertMembership(owner, a.tenantId, h.id, 'user');
    const plan2 = await preview(h.id);
    const run = await app.request('POST', '/statements/runs', { token: a.users.admin!.token, body: { period: '2026-09', payees: [tu2] } });
    assert.equal(run.status, 201, run.text);
    const stale = await app.request('POST', '/godmin/account-erasure/execute', { token: god, body: { userId: h.id, planHash: plan2.planHash } });
    assert.equal(stale.status, 400, stale.text);
    assert.equal(stale.body.error.code, 'PLAN_CHANGED');
  });

  it('the monthly line limit of the plan refuses a file that would pass it', async () => {
    await app.svc.db.owner('plans').where({ code: 'free' }).update({ limits: JSON.stringify({ statementLinesPerMonth: 10, members: 5, storageBytes: 1000 }) });
    const over = await withTenant(app.svc.db.app, b.tenantId, (trx) => lineQuotaProblem(trx, b.tenantId, 11));
    assert.match(over!, /Plan limit reached: the free plan allows 10 statement lines per month; 0 are used this month and this file has 11/);
    assert.equal(await withTenant(app.svc.db.app, b.tenantId, (trx) => lineQuotaProblem(trx, b.tenantId, 10)), null);
    await app.svc.db.owner('tenants').where({ id: b.tenantId }).update({ plan: 'enterprise' });
    assert.equal(await withTenant(app.svc.db.app, b.tenantId, (trx) => lineQuotaProblem(trx, b.tenantId, 1_000_000_000)), null);
  });
});

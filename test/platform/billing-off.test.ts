/**
 * A self-hosted install (billing off, the default): a workspace that `tenant:create` makes can use
 * every feature with no limit, whatever plan it records; `tenant:create --plan` records the plan
 * that applies once billing is turned on. The rest of the suite runs with billing on.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startTestApp, createTestTenant, type TestApp } from '../helpers/app';
import { setBilling } from '../../src/domain/features';

const root = path.resolve(import.meta.dirname, '../..');

describe('billing off (a self-hosted install): every feature, no limit', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ config: { billing: false } });
  });
  after(async () => {
    await app.close();
    setBilling(true);
  });

  it('a workspace on the free plan has every feature: webhooks, branding, publishing', async () => {
    const t = await createTestTenant(app, 'SelfHosted', ['owner']);
    assert.equal((await app.svc.db.owner('tenants').where({ id: t.tenantId }).first('plan')).plan, 'free');
    const sub = await app.request('GET', '/billing/subscription', { token: t.users.owner!.token });
    assert.equal(sub.status, 200, sub.text);
    assert.equal(sub.body.data.billing, false);
    assert.equal(sub.body.data.effectivePlan, 'unlimited');
    assert.deepEqual([...sub.body.data.features].sort(), ['branding', 'custom_domains', 'email_domains', 'fxpartner', 'publishing', 'webhooks']);
    assert.deepEqual(sub.body.data.limits, { statementLinesPerMonth: null, members: null, storageBytes: null });
    const hook = await app.request('POST', '/webhooks', { token: t.users.owner!.token, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
    assert.equal(hook.status, 201, hook.text);
  });

  it('no member limit: more members than the free plan allows are invited', async () => {
    const t = await createTestTenant(app, 'Crowd', ['owner']);
    const free = await app.svc.db.owner('plans').where({ code: 'free' }).first('limits');
    const seats = Number(free.limits.members);
    for (let i = 0; i <= seats; i++) {
      const r = await app.request('POST', '/auth/invite', { token: t.users.owner!.token, body: { email: `seat.${i}@crowd.test` } });
      assert.equal(r.status, 201, `invitation ${i + 1}: ${r.text}`);
    }
  });

  it('the CLI: tenant:create --plan records the plan, refuses an unknown one, and the workspace has every feature', async () => {
    const url = app.cfg.databaseUrl!;
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env: { ...process.env, DATABASE_URL: url, DATA_DIR: app.dataDir, LOG_LEVEL: 'silent', BILLING: '' }, encoding: 'utf8', timeout: 60_000 });
    const bad = cli(['tenant:create', '--name', 'Bad plan', '--owner-email', 'bad@plan.test', '--password', 'a long password', '--plan', 'gold']);
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /--plan must be one of: free, pro, enterprise, unlimited/);
    const ok = cli(['tenant:create', '--name', 'Pro label', '--owner-email', 'pro@plan.test', '--password', 'a long password', '--plan', 'pro']);
    assert.equal(ok.status, 0, ok.stderr);
    const out = JSON.parse(ok.stdout);
    assert.equal((await app.svc.db.owner('tenants').where({ id: out.tenantId }).first('plan')).plan, 'pro');
    const login = await app.request('POST', '/auth/login', { body: { email: 'pro@plan.test', password: 'a long password' } });
    assert.equal(login.status, 200, login.text);
  });
});

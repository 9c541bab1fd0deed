/**
 * A domain one workspace holds (pending or verified) is not addable by another; workspace and
 * sender names are one line; `tenant:create --domain` makes the domain select the workspace.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createTenant } from '../../src/modules/users/service';

describe('domain claims, one-line names and the CLI --domain', function () {
  this.timeout(180_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'ClaimA', ['owner', 'admin']);
    b = await createTestTenant(app, 'ClaimB', ['owner', 'admin']);
    await app.svc.db.owner('tenants').whereIn('id', [a.tenantId, b.tenantId]).update({ plan: 'pro' });
  });
  after(() => app.close());

  it('a custom or e-mail domain pending in one workspace cannot be added by another (DOMAIN_CLAIMED)', async () => {
    for (const route of ['/domains', '/email-domains']) {
      const mine = await app.request('POST', route, { token: a.users.admin!.token, body: { domain: `claimed${route.length}.label.example` } });
      assert.equal(mine.status, 201, mine.text);
      const theirs = await app.request('POST', route, { token: b.users.admin!.token, body: { domain: `Claimed${route.length}.Label.Example.` } });
      assert.equal(theirs.status, 400, `${route}: ${theirs.text}`);
      assert.equal(theirs.body.error.code, 'DOMAIN_CLAIMED', route);
      assert.match(theirs.body.error.details[0], /already added to another workspace/);
      assert.deepEqual((await app.request('GET', route, { token: b.users.admin!.token })).body.data, [], route);
      // once the first workspace removes it, the other may add it
      assert.equal((await app.request('DELETE', `${route}/${mine.body.data.id}`, { token: a.users.admin!.token })).status, 200, route);
      assert.equal((await app.request('POST', route, { token: b.users.admin!.token, body: { domain: `claimed${route.length}.label.example` } })).status, 201, route);
    }
  });

  it('workspace and sender names with a line break are refused (400 naming the field)', async () => {
    const admin = a.users.admin!.token;
    for (const name of ['Evil\r\nBcc: x@y.example', 'Two\nlines', 'Carriage\rreturn']) {
      const ws = await app.request('PUT', '/settings/workspace', { token: admin, body: { name } });
      assert.equal(ws.status, 400, ws.text);
      assert.match(ws.text, /body\.name must not hold line breaks/);
      const brand = await app.request('PUT', '/settings/branding', { token: admin, body: { senderName: name } });
      assert.equal(brand.status, 400, brand.text);
      assert.match(brand.text, /body\.senderName must not hold line breaks/);
      const mail = await app.request('PUT', '/settings/email', { token: admin, body: { fromName: name } });
      assert.equal(mail.status, 400, mail.text);
      await assert.rejects(createTenant(app.svc.db.owner, { name }), (e: any) => e.status === 400 && /name must not hold line breaks/.test(e.details[0]));
    }
    assert.equal((await app.request('PUT', '/settings/workspace', { token: admin, body: { name: 'One line' } })).status, 200);
    assert.equal((await app.request('PUT', '/settings/branding', { token: admin, body: { senderName: 'One line' } })).status, 200);
  });

  it('tenant:create --domain: the domain selects the new workspace by Host; a claimed one is refused before anything is created', async () => {
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { ...process.env, DATABASE_URL: app.svc.db.url, DATA_DIR: app.dataDir, LOG_LEVEL: 'silent', PASSWORD_HASH_MEMORY_KIB: '1024', BILLING: 'on' },
        encoding: 'utf8',
        timeout: 120_000,
      });
    const made = cli(['tenant:create', '--name', 'Operator Label', '--owner-email', 'op@operator.example', '--password', 'a long password', '--domain', 'Royalties.Operator.Example']);
    assert.equal(made.status, 0, made.stderr);
    const out = JSON.parse(made.stdout);
    assert.equal(out.domain, 'royalties.operator.example');
    assert.match(out.note, /once the workspace's plan includes custom domains/); // billing on: a new workspace is on the free plan
    await app.svc.db.owner('tenants').where({ id: out.tenantId }).update({ plan: 'pro' });
    assert.equal((await app.svc.auth.workspaceByHost('royalties.operator.example'))?.id, out.tenantId);
    const signIn = await app.request('POST', '/auth/login', { body: { email: 'op@operator.example', password: 'a long password' }, headers: { 'x-forwarded-host': 'royalties.operator.example' } });
    assert.equal(signIn.status, 200, signIn.text);
    assert.deepEqual(signIn.body.workspaces.map((w: { tenantId?: number; id?: number }) => w.tenantId ?? w.id), [out.tenantId]);
    const token = await app.request('GET', '/auth/authtoken', { token: signIn.body.refresh_token, headers: { 'x-forwarded-host': 'royalties.operator.example' } });
    assert.equal(token.status, 200, token.text);

    const [{ n: before }] = await app.svc.db.owner('tenants').count({ n: '*' });
    const again = cli(['tenant:create', '--name', 'Squatter', '--owner-email', 'sq@operator.example', '--password', 'a long password', '--domain', 'royalties.operator.example']);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /already added to another workspace/);
    const [{ n: after }] = await app.svc.db.owner('tenants').count({ n: '*' });
    assert.equal(after, before);
  });
});

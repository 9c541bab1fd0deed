import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { withTenant } from '../../src/db';
import { seedDemo, DEMO_TENANT } from '../../src/seed/demo';
import { startPartnerRun, type PartnerRun } from './helpers';
import { createTestTenant } from '../helpers/app';
import { allocateFile, uuid } from '../money/helpers';

const root = path.resolve(import.meta.dirname, '../..');

describe('partners: the sandbox', function () {
  it('`npm run sandbox` prints one NAME=value line per variable, then stays up serving every partner', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], { cwd: root, env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_SETTLE_MS: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines: string[] = [];
      const rl = createInterface({ input: child.stdout! });
      for await (const line of rl) {
        lines.push(line);
        if (lines.length === 8) break;
      }
      const env = Object.fromEntries(lines.map((l) => {
        const m = /^([A-Z][A-Z0-9_]*)=(\S+)$/.exec(l);
        assert.ok(m, `not a NAME=value line: ${l}`);
        return [m[1]!, m[2]!];
      }));
      assert.deepEqual(Object.keys(env).sort(), ['DISTRIBUTOR_API_URL', 'FXPARTNER_API_URL', 'INVOICER_API_URL', 'INVOICER_AUTHORIZE_URL', 'INVOICER_CLIENT_ID', 'INVOICER_CLIENT_SECRET', 'INVOICER_TOKEN_URL', 'PROCESSOR_API_URL']);
      assert.equal(child.exitCode, null, 'still running');
      const w = await fetch(`${env.FXPARTNER_API_URL}/v1/wallets`, { headers: { authorization: 'Bearer any-key-works' } });
      assert.equal(w.status, 200);
      const me = await fetch(`${env.DISTRIBUTOR_API_URL}/me`, { headers: { authorization: 'Bearer any-token' } });
      assert.equal(me.status, 200);
      const t = await fetch(`${env.PROCESSOR_API_URL}/transfer`, { method: 'POST', headers: { authorization: 'Bearer sk', 'content-type': 'application/json' }, body: JSON.stringify({ reference: 'r1', amount: 100, currency: 'USD' }) });
      assert.equal(((await t.json()) as { data: { status: string } }).data.status, 'pending');
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });

  describe('the processor fake, end to end', () => {
    let run: PartnerRun;
    before(async () => {
      run = await startPartnerRun();
    });
    after(async () => run.close());

    it('an approved payment request is sent as a transfer; its success event, delivered twice, completes it once', async () => {
      const a = await createTestTenant(run.app, 'ProcSb');
      const secret = 'sk_sandbox_' + uuid().replace(/-/g, '');
      const payee = a.users.user!.tenantUserId;
      assert.equal((await run.app.request('POST', '/integrations/workspace', { token: a.users.admin!.token, body: { secretKey: secret } })).status, 201);
      await allocateFile(run.app, a.tenantId, uuid(), [{ payee, amount: '40' }]);
      await run.app.request('POST', '/payment-setting', { token: a.users.user!.token, body: { method: 'processor', label: 'Bank', currency: 'USD', details: { accountNumber: '0123456789', bankCode: '058' } } });
      const req = await run.app.request('POST', '/payment-request/', { token: a.users.user!.token, body: { amount: 15 } });
      assert.equal(req.status, 201, req.text);
      const ok = await run.app.request('PATCH', `/payment-request/${req.body.data.id}/approve`, { token: a.users.admin!.token, body: {} });
      assert.equal(ok.body.data.payment.status, 'processing', ok.text);
      const t = run.sb.processor.transfers.find((x) => x.reference === ok.body.data.payment.reference)!;
      assert.equal(t.amount, 1500);
      assert.equal(await run.sb.processor.settle(t.reference, 'transfer.success', { duplicate: true }), 200);
      const p = await run.app.request('GET', `/payment/${ok.body.data.payment.id}`, { token: a.users.admin!.token });
      assert.equal(p.body.data.status, 'completed');
      const entries = await withTenant(run.app.svc.db.app, a.tenantId, (trx) => trx('ledger_entries').where({ source_type: 'payment', tenant_user_id: payee }).select(trx.raw('amount::text AS amount')));
      assert.deepEqual(entries, [{ amount: '-15.000000000000' }]);
      run.assertNoLeak([secret]);
    });
  });

  describe('seed:demo with the sandbox running', () => {
    let run: PartnerRun;
    before(async () => {
      run = await startPartnerRun();
    });
    after(async () => run.close());

    it('connects every partner of the demo workspace once, and a second seed changes nothing', async () => {
      await seedDemo(run.app.svc);
      const t = await run.app.svc.db.owner('tenants').where({ name: DEMO_TENANT }).first('id');
      const counts = () =>
        withTenant(run.app.svc.db.app, t.id, async (trx) => {
          const n = async (table: string) => Number((await trx(table).count({ n: '*' }))[0]!.n);
          return { fx: await n('fx_integrations'), links: await n('fx_beneficiary_links'), payouts: await n('fx_payment_requests'), dist: await n('distributor_credentials'), inv: await n('invoicer_connections'), imports: await n('invoicer_imports') };
        });
      const first = await counts();
      assert.deepEqual(first, { fx: 1, links: 1, payouts: 1, dist: 1, inv: 1, imports: 4 });
      assert.equal(run.sb.fxpartner.payouts().length, 1);
      await seedDemo(run.app.svc);
      assert.deepEqual(await counts(), first);
      assert.equal(run.sb.fxpartner.payouts().length, 1);
    });
  });
});

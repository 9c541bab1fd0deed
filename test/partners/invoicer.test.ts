import assert from 'node:assert/strict';
import { createTestTenant, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { startPartnerRun, type PartnerRun } from './helpers';

/**
 * The invoicing partner against the sandbox: OAuth 2.0 authorization code with refresh
 * (state bound to the workspace, rotating refresh tokens, a 401 refreshed once), invoices,
 * and their import as revenues and expenses, once.
 */
describe('partners: invoicing partner', function () {
  let run: PartnerRun;
  let a: TestTenant;
  let b: TestTenant;
  const base = '/integrations/invoicer';
  const tokens = new Set<string>();

  const admin = () => a.users.admin!.token;
  const req = (method: string, path: string, body?: unknown, token = admin()) => run.app.request(method, path, { token, body });
  /** What the partner's consent screen sends back: follow the URL without following the redirect. */
  async function consent(url: string) {
    const r = await fetch(url, { redirect: 'manual' });
    assert.equal(r.status, 302);
    const to = new URL(r.headers.get('location')!);
    return { code: to.searchParams.get('code')!, state: to.searchParams.get('state')!, to };
  }
  const collectTokens = () => {
    for (const q of run.sb.invoicer.requests) {
      const m = /^Bearer (.+)$/.exec(String(q.headers.authorization ?? ''));
      if (m) tokens.add(m[1]!);
      if (q.body.refresh_token) tokens.add(String(q.body.refresh_token));
    }
  };

  before(async () => {
    run = await startPartnerRun();
    a = await createTestTenant(run.app, 'InvA');
    b = await createTestTenant(run.app, 'InvB');
  });
  after(async () => run.close());

  it('auth/url → consent → auth/token connects the workspace; the state is single use and ours', async () => {
    assert.equal((await req('GET', `${base}/auth/url`, undefined, a.users.user!.token)).status, 403);
    const u = await req('GET', `${base}/auth/url`);
    assert.equal(u.status, 200, u.text);
    const url = new URL(u.body.data.url);
    assert.equal(url.searchParams.get('client_id'), run.sb.env.INVOICER_CLIENT_ID);
    assert.equal(url.searchParams.get('redirect_uri'), `${run.app.url}/integrations/invoicer/callback`);
    assert.equal(url.searchParams.get('response_type'), 'code');
    const c = await consent(u.body.data.url);
    assert.equal(c.state, u.body.data.state);
    // another workspace cannot use our state
    assert.equal((await req('POST', `${base}/auth/token`, { code: c.code, state: c.state }, b.users.admin!.token)).status, 400);
    const t = await req('POST', `${base}/auth/token`, { code: c.code, state: c.state });
    assert.equal(t.status, 200, t.text);
    assert.equal(t.body.data.connected, true);
    assert.equal(t.body.data.hasRefreshToken, true);
    assert.equal((await req('POST', `${base}/auth/token`, { code: c.code, state: c.state })).status, 400, 'a state works once');
    const row = await run.app.svc.db.owner('invoicer_connections').where({ tenant_id: a.tenantId }).first();
    assert.ok(row.access_token_sealed && !row.access_token_sealed.startsWith('at_'));
    // a code the partner refuses (used already) after a fresh state
    const u2 = await req('GET', `${base}/auth/url`);
    const bad = await req('POST', `${base}/auth/token`, { code: c.code, state: u2.body.data.state });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.status, 'error');
  });

  it('lists, reads and deletes invoices at the partner; another workspace is not connected', async () => {
    const l = await req('GET', `${base}/invoices?size=4`);
    assert.equal(l.status, 200, l.text);
    assert.deepEqual(l.body.pagination, { page: 1, size: 4, total: 6 });
    assert.equal(l.body.data.length, 4);
    const inv = l.body.data[0];
    assert.equal(inv.number, 'INV-1001');
    assert.equal(inv.total, '1500');
    assert.equal(inv.importedAs, null);
    const g = await req('GET', `${base}/invoices/${inv.uuid}`);
    assert.equal(g.body.data.contactName, 'Northwind Films');
    const extra = run.sb.invoicer.addInvoice({ number: 'TMP-1', type: 'sales', status: 'open', contact: { name: 'X' }, issue_date: '2026-10-01', currency: 'USD', total: '1', description: 'to delete' });
    assert.equal((await req('DELETE', `${base}/invoices/${extra.uuid}`)).status, 200);
    assert.equal((await req('GET', `${base}/invoices/${extra.uuid}`)).status, 404);
    assert.equal((await req('GET', `${base}/invoices`, undefined, b.users.admin!.token)).status, 404);
  });

  it('an expired access token is refreshed once and the call goes through; refresh tokens rotate', async () => {
    run.sb.invoicer.expireTokens();
    const before = run.sb.invoicer.requests.filter((q) => q.path === '/oauth/token').length;
    const l = await req('GET', `${base}/invoices`);
    assert.equal(l.status, 200, l.text);
    const grants = run.sb.invoicer.requests.filter((q) => q.path === '/oauth/token').slice(before);
    assert.deepEqual(grants.map((g) => g.body.grant_type), ['refresh_token']);
    const used = grants[0]!.body.refresh_token;
    const r = await req('GET', `${base}/auth/refresh`);
    assert.equal(r.status, 200, r.text);
    const next = run.sb.invoicer.requests.filter((q) => q.path === '/oauth/token').at(-1)!;
    assert.notEqual(next.body.refresh_token, used, 'the stored refresh token is the partner’s new one');
  });

  it('sync imports sales as revenues and purchases as expenses, skips drafts and void, exactly once', async () => {
    const s = await req('POST', `${base}/sync-invoices`, { userId: a.users.user!.tenantUserId });
    assert.equal(s.status, 200, s.text);
    assert.deepEqual(s.body.data, { imported: { expenses: 2, revenues: 2 }, alreadyImported: 0, skipped: 2, failed: [] });
    const again = await req('POST', `${base}/sync-invoices`, { userId: a.users.user!.tenantUserId });
    assert.deepEqual(again.body.data, { imported: { expenses: 0, revenues: 0 }, alreadyImported: 4, skipped: 2, failed: [] });
    const rev = await withTenant(run.app.svc.db.app, a.tenantId, (trx) => trx('revenues').orderBy('title').select('title', 'source', trx.raw('amount::text AS amount')));
    assert.deepEqual(rev, [
      { title: 'INV-1001 Northwind Films', source: 'invoicer', amount: '1500.000000000000' },
      { title: 'INV-1002 City Jazz Festival', source: 'invoicer', amount: '820.500000000000' },
    ]);
    const exp = await req('GET', '/expense/');
    assert.deepEqual(exp.body.data.map((e: any) => [e.title, e.amount, e.recoupable, e.user]).sort(), [
      ['BILL-2001 Studio Azul', '640.25', false, a.users.user!.tenantUserId],
      ['BILL-2002 PressWorks', '210', false, a.users.user!.tenantUserId],
    ]);
    const led = await withTenant(run.app.svc.db.app, a.tenantId, (trx) => trx('ledger_entries').where({ kind: 'revenue_share' }).sum({ s: 'amount' }));
    assert.equal(String(led[0].s), '2320.500000000000');
    const l = await req('GET', `${base}/invoices`);
    assert.deepEqual(l.body.data.map((i: any) => i.importedAs), ['revenue', 'revenue', 'expense', 'expense', null, null]);
  });

  it('a new invoice is picked up by the next sync; a foreign currency without a rate is reported, not guessed', async () => {
    run.sb.invoicer.addInvoice({ number: 'INV-1004', type: 'sales', status: 'paid', contact: { name: 'Tokyo FM' }, issue_date: '2026-11-02', currency: 'JPY', total: '50000', description: 'Radio licence' });
    run.sb.invoicer.addInvoice({ number: 'INV-1005', type: 'sales', status: 'paid', contact: { name: 'Radio NL' }, issue_date: '2026-11-03', currency: 'USD', total: '10.10', description: 'Licence' });
    const s = await req('POST', `${base}/sync-invoices`, {});
    assert.equal(s.status, 200, s.text);
    assert.deepEqual(s.body.data.imported, { expenses: 0, revenues: 1 });
    assert.equal(s.body.data.alreadyImported, 4);
    assert.equal(s.body.data.failed.length, 1);
    assert.match(s.body.data.failed[0].error, /JPY/);
    assert.equal((await req('POST', `${base}/sync-invoices`, { userId: b.users.user!.tenantUserId })).status, 404, 'a member of another workspace');
  });

  it('no response body and no log line of this run carries a partner token or the client secret', () => {
    collectTokens();
    assert.ok(tokens.size >= 4);
    run.assertNoLeak([...tokens, run.sb.env.INVOICER_CLIENT_SECRET!]);
  });
});

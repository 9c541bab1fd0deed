import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import Papa from 'papaparse';
import { PDFParse } from 'pdf-parse';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { parsePeriod } from '../../src/modules/money/statement-build';
import { allocateFile, uuid } from './helpers';

const D = (v: Decimal.Value) => new Decimal(v);
const sum = (xs: Decimal.Value[]) => xs.reduce<Decimal>((a, b) => a.plus(b), D(0));

describe('money: statement runs, frozen statements, closed periods', function () {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let payee: string;
  let other: string;
  const rec = [uuid(), uuid()];
  const f1 = uuid();
  let issuedRun: string;
  let mine: { id: string; number: number; contentHash: string };
  let frozen: { pdf: Buffer; csv: string; figures: unknown };

  const admin = () => ({ token: a.users.admin!.token });
  const bytes = async (path: string, token: string) => {
    const r = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, type: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) };
  };
  const run = async (period: string, payees?: string[]) => app.request('POST', '/statements/runs', { ...admin(), body: { period, ...(payees ? { payees } : {}) } });

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Stmt', ['owner', 'admin', 'user', 'guest']);
    b = await createTestTenant(app, 'Other', ['admin', 'user']);
    payee = a.users.user!.tenantUserId;
    other = a.users.owner!.tenantUserId;
    await withTenant(app.svc.db.app, a.tenantId, async (trx) => {
      await trx('assets').insert(rec.map((id, i) => ({ tenant_id: a.tenantId, id, title: `Song ${i}`, isrc: `USRC1260000${i}` })));
    });
    // October: two recordings with quantities, exact amounts with sub-cent parts, two payees
    await allocateFile(app, a.tenantId, f1, [
      { payee, amount: '10.004', assetId: rec[0], quantity: '100' },
      { payee, amount: '5.0025', assetId: rec[1], quantity: '40' },
      { payee, amount: '1.0015', assetId: rec[1], quantity: '8' },
      { payee: other, amount: '10.004', assetId: rec[0], quantity: '100' },
    ]);
  });
  after(async () => app.close());

  it('parses month, quarter and half-year periods', () => {
    assert.deepEqual(parsePeriod('2026-10'), { start: '2026-10-01', end: '2026-11-01', label: '2026-10' });
    assert.deepEqual(parsePeriod('2026-Q4'), { start: '2026-10-01', end: '2027-01-01', label: '2026-Q4' });
    assert.deepEqual(parsePeriod('2026-H1'), { start: '2026-01-01', end: '2026-07-01', label: '2026-H1' });
  });

  it('a run per period makes drafts; a re-run is reproducible and shows a per-payee diff', async () => {
    assert.equal((await app.request('POST', '/statements/runs', { token: a.users.user!.token, body: { period: '2026-10' } })).status, 403);
    const bad = await run('2026-13');
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /period/);
    const r1 = await run('2026-10');
    assert.equal(r1.status, 201, JSON.stringify(r1.body));
    assert.equal(r1.body.data.status, 'draft');
    assert.deepEqual(r1.body.data.statements.map((s: { user: string }) => s.user).sort(), [payee, other].sort());
    assert.ok(r1.body.data.statements.every((s: { number: null }) => s.number === null));
    const r2 = await run('2026-10');
    assert.equal(r2.body.data.previousRunId, r1.body.data.id);
    assert.deepEqual(r2.body.data.diff.map((d: { status: string }) => d.status), ['unchanged', 'unchanged']);
    for (const s of r2.body.data.statements) assert.equal(s.contentHash, r1.body.data.statements.find((x: { user: string }) => x.user === s.user).contentHash);
    // a late October file for one payee: the re-run names what changed, for whom
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '2', assetId: rec[0], quantity: '10' }]);
    const r3 = await run('2026-10');
    const d = new Map(r3.body.data.diff.map((x: { user: string }) => [x.user, x]));
    assert.equal((d.get(payee) as { status: string }).status, 'changed');
    assert.equal((d.get(payee) as { change: { royaltiesTotal: string } }).change.royaltiesTotal, '2');
    assert.equal((d.get(other) as { status: string }).status, 'unchanged');
    assert.equal((await app.request('GET', `/statements/runs/${r1.body.data.id}`, admin())).body.data.status, 'superseded');
    issuedRun = r3.body.data.id;
    // a selection of payees
    const sel = await run('2026-10', [payee]);
    assert.deepEqual(sel.body.data.statements.map((s: { user: string }) => s.user), [payee]);
    issuedRun = sel.body.data.id;
    assert.equal((await run('2026-10', [uuid()])).status, 400);
  });

  it('issuing numbers and freezes statements; CSV and PDF add up line by line; members see their own only', async () => {
    const superseded = (await app.request('POST', '/statements/runs', { ...admin(), body: { period: '2026-Q4' } })).body.data.id;
    await run('2026-Q4'); // supersedes the first Q4 draft
    const sup = await app.request('POST', `/statements/runs/${superseded}/issue`, admin());
    assert.equal(sup.status, 400, JSON.stringify(sup.body));
    const iss = await app.request('POST', `/statements/runs/${issuedRun}/issue`, admin());
    assert.equal(iss.status, 200, JSON.stringify(iss.body));
    assert.equal(iss.body.data.status, 'issued');
    mine = iss.body.data.statements[0];
    assert.equal(mine.number, 1);
    assert.match(mine.contentHash, /^[0-9a-f]{64}$/);
    assert.equal((await app.request('POST', `/statements/runs/${issuedRun}/issue`, admin())).status, 400);
    // the payee's October is issued: a new run of October leaves them out
    const again = await run('2026-10');
    assert.deepEqual(again.body.data.skipped, [payee]);
    assert.deepEqual(again.body.data.statements.map((s: { user: string }) => s.user), [other]);

    const st = await app.request('GET', `/statements/${mine.id}`, { token: a.users.user!.token });
    assert.equal(st.status, 200);
    const f = st.body.data.figures;
    // per-recording lines with quantities; exact 10.004+2 / 5.0025+1.0015 → cents adding up to the royalties the ledger holds
    assert.deepEqual(f.recordings.map((r: { title: string; quantity: string }) => [r.title, r.quantity]).sort(), [['Song 0', '110'], ['Song 1', '48']]);
    assert.equal(sum(f.recordings.map((r: { amount: string }) => r.amount)).toFixed(), D(f.royaltiesTotal).toFixed());
    assert.equal(f.royaltiesTotal, '18.01');
    const csv = await bytes(`/statements/${mine.id}/csv`, a.users.user!.token);
    assert.equal(csv.status, 200);
    const rows = Papa.parse<Record<string, string>>(csv.body.toString().trim(), { header: true }).data;
    const amt = (section: string) => rows.filter((r) => r.section === section).map((r) => r.amount!);
    for (const r of rows.filter((x) => x.amount)) assert.match(r.amount!, /^-?\d+\.\d{2}$/);
    assert.equal(sum(amt('recording')).toFixed(2), amt('royalties_total')[0]);
    assert.equal(sum(rows.filter((r) => r.section === 'recording').map((r) => r.quantity!)).toFixed(), rows.find((r) => r.section === 'royalties_total')!.quantity);
    // every amount signed by its effect on the balance: the totals add up to the closing balance
    const parts = ['opening_balance', 'royalties_total', 'revenue_shares_total', 'recouped_total', 'payments_total', 'adjustments_total'].map((s) => amt(s)[0]!);
    assert.equal(sum(parts).toFixed(2), amt('closing_balance')[0]);
    const pdf = await bytes(`/statements/${mine.id}/pdf`, a.users.user!.token);
    assert.equal(pdf.type, 'application/pdf');
    const text = (await new PDFParse({ data: pdf.body }).getText()).text;
    const recLines = [...text.matchAll(/\(USRC1260000\d\)\s+\d+\s+(-?[\d.,]+)/g)].map((m) => m[1]!.replace(/,/g, ''));
    assert.equal(recLines.length, 2, text);
    assert.match(text, /Statement:\s+No\. 1/);
    assert.ok(text.includes(`Royalties 158 ${sum(recLines).toFixed(2)}`) || text.includes(`Royalties\t158\t${sum(recLines).toFixed(2)}`), text);
    frozen = { pdf: pdf.body, csv: csv.body.toString(), figures: f };

    // members: only their own; guests refused; another workspace sees nothing
    const list = await app.request('GET', '/statements', { token: a.users.user!.token });
    assert.deepEqual(list.body.data.map((s: { id: string }) => s.id), [mine.id]);
    assert.equal((await app.request('GET', `/statements?userId=${other}`, { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('GET', `/statements/${mine.id}`, { token: a.users.owner!.token })).status, 200); // owner is an admin
    assert.equal((await app.request('GET', `/statements/${mine.id}`, { token: a.users.guest!.token })).status, 403);
    assert.equal((await app.request('GET', `/statements/${mine.id}`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await bytes(`/statements/${mine.id}/pdf`, b.users.user!.token)).status, 404);
    assert.equal((await app.request('GET', `/statements/runs/${issuedRun}`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await app.request('POST', `/statements/runs/${issuedRun}/issue`, { token: b.users.admin!.token })).status, 404);
    assert.equal((await app.request('GET', '/statements', { token: b.users.admin!.token })).body.data.length, 0);
    // the database refuses to change an issued statement
    await assert.rejects(withTenant(app.svc.db.app, a.tenantId, (trx) => trx('statements').where({ id: mine.id }).update({ csv: 'x' })), /never changes/);
    await assert.rejects(withTenant(app.svc.db.app, a.tenantId, (trx) => trx('statements').where({ id: mine.id }).delete()), /never changes/);
  });

  it("split change after a payout: the issued statement stays byte-identical; the closed period's change appears once, as an adjustment", async () => {
    assert.equal((await app.request('GET', '/accounting/periods/2026-10', admin())).body.data.closed, false);
    const close = await app.request('POST', '/accounting/periods/2026-10/close', admin());
    assert.equal(close.status, 200);
    assert.equal(close.body.data.closed, true);
    const state = await app.request('GET', '/accounting/periods/2026-10', admin());
    assert.deepEqual(state.body.data, close.body.data, 'GET answers the period as closing left it');
    assert.equal((await app.request('GET', '/accounting/periods/2026-10', { token: a.users.user!.token })).status, 403);
    assert.equal((await run('2026-10')).status, 400);
    assert.equal((await app.request('POST', '/accounting/periods/2026-10/reopen', admin())).status, 400);
    assert.equal((await app.request('POST', '/accounting/periods/2026-10/close', { token: a.users.user!.token })).status, 403);
    // payout in November of what October's statement said
    const closing = (frozen.figures as { closingBalance: string }).closingBalance;
    const pay = await app.request('POST', '/payment/', { ...admin(), body: { user: payee, title: 'October payout', currency: 'USD', amount: closing, transactionDate: '2026-11-05T00:00:00Z' } });
    assert.equal(pay.status, 201, JSON.stringify(pay.body));
    // split change on October's file: the payee now gets half of recording 0 there
    await allocateFile(app, a.tenantId, f1, [
      { payee, amount: '5.002', assetId: rec[0], quantity: '100' },
      { payee: other, amount: '5.002', assetId: rec[0], quantity: '100' },
      { payee, amount: '5.0025', assetId: rec[1], quantity: '40' },
      { payee, amount: '1.0015', assetId: rec[1], quantity: '8' },
      { payee: other, amount: '10.004', assetId: rec[0], quantity: '100' },
    ], { supersedePrevious: true });
    // the issued statement: same bytes, same figures, also through the legacy route
    assert.deepEqual((await bytes(`/statements/${mine.id}/pdf`, a.users.user!.token)).body, frozen.pdf);
    assert.equal((await bytes(`/statements/${mine.id}/csv`, a.users.user!.token)).body.toString(), frozen.csv);
    assert.deepEqual((await app.request('GET', `/statements/${mine.id}`, admin())).body.data.figures, frozen.figures);
    assert.equal((await bytes(`/accounting/statement/${payee}?period=2026-10&format=csv`, a.users.user!.token)).body.toString(), frozen.csv);
    assert.deepEqual((await bytes(`/accounting/statement/${payee}?period=2026-10&format=pdf`, a.users.user!.token)).body, frozen.pdf);
    assert.equal((await app.request('GET', `/accounting/statement/${payee}?period=2026-10`, admin())).body.data.contentHash, mine.contentHash);

    // November: opening = October's closing; the change shows once, as an adjustment
    const nov = async () => {
      const r = await run('2026-11', [payee]);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return { run: r.body.data, f: (await app.request('GET', `/statements/${r.body.data.statements[0].id}`, admin())).body.data.figures };
    };
    const n1 = await nov();
    assert.equal(n1.f.openingBalance, closing);
    // October's file now posts for the payee 11.006 apportioned (11.00 or 11.01 by the tie rule) instead of 16.01
    const nowPosted = await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('ledger_entries').where({ source_id: f1, tenant_user_id: payee }).sum({ s: 'amount' }));
    const delta = D(nowPosted[0]!.s).minus('16.01').toFixed();
    assert.ok(['-5', '-5.01'].includes(delta), delta);
    assert.deepEqual(n1.f.adjustments.map((x: { origin: string; amount: string }) => [x.origin, x.amount]), [['split_change', delta]]);
    assert.equal(n1.f.paymentsTotal, D(closing).neg().toFixed());
    const due = (await app.request('GET', `/accounting/getcurrentdue?userId=${payee}`, admin())).body.data.due;
    assert.equal(n1.f.closingBalance, due);
    // paid more than the payee now earned: the overpayment is held for recovery, due is 0, not negative
    assert.equal(due, '0');
    assert.deepEqual(n1.f.recovery, [{ title: 'Overpayment held for recovery from later earnings', amount: D(delta).neg().toFixed() }]);
    assert.equal(n1.f.recoveryOutstanding, D(delta).neg().toFixed());
    const n2 = await nov();
    assert.deepEqual(n2.f.adjustments.map((x: { amount: string }) => x.amount), [delta], 'posted once, however often November is run');
    assert.equal(n2.run.diff[0].status, 'unchanged');
    assert.equal((await app.request('POST', `/statements/runs/${n2.run.id}/issue`, admin())).status, 200);
    // December: nothing left to adjust
    const dec = await run('2026-12', [payee]);
    const df = (await app.request('GET', `/statements/${dec.body.data.statements[0].id}`, admin())).body.data.figures;
    assert.deepEqual(df.adjustments, []);
    assert.equal(df.openingBalance, n2.f.closingBalance);
    // a late file for closed October, and the deletion of October's file: each once, on December's statement
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '3', assetId: rec[1], quantity: '1', period: '2026-10' }]);
    await allocateFile(app, a.tenantId, f1, [], { supersedePrevious: true });
    const dec2 = await run('2026-12', [payee]);
    const d2 = (await app.request('GET', `/statements/${dec2.body.data.statements[0].id}`, admin())).body.data.figures;
    // the file's deletion deepens November's overpayment: its recovery grows, shown as an adjustment too
    assert.deepEqual(d2.adjustments.map((x: { origin: string }) => x.origin).sort(), ['deleted_file', 'late_file', 'recovery']);
    assert.equal(d2.closingBalance, '0');
    assert.equal(d2.adjustments.find((x: { origin: string }) => x.origin === 'late_file').amount, '3');
    assert.equal(d2.closingBalance, (await app.request('GET', `/accounting/getcurrentdue?userId=${payee}`, admin())).body.data.due);
    const diff = dec2.body.data.diff.find((x: { user: string }) => x.user === payee);
    assert.equal(diff.status, 'changed');
    assert.equal(D(diff.change.adjustmentsTotal).toFixed(), D(d2.adjustmentsTotal).toFixed());
  });
});

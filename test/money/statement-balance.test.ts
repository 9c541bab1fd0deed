/**
 * Issue 31, cases 3–6: live statements add up and say they are not issued; the closing
 * balance of an issued statement is the ledger's whatever drafts were never issued; nothing
 * counted twice between an opening balance and an adjustment; a long statement's PDF is
 * readable (no overlapping words, every amount on its label's page and row, the heading and
 * page number on every page).
 */
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import Papa from 'papaparse';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { allocateFile, uuid } from './helpers';
import { amountOf, amountsBeside, overlaps, pdfRuns, rowAmount } from './statement-pdf-helpers';

const D = (v: Decimal.Value) => new Decimal(v);
const sum = (xs: Decimal.Value[]) => xs.reduce<Decimal>((a, b) => a.plus(b), D(0));

describe('money: statements are what is due, and readable', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  const admin = () => ({ token: a.users.admin!.token });
  const bytes = async (path: string) => {
    const r = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${a.users.admin!.token}` } });
    assert.equal(r.status, 200, path);
    return Buffer.from(await r.arrayBuffer());
  };
  const run = async (period: string, payees: string[]) => {
    const r = await app.request('POST', '/statements/runs', { ...admin(), body: { period, payees } });
    assert.equal(r.status, 201, r.text);
    return r.body.data as { id: string; statements: { id: string; user: string; closingBalance: string }[] };
  };
  const issue = async (id: string) => {
    const r = await app.request('POST', `/statements/runs/${id}/issue`, admin());
    assert.equal(r.status, 200, r.text);
    return r.body.data as { statements: { id: string; user: string; closingBalance: string }[] };
  };
  const figures = async (id: string) => (await app.request('GET', `/statements/${id}`, admin())).body.data.figures;
  const ledgerUntil = async (payee: string, end: string) =>
    D((await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('ledger_entries').where({ tenant_user_id: payee }).where('accounting_period', '<', end).sum({ s: 'amount' })))[0]!.s ?? 0);
  let isrcs = 0;
  const assets = async (titles: string[]) => {
    const ids = titles.map(() => uuid());
    await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('assets').insert(ids.map((id, i) => ({ tenant_id: a.tenantId, id, title: titles[i], isrc: `QZ${String(isrcs++).padStart(10, '0')}` }))));
    return ids;
  };

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Balances', ['owner', 'admin', 'user', 'guest']);
  });
  after(async () => app.close());

  it('case 3: a live statement prints minor units that add up to its totals, in JSON, CSV and PDF, and says it is not issued', async () => {
    const payee = a.users.guest!.tenantUserId;
    const recs = await assets(['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven']);
    // thirds of a cent on every recording: each line's exact sum has a sub-cent remainder
    await allocateFile(app, a.tenantId, uuid(), recs.flatMap((r, i) => [
      { payee, amount: `${1000 + i}.333333333333`, assetId: r, quantity: '3', period: '2026-06' },
      { payee, amount: `${i}.004444444444`, assetId: r, quantity: '1', period: '2026-06' },
    ]));
    const j = await app.request('GET', `/accounting/statement/${payee}?period=2026-06`, admin());
    assert.equal(j.status, 200, j.text);
    const s = j.body.data;
    assert.equal(s.status, 'live');
    for (const r of s.recordings) assert.match(r.amount, /^-?\d+(\.\d{1,2})?$/, `minor units: ${r.amount}`);
    assert.equal(sum(s.recordings.map((r: { amount: string }) => r.amount)).toFixed(2), D(s.royaltiesTotal).toFixed(2));
    assert.equal(D(s.closingBalance).toFixed(2), (await ledgerUntil(payee, '2026-07-01')).toFixed(2));

    const csvText = (await bytes(`/accounting/statement/${payee}?period=2026-06&format=csv`)).toString();
    const rows = Papa.parse<Record<string, string>>(csvText.trim(), { header: true }).data;
    assert.ok(rows.some((r) => r.section === 'header' && r.item === 'Statement' && r.reference === 'live'), 'the CSV says it is live');
    const lines = rows.filter((r) => r.section === 'recording').map((r) => r.amount!);
    assert.equal(lines.length, 7);
    for (const l of lines) assert.match(l, /^\d+\.\d{2}$/);
    assert.equal(sum(lines).toFixed(2), rows.find((r) => r.section === 'royalties_total')!.amount);

    const pdf = await bytes(`/accounting/statement/${payee}?period=2026-06&format=pdf`);
    const { runs } = await pdfRuns(pdf);
    assert.ok(runs.some((r) => /NOT ISSUED/.test(r.str)), 'the PDF says it is not issued');
    const printed = ['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven'].map((t, i) => rowAmount(runs, `${t} (QZ${String(i).padStart(10, '0')})`));
    assert.equal(sum(printed).toFixed(2), rowAmount(runs, 'Royalties').toFixed(2));
    assert.equal(rowAmount(runs, 'Closing balance').toFixed(2), D(s.closingBalance).toFixed(2));

    // the same renderer before and after issuing: the same sections and rows, now numbered
    const r = await run('2026-06', [payee]);
    const iss = await issue(r.id);
    const issued = await pdfRuns(await bytes(`/statements/${iss.statements[0]!.id}/pdf`));
    const texts = (x: { str: string }[]) => x.map((t) => t.str.trim());
    for (const t of ['Earnings by recording', 'Expenses recouped', 'Adjustments to closed periods', 'Item', 'Quantity', 'Amount (USD)']) {
      assert.ok(texts(runs).includes(t), `live: ${t}`);
      assert.ok(texts(issued.runs).includes(t), `issued: ${t}`);
    }
    assert.ok(!issued.runs.some((x) => /NOT ISSUED|DRAFT/.test(x.str)));
    assert.ok(issued.runs.some((x) => /^No\. \d+$/.test(x.str.trim())), 'the issued PDF carries its number');
    assert.equal(sum(['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven'].map((t, i) => rowAmount(issued.runs, `${t} (QZ${String(i).padStart(10, '0')})`))).toFixed(2), printed.reduce((x, y) => x.plus(y), D(0)).toFixed(2));
  });

  it('case 4: a draft never issued leaves the next issued closing balance equal to the ledger', async () => {
    const payee = a.users.user!.tenantUserId;
    const [rec] = await assets(['Draft song']);
    const f1 = uuid();
    await allocateFile(app, a.tenantId, f1, [{ payee, amount: '400.17', assetId: rec, quantity: '1', period: '2026-01' }]);
    await issue((await run('2026-01', [payee])).id);
    // January's file is re-allocated: the payee loses 260.09 of it
    await allocateFile(app, a.tenantId, f1, [{ payee, amount: '140.08', assetId: rec, quantity: '1', period: '2026-01' }], { supersedePrevious: true });
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '12.34', assetId: rec, quantity: '1', period: '2026-02' }]);
    // February is drafted (it posts the adjustment) and never issued
    const feb = await run('2026-02', [payee]);
    assert.equal((await figures(feb.statements[0]!.id)).adjustmentsTotal, '-260.09');
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '5', assetId: rec, quantity: '1', period: '2026-03' }]);
    const mar = await issue((await run('2026-03', [payee])).id);
    const f = await figures(mar.statements[0]!.id);
    assert.equal(D(f.closingBalance).toFixed(2), (await ledgerUntil(payee, '2026-04-01')).toFixed(2));
    assert.equal(D(f.closingBalance).toFixed(2), '157.42');
    // the never-issued February shows on March: its re-allocation and its royalties
    assert.equal(D(f.adjustmentsTotal).toFixed(2), '-247.75');
    assert.equal(f.openingBalance, '400.17');

    // a draft the ledger moved past is not issued: its closing balance would not be the ledger's
    const apr = await run('2026-04', [payee]);
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '1.01', assetId: rec, quantity: '1', period: '2026-04' }]);
    const stale = await app.request('POST', `/statements/runs/${apr.id}/issue`, admin());
    assert.equal(stale.status, 400, stale.text);
    assert.match(stale.body.message, /changed since this draft/);
    const fresh = await issue((await run('2026-04', [payee])).id);
    assert.equal(D(fresh.statements[0]!.closingBalance).toFixed(2), (await ledgerUntil(payee, '2026-05-01')).toFixed(2));
    assert.equal(D(fresh.statements[0]!.closingBalance).toFixed(2), '158.43');
  });

  it('case 5: a file before the first issued statement is in its opening balance, never again as an adjustment', async () => {
    const payee = a.users.owner!.tenantUserId;
    const [rec] = await assets(['Late cent']);
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '0.01', assetId: rec, quantity: '1', period: '2026-08' }]);
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '2', assetId: rec, quantity: '1', period: '2026-09' }]);
    const sep = await issue((await run('2026-09', [payee])).id);
    assert.equal((await figures(sep.statements[0]!.id)).openingBalance, '0.01');
    // a late file into September after its statement, and October's own royalties
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '0.01', assetId: rec, quantity: '1', period: '2026-09' }]);
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '1', assetId: rec, quantity: '1', period: '2026-10' }]);
    const oct = await issue((await run('2026-10', [payee])).id);
    const f = await figures(oct.statements[0]!.id);
    assert.deepEqual(f.adjustments.map((x: { origin: string; amount: string }) => [x.origin, x.amount]), [['late_file', '0.01']]);
    assert.equal(f.openingBalance, '2.01');
    assert.equal(D(f.closingBalance).toFixed(2), (await ledgerUntil(payee, '2026-11-01')).toFixed(2));
    assert.equal(D(f.closingBalance).toFixed(2), '3.02');
  });

  it('case 6: 100 recordings with 120-character titles: no overlapping words, every amount on its label\'s page and row, heading and page number on every page', async () => {
    const payee = a.users.admin!.tenantUserId;
    const titles = Array.from({ length: 100 }, (_, i) => `Track ${String(i).padStart(3, '0')} ` + 'a long and winding title with many words that wraps over several lines of the statement table '.repeat(3).slice(0, 110));
    assert.ok(titles.every((t) => t.length === 120));
    const recs = await assets(titles);
    await allocateFile(app, a.tenantId, uuid(), recs.map((r, i) => ({ payee, amount: `${(i * 7919) % 100000}.${String(i * 37 % 1000).padStart(3, '0')}1`, assetId: r, quantity: String(i + 1), period: '2026-04' })));
    const iss = await issue((await run('2026-04', [payee])).id);
    const f = await figures(iss.statements[0]!.id);
    const { pages, runs } = await pdfRuns(await bytes(`/statements/${iss.statements[0]!.id}/pdf`));
    assert.ok(pages >= 4, `${pages} pages`);
    assert.deepEqual(overlaps(runs).map(([x, y]) => `${x.str} / ${y.str}`), []);
    for (let p = 1; p <= pages; p++) {
      const on = runs.filter((r) => r.page === p).map((r) => r.str.trim());
      assert.ok(on.includes('Item') && on.includes(`Amount (USD)`), `the table heading on page ${p}`);
      assert.ok(on.includes(`Page ${p} of ${pages}`), `page number on page ${p}`);
    }
    for (const r of f.recordings as { title: string; amount: string }[]) {
      const label = runs.filter((x) => x.x < 300 && x.str.startsWith(r.title.slice(0, 10)));
      assert.equal(label.length, 1, r.title);
      const beside = amountsBeside(runs, label[0]!);
      assert.equal(beside.length, 1, `${r.title}: one amount on its row`);
      assert.equal(amountOf(beside[0]!.str)!.toFixed(2), D(r.amount).toFixed(2));
    }
    // no amount alone on a page: every amount has a label on its baseline
    for (const x of runs.filter((r) => r.x >= 448 && amountOf(r.str) !== null)) {
      assert.ok(runs.some((l) => l.page === x.page && l.x < 300 && Math.abs(l.y - x.y) < 1), `amount ${x.str} on page ${x.page} has a label`);
    }
    // a section heading is never the last thing on its page: its first row follows it there
    const headings = runs.filter((r) => Math.abs(r.x - 50) < 1 && ['Earnings by recording', 'Expenses recouped', 'Payments', 'Adjustments to closed periods'].includes(r.str.trim()) && !amountsBeside(runs, r).length);
    assert.equal(headings.length, 4);
    for (const h of headings) assert.ok(runs.some((r) => r.page === h.page && r.y < h.y - 5 && r.y > 45), `"${h.str}" on page ${h.page} has a row below it`);
    // the head names the payee once (this member has no name: the e-mail stands for it), never the e-mail twice
    const email = a.users.admin!.email;
    assert.equal(runs.filter((r) => r.page === 1 && r.str.includes(email)).length, 1);
  });
});

/**
 * Statements on random workspaces (fast-check, a few runs: each builds a workspace through
 * the real HTTP stack): odd shares over several payees, files in several periods, late files,
 * re-allocations, recoupable expenses, payments, and statement drafts issued, superseded and
 * never issued. For every issued statement: the closing balance is the ledger at its period
 * end; the JSON, CSV and PDF show minor units only, and their lines add up to their totals.
 */
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import Papa from 'papaparse';
import { startTestApp, createTestTenant, type TestApp } from '../helpers/app';
import { withTenant } from '../../src/db';
import { allocateFile, uuid } from './helpers';
import { amountOf, pdfRuns } from './statement-pdf-helpers';

const D = (v: Decimal.Value) => new Decimal(v);
const sum = (xs: Decimal.Value[]) => xs.reduce<Decimal>((a, b) => a.plus(b), D(0));
const CENTS = /^-?\d+(\.\d{1,2})?$/;

type Plan = 'issue' | 'draft' | 'supersede' | 'none';
interface Month {
  files: { lines: { payee: number; exact: string; rec: number }[]; late: boolean }[];
  realloc: boolean;
  expense: { payee: number; amount: string } | null;
  pay: number | null;
  plan: Plan;
}

const exact = fc.tuple(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 1, max: 9 })).map(([n, d]) => D(n).div(d * 3 + 1).toDecimalPlaces(9, Decimal.ROUND_DOWN).toFixed());
const month: fc.Arbitrary<Month> = fc.record({
  files: fc.array(fc.record({ lines: fc.array(fc.record({ payee: fc.integer({ min: 0, max: 2 }), exact, rec: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 6 }), late: fc.boolean() }), { minLength: 0, maxLength: 2 }),
  realloc: fc.boolean(),
  expense: fc.option(fc.record({ payee: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 1, max: 50_000 }).map((c) => D(c).div(100).toFixed()) }), { nil: null }),
  pay: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  plan: fc.constantFrom<Plan>('issue', 'draft', 'supersede', 'none'),
});

describe('money: statements on random workspaces (property)', function () {
  this.timeout(600_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.close());

  it('every issued statement: closing = ledger at its period end; JSON, CSV and PDF lines add up to their totals in minor units', async () => {
    let n = 0;
    // what the generated workspaces exercised (the fixed seed makes this the same every run)
    const seen = { adjustments: 0, recouped: 0, payments: 0, neverIssued: 0, superseded: 0, lateFiles: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(month, { minLength: 3, maxLength: 4 }), async (months) => {
        const t = await createTestTenant(app, `Prop ${n++}`, ['owner', 'admin', 'user']);
        const admin = { token: t.users.admin!.token };
        const payees = ['owner', 'admin', 'user'].map((r) => t.users[r]!.tenantUserId);
        const recs = [uuid(), uuid(), uuid(), uuid()];
        await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('assets').insert(recs.map((id, i) => ({ tenant_id: t.tenantId, id, title: `Recording ${i} of ${n}`, isrc: `QP${String(n).padStart(4, '0')}${String(i).padStart(6, '0')}` }))));
        const ledger = async (payee: string, end: string) =>
          D((await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('ledger_entries').where({ tenant_user_id: payee }).where('accounting_period', '<', end).sum({ s: 'amount' })))[0]!.s ?? 0);
        const files: { id: string; period: string; lines: Month['files'][number]['lines'] }[] = [];
        const post = (id: string, period: string, lines: Month['files'][number]['lines'], supersede = false) =>
          allocateFile(app, t.tenantId, id, lines.map((l) => ({ payee: payees[l.payee]!, amount: l.exact, assetId: recs[l.rec]!, quantity: '1', period })), { supersedePrevious: supersede });
        const issuedIds: string[] = [];

        for (const [i, m] of months.entries()) {
          const period = `2026-${String(i + 1).padStart(2, '0')}`;
          for (const f of m.files) {
            const p = f.late && i > 0 ? `2026-${String(i).padStart(2, '0')}` : period;
            const id = uuid();
            files.push({ id, period: p, lines: f.lines });
            await post(id, p, f.lines);
          }
          if (m.realloc && files.length) {
            const f = files[0]!;
            // odd shares: the file's lines go to the next payee, a third of them
            f.lines = f.lines.map((l) => ({ ...l, payee: (l.payee + 1) % 3, exact: D(l.exact).div(3).toDecimalPlaces(9, Decimal.ROUND_DOWN).toFixed() }));
            await post(f.id, f.period, f.lines, true);
          }
          if (m.expense) {
            const r = await app.request('POST', '/expense/', { ...admin, body: { user: payees[m.expense.payee], title: `Expense ${period}`, amount: m.expense.amount, currency: 'USD', conversionRate: 1, date: `${period}-10`, recoupable: true } });
            assert.equal(r.status, 201, r.text);
          }
          if (m.pay !== null) {
            const due = (await app.request('GET', `/accounting/getcurrentdue?userId=${payees[m.pay]}`, admin)).body.data.due as string;
            const amount = D(due).div(2).toDecimalPlaces(2, Decimal.ROUND_DOWN);
            if (amount.gt(0)) {
              const r = await app.request('POST', '/payment/', { ...admin, body: { user: payees[m.pay], title: `Payout ${period}`, currency: 'USD', amount: amount.toFixed(), transactionDate: `${period}-20T00:00:00Z` } });
              assert.equal(r.status, 201, r.text);
            }
          }
          const run = async () => {
            const r = await app.request('POST', '/statements/runs', { ...admin, body: { period } });
            assert.equal(r.status, 201, r.text);
            return r.body.data.id as string;
          };
          seen.lateFiles += m.files.filter((f) => f.late && i > 0).length;
          if (m.plan === 'draft') seen.neverIssued++;
          if (m.plan === 'supersede') seen.superseded++;
          if (m.plan === 'none') continue;
          let id = await run();
          if (m.plan === 'supersede') id = await run();
          if (m.plan === 'draft') continue;
          const iss = await app.request('POST', `/statements/runs/${id}/issue`, admin);
          assert.equal(iss.status, 200, iss.text);
          for (const s of iss.body.data.statements as { id: string; user: string; closingBalance: string }[]) {
            assert.equal(D(s.closingBalance).toFixed(2), (await ledger(s.user, `2026-${String(i + 2).padStart(2, '0')}-01`)).toFixed(2), `closing = ledger (${period})`);
            issuedIds.push(s.id);
          }
        }
        // a last period, issued for everyone: closing = what is due now
        const last = `2026-${String(months.length + 1).padStart(2, '0')}`;
        const r = await app.request('POST', '/statements/runs', { ...admin, body: { period: last } });
        const iss = await app.request('POST', `/statements/runs/${r.body.data.id}/issue`, admin);
        assert.equal(iss.status, 200, iss.text);
        for (const s of iss.body.data.statements as { id: string; user: string; closingBalance: string }[]) {
          assert.equal(s.closingBalance, (await app.request('GET', `/accounting/getcurrentdue?userId=${s.user}`, admin)).body.data.due);
          issuedIds.push(s.id);
        }

        for (const id of issuedIds) {
          const got = (await app.request('GET', `/statements/${id}`, admin)).body.data;
          const f = got.figures;
          // JSON: minor units; lines add up to section totals, totals to the closing balance
          const sections: [string, string][] = [['recordings', 'royaltiesTotal'], ['revenueShares', 'revenueSharesTotal'], ['recouped', 'recoupedTotal'], ['payments', 'paymentsTotal'], ['recovery', 'recoveryTotal'], ['adjustments', 'adjustmentsTotal']];
          for (const [lines, total] of sections) {
            for (const l of f[lines]) assert.match(l.amount, CENTS, `${lines}: ${l.amount}`);
            assert.match(f[total], CENTS);
            assert.equal(sum(f[lines].map((l: { amount: string }) => l.amount)).toFixed(2), D(f[total]).toFixed(2), `${lines} add up`);
          }
          for (const l of f.recouped) assert.ok(D(l.amount).lte(0), 'recouped is negative');
          if (f.adjustments.length) seen.adjustments++;
          if (f.recouped.length) seen.recouped++;
          if (f.payments.length) seen.payments++;
          assert.equal(sum([f.openingBalance, ...sections.map(([, k]) => f[k])]).toFixed(2), D(f.closingBalance).toFixed(2));

          // CSV: the same
          const csv = await fetch(`${app.url}/statements/${id}/csv`, { headers: { authorization: `Bearer ${admin.token}` } }).then((x) => x.text());
          const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
          for (const x of rows.filter((y) => y.amount)) assert.match(x.amount!, /^-?\d+\.\d{2}$/);
          const amt = (s: string) => rows.filter((x) => x.section === s).map((x) => x.amount!);
          assert.equal(sum(amt('recording')).toFixed(2), amt('royalties_total')[0]);
          assert.equal(sum(amt('recouped')).toFixed(2), amt('recouped_total')[0]);
          assert.equal(sum(amt('adjustment')).toFixed(2), amt('adjustments_total')[0]);
          assert.equal(sum(['opening_balance', 'royalties_total', 'revenue_shares_total', 'recouped_total', 'payments_total', 'overpayment_recovery_total', 'adjustments_total'].flatMap(amt)).toFixed(2), amt('closing_balance')[0]);

          // XLSX (read from the stored CSV): the same rows, amounts as numbers with the same signs
          const xlsx = Buffer.from(await (await fetch(`${app.url}/accounting/statement/${got.statement.user}?period=${got.statement.period}&format=xlsx`, { headers: { authorization: `Bearer ${admin.token}` } })).arrayBuffer());
          const wb = new ExcelJS.Workbook();
          await wb.xlsx.load(xlsx as unknown as ArrayBuffer);
          const sheet: string[][] = [];
          wb.worksheets[0]!.eachRow((row) => sheet.push((row.values as unknown[]).slice(1).map((v) => (v === null || v === undefined ? '' : String(v)))));
          const xamt = (sec: string) => sheet.filter((x) => x[0] === sec).map((x) => D(x[4]!).toFixed(2));
          assert.deepEqual(xamt('recording'), amt('recording'));
          assert.deepEqual(xamt('recouped_total'), amt('recouped_total'));
          assert.deepEqual(xamt('closing_balance'), amt('closing_balance'));
          assert.equal(sum(xamt('recording')).toFixed(2), xamt('royalties_total')[0]);

          // PDF text: the amount column, in reading order, is exactly the figures' lines and totals
          const pdf = Buffer.from(await (await fetch(`${app.url}/statements/${id}/pdf`, { headers: { authorization: `Bearer ${admin.token}` } })).arrayBuffer());
          const { runs } = await pdfRuns(pdf);
          const printed = runs.filter((x) => x.x >= 448 && amountOf(x.str) !== null).sort((a, b) => a.page - b.page || b.y - a.y).map((x) => amountOf(x.str)!.toFixed(2));
          const expected = [
            f.openingBalance,
            ...f.recordings.map((l: { amount: string }) => l.amount), f.royaltiesTotal,
            ...(f.revenueShares.length ? [...f.revenueShares.map((l: { amount: string }) => l.amount), f.revenueSharesTotal] : []),
            ...f.recouped.map((l: { amount: string }) => l.amount), f.recoupedTotal,
            ...f.payments.map((l: { amount: string }) => l.amount), f.paymentsTotal,
            ...(f.recovery.length || !D(f.recoveryOutstanding).isZero() ? [...f.recovery.map((l: { amount: string }) => l.amount), f.recoveryTotal] : []),
            ...f.adjustments.map((l: { amount: string }) => l.amount), f.adjustmentsTotal,
            f.closingBalance,
          ].map((v: string) => D(v).toFixed(2));
          assert.deepEqual(printed, expected);
        }
      }),
      { numRuns: 4, seed: 31, endOnFailure: true },
    );
    for (const [k, v] of Object.entries(seen)) assert.ok(v > 0, `the generated workspaces have ${k}`);
  });
});

/**
 * Statements on random workspaces (fast-check, a few runs: each builds a workspace through
 * the real HTTP stack). Each run's workspace has its own base currency (EUR, USD, JPY, KWD:
 * 2, 2, 0 and 3 decimals), six payees under odd shares (33.333333 / 33.333333 / 33.333334,
 * 12.5 / 37.123457 / 50.376543, 99.999999 / 0.000001, …), files over several periods with
 * lines in the base currency and in two others at odd exchange rates, late files,
 * re-allocations, revenues split at odd shares, recoupable expenses (in other currencies, some
 * on a recording), payments (one in another currency where the API allows it: a USD base),
 * payment reversals (failed, deleted) and edits, and statement drafts issued, superseded,
 * dropped and never issued.
 *
 * For every payee and every issued statement, and for the live statement of every period
 * nothing was issued for: the closing balance is the ledger at its period end; in the JSON
 * figures, the CSV, the XLSX workbook and the PDF's text every line adds up to its printed
 * section total, the totals to the closing balance, and no figure carries more than the
 * currency's minor unit. For every payee: what was recouped through each period is at most
 * what the ledger credited through it, and the expenses' and summaries' figures are in minor
 * units.
 */
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import Papa from 'papaparse';
import { startTestApp, createTestTenant, type TestApp } from '../helpers/app';
import { withTenant } from '../../src/db';
import { ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';
import { allocateFile, shareSet, uuid } from './helpers';
import { pdfRuns } from './statement-pdf-helpers';

const D = (v: Decimal.Value) => new Decimal(v);
const sum = (xs: Decimal.Value[]) => xs.reduce<Decimal>((a, b) => a.plus(b), D(0));

/** Base currencies (ISO 4217 minor units written out here, not read from the code under test) and two other currencies each, at odd rates (base per unit). */
const BASES = [
  { code: 'EUR', digits: 2, other: [['USD', '0.9223187'], ['GBP', '1.1719543']] },
  { code: 'USD', digits: 2, other: [['EUR', '1.0842317'], ['GBP', '1.2706559']] },
  { code: 'JPY', digits: 0, other: [['USD', '156.8834119'], ['EUR', '170.0931']] },
  { code: 'KWD', digits: 3, other: [['USD', '0.3071623'], ['GBP', '0.3891577']] },
] as const;
/** Odd shares over the six payees (indexes), each adding up to 100; payee 4 has only a millionth of one set (credited 0 on most files). */
const SETS: [number, string][][] = [
  [[0, '33.333333'], [1, '33.333333'], [2, '33.333334']],
  [[1, '12.5'], [2, '37.123457'], [3, '50.376543']],
  [[3, '100']],
  [[0, '99.999999'], [4, '0.000001']],
  [[0, '25.000001'], [1, '24.999999'], [5, '25'], [3, '25']],
  [[5, '66.666667'], [2, '33.333333']],
];
const PAYEES = 6;

/** A figure in at most `digits` decimals (JSON figures trim trailing zeros). */
const atMost = (digits: number) => (digits ? new RegExp(`^-?\\d+(\\.\\d{1,${digits}})?$`) : /^-?\d+$/);
/** A figure in exactly `digits` decimals (CSV). */
const exactly = (digits: number) => (digits ? new RegExp(`^-?\\d+\\.\\d{${digits}}$`) : /^-?\d+$/);
/** A printed PDF amount ("-1,234.50"; JPY "-1,234"). */
const printed = (digits: number) => (digits ? new RegExp(`^-?\\d{1,3}(,\\d{3})*\\.\\d{${digits}}$`) : /^-?\d{1,3}(,\d{3})*$/);
/** Any decimal number inside a text (not part of a dotted word such as an e-mail address). */
const DECIMALS = /(?<![\w.])-?\d[\d,]*\.(\d+)(?![\w.])/g;

type Plan = 'issue' | 'draft' | 'supersede' | 'none';
type Line = { set: number; cur: number; net: string; rec: number };
interface Month {
  files: { lines: Line[]; late: boolean }[];
  realloc: boolean;
  revenue: { cents: number; cur: number; set: number } | null;
  expense: { payee: number; cents: number; cur: number; target: boolean } | null;
  pay: { payee: number; foreign: boolean; over: boolean } | null;
  undo: 'fail' | 'delete' | 'edit' | null;
  plan: Plan;
}

/** A line's net amount; about one line in five is negative (a return or a correction), so a payee's credit can be negative. */
const net = fc
  .tuple(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 4 }))
  .map(([n, d, s]) => D(n).div(d * 3 + 1).toDecimalPlaces(9, Decimal.ROUND_DOWN).mul(s === 0 ? -1 : 1).toFixed());
const line: fc.Arbitrary<Line> = fc.record({ set: fc.integer({ min: 0, max: SETS.length - 1 }), cur: fc.integer({ min: 0, max: 2 }), net, rec: fc.integer({ min: 0, max: 3 }) });
const month: fc.Arbitrary<Month> = fc.record({
  files: fc.array(fc.record({ lines: fc.array(line, { minLength: 1, maxLength: 5 }), late: fc.boolean() }), { minLength: 0, maxLength: 2 }),
  realloc: fc.boolean(),
  revenue: fc.option(fc.record({ cents: fc.integer({ min: 1, max: 100_000 }), cur: fc.integer({ min: 0, max: 2 }), set: fc.constantFrom(0, 1, 4, 5) }), { nil: null }),
  expense: fc.option(fc.record({ payee: fc.integer({ min: 0, max: PAYEES - 1 }), cents: fc.integer({ min: 1, max: 50_000 }), cur: fc.integer({ min: 0, max: 2 }), target: fc.boolean() }), { nil: null }),
  pay: fc.option(fc.record({ payee: fc.integer({ min: 0, max: PAYEES - 1 }), foreign: fc.boolean(), over: fc.boolean() }), { nil: null }),
  undo: fc.constantFrom<Month['undo']>(null, 'fail', 'delete', 'edit'),
  plan: fc.constantFrom<Plan>('issue', 'draft', 'supersede', 'none'),
});

interface Figures {
  currency: string;
  openingBalance: string;
  recordings: { amount: string }[]; royaltiesTotal: string;
  revenueShares: { amount: string }[]; revenueSharesTotal: string;
  recouped: { amount: string }[]; recoupedTotal: string;
  payments: { amount: string }[]; paymentsTotal: string;
  recovery: { amount: string }[]; recoveryTotal: string; recoveryOutstanding: string;
  adjustments: { amount: string }[]; adjustmentsTotal: string;
  closingBalance: string;
  /** What the statement accounted for, per source (read by later statements' adjustments). */
  sources: { amount: string }[];
}
/** JSON sections: lines and their total. */
const SECTIONS = [['recordings', 'royaltiesTotal'], ['revenueShares', 'revenueSharesTotal'], ['recouped', 'recoupedTotal'], ['payments', 'paymentsTotal'], ['recovery', 'recoveryTotal'], ['adjustments', 'adjustmentsTotal']] as const;
/** CSV/XLSX sections: the line rows' section names and their total row. */
const TABLE_SECTIONS: [string[], string][] = [
  [['recording'], 'royalties_total'], [['revenue_share'], 'revenue_shares_total'], [['recouped'], 'recouped_total'],
  [['payment', 'reversal', 'payment_adjustment'], 'payments_total'], [['overpayment_recovery'], 'overpayment_recovery_total'], [['adjustment'], 'adjustments_total'],
];
const amounts = (xs: { amount: string }[]) => xs.map((x) => x.amount);

/** The figures in the order the CSV (and so the XLSX) lists them. */
function tableOrder(f: Figures): string[] {
  return [
    f.openingBalance, ...amounts(f.recordings), f.royaltiesTotal, ...amounts(f.revenueShares), f.revenueSharesTotal, ...amounts(f.recouped), f.recoupedTotal,
    ...amounts(f.payments), f.paymentsTotal, ...(f.recovery.length ? [...amounts(f.recovery), f.recoveryTotal] : []), ...amounts(f.adjustments), f.adjustmentsTotal, f.closingBalance,
  ];
}
/** The figures as the PDF prints them in its amount column, in reading order: the opening balance, each shown section's lines then its total, the closing balance. */
function pdfSections(f: Figures): string[][] {
  return [
    [f.openingBalance], [...amounts(f.recordings), f.royaltiesTotal],
    ...(f.revenueShares.length ? [[...amounts(f.revenueShares), f.revenueSharesTotal]] : []),
    [...amounts(f.recouped), f.recoupedTotal], [...amounts(f.payments), f.paymentsTotal],
    ...(f.recovery.length || !D(f.recoveryOutstanding).isZero() ? [[...amounts(f.recovery), f.recoveryTotal]] : []),
    [...amounts(f.adjustments), f.adjustmentsTotal], [f.closingBalance],
  ];
}

/** A table (CSV rows or XLSX rows as [section, amount]): each section's lines add up to its total row, the totals and the opening balance to the closing balance. */
function tableAddsUp(rows: [string, Decimal][], what: string, digits: number) {
  const of = (s: string) => rows.filter(([x]) => x === s).map(([, a]) => a);
  const totals: Decimal[] = [];
  for (const [lines, total] of TABLE_SECTIONS) {
    const t = of(total);
    // one total row per section; the overpayment-recovery rows only when the period has recovery entries
    assert.equal(t.length, total === 'overpayment_recovery_total' && !lines.flatMap(of).length ? 0 : 1, `${what}: ${total} rows`);
    if (!t.length) continue;
    assert.equal(sum(lines.flatMap(of)).toFixed(digits), t[0]!.toFixed(digits), `${what}: ${lines.join('/')} rows add up to ${total}`);
    totals.push(t[0]!);
  }
  assert.equal(sum([...of('opening_balance'), ...totals]).toFixed(digits), of('closing_balance')[0]!.toFixed(digits), `${what}: totals add up to the closing balance`);
}

describe('money: statements on random workspaces (property)', function () {
  this.timeout(600_000);
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app.close());

  it('every payee, every issued and live statement: closing = ledger; JSON, CSV, XLSX and PDF lines add up to their totals in minor units; recouped ≤ credited', async () => {
    let n = 0;
    // what the generated workspaces exercised (the fixed seed makes this the same every run)
    const seen: Record<string, number> = { adjustments: 0, recouped: 0, payments: 0, reversals: 0, fail: 0, delete: 0, edit: 0, foreignPayments: 0, foreignLines: 0, revenueShares: 0, recovery: 0, neverIssued: 0, superseded: 0, lateFiles: 0, live: 0, loserExpenses: 0, zeroDigits: 0, threeDigits: 0, negativeLines: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(month, { minLength: 3, maxLength: 3 }), async (months) => {
        // each run its own base currency, in turn, so that every run of the fixed seed covers all four
        const base = BASES[n % BASES.length]!;
        const { digits } = base;
        const t = await createTestTenant(app, `Prop ${n++}`, ['owner', 'admin', 'user', 'guest']);
        const admin = { token: t.users.admin!.token };
        const get = async (path: string) => {
          const r = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${admin.token}` } });
          assert.equal(r.status, 200, path);
          return Buffer.from(await r.arrayBuffer());
        };
        const ws = await app.request('PUT', '/settings/workspace', { ...admin, body: { baseCurrency: base.code } });
        assert.equal(ws.status, 200, ws.text);
        if (digits === 0) seen.zeroDigits!++;
        if (digits === 3) seen.threeDigits!++;
        const payees = ['owner', 'admin', 'user', 'guest'].map((r) => t.users[r]!.tenantUserId);
        while (payees.length < PAYEES) {
          const g = await ensureGlobalUser(app.svc.db.owner, { email: `payee${payees.length}.${t.tenantId}@prop.test`, passwordHash: 'x' });
          payees.push(await upsertMembership(app.svc.db.owner, t.tenantId, g.id, 'user'));
        }
        const sets: string[] = [];
        for (const s of SETS) sets.push(await shareSet(app, t.tenantId, s.map(([p, share]) => ({ payee: payees[p]!, share }))));
        const recs = [uuid(), uuid(), uuid(), uuid()];
        await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('assets').insert(recs.map((id, i) => ({ tenant_id: t.tenantId, id, title: `Recording ${i} of ${n}`, isrc: `QP${String(n).padStart(4, '0')}${String(i).padStart(6, '0')}` }))));
        const ledger = async (payee: string, end: string) =>
          D((await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('ledger_entries').where({ tenant_user_id: payee }).where('accounting_period', '<', end).sum({ s: 'amount' })))[0]!.s ?? 0);
        /** A currency of a line, a revenue or an expense: 0 the base, 1 and 2 the others, with their rate. */
        const money = (cur: number): [string, string] => (cur === 0 ? [base.code, '1'] : [base.other[cur - 1]![0], base.other[cur - 1]![1]]);
        const files: { id: string; period: string; lines: Line[] }[] = [];
        const post = (id: string, period: string, lines: Line[], supersede = false) =>
          allocateFile(app, t.tenantId, id, lines.map((l) => {
            const [currency, rate] = money(l.cur);
            return { shareSetId: sets[l.set]!, net: l.net, currency, amount: D(l.net).mul(rate).toFixed(), assetId: recs[l.rec]!, quantity: '1', period };
          }), { supersedePrevious: supersede });
        const issued: { id: string; user: string; period: string }[] = [];
        const unissued: string[] = [];
        const payments: { id: string; amount: Decimal }[] = [];
        const end = (i: number) => `2026-${String(i + 2).padStart(2, '0')}-01`;

        for (const [i, m] of months.entries()) {
          const period = `2026-${String(i + 1).padStart(2, '0')}`;
          for (const f of m.files) {
            const p = f.late && i > 0 ? `2026-${String(i).padStart(2, '0')}` : period;
            const id = uuid();
            files.push({ id, period: p, lines: f.lines });
            await post(id, p, f.lines);
            seen.foreignLines! += f.lines.filter((l) => l.cur > 0).length;
            seen.negativeLines! += f.lines.filter((l) => D(l.net).isNeg()).length;
            seen.lateFiles! += f.late && i > 0 ? 1 : 0;
          }
          if (m.realloc && files.length) {
            // a re-allocation: the first file's lines go to the next share set, a third of them
            const f = files[0]!;
            f.lines = f.lines.map((l) => ({ ...l, set: (l.set + 1) % SETS.length, net: D(l.net).div(3).toDecimalPlaces(9, Decimal.ROUND_DOWN).toFixed() }));
            await post(f.id, f.period, f.lines, true);
          }
          if (m.revenue) {
            const [currency, rate] = money(m.revenue.cur);
            const splits = SETS[m.revenue.set]!.map(([p, share]) => ({ user: payees[p], share }));
            const r = await app.request('POST', '/revenue/', { ...admin, body: { title: `Sync ${period}`, source: 'sync', amount: D(m.revenue.cents).div(100).toFixed(), currency, conversionRate: rate, date: `${period}-05`, accountingPeriod: period, splits } });
            assert.equal(r.status, 201, r.text);
          }
          if (m.expense) {
            const [currency, rate] = money(m.expense.cur);
            const target = m.expense.target ? { targetType: 'asset', targetId: recs[m.expense.payee % recs.length]! } : {};
            const r = await app.request('POST', '/expense/', { ...admin, body: { user: payees[m.expense.payee], title: `Expense ${period}`, amount: D(m.expense.cents).div(100).toFixed(), currency, conversionRate: rate, date: `${period}-10`, recoupable: true, ...target } });
            assert.equal(r.status, 201, r.text);
            if (m.expense.payee === 4) seen.loserExpenses!++;
          }
          if (m.pay) {
            const due = D((await app.request('GET', `/accounting/getcurrentdue?userId=${payees[m.pay.payee]}`, admin)).body.data.due as string);
            // half of what is due, or more than is due (an overpayment, held for recovery from later earnings)
            const half = due.mul(m.pay.over ? '1.5' : '0.5').toDecimalPlaces(digits, Decimal.ROUND_DOWN);
            // a USD workspace pays in euros too: the amount in euros and the rate; the USD amount (and so the ledger's) is derived
            const foreign = m.pay.foreign && base.code === 'USD';
            const [currency, rate] = foreign ? ['EUR', '1.0842317'] : [base.code, '1'];
            const amount = half.div(rate).toDecimalPlaces(2, Decimal.ROUND_DOWN);
            if (amount.gt(0)) {
              const r = await app.request('POST', '/payment/', { ...admin, body: { user: payees[m.pay.payee], title: `Payout ${period}`, currency, amount: amount.toFixed(), conversionRate: rate, transactionDate: `${period}-20T00:00:00Z` } });
              assert.equal(r.status, 201, r.text);
              payments.push({ id: r.body.data.id, amount });
              if (foreign) seen.foreignPayments!++;
            }
          }
          const last = payments.pop();
          if (m.undo && last) {
            // the latest payment fails, is deleted, or is corrected to a third of it
            const r = m.undo === 'fail' ? await app.request('PUT', `/payment/${last.id}`, { ...admin, body: { status: 'failed' } })
              : m.undo === 'delete' ? await app.request('DELETE', `/payment/${last.id}`, admin)
              : await app.request('PUT', `/payment/${last.id}`, { ...admin, body: { amount: last.amount.div(3).toDecimalPlaces(2, Decimal.ROUND_UP).toFixed() } });
            assert.equal(r.status, 200, r.text);
            seen[m.undo]!++;
          } else if (last) payments.push(last);
          const run = async () => {
            const r = await app.request('POST', '/statements/runs', { ...admin, body: { period } });
            assert.equal(r.status, 201, r.text);
            for (const x of r.body.data.statements as Record<string, string>[]) {
              for (const k of ['openingBalance', 'royaltiesTotal', 'adjustmentsTotal', 'closingBalance']) assert.match(x[k]!, atMost(digits), `run ${period}: ${k} ${x[k]}`);
            }
            return r.body.data.id as string;
          };
          if (m.plan === 'draft') seen.neverIssued!++;
          if (m.plan === 'supersede') seen.superseded!++;
          if (m.plan === 'none' || m.plan === 'draft') unissued.push(period);
          if (m.plan === 'none') continue;
          let id = await run();
          if (m.plan === 'supersede') id = await run();
          if (m.plan === 'draft') continue;
          const iss = await app.request('POST', `/statements/runs/${id}/issue`, admin);
          assert.equal(iss.status, 200, iss.text);
          for (const s of iss.body.data.statements as { id: string; user: string; closingBalance: string }[]) {
            assert.equal(D(s.closingBalance).toFixed(digits), (await ledger(s.user, end(i))).toFixed(digits), `closing = ledger (${period})`);
            issued.push({ id: s.id, user: s.user, period });
          }
        }
        // a last period, issued for everyone: closing = what is due now
        const lastPeriod = `2026-${String(months.length + 1).padStart(2, '0')}`;
        const r = await app.request('POST', '/statements/runs', { ...admin, body: { period: lastPeriod } });
        const iss = await app.request('POST', `/statements/runs/${r.body.data.id}/issue`, admin);
        assert.equal(iss.status, 200, iss.text);
        for (const s of iss.body.data.statements as { id: string; user: string; closingBalance: string }[]) {
          assert.equal(s.closingBalance, (await app.request('GET', `/accounting/getcurrentdue?userId=${s.user}`, admin)).body.data.due);
          issued.push({ id: s.id, user: s.user, period: lastPeriod });
        }

        /** One statement in its four forms: every figure in minor units, adding up, the same in each. */
        const check = async (what: string, f: Figures, csv: string, xlsx: Buffer, pdf: Buffer) => {
          // JSON
          assert.equal(f.currency, base.code, what);
          for (const v of [...tableOrder(f), f.recoveryOutstanding, ...f.sources.map((x) => x.amount)]) assert.match(v, atMost(digits), `${what}: JSON figure ${v}`);
          for (const [lines, total] of SECTIONS) assert.equal(sum(amounts(f[lines])).toFixed(digits), D(f[total]).toFixed(digits), `${what}: JSON ${lines} add up to ${total}`);
          assert.equal(sum([f.openingBalance, ...SECTIONS.map(([, k]) => f[k])]).toFixed(digits), D(f.closingBalance).toFixed(digits), `${what}: JSON totals add up`);
          for (const l of f.recouped) assert.ok(D(l.amount).lte(0), `${what}: recouped is negative`);
          seen.adjustments! += f.adjustments.length ? 1 : 0;
          seen.recouped! += f.recouped.length ? 1 : 0;
          seen.payments! += f.payments.length ? 1 : 0;
          seen.reversals! += f.payments.filter((p) => (p as { kind?: string }).kind === 'reversal').length;
          seen.revenueShares! += f.revenueShares.length ? 1 : 0;
          seen.recovery! += f.recovery.length ? 1 : 0;

          // CSV: amounts with the currency's digits, the same figures in the same order, adding up
          const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data.filter((x) => x.section !== 'header');
          for (const x of rows) {
            assert.match(x.amount!, exactly(digits), `${what}: CSV ${x.section} ${x.amount}`);
            assert.equal(x.currency, base.code);
          }
          assert.deepEqual(rows.map((x) => x.amount), tableOrder(f).map((v) => D(v).toFixed(digits)), `${what}: CSV = JSON`);
          tableAddsUp(rows.map((x) => [x.section!, D(x.amount!)]), `${what} CSV`, digits);

          // XLSX: the same rows, amounts as number cells in minor units, adding up on their own
          const wb = new ExcelJS.Workbook();
          await wb.xlsx.load(xlsx as unknown as ArrayBuffer);
          const sheet: unknown[][] = [];
          wb.worksheets[0]!.eachRow((row) => sheet.push((row.values as unknown[]).slice(1)));
          const body = sheet.slice(1).filter((x) => x[0] !== 'header');
          assert.deepEqual(sheet[0]!.slice(0, 6), ['section', 'item', 'reference', 'quantity', 'amount', 'currency'], `${what}: XLSX columns`);
          for (const x of body) {
            assert.equal(typeof x[4], 'number', `${what}: XLSX ${String(x[0])} amount is a number cell`);
            assert.match(String(x[4]), atMost(digits), `${what}: XLSX ${String(x[0])} ${String(x[4])}`);
            assert.equal(x[5], base.code);
          }
          assert.deepEqual(body.map((x) => D(String(x[4])).toFixed(digits)), rows.map((x) => x.amount), `${what}: XLSX = CSV`);
          tableAddsUp(body.map((x) => [String(x[0]), D(String(x[4]))]), `${what} XLSX`, digits);

          // PDF text: the amount column, in reading order, is exactly the figures' lines and totals;
          // no decimal number anywhere on it carries more than the minor unit
          const { runs } = await pdfRuns(pdf);
          const column = runs.filter((x) => x.x >= 448 && printed(digits).test(x.str.trim())).sort((a, b) => a.page - b.page || b.y - a.y).map((x) => D(x.str.trim().replace(/,/g, '')).toFixed(digits));
          assert.deepEqual(column, pdfSections(f).flat().map((v) => D(v).toFixed(digits)), `${what}: PDF amounts`);
          for (const x of runs) for (const d of x.str.matchAll(DECIMALS)) assert.ok(d[1]!.length <= digits, `${what}: PDF text "${x.str}" carries more than the minor unit`);
          // the PDF's printed lines add up to its printed section totals, those and the opening balance to the closing balance
          const groups: Decimal[][] = [];
          let at = 0;
          for (const g of pdfSections(f)) groups.push(column.slice(at, (at += g.length)).map(D));
          const inner = groups.slice(1, -1);
          for (const g of inner) assert.equal(sum(g.slice(0, -1)).toFixed(digits), g[g.length - 1]!.toFixed(digits), `${what}: PDF lines add up to their total`);
          assert.equal(sum([groups[0]![0]!, ...inner.map((g) => g[g.length - 1]!)]).toFixed(digits), groups[groups.length - 1]![0]!.toFixed(digits), `${what}: PDF totals add up`);
        };

        for (const s of issued) {
          const got = (await app.request('GET', `/statements/${s.id}`, admin)).body.data;
          const f = got.figures as Figures;
          const csv = (await get(`/statements/${s.id}/csv`)).toString('utf8');
          const xlsx = await get(`/accounting/statement/${s.user}?period=${s.period}&format=xlsx`);
          const pdf = await get(`/statements/${s.id}/pdf`);
          await check(`issued ${s.period} ${s.user}`, f, csv, xlsx, pdf);
        }
        // the live statement of every period nothing was issued for, for every payee with entries
        for (const period of unissued) {
          const i = Number(period.slice(5)) - 1;
          for (const user of payees) {
            if ((await ledger(user, end(i))).isZero() && !issued.some((s) => s.user === user)) continue;
            const live = await app.request('GET', `/accounting/statement/${user}?period=${period}`, admin);
            assert.equal(live.status, 200, live.text);
            assert.equal(live.body.data.status, 'live');
            const f = live.body.data as Figures;
            assert.equal(D(f.closingBalance).toFixed(digits), (await ledger(user, end(i))).toFixed(digits), `live closing = ledger (${period})`);
            const q = `/accounting/statement/${user}?period=${period}&format=`;
            await check(`live ${period} ${user}`, f, (await get(`${q}csv`)).toString('utf8'), await get(`${q}xlsx`), await get(`${q}pdf`));
            seen.live!++;
          }
        }

        // recouped ≤ credited, per payee, through every period
        for (const user of payees) {
          for (let i = 0; i <= months.length; i++) {
            const by = await withTenant(app.svc.db.app, t.tenantId, (trx) => trx('ledger_entries').where({ tenant_user_id: user }).where('accounting_period', '<', end(i)).select('kind').sum({ s: 'amount' }).groupBy('kind'));
            const k = (kind: string) => D((by as { kind: string; s: string | null }[]).find((x) => x.kind === kind)?.s ?? 0);
            assert.ok(k('expense_recoup').neg().lte(Decimal.max(0, k('royalty').plus(k('revenue_share')))), `recouped ≤ credited through period ${i + 1} (${user})`);
          }
          const sm = (await app.request('GET', `/accounting/transactions/summary?userId=${user}`, admin)).body.data;
          for (const key of ['royalties', 'revenueShares', 'earnings', 'recouped', 'payments', 'reversals', 'adjustments', 'overpaymentRecovery', 'due']) assert.match(sm[key], atMost(digits), `summary ${key} ${sm[key]}`);
          assert.ok(D(sm.recouped).lte(Decimal.max(0, sm.earnings)), `summary: recouped ${sm.recouped} ≤ earnings ${sm.earnings}`);
        }
        // every expense: recouped ≤ its amount, both in minor units
        const ex = await app.request('GET', '/expense/?size=100', admin);
        for (const e of ex.body.data as { recouped: string; unrecouped: string; baseAmount: string }[]) {
          assert.match(e.recouped, atMost(digits), `expense recouped ${e.recouped}`);
          assert.match(e.unrecouped, atMost(digits), `expense unrecouped ${e.unrecouped}`);
          assert.ok(D(e.unrecouped).gte(0));
          assert.equal(D(e.recouped).plus(e.unrecouped).toFixed(digits), D(e.baseAmount).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed(digits));
        }
        const es = (await app.request('GET', '/expense/summary', admin)).body.summary;
        for (const key of ['totalAmount', 'recoupableAmount', 'recouped', 'unrecouped']) assert.match(es[key], atMost(digits), `expense summary ${key} ${es[key]}`);
        const ps = (await app.request('GET', '/payment/summary', admin)).body.summary;
        assert.match(ps.totalPaid, atMost(digits), `payment summary totalPaid ${ps.totalPaid}`);
      }),
      { numRuns: 8, seed: 31, endOnFailure: true },
    );
    for (const [k, v] of Object.entries(seen)) assert.ok(v > 0, `the generated workspaces have ${k}`);
  });
});

/**
 * The figures of a frozen payee statement for one accounting period of any length (month
 * "2026-10", quarter "2026-Q4", half-year "2026-H2"), in the base currency's minor unit, and
 * their CSV and PDF renderings. Deterministic: the same data gives the same bytes (the PDF's
 * dates are the period's end), so a re-run of an unchanged period has the same content hash.
 *
 *   closing = opening + royalties + revenue shares + recouped + payments + overpayment recovery
 *             + adjustments
 *
 * every amount signed by its effect on the balance (recouped expenses and payments negative).
 *
 * opening: the payee's last issued statement's accounted sources (= its closing), else the
 * ledger before the period. adjustments: what the ledger now says about periods that issued
 * statements already accounted for, minus what they accounted (statement-runs.ts posts them).
 */
import crypto from 'node:crypto';
import { documentTitle, printAmount, renderStatementPdf, type StatementDocument, type StatementRow, type StatementSection } from './statement-pdf';
import type { PdfBrand } from '../branding/service';
import Papa from 'papaparse';
import type { Trx } from '../../db';
import { ValidationError } from '../../lib/errors';
import { dec, Decimal, money } from './common';
import { EARNINGS_PERIOD, RECOVERY_KIND } from './ledger';
import { apportion } from './rounding';
import { periodSpanOf } from '../settings/periods';
import { type ExportTable } from '../../http/export';
import { csvQuotes, neutralise } from '../../domain/csv';

export interface PeriodSpan { start: string; end: string; label: string }

/** "2026-10" | "2026-Q4" | "2026-H2" → [start, end) and the label. */
export function parsePeriod(label: string): PeriodSpan {
  const span = periodSpanOf(label);
  if (!span) throw new ValidationError('Invalid period', ['period must be YYYY-MM, YYYY-Qn or YYYY-Hn'], 'INVALID_PERIOD');
  return { ...span, label };
}

export interface SourceAmount { type: string; id: string; amount: string }
export interface PayeeDetails { id: string; name: string; email: string; address?: string[] }

/** The address lines printed under a payee's name: the e-mail, unless it already stands for the name. */
export function payeeAddress(name: string, email: string): string[] {
  return email && name !== email ? [email] : [];
}
/** The payee, the period and the sections' lines and totals of a statement (live, draft or issued). */
export interface StatementBase {
  workspace: string;
  /** The payee's display details (payeeDetails in statement-runs.ts): name, e-mail and the address lines a statement prints. */
  payee: PayeeDetails;
  period: string;
  currency: string;
  openingBalance: string;
  royaltiesTotal: string;
  revenueShares: { revenueId: string; title: string; amount: string }[];
  revenueSharesTotal: string;
  recouped: { expenseId: string; title: string; amount: string }[];
  recoupedTotal: string;
  payments: { paymentId: string; title: string; kind: string; amount: string }[];
  paymentsTotal: string;
  /** Overpayment recovery (money.md): + an overpaid amount held as a receivable, − the part later earnings recouped. */
  recovery: { title: string; amount: string }[];
  recoveryTotal: string;
  /** The receivable still to recover at the period's end (not a term of the closing balance). */
  recoveryOutstanding: string;
  closingBalance: string;
}
export interface Figures extends StatementBase {
  periodStart: string;
  periodEnd: string;
  recordings: { recordingId: string | null; title: string; isrc: string | null; quantity: string; amount: string }[];
  quantityTotal: string;
  adjustments: { origin: string; reason: string; sourceType: string; sourceId: string; amount: string }[];
  adjustmentsTotal: string;
  /** What this statement accounts for, per ledger source (period entries and adjustments). */
  sources: SourceAmount[];
  /**
   * When the opening balance is the ledger's (no issued statement before): the last ledger
   * entry id it read, so later statements know which entries before the period it covered.
   */
  openingLedgerMark?: string;
}

/** The line of an overpayment-recovery entry: set aside (+) or recouped from earnings (−). */
export function recoveryTitle(amount: Decimal.Value): string {
  return new Decimal(amount).isNeg() ? 'Overpayment recovered from earnings' : 'Overpayment held for recovery from later earnings';
}

const sumOf = (xs: Decimal.Value[]) => xs.reduce<Decimal>((a, b) => a.plus(b), new Decimal(0));
const m = (v: Decimal.Value) => money(v as string)!;

export interface BuildContext { workspace: string; currency: string; digits: number }

/** The statement's figures; `adjustments` are the rows already posted into this period for the payee. */
export async function buildFigures(
  trx: Trx, letterhead: BuildContext, payee: PayeeDetails, p: PeriodSpan,
  opening: Decimal, adjustments: { origin: string; reason: string; source_type: string; source_id: string; amount: string }[],
  openingLedgerMark?: string,
): Promise<Figures> {
  const d = letterhead.digits;
  const rnd = (v: Decimal.Value) => dec(v as string).toDecimalPlaces(d, Decimal.ROUND_HALF_UP);
  const entries = (
    await trx.raw(
      `SELECT l.kind, l.source_type, l.source_id::text AS source_id, sum(l.amount)::text AS amount,
              coalesce(r.title, x.title, p.title) AS title
       FROM ledger_entries l
       LEFT JOIN revenues r ON l.source_type = 'revenue' AND r.tenant_id = l.tenant_id AND r.id = l.source_id
       LEFT JOIN expenses x ON l.source_type = 'expense' AND x.tenant_id = l.tenant_id AND x.id = l.source_id
       LEFT JOIN payments p ON l.source_type = 'payment' AND p.tenant_id = l.tenant_id AND p.id = l.source_id
       WHERE l.tenant_user_id = ? AND l.accounting_period >= ? AND l.accounting_period < ?
       GROUP BY 1, 2, 3, 5 HAVING sum(l.amount) <> 0 ORDER BY 1, 2, 3`,
      [payee.id, p.start, p.end],
    )
  ).rows as { kind: string; source_type: string; source_id: string; amount: string; title: string | null }[];
  const of = (kinds: string[]) => entries.filter((e) => kinds.includes(e.kind));
  const royaltiesTotal = rnd(sumOf(of(['royalty']).map((e) => e.amount)));
  const rec = (
    await trx.raw(
      `SELECT e.asset_id::text AS asset_id, a.title, a.isrc, coalesce(sum(e.quantity), 0)::text AS quantity, sum(e.amount)::text AS exact
       FROM royalty_earnings e LEFT JOIN assets a ON a.tenant_id = e.tenant_id AND a.id = e.asset_id
       WHERE e.superseded_at IS NULL AND e.tenant_user_id = ? AND ${EARNINGS_PERIOD('e')} >= ? AND ${EARNINGS_PERIOD('e')} < ?
       GROUP BY 1, 2, 3 ORDER BY 1 NULLS LAST`,
      [payee.id, p.start, p.end],
    )
  ).rows as { asset_id: string | null; title: string | null; isrc: string | null; quantity: string; exact: string }[];
  // Recording lines in minor units that add up to the royalties the ledger holds for the period.
  const amounts = apportion(rec.map((r) => ({ key: r.asset_id ?? '~', exact: r.exact })), d, royaltiesTotal);
  const recordings = rec.map((r, i) => ({
    recordingId: r.asset_id, title: r.title ?? (r.asset_id ? 'Unknown recording' : 'Unmatched recordings'), isrc: r.isrc,
    quantity: m(r.quantity), amount: m(amounts[i]!),
  }));
  const lines = (kinds: string[]) => of(kinds).map((e) => ({ id: e.source_id, kind: e.kind, title: e.title ?? '(deleted)', amount: rnd(e.amount) }));
  const revenue = lines(['revenue_share']);
  const recouped = lines(['expense_recoup']);
  const payments = lines(['payment', 'reversal', 'adjustment']);
  const recovery = lines([RECOVERY_KIND]).map((r) => ({ ...r, title: recoveryTitle(r.amount) }));
  const recoveryTotal = sumOf(recovery.map((r) => r.amount));
  const outstanding = (await trx.raw(`SELECT coalesce(sum(amount), 0)::text AS s FROM ledger_entries WHERE tenant_user_id = ? AND kind = ? AND accounting_period < ?`, [payee.id, RECOVERY_KIND, p.end])).rows[0].s as string;
  const adj = adjustments.map((a) => ({ origin: a.origin, reason: a.reason, sourceType: a.source_type, sourceId: a.source_id, amount: rnd(a.amount) }));
  const revenueSharesTotal = sumOf(revenue.map((r) => r.amount));
  const recoupedTotal = sumOf(recouped.map((r) => r.amount));
  const paymentsTotal = sumOf(payments.map((r) => r.amount));
  const adjustmentsTotal = sumOf(adj.map((a) => a.amount));
  const openingR = rnd(opening);
  // Every amount is signed by its effect on the balance: the closing balance is the plain sum.
  const closing = sumOf([openingR, royaltiesTotal, revenueSharesTotal, recoupedTotal, paymentsTotal, recoveryTotal, adjustmentsTotal]);
  const sources = new Map<string, Decimal>();
  const add = (type: string, id: string, v: Decimal.Value) => sources.set(`${type}:${id}`, (sources.get(`${type}:${id}`) ?? new Decimal(0)).plus(v));
  for (const e of entries) add(e.source_type, e.source_id, rnd(e.amount));
  for (const a of adj) add(a.sourceType, a.sourceId, a.amount);
  return {
    workspace: letterhead.workspace,
    payee,
    period: p.label,
    periodStart: p.start,
    periodEnd: p.end,
    currency: letterhead.currency,
    openingBalance: m(openingR),
    recordings,
    royaltiesTotal: m(royaltiesTotal),
    quantityTotal: m(sumOf(rec.map((r) => r.quantity))),
    revenueShares: revenue.map((r) => ({ revenueId: r.id, title: r.title, amount: m(r.amount) })),
    revenueSharesTotal: m(revenueSharesTotal),
    recouped: recouped.map((r) => ({ expenseId: r.id, title: r.title, amount: m(r.amount) })),
    recoupedTotal: m(recoupedTotal),
    payments: payments.map((r) => ({ paymentId: r.id, title: r.title, kind: r.kind, amount: m(r.amount) })),
    paymentsTotal: m(paymentsTotal),
    recovery: recovery.map((r) => ({ title: r.title, amount: m(r.amount) })),
    recoveryTotal: m(recoveryTotal),
    recoveryOutstanding: m(rnd(outstanding)),
    adjustments: adj.map((a) => ({ ...a, amount: m(a.amount) })),
    adjustmentsTotal: m(adjustmentsTotal),
    closingBalance: m(closing),
    sources: [...sources].filter(([, v]) => !v.isZero()).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => {
      const [type, id] = k.split(':') as [string, string];
      return { type, id, amount: m(v) };
    }),
    ...(openingLedgerMark ? { openingLedgerMark } : {}),
  };
}

/** Fixed-point text of an amount with the currency's digits ("1234.50"). */
const fix = (v: string, digits: number) => new Decimal(v).toFixed(digits);

/**
 * The CSV section of a payment row: `payment`, `reversal`, or `payment_adjustment` for a
 * hand-recorded payment's edit (ledger kind `adjustment`), so that it is never confused with
 * the section `adjustment` (adjustments to closed periods).
 */
export function paymentSection(kind: string): string {
  return kind === 'adjustment' ? 'payment_adjustment' : kind;
}

/** Where a statement stands: computed on request (never stored), a draft of a run, or issued with its number. */
export interface StatementState { state: 'live' | 'draft' | 'issued'; number: number | null }

const STATE_LINE: Record<StatementState['state'], string | null> = {
  live: 'NOT ISSUED: live figures as the ledger holds them now; they can still change.',
  draft: 'DRAFT: not issued yet; the figures can still change.',
  issued: null,
};

export function figuresCsv(f: Figures, digits: number, st: StatementState): string {
  const c = f.currency;
  const a = (v: string) => fix(v, digits);
  const rows: (string | null)[][] = [
    ['header', 'Workspace', f.workspace, null, null, null],
    ['header', 'Payee', f.payee.name, null, null, null],
    ['header', 'Payee id', f.payee.id, null, null, null],
    ['header', 'Period', f.period, null, null, null],
    ['header', 'Statement', st.number === null ? st.state : `${st.number}`, null, null, null],
    ['opening_balance', 'Opening balance', null, null, a(f.openingBalance), c],
    ...f.recordings.map((r) => ['recording', r.title, r.recordingId ?? r.isrc, r.quantity, a(r.amount), c]),
    ['royalties_total', 'Royalties', null, f.quantityTotal, a(f.royaltiesTotal), c],
    ...f.revenueShares.map((r) => ['revenue_share', r.title, r.revenueId, null, a(r.amount), c]),
    ['revenue_shares_total', 'Revenue shares', null, null, a(f.revenueSharesTotal), c],
    ...f.recouped.map((r) => ['recouped', r.title, r.expenseId, null, a(r.amount), c]),
    ['recouped_total', 'Expenses recouped', null, null, a(f.recoupedTotal), c],
    ...f.payments.map((p) => [paymentSection(p.kind), p.title, p.paymentId, null, a(p.amount), c]),
    ['payments_total', 'Payments', null, null, a(f.paymentsTotal), c],
    // Only when the period has overpayment-recovery entries (statements without them keep their rows).
    ...(f.recovery.length ? [...f.recovery.map((r) => ['overpayment_recovery', r.title, null, null, a(r.amount), c]), ['overpayment_recovery_total', 'Overpayment recovery', null, null, a(f.recoveryTotal), c]] : []),
    ...f.adjustments.map((x) => ['adjustment', x.reason, x.sourceId, null, a(x.amount), c]),
    ['adjustments_total', 'Adjustments to closed periods', null, null, a(f.adjustmentsTotal), c],
    ['closing_balance', 'Closing balance', null, null, a(f.closingBalance), c],
  ];
  // Formula-injection safe: a text cell starting with = + - @ tab or CR is prefixed with ' (the export rule).
  const safe = rows.map((r) => r.map((v, i) => (v && i < 3 ? neutralise(v) : v)));
  return Papa.unparse({ fields: ['section', 'item', 'reference', 'quantity', 'amount', 'currency'], data: safe }, { newline: '\n', quotes: csvQuotes }) + '\n';
}

/**
 * A statement's CSV as an XLSX table: the same rows and cells (amounts as numbers, signed as
 * in the CSV), so the workbook of a frozen statement is read from its stored CSV.
 */
export function statementXlsx(csv: string, filename: string): ExportTable {
  const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
  return {
    format: 'xlsx',
    filename,
    columns: [{ key: 'section' }, { key: 'item' }, { key: 'reference' }, { key: 'quantity', kind: 'decimal' }, { key: 'amount', kind: 'decimal' }, { key: 'currency' }],
    rows: rows.map((r) => ({ section: r.section, item: r.item || null, reference: r.reference || null, quantity: r.quantity || null, amount: r.amount || null, currency: r.currency || null })),
  };
}

/** The last day of [start, end) as YYYY-MM-DD. */
const lastDay = (end: string) => new Date(new Date(`${end}T00:00:00Z`).getTime() - 86400000).toISOString().slice(0, 10);

/** The period as a statement prints it: "2026-10 (2026-10-01 to 2026-10-31)". */
const periodText = (f: Figures) => `${f.period} (${f.periodStart} to ${lastDay(f.periodEnd)})`;

/** The PDF title of a payee statement, named for `payeeName` ('' for none). */
export const figuresTitle = (f: Figures, payeeName: string) => documentTitle(KIND, periodText(f), payeeName);

const KIND = 'Royalty statement';

/** A payee statement as the one statement renderer draws it (statement-pdf.ts). */
export function figuresDocument(f: Figures, digits: number, st: StatementState): StatementDocument {
  const a = (v: string) => fix(v, digits);
  const row = (label: string, amount: string, quantity?: string | null): StatementRow => ({ label, amount: a(amount), quantity: quantity ?? null });
  const sections: StatementSection[] = [
    { heading: 'Earnings by recording', empty: 'No earnings this period', rows: f.recordings.map((r) => row(`${r.title}${r.isrc ? ` (${r.isrc})` : ''}`, r.amount, r.quantity)), total: row('Royalties', f.royaltiesTotal, f.quantityTotal) },
  ];
  if (f.revenueShares.length) sections.push({ heading: 'Other revenue', rows: f.revenueShares.map((r) => row(r.title, r.amount)), total: row('Revenue shares', f.revenueSharesTotal) });
  sections.push({ heading: 'Expenses recouped', empty: 'None', rows: f.recouped.map((r) => row(r.title, r.amount)), total: row('Expenses recouped', f.recoupedTotal) });
  sections.push({ heading: 'Payments', empty: 'None', rows: f.payments.map((p) => row(`${p.title} (${p.kind === 'adjustment' ? 'payment correction' : p.kind})`, p.amount)), total: row('Payments', f.paymentsTotal) });
  const notes: string[] = [];
  if (f.recovery.length || !new Decimal(f.recoveryOutstanding).isZero()) {
    sections.push({ heading: 'Overpayment recovery', empty: 'None this period', rows: f.recovery.map((r) => row(r.title, r.amount)), total: row('Overpayment recovery', f.recoveryTotal) });
    notes.push(`Overpayment still to recover from later earnings at the end of the period: ${printAmount(a(f.recoveryOutstanding))} ${f.currency} (not a term of the closing balance).`);
  }
  sections.push({ heading: 'Adjustments to closed periods', empty: 'None', rows: f.adjustments.map((x) => row(x.reason, x.amount)), total: row('Adjustments', f.adjustmentsTotal) });
  notes.push('Every amount is signed by its effect on the balance: the opening balance and the section totals add up to the closing balance.');
  return {
    kind: KIND,
    workspace: f.workspace,
    number: st.number === null ? null : `No. ${st.number}`,
    state: STATE_LINE[st.state],
    period: periodText(f),
    payee: { name: f.payee.name, address: f.payee.address ?? [] },
    currency: f.currency,
    quantityHeading: 'Quantity',
    opening: [{ label: 'Opening balance', amount: a(f.openingBalance), bold: true }],
    sections,
    closing: [{ label: 'Closing balance', amount: a(f.closingBalance) }],
    notes,
    date: new Date(`${f.periodEnd}T00:00:00Z`),
  };
}

/** The PDF of a statement; `brand` (the workspace's branding when it was drawn) heads it. */
export function figuresPdf(f: Figures, digits: number, st: StatementState, brand?: PdfBrand | null): Promise<Buffer> {
  return renderStatementPdf(figuresDocument(f, digits, st), brand);
}

/** SHA-256 over the canonical JSON figures, the CSV and the PDF bytes. */
export function contentHash(figuresJson: string, csv: string, pdf: Buffer): string {
  return crypto.createHash('sha256').update(figuresJson).update('\n').update(csv).update('\n').update(pdf).digest('hex');
}

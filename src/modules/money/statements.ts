/**
 * Payee statement for one accounting period (what royalty teams send their artists):
 * opening balance, earnings by DSP and product, revenue shares, expenses recouped,
 * payments (and their reversals), closing balance. JSON, CSV (exact amounts) or PDF
 * (amounts shown rounded half-up to 2 decimals; the CSV carries the exact figures).
 *
 *   closing = opening + royalties + revenue shares − recouped + payments net (all ledger sums)
 */
import { pdfDocument } from '../../lib/pdf';
import { drawPdfHead } from '../branding/pdf';
import type { PdfBrand } from '../branding/service';
import Papa from 'papaparse';
import type { Trx } from '../../db';
import { NotFoundError } from '../../lib/errors';
import { baseCurrency, dec, Decimal, money, periodBounds } from './common';
import { EARNINGS_PERIOD, LEDGER_KINDS, RECOVERY_KIND } from './ledger';
import { recoveryTitle, type StatementBase } from './statement-build';
import { csvQuotes, neutralise } from '../../http/export';

export interface Statement extends StatementBase {
  earnings: { dsp: string; productId: string | null; product: string; amount: string }[];
}

export async function buildStatement(trx: Trx, payee: string, period: string): Promise<Statement> {
  const who = await trx('tenant_users as tu').join('users as u', 'u.id', 'tu.user_id').where('tu.id', payee).first('u.email', 'u.first_name', 'u.last_name');
  if (!who) throw new NotFoundError('User');
  const ws = await trx('tenants').whereRaw('id = app_tenant_id()').first('name');
  const { start, end } = periodBounds(period);
  const currency = await baseCurrency(trx);
  const open = await trx.raw(`SELECT coalesce(sum(amount), 0)::text AS s FROM ledger_entries WHERE tenant_user_id = ? AND accounting_period < ?`, [payee, start]);
  const kinds = await trx.raw(
    `SELECT kind, coalesce(sum(amount), 0)::text AS s FROM ledger_entries WHERE tenant_user_id = ? AND accounting_period >= ? AND accounting_period < ? GROUP BY kind`,
    [payee, start, end],
  );
  const k = (name: string) => dec(kinds.rows.find((r: { kind: string }) => r.kind === name)?.s ?? '0');
  const earnings = await trx.raw(
    `SELECT coalesce(e.dsp, 'Unknown') AS dsp, e.product_id, coalesce(p.title, CASE WHEN e.product_id IS NULL THEN 'No product' ELSE 'Unknown product' END) AS product,
            sum(e.amount)::text AS amount
     FROM royalty_earnings e LEFT JOIN products p ON p.tenant_id = e.tenant_id AND p.id = e.product_id
     WHERE e.superseded_at IS NULL AND e.tenant_user_id = ? AND ${EARNINGS_PERIOD('e')} >= ? AND ${EARNINGS_PERIOD('e')} < ?
     GROUP BY 1, 2, 3 ORDER BY sum(e.amount) DESC, 1, 3`,
    [payee, start, end],
  );
  const bySource = async (kinds: string[], join: string, titleCol: string) =>
    (
      await trx.raw(
        `SELECT l.source_id, l.kind, coalesce(${titleCol}, '(deleted)') AS title, sum(l.amount)::text AS amount
         FROM ledger_entries l ${join}
         WHERE l.tenant_user_id = ? AND l.accounting_period >= ? AND l.accounting_period < ? AND l.kind = ANY(?)
         GROUP BY 1, 2, 3 HAVING sum(l.amount) <> 0 ORDER BY min(l.id)`,
        [payee, start, end, kinds],
      )
    ).rows as { source_id: string; kind: string; title: string; amount: string }[];
  const revenue = await bySource(['revenue_share'], `LEFT JOIN revenues r ON r.tenant_id = l.tenant_id AND r.id = l.source_id`, 'r.title');
  const recouped = await bySource(['expense_recoup'], `LEFT JOIN expenses x ON x.tenant_id = l.tenant_id AND x.id = l.source_id`, 'x.title');
  const payments = await bySource(['payment', 'reversal', 'adjustment'], `LEFT JOIN payments p ON p.tenant_id = l.tenant_id AND p.id = l.source_id`, `coalesce(p.title, 'Payment')`);
  const recovery = await bySource([RECOVERY_KIND], '', 'NULL');
  const outstanding = await trx.raw(`SELECT coalesce(sum(amount), 0)::text AS s FROM ledger_entries WHERE tenant_user_id = ? AND kind = ? AND accounting_period < ?`, [payee, RECOVERY_KIND, end]);
  const opening = dec(open.rows[0].s);
  const net = LEDGER_KINDS.reduce((a, n) => a.plus(k(n)), new Decimal(0));
  return {
    workspace: ws.name,
    payee: { id: payee, name: [who.first_name, who.last_name].filter(Boolean).join(' ') || who.email, email: who.email },
    period,
    currency,
    openingBalance: money(opening)!,
    earnings: earnings.rows.map((r: Record<string, string>) => ({ dsp: r.dsp!, productId: r.product_id ?? null, product: r.product!, amount: money(r.amount)! })),
    royaltiesTotal: money(k('royalty'))!,
    revenueShares: revenue.map((r) => ({ revenueId: r.source_id, title: r.title, amount: money(r.amount)! })),
    revenueSharesTotal: money(k('revenue_share'))!,
    recouped: recouped.map((r) => ({ expenseId: r.source_id, title: r.title, amount: money(dec(r.amount).neg())! })),
    recoupedTotal: money(k('expense_recoup').neg())!,
    payments: payments.map((r) => ({ paymentId: r.source_id, title: r.title, kind: r.kind, amount: money(r.amount)! })),
    paymentsTotal: money(k('payment').plus(k('reversal')).plus(k('adjustment')))!,
    recovery: recovery.map((r) => ({ title: recoveryTitle(r.amount), amount: money(r.amount)! })),
    recoveryTotal: money(k(RECOVERY_KIND))!,
    recoveryOutstanding: money(outstanding.rows[0].s)!,
    closingBalance: money(opening.plus(net))!,
  };
}

/** CSV: one row per figure: section, item, reference, amount (exact), currency. */
export function statementCsv(s: Statement): string {
  const c = s.currency;
  const rows: (string | null)[][] = [
    ['header', 'Workspace', s.workspace, null, null],
    ['header', 'Payee', s.payee.name, null, null],
    ['header', 'Payee id', s.payee.id, null, null],
    ['header', 'Period', s.period, null, null],
    ['opening_balance', 'Opening balance', null, s.openingBalance, c],
    ...s.earnings.map((e) => ['earnings', `${e.dsp} / ${e.product}`, e.productId, e.amount, c]),
    ['royalties_total', 'Royalties', null, s.royaltiesTotal, c],
    ...s.revenueShares.map((r) => ['revenue_share', r.title, r.revenueId, r.amount, c]),
    ['revenue_shares_total', 'Revenue shares', null, s.revenueSharesTotal, c],
    ...s.recouped.map((r) => ['recouped', r.title, r.expenseId, r.amount, c]),
    ['recouped_total', 'Expenses recouped', null, s.recoupedTotal, c],
    ...s.payments.map((p) => [p.kind, p.title, p.paymentId, p.amount, c]),
    ['payments_total', 'Payments', null, s.paymentsTotal, c],
    ...(s.recovery.length ? [...s.recovery.map((r) => ['overpayment_recovery', r.title, null, r.amount, c]), ['overpayment_recovery_total', 'Overpayment recovery', null, s.recoveryTotal, c]] : []),
    ['closing_balance', 'Closing balance', null, s.closingBalance, c],
  ];
  // Formula-injection safe: item and reference text starting with = + - @ tab or CR gets a leading '.
  const safe = rows.map((r) => r.map((v, i) => (v && i < 3 ? neutralise(v) : v)));
  return Papa.unparse({ fields: ['section', 'item', 'reference', 'amount', 'currency'], data: safe }, { newline: '\n', quotes: csvQuotes }) + '\n';
}

/** Display rounding for the PDF: half-up to 2 decimals, thousands separated. */
export function show(v: string): string {
  const d = new Decimal(v).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  const [i, f] = d.abs().toFixed(2).split('.');
  return `${d.isNeg() ? '-' : ''}${i!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${f}`;
}

export function statementPdf(s: Statement, brand?: PdfBrand | null): Promise<Buffer> {
  const { doc, done } = pdfDocument(`Statement ${s.period} - ${s.payee.name}`);
  const left = 50;
  const right = doc.page.width - 50;
  const line = (label: string, amount: string | null, opts: { bold?: boolean; indent?: number } = {}) => {
    if (doc.y > doc.page.height - 80) doc.addPage();
    const y = doc.y;
    doc.font(opts.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    doc.text(label, left + (opts.indent ?? 0), y, { width: right - left - 140 - (opts.indent ?? 0), lineBreak: false, ellipsis: true });
    if (amount !== null) doc.text(`${show(amount)} ${s.currency}`, right - 140, y, { width: 140, align: 'right' });
    doc.x = left;
    doc.moveDown(0.4);
  };
  const heading = (t: string) => {
    doc.moveDown(0.6).font('Helvetica-Bold').fontSize(12).text(t, left);
    doc.moveDown(0.2);
  };
  drawPdfHead(doc, `Royalty statement ${s.period}`, 18, brand);
  doc.font('Helvetica').fontSize(10).text(`${s.workspace}`).text(`Payee: ${s.payee.name} <${s.payee.email}>`).text(`Currency: ${s.currency}`);
  doc.moveDown();
  line('Opening balance', s.openingBalance, { bold: true });
  heading('Earnings by DSP and product');
  if (!s.earnings.length) line('No earnings this period', null, { indent: 10 });
  for (const e of s.earnings) line(`${e.dsp} / ${e.product}`, e.amount, { indent: 10 });
  line('Royalties', s.royaltiesTotal, { bold: true });
  if (s.revenueShares.length) {
    heading('Other revenue');
    for (const r of s.revenueShares) line(r.title, r.amount, { indent: 10 });
    line('Revenue shares', s.revenueSharesTotal, { bold: true });
  }
  heading('Expenses recouped');
  if (!s.recouped.length) line('None', null, { indent: 10 });
  for (const r of s.recouped) line(r.title, dec(r.amount).neg().toFixed(), { indent: 10 });
  line('Expenses recouped', dec(s.recoupedTotal).neg().toFixed(), { bold: true });
  heading('Payments');
  if (!s.payments.length) line('None', null, { indent: 10 });
  for (const p of s.payments) line(`${p.title} (${p.kind})`, p.amount, { indent: 10 });
  line('Payments', s.paymentsTotal, { bold: true });
  if (s.recovery.length || !dec(s.recoveryOutstanding).isZero()) {
    heading('Overpayment recovery');
    for (const r of s.recovery) line(r.title, r.amount, { indent: 10 });
    line('Overpayment recovery', s.recoveryTotal, { bold: true });
    line(`Still to recover from later earnings: ${show(s.recoveryOutstanding)} ${s.currency}`, null, { indent: 10 });
  }
  doc.moveDown();
  line('Closing balance', s.closingBalance, { bold: true });
  doc.end();
  return done;
}

export type StatementFormat = 'json' | 'csv' | 'pdf';

/** A statement in the asked format: JSON data, or a file (CSV with exact amounts, PDF). */
export async function renderStatement(
  trx: Trx, payee: string, period: string, format: StatementFormat = 'json', brand?: PdfBrand | null,
): Promise<{ statement: Statement } | { file: { type: string; filename: string; body: string | Buffer } }> {
  const s = await buildStatement(trx, payee, period);
  const name = `statement-${period}-${payee.slice(0, 8)}`;
  if (format === 'csv') return { file: { type: 'text/csv; charset=utf-8', filename: `${name}.csv`, body: statementCsv(s) } };
  if (format === 'pdf') return { file: { type: 'application/pdf', filename: `${name}.pdf`, body: await statementPdf(s, brand) } };
  return { statement: s };
}

/**
 * A publisher statement as CSV and PDF. Both show the same rounded figures, line by line:
 * the work lines add up to the income total, the adjustments to theirs, and the two to the
 * statement total (the CSV also carries each line's exact amount).
 */
import { renderStatementPdf, type StatementDocument } from '../money/statement-pdf';
import { pdfBrand, type PdfBrand } from '../branding/service';
import Papa from 'papaparse';
import { getStatement, type StatementView } from './statements';
import type { Trx } from '../../db';
import type { ObjectStore } from '../../lib/object-store';
import { csvQuotes } from '../../domain/csv';

export function statementCsv(s: StatementView): string {
  const rows: (string | number)[][] = [['section', 'work', 'iswc', 'right', 'source', 'lines', 'exact', 'amount', 'currency']];
  for (const l of s.lines) rows.push(['income', l.work.title, l.work.iswc ?? '', l.rightType, l.source, l.lines, l.exact, l.amount, s.currency]);
  rows.push(['income total', '', '', '', '', '', s.incomeExact, s.incomeTotal, s.currency]);
  for (const a of s.adjustments) rows.push(['adjustment', a.memo, '', '', '', '', a.amount, a.amount, s.currency]);
  rows.push(['adjustments total', '', '', '', '', '', s.adjustmentsTotal, s.adjustmentsTotal, s.currency]);
  rows.push(['total', '', '', '', '', '', '', s.total, s.currency]);
  // Cells that a spreadsheet would run as formulas are quoted as text.
  const safe = rows.map((r) => r.map((c) => (typeof c === 'string' && /^[=+\-@\t\r]/.test(c) && !/^-?\d/.test(c) ? `'${c}` : c)));
  return Papa.unparse(safe, { newline: '\n', quotes: csvQuotes }) + '\n';
}

/** The statement as PDF, drawn by the one statement renderer (money/statement-pdf.ts) with the workspace's branding. */
export function statementPdf(s: StatementView, workspace: string, brand?: PdfBrand | null): Promise<Buffer> {
  const doc: StatementDocument = {
    kind: 'Publisher statement',
    workspace,
    number: `Ref. ${s.id.slice(0, 8)}`,
    state: s.status === 'approved' || s.status === 'paid' ? null : `${s.status.toUpperCase()}: not approved yet; the figures can still change.`,
    period: `${s.periodStart} to ${s.periodEnd}`,
    payee: { name: s.payee.name, address: [s.payee.kind === 'writer' ? 'Writer' : 'Publisher', `Status: ${s.status}`] },
    currency: s.currency,
    quantityHeading: 'Lines',
    sections: [
      { heading: 'Income by work', empty: 'No income in this period', rows: s.lines.map((l) => ({ label: `${l.work.title}${l.work.iswc ? ` (${l.work.iswc})` : ''} - ${l.rightType} - ${l.source}`, quantity: String(l.lines), amount: l.amount })), total: { label: 'Income total', amount: s.incomeTotal } },
      { heading: 'Adjustments', empty: 'None', rows: s.adjustments.map((a) => ({ label: a.memo, amount: a.amount })), total: { label: 'Adjustments total', amount: s.adjustmentsTotal } },
    ],
    closing: [{ label: 'Total', amount: s.total }],
    date: new Date(s.createdAt),
  };
  return renderStatementPdf(doc, brand);
}

/** A publisher statement's PDF as the route serves it: the statement, its workspace's name and branding. */
export async function publisherStatementPdf(trx: Trx, store: ObjectStore, tenantId: number, id: string): Promise<{ statement: StatementView; pdf: Buffer }> {
  const statement = await getStatement(trx, id);
  const ws = await trx('tenants').where({ id: tenantId }).first('name');
  return { statement, pdf: await statementPdf(statement, ws.name as string, await pdfBrand(trx, store, tenantId)) };
}

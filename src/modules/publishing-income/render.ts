/**
 * A publisher statement as CSV and PDF. Both show the same rounded figures, line by line:
 * the work lines add up to the income total, the adjustments to theirs, and the two to the
 * statement total (the CSV also carries each line's exact amount).
 */
import { pdfDocument } from '../../lib/pdf';
import Papa from 'papaparse';
import type { StatementView } from './statements';
import { csvQuotes } from '../../http/export';

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

export function statementPdf(s: StatementView): Promise<Buffer> {
  const { doc, done } = pdfDocument(`Publisher statement ${s.periodStart} to ${s.periodEnd} - ${s.payee.name}`, { CreationDate: new Date(s.createdAt) });
  const left = 50;
  const right = doc.page.width - 50;
  const row = (label: string, amount: string | null, opts: { bold?: boolean } = {}) => {
    if (doc.y > doc.page.height - 80) doc.addPage();
    const y = doc.y;
    doc.font(opts.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    doc.text(label, left, y, { width: right - left - 110 });
    const after = doc.y;
    if (amount !== null) doc.text(`${amount} ${s.currency}`, right - 110, y, { width: 110, align: 'right' });
    doc.y = Math.max(after, doc.y);
  };
  doc.font('Helvetica-Bold').fontSize(16).text('Publisher statement', left, 50);
  doc.font('Helvetica').fontSize(10).moveDown(0.5)
    .text(`${s.payee.kind === 'writer' ? 'Writer' : 'Publisher'}: ${s.payee.name}`)
    .text(`Period: ${s.periodStart} to ${s.periodEnd}`)
    .text(`Status: ${s.status}`)
    .moveDown();
  doc.font('Helvetica-Bold').fontSize(12).text('Income by work').moveDown(0.3);
  for (const l of s.lines) row(`${l.work.title}${l.work.iswc ? ` (${l.work.iswc})` : ''} · ${l.rightType} · ${l.source} · ${l.lines} line(s)`, l.amount);
  if (!s.lines.length) row('No income in this period', null);
  row('Income total', s.incomeTotal, { bold: true });
  doc.moveDown();
  doc.font('Helvetica-Bold').fontSize(12).text('Adjustments').moveDown(0.3);
  for (const a of s.adjustments) row(a.memo, a.amount);
  row('Adjustments total', s.adjustmentsTotal, { bold: true });
  doc.moveDown();
  row('Total', s.total, { bold: true });
  doc.end();
  return done;
}

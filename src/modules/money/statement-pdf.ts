/**
 * The one statement renderer (docs/statements.md, "The PDF"): payee statements (live, draft,
 * issued) and publisher statements are all drawn here, from a `StatementDocument`.
 *
 * Layout (A4, 50 pt margins): the workspace's branded head (logo, colours, sender name), the
 * statement's kind, number, state and period, the payee's name and address; then one table
 * (item | quantity | amount) whose heading is repeated at the top of every page, under a
 * one-line reminder of the statement (kind, number, period, payee). Every row is measured
 * with heightOfString before it is drawn: a long label wraps inside its own row, a row that
 * does not fit moves whole (label and amount together) to the next page, and a section
 * heading never stays alone at the foot of a page. Every page carries "Page n of N".
 *
 * Amounts are printed exactly as given (the caller passes minor units that add up to their
 * totals), with thousands separators; every amount is signed by its effect on the balance.
 * The PDF's dates are the document's `date`, so the same figures give the same bytes.
 *
 * A payee statement that is stored (draft, issued) is drawn without the payee (name ''):
 * no payee block, no name in the title or the page reminders. Its payee is printed when it is
 * read, by an incremental update in page 1's top margin (statement-payee.ts), which this
 * renderer keeps free: nothing is drawn there but the branding's colour band (10 pt).
 */
import { pdfDocument } from '../../lib/pdf';
import { drawPdfHead } from '../branding/pdf';
import type { PdfBrand } from '../branding/service';
import { Decimal } from './common';

export interface StatementRow { label: string; quantity?: string | null; amount: string | null; bold?: boolean }
export interface StatementSection { heading: string; rows: StatementRow[]; empty?: string; total?: StatementRow }

/** Where the payee line of a stored statement is printed when it is read: its baseline, in points from the top of page 1 (inside the 50 pt margin). */
export const PAYEE_LINE_FROM_TOP = 32;

/** The PDF's title: kind, period and, when drawn with one, the payee's name. */
export function documentTitle(kind: string, period: string, payeeName: string): string {
  return `${kind} ${period}${payeeName ? ` - ${payeeName}` : ''}`;
}

export interface StatementDocument {
  /** "Royalty statement", "Publisher statement". */
  kind: string;
  workspace: string;
  /** "No. 12", or a reference; null for a statement without one (live). */
  number: string | null;
  /** The state line, e.g. "NOT ISSUED - live figures, they can still change"; null once issued. */
  state: string | null;
  /** "2026-10 (2026-10-01 to 2026-10-31)". */
  period: string;
  /** The payee's block; name '' for a stored payee statement (named when read, above). */
  payee: { name: string; address: string[] };
  currency: string;
  /** The quantity column's heading ("Quantity", "Lines"), or null for no quantity column. */
  quantityHeading: string | null;
  /** Rows above the sections (opening balance) and below them (closing balance). */
  opening?: StatementRow[];
  sections: StatementSection[];
  closing: StatementRow[];
  notes?: string[];
  /** The document's creation date (deterministic bytes). */
  date: Date;
}

/** An amount as printed: its decimals kept, thousands separated, sign first ("-1,234.50"). */
export function printAmount(v: string): string {
  const d = new Decimal(v);
  const places = (v.trim().split('.')[1] ?? '').length;
  const [i, f] = d.abs().toFixed(places).split('.');
  return `${d.isNeg() && !d.isZero() ? '-' : ''}${i!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${f ? `.${f}` : ''}`;
}

const FONT = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const SIZE = 9.5;
const PAD = 3;
const GAP = 10;
const AMOUNT_W = 95;
const QTY_W = 70;
const FOOTER = 40;

export async function renderStatementPdf(d: StatementDocument, brand?: PdfBrand | null): Promise<Buffer> {
  const { doc, done } = await pdfDocument(documentTitle(d.kind, d.period, d.payee.name), { Creator: 'Rondo', CreationDate: d.date, ModDate: d.date }, { bufferPages: true });
  const left = doc.page.margins.left;
  const right = doc.page.width - doc.page.margins.right;
  const bottom = () => doc.page.height - doc.page.margins.bottom - FOOTER + 20;
  const amountX = right - AMOUNT_W;
  const qtyX = d.quantityHeading ? amountX - GAP - QTY_W : amountX;
  const labelX = left;
  const labelW = (d.quantityHeading ? qtyX : amountX) - GAP - labelX;
  const accent = brand?.primaryColor ?? '#222222';

  const measure = (r: StatementRow, indent: number) => {
    doc.font(r.bold ? BOLD : FONT).fontSize(SIZE);
    const h = doc.heightOfString(r.label || ' ', { width: labelW - indent });
    const q = r.quantity ? doc.heightOfString(r.quantity, { width: QTY_W }) : 0;
    const a = r.amount !== null ? doc.heightOfString(printAmount(r.amount), { width: AMOUNT_W }) : 0;
    return Math.max(h, q, a) + 2 * PAD;
  };

  const tableHeading = () => {
    const y = doc.y;
    doc.font(BOLD).fontSize(SIZE).fillColor(accent);
    doc.text('Item', labelX, y + PAD, { width: labelW, lineBreak: false });
    if (d.quantityHeading) doc.text(d.quantityHeading, qtyX, y + PAD, { width: QTY_W, align: 'right', lineBreak: false });
    doc.text(`Amount (${d.currency})`, amountX, y + PAD, { width: AMOUNT_W, align: 'right', lineBreak: false });
    const h = doc.heightOfString('Item', { width: labelW }) + 2 * PAD;
    doc.save().moveTo(left, y + h).lineTo(right, y + h).lineWidth(0.8).strokeColor(accent).stroke().restore();
    doc.fillColor('black');
    doc.x = left;
    doc.y = y + h + 2;
  };

  const newPage = () => {
    doc.addPage();
    doc.y = doc.page.margins.top;
    if (brand?.primaryColor) doc.save().rect(0, 0, doc.page.width, 6).fill(brand.primaryColor).restore();
    doc.font(FONT).fontSize(8.5).fillColor('#555555');
    const line = [d.kind, d.number, d.period, d.payee.name, d.state ? 'NOT ISSUED' : null].filter(Boolean).join(' | ');
    doc.text(line, left, doc.y, { width: right - left });
    doc.fillColor('black');
    doc.y += 6;
    tableHeading();
  };

  /** Room for `h` points below the cursor, else a new page (with the heading again). */
  const room = (h: number) => {
    if (doc.y + h > bottom()) newPage();
  };

  const row = (r: StatementRow, indent = 0) => {
    const h = measure(r, indent);
    room(h);
    const y = doc.y;
    doc.font(r.bold ? BOLD : FONT).fontSize(SIZE).fillColor('black');
    doc.text(r.label, labelX + indent, y + PAD, { width: labelW - indent });
    if (r.quantity) doc.text(r.quantity, qtyX, y + PAD, { width: QTY_W, align: 'right' });
    if (r.amount !== null) doc.text(printAmount(r.amount), amountX, y + PAD, { width: AMOUNT_W, align: 'right' });
    if (r.bold) doc.save().moveTo(left, y).lineTo(right, y).lineWidth(0.4).strokeColor('#999999').stroke().restore();
    doc.x = left;
    doc.y = y + h;
  };

  // Head: branding, kind, number and state, period, payee.
  drawPdfHead(doc, d.kind, 16, brand);
  doc.moveDown(0.4);
  doc.font(FONT).fontSize(10).fillColor('black');
  const facts: [string, string][] = [
    ['Workspace', d.workspace],
    ['Statement', d.number ?? 'not numbered'],
    ['Period', d.period],
    ['Currency', d.currency],
  ];
  const factsTop = doc.y;
  for (const [k, v] of facts) {
    const y = doc.y;
    doc.font(BOLD).text(`${k}:`, left, y, { width: 70 });
    doc.font(FONT).text(v, left + 72, y, { width: 200 });
  }
  const factsBottom = doc.y;
  // The payee's address block, on the right (none on a stored statement: named when read).
  doc.y = factsTop;
  if (d.payee.name) {
    doc.font(BOLD).text(d.payee.name, left + 300, doc.y, { width: right - left - 300 });
    doc.font(FONT);
    for (const l of d.payee.address) doc.text(l, left + 300, doc.y, { width: right - left - 300 });
  }
  doc.y = Math.max(doc.y, factsBottom) + 8;
  if (d.state) {
    doc.font(BOLD).fontSize(11).fillColor('#b00020').text(d.state, left, doc.y, { width: right - left });
    doc.fillColor('black').moveDown(0.4);
  }
  doc.moveDown(0.6);
  tableHeading();

  for (const r of d.opening ?? []) row(r);
  for (const s of d.sections) {
    const first = s.rows[0] ?? (s.empty ? { label: s.empty, amount: null } : s.total);
    doc.font(BOLD).fontSize(11);
    const hh = doc.heightOfString(s.heading, { width: right - left }) + 2 * PAD + 4;
    // keep the heading with its first row
    room(hh + (first ? measure(first, 10) : 0));
    const y = doc.y + 4;
    doc.font(BOLD).fontSize(11).fillColor(accent).text(s.heading, left, y + PAD, { width: right - left });
    doc.fillColor('black');
    doc.x = left;
    doc.y = y + hh - 4;
    if (!s.rows.length && s.empty) row({ label: s.empty, amount: null }, 10);
    for (const r of s.rows) row(r, 10);
    if (s.total) row({ ...s.total, bold: true });
  }
  doc.y += 6;
  for (const r of d.closing) row({ ...r, bold: true });
  for (const n of d.notes ?? []) {
    doc.font(FONT).fontSize(8.5);
    room(doc.heightOfString(n, { width: right - left }) + 6);
    doc.fillColor('#555555').text(n, left, doc.y + 6, { width: right - left });
    doc.fillColor('black');
  }

  // Page numbers, last: every page is still open (bufferPages).
  const pages = doc.bufferedPageRange();
  for (let i = 0; i < pages.count; i++) {
    doc.switchToPage(pages.start + i);
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font(FONT).fontSize(8.5).fillColor('#555555');
    const foot = [d.kind, d.number, d.period].filter(Boolean).join(' | ');
    doc.text(foot, left, doc.page.height - 35, { width: 300, lineBreak: false });
    doc.text(`Page ${i + 1} of ${pages.count}`, right - 150, doc.page.height - 35, { width: 150, align: 'right', lineBreak: false });
    doc.page.margins.bottom = margin;
  }
  doc.fillColor('black');
  doc.end();
  return done;
}

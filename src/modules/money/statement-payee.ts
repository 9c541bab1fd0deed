/**
 * The payee's display details of a frozen statement (docs/statements.md, "The payee's
 * details"). The stored, hashed bodies (figures JSON, CSV, PDF) name the payee by id only;
 * the name and e-mail as drawn live in `statement_payees`, which an account erasure replaces
 * with a pseudonym, and are joined in here when a statement is read:
 *
 * - JSON: `figures.payee.name` / `.email` (and `.address`, the lines printed under the name);
 * - CSV: the third cell of the `header,Payee` row;
 * - PDF: an incremental update appended to the stored bytes (the stored PDF stays a
 *   byte-identical prefix of what is served) that prints "Payee: name <e-mail>" in the top
 *   margin of the first page, where the statement renderer draws nothing (statement-pdf.ts,
 *   PAYEE_LINE_FROM_TOP), and names the payee in the document title.
 *
 * Drafts are stored the same way (a draft becomes the issued statement); only a live
 * statement, never stored, is drawn with the payee's block by the renderer itself.
 *
 * Statements made before the split (`hash_scope = with_payee`) were issued with the details
 * inside; joining them back gives the bodies as issued (their hash verifies), and their PDF
 * is the one kept in `statement_payees.legacy_pdf` until an erasure clears it.
 */
import Papa from 'papaparse';
import type { Trx } from '../../db';
import { neutralise } from '../../domain/csv';
import { figuresTitle, payeeAddress, type Figures, type PayeeDetails } from './statement-build';
import { PAYEE_LINE_FROM_TOP } from './statement-pdf';

/** The payee's name and e-mail as recorded for a statement (from payeeDetails, statement-runs.ts). */
export interface RecordedPayee { name: string; email: string | null }

/** The display details recorded for a statement (`statement_payees`); the payee id when none is recorded. */
export async function statementPayee(trx: Trx, statementId: string, payeeId: string): Promise<RecordedPayee & { legacyPdf: Buffer | null }> {
  const p = await trx('statement_payees').where({ statement_id: statementId }).first('name', 'email', 'legacy_pdf');
  return p ? { name: p.name, email: p.email, legacyPdf: p.legacy_pdf } : { name: payeeId, email: null, legacyPdf: null };
}

/** Records the payee's details for a statement being drawn. */
export async function recordStatementPayee(trx: Trx, statementId: string, payeeId: string, d: RecordedPayee): Promise<void> {
  await trx('statement_payees').insert({ tenant_id: trx.raw('app_tenant_id()'), statement_id: statementId, tenant_user_id: payeeId, name: d.name, email: d.email });
}

/** The payee as the stored (hashed) bodies name them: by id only. */
export const payeeById = (id: string): PayeeDetails => ({ id, name: '', email: '', address: [] });

/** The figures with the payee's details; `address` only where the figures have that key (statements made before it have not). */
export function figuresWithPayee(f: Figures, d: RecordedPayee): Figures {
  const address = 'address' in f.payee ? { address: payeeAddress(d.name, d.email ?? '') } : {};
  return { ...f, payee: { id: f.payee.id, name: d.name, email: d.email ?? '', ...address } };
}

/** The line the PDF's incremental update prints: the name, and the e-mail when it is not the name already. */
export function payeeLine(d: RecordedPayee): string {
  return `Payee: ${d.name}${payeeAddress(d.name, d.email ?? '').map((l) => ` <${l}>`).join('')}`;
}

/** The stored CSV with the payee's name in its `header,Payee` row (quoted and neutralised as the rest of the file). */
export function csvWithPayee(csv: string, d: RecordedPayee): string {
  const lines = csv.split('\n');
  const i = lines.findIndex((l) => l.startsWith('header,Payee,'));
  if (i < 0) return csv;
  const cells = Papa.parse<string[]>(lines[i]!).data[0]!.map((c) => (c === '' ? null : c));
  cells[2] = d.name ? neutralise(d.name) : null;
  lines[i] = Papa.unparse([cells], { newline: '\n' });
  return lines.join('\n');
}

/** A PDF literal string in WinAnsi (the standard Helvetica's encoding); characters outside it print as '?'. */
function pdfString(s: string): string {
  let out = '';
  for (const ch of s.replace(/[\r\n\t]+/g, ' ')) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x20 && c < 0x7f) out += ch === '(' || ch === ')' || ch === '\\' ? `\\${ch}` : ch;
    else if (c >= 0xa0 && c <= 0xff) out += `\\${c.toString(8).padStart(3, '0')}`;
    else out += '?';
  }
  return `(${out})`;
}

/** The dictionary text of object `n` (its last definition). */
function objectDict(pdf: string, n: number): string {
  const at = [...pdf.matchAll(new RegExp(`(?:^|[\\r\\n])${n} 0 obj\\s*`, 'g'))].pop();
  if (!at) throw new Error(`PDF object ${n} not found`);
  const start = at.index! + at[0].length;
  const end = pdf.indexOf('endobj', start);
  return pdf.slice(start, end).trim();
}

const ref = (dict: string, key: string) => {
  const m = new RegExp(`/${key}\\s+(\\d+)\\s+0\\s+R`).exec(dict);
  return m ? Number(m[1]) : null;
};

/**
 * The stored PDF followed by an incremental update (ISO 32000-1, 7.5.6) that prints `line`
 * at the top of the first page and sets the document title: the stored bytes are unchanged.
 */
export function pdfWithLine(stored: Buffer, line: string, title: string): Buffer {
  const pdf = stored.toString('latin1');
  const trailer = [...pdf.matchAll(/trailer\s*<<([\s\S]*?)>>\s*startxref\s+(\d+)/g)].pop();
  if (!trailer) throw new Error('PDF trailer not found');
  const t = trailer[1]!;
  const prev = Number(trailer[2]);
  const size = Number(/\/Size\s+(\d+)/.exec(t)![1]);
  const root = ref(t, 'Root')!;
  const info = ref(t, 'Info');
  const id = /\/ID\s*(\[[^\]]*\])/.exec(t)?.[1];
  let page = Number(/\/Kids\s*\[\s*(\d+)\s+0\s+R/.exec(objectDict(pdf, ref(objectDict(pdf, root), 'Pages')!))![1]);
  for (let d = objectDict(pdf, page); /\/Type\s*\/Pages\b/.test(d); d = objectDict(pdf, page)) page = Number(/\/Kids\s*\[\s*(\d+)\s+0\s+R/.exec(d)![1]);
  const pageDict = objectDict(pdf, page);
  const box = /\/MediaBox\s*\[\s*([\d.\s-]+)\]/.exec(pageDict)![1]!.trim().split(/\s+/).map(Number);
  const top = box[3]!;
  const contents = /\/Contents\s+(\d+\s+0\s+R|\[[^\]]*\])/.exec(pageDict)![1]!;
  const resRef = ref(pageDict, 'Resources');
  const resources = resRef ? objectDict(pdf, resRef) : /\/Resources\s*(<<[\s\S]*?>>)\s*\/(?:UserUnit|Contents|MediaBox|Parent|Type)/.exec(pageDict)![1]!;
  const font = size;
  const save = size + 1;
  const stream = size + 2;
  const newInfo = size + 3;
  const withFont = /\/Font\s*<</.test(resources)
    ? resources.replace(/\/Font\s*<</, `/Font <<\n/RondoPayee ${font} 0 R`)
    : resources.replace(/^<</, `<<\n/Font << /RondoPayee ${font} 0 R >>`);
  // The page's own streams leave their transformation in force (pdfkit's first one flips the
  // y axis and is never restored): a `q` before them and a `Q` here give back the page's
  // default space, where (0, 0) is the bottom left.
  const content = `Q q 0 g BT /RondoPayee 9 Tf 50 ${(top - PAYEE_LINE_FROM_TOP).toFixed(2)} Td ${pdfString(line)} Tj ET Q`;
  const streamObj = (c: string) => `<<\n/Length ${Buffer.byteLength(c, 'latin1')}\n>>\nstream\n${c}\nendstream`;
  const objects: [number, string][] = [
    [font, '<<\n/Type /Font\n/BaseFont /Helvetica\n/Subtype /Type1\n/Encoding /WinAnsiEncoding\n>>'],
    [save, streamObj('q')],
    [stream, streamObj(content)],
  ];
  const inner = contents.startsWith('[') ? contents.slice(1, -1).trim() : contents;
  const contentsArray = `[${save} 0 R ${inner} ${stream} 0 R]`;
  let newPage = pageDict.replace(/\/Contents\s+(\d+\s+0\s+R|\[[^\]]*\])/, `/Contents ${contentsArray}`);
  if (resRef) objects.push([resRef, withFont]);
  else newPage = newPage.replace(resources, withFont);
  objects.push([page, newPage]);
  const infoDict = (info ? objectDict(pdf, info) : '<<\n>>').replace(/\/Title\s+(\d+\s+0\s+R|\([^)]*\))\s*/, '');
  objects.push([newInfo, infoDict.replace(/^<</, `<<\n/Title ${pdfString(title)}`)]);

  let body = stored.subarray(-1)[0] === 0x0a ? '' : '\n';
  const base = stored.length;
  const offsets: [number, number][] = [];
  for (const [n, dict] of objects) {
    offsets.push([n, base + Buffer.byteLength(body, 'latin1')]);
    body += `${n} 0 obj\n${dict}\nendobj\n`;
  }
  const xrefAt = base + Buffer.byteLength(body, 'latin1');
  body += 'xref\n0 1\n0000000000 65535 f \n';
  for (const [n, off] of offsets.sort((a, b) => a[0] - b[0])) body += `${n} 1\n${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<<\n/Size ${newInfo + 1}\n/Root ${root} 0 R\n/Info ${newInfo} 0 R\n${id ? `/ID ${id}\n` : ''}/Prev ${prev}\n>>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([stored, Buffer.from(body, 'latin1')]);
}

/** A statement's figures, CSV and PDF as served: the stored bodies with the payee's details joined in. */
export async function withPayeeDetails(
  trx: Trx,
  s: { id: string; tenant_user_id: string; label: string; figures: Figures; csv: string; pdf: Buffer | null },
  redraw: (f: Figures) => Promise<Buffer>,
): Promise<{ figures: Figures; csv: string; pdf: () => Promise<Buffer> }> {
  const d = await statementPayee(trx, s.id, s.tenant_user_id);
  const figures = figuresWithPayee(s.figures, d);
  const pdf = async () => {
    if (s.pdf) return pdfWithLine(s.pdf, payeeLine(d), figuresTitle(s.figures, d.name));
    // made before the split: the PDF as issued while kept, else drawn again from the frozen figures
    return d.legacyPdf ?? redraw(figures);
  };
  return { figures, csv: csvWithPayee(s.csv, d), pdf };
}

/**
 * An A4 pdfkit document (50 pt margins) and the promise of its bytes once `doc.end()` is
 * called: the one way statements (payee and publisher) are written as PDF.
 */
import PDFDocument from 'pdfkit';

export function pdfDocument(title: string, info: PDFKit.DocumentInfo = {}): { doc: PDFKit.PDFDocument; done: Promise<Buffer> } {
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: title, Producer: 'Rondo', ...info } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, done };
}

/**
 * An A4 pdfkit document (50 pt margins) and the promise of its bytes once `doc.end()` is
 * called: the one way statements (payee and publisher) are written as PDF. `bufferPages`
 * keeps every page open until the end, so page numbers ("Page 2 of 5") can be written last.
 */
// pdfkit (with its fonts) is loaded on the first document, not at start: most API processes never write one (docs/operations.md)
export async function pdfDocument(title: string, info: PDFKit.DocumentInfo = {}, opts: { bufferPages?: boolean } = {}): Promise<{ doc: PDFKit.PDFDocument; done: Promise<Buffer> }> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', margin: 50, bufferPages: opts.bufferPages ?? false, info: { Title: title, Producer: 'Rondo', ...info } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, done };
}

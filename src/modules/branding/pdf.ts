/**
 * The branded head of a PDF statement: a band in the primary colour, the logo at the top
 * right, the title in the primary colour and the sender name. Without branding (no plan
 * feature, nothing set) it draws the plain title only, as before.
 */
import type { PdfBrand } from './service';

const LOGO_BOX: [number, number] = [140, 56];

/** Draws the head at the page's left margin and leaves `doc.y` below it. */
export function drawPdfHead(doc: PDFKit.PDFDocument, title: string, titleSize: number, brand?: PdfBrand | null): void {
  const left = doc.page.margins.left;
  const right = doc.page.width - doc.page.margins.right;
  const top = doc.y;
  if (brand?.primaryColor) doc.save().rect(0, 0, doc.page.width, 10).fill(brand.primaryColor).restore();
  if (brand?.logo) doc.image(brand.logo, right - LOGO_BOX[0], top, { fit: LOGO_BOX, align: 'right' });
  const textWidth = right - left - (brand?.logo ? LOGO_BOX[0] + 10 : 0);
  doc.font('Helvetica-Bold').fontSize(titleSize).fillColor(brand?.primaryColor ?? 'black').text(title, left, top, { width: textWidth });
  if (brand?.senderName) doc.font('Helvetica').fontSize(10).fillColor(brand.accentColor ?? '#444444').text(brand.senderName, left, doc.y, { width: textWidth });
  doc.fillColor('black');
  if (brand?.logo) doc.y = Math.max(doc.y, top + LOGO_BOX[1] + 4);
  doc.x = left;
}

/**
 * Reading a statement PDF back for tests: every text run with its page and box (pdfjs-dist,
 * the engine pdf-parse is built on), and the amount printed on each labelled row.
 */
import Decimal from 'decimal.js';

export interface TextRun { page: number; str: string; x: number; y: number; w: number; h: number }

export async function pdfRuns(pdf: Buffer): Promise<{ pages: number; runs: TextRun[] }> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, isEvalSupported: false, standardFontDataUrl: `${process.cwd()}/node_modules/pdfjs-dist/standard_fonts/` }).promise;
  const runs: TextRun[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const page = await doc.getPage(p);
    const content = await page.getTextContent();
    for (const it of content.items) {
      if (!('str' in it) || !it.str.trim()) continue;
      runs.push({ page: p, str: it.str, x: it.transform[4] as number, y: it.transform[5] as number, w: it.width, h: it.height });
    }
  }
  const pages = doc.numPages;
  await doc.destroy();
  return { pages, runs };
}

/** Pairs of text runs on one page whose boxes overlap by more than `tol` points both ways. */
export function overlaps(runs: TextRun[], tol = 0.5): [TextRun, TextRun][] {
  const out: [TextRun, TextRun][] = [];
  const byPage = new Map<number, TextRun[]>();
  for (const r of runs) byPage.set(r.page, [...(byPage.get(r.page) ?? []), r]);
  for (const list of byPage.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i]!, b = list[j]!;
        const dx = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
        const dy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
        if (dx > tol && dy > tol) out.push([a, b]);
      }
    }
  }
  return out;
}

/** A printed amount ("-1,234.50") as a decimal, or null when the text is not one. */
export function amountOf(s: string): Decimal | null {
  return /^-?\d{1,3}(,\d{3})*\.\d+$/.test(s.trim()) ? new Decimal(s.trim().replace(/,/g, '')) : null;
}

/** The amounts printed in the amount column (x beyond `minX`) on the same page and baseline as the run. */
export function amountsBeside(runs: TextRun[], label: TextRun, minX = 448): TextRun[] {
  return runs.filter((r) => r.page === label.page && r !== label && Math.abs(r.y - label.y) < 1 && r.x >= minX && amountOf(r.str) !== null);
}

/** The printed amount of the row whose label starts with `label` (exactly one such row). */
export function rowAmount(runs: TextRun[], label: string): Decimal {
  const hits = runs.filter((r) => r.x < 300 && r.str.trim() === label);
  if (hits.length !== 1) throw new Error(`${hits.length} rows labelled "${label}"`);
  const a = amountsBeside(runs, hits[0]!);
  if (a.length !== 1) throw new Error(`row "${label}": ${a.length} amounts beside it`);
  return amountOf(a[a.length - 1]!.str)!;
}

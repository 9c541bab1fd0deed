/** Header-signature matching shared by detection and reading. */
import { headerKey } from './normalise';
import type { SourcePattern } from './schema';

export interface HeaderMatch {
  /** Best fraction of a signature's names present in the row (0..1). */
  coverage: number;
  /** Names of the best signature missing from the row. */
  missing: string[];
  /** Fraction of the row's non-empty cells the pattern knows (signature or mapped columns). */
  specificity: number;
  /** Forbidden headers (`detect.absentHeaders`) present in the row. */
  forbidden: string[];
}

const keyCache = new WeakMap<SourcePattern, { sigs: string[][]; known: Set<string>; absent: string[] }>();
function keys(p: SourcePattern) {
  let k = keyCache.get(p);
  if (!k) {
    const sigs = [p.detect.headers, ...(p.detect.headerVariants ?? [])];
    const known = new Set<string>();
    for (const s of sigs) for (const h of s) known.add(headerKey(h));
    for (const m of Object.values(p.columns)) {
      if (!m?.from) continue;
      for (const f of Array.isArray(m.from) ? m.from : [m.from]) known.add(headerKey(f));
    }
    k = { sigs, known, absent: p.detect.absentHeaders ?? [] };
    keyCache.set(p, k);
  }
  return k;
}

/** How well one row's cells match the pattern's header signature(s). */
export function matchHeader(row: string[], p: SourcePattern): HeaderMatch {
  const { sigs, known, absent } = keys(p);
  const rowKeys = new Set(row.map(headerKey).filter((k) => k !== ''));
  let best: HeaderMatch = { coverage: 0, missing: [...sigs[0]!], specificity: 0, forbidden: [] };
  for (const sig of sigs) {
    const missing = sig.filter((h) => !rowKeys.has(headerKey(h)));
    const coverage = (sig.length - missing.length) / sig.length;
    if (coverage > best.coverage) best = { coverage, missing, specificity: 0, forbidden: [] };
  }
  let knownCount = 0;
  for (const k of rowKeys) if (known.has(k)) knownCount++;
  best.specificity = rowKeys.size ? knownCount / rowKeys.size : 0;
  best.forbidden = absent.filter((h) => rowKeys.has(headerKey(h)));
  return best;
}

/** Number of lines the header search looks at when the pattern does not fix the header line. */
export const HEADER_SEARCH_ROWS = 50;

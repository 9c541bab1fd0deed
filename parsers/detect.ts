/**
 * Source detection from the first few KB of a file. Scores every pattern:
 *
 *   score = 0.65·schema + 0.05·specificity + 0.15·fileName + 0.10·delimiter + 0.05·encoding
 *
 * - schema: 1 when a header signature (or a variant) is fully present; a partial header
 *   can never make a winner (score capped at 0.79); forbidden headers (`absentHeaders`)
 *   halve it.
 * - specificity: share of the file's header cells the pattern knows (tie-breaker between
 *   a layout and its superset).
 * - fileName: 1 regex matches, 0 regex present but no match, 0.5 no regex.
 * - delimiter / encoding: 1 when the pattern's matches the sniffed one (or is 'auto').
 *
 * Ambiguity: when the two best both have a full signature and are within 0.05, neither
 * can be a clear winner: both are capped at 0.79 (→ needs_confirmation).
 */
import Papa from 'papaparse';
import type { DetectionCandidate, StatementSample } from './types';
import type { SourcePattern } from './schema';
import { matchHeader, HEADER_SEARCH_ROWS } from './header';
import { decodeHead, detectArchive, gunzipHead, guessNewline, sniffDelimiter, sniffEncoding, type Encoding } from './text';
import { fiscalOf, normDate, headerKey, monthEnd } from './normalise';
import { statementPeriod } from './read';

export { sniffEncoding, sniffDelimiter, detectArchive } from './text';

export const WINNER_THRESHOLD = 0.8;
const NOT_A_WINNER = 0.79;

interface Sampled {
  text: string;
  encoding: Encoding;
  rows: string[][];
  delimiter: string;
}

function sample(head: Buffer, forced?: Encoding): Sampled {
  let bytes = head;
  if (detectArchive(head) === 'gzip') bytes = gunzipHead(head);
  const encoding = forced ?? sniffEncoding(bytes).encoding;
  const text = decodeHead(bytes, encoding);
  const delimiter = sniffDelimiter(text);
  // Only whole lines: drop the (probably cut) last line unless the sample is the whole file.
  const cut = text.length >= 1024 ? Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) : -1;
  const whole = cut > 0 ? text.slice(0, cut) : text;
  const res = Papa.parse<string[]>(whole, { delimiter, newline: guessNewline(whole), header: false, preview: 400 });
  return { text, encoding, rows: res.data, delimiter };
}

function isAscii(s: string): boolean {
  return !/[^\x00-\x7f]/.test(s);
}

/**
 * A file's shape, as a confirmation remembers it: `header` fingerprints the header row (the
 * first of the first rows with at least 3 filled cells, at most a third of them numbers: a row
 * of names) with the delimiter, as the header cells' normalised names; null when the file shows
 * no such row (header-less record files). `name` is the file name with every digit run made
 * `#` (`sales_2024-03.csv` → `sales_#-#.csv`).
 */
export function fileShape(sampleIn: StatementSample): { header: string | null; name: string } {
  const s = sample(sampleIn.head);
  let header: string | null = null;
  for (const r of s.rows.slice(0, HEADER_SEARCH_ROWS)) {
    const filled = r.map((c) => c.trim()).filter((c) => c !== '');
    if (filled.length < 3) continue;
    const numeric = filled.filter((c) => /^[-+(]?[\d.,\s/:%-]+\)?$/.test(c)).length;
    if (numeric * 3 > filled.length) continue;
    header = JSON.stringify([s.delimiter, r.map(headerKey)]);
    break;
  }
  return { header, name: sampleIn.fileName.toLowerCase().replace(/\d+/g, '#') };
}

/**
 * Detection for a workspace: `own` names the workspace's own layouts. When an own layout and a
 * built-in one read the same header equally well (the ambiguity cap), the workspace's own
 * layout wins without asking: it takes the best score, the built-ins stay capped.
 */
export function detectSource(sampleIn: StatementSample, patterns: SourcePattern[], opts: { own?: ReadonlySet<string> } = {}): DetectionCandidate[] {
  const sniffed = sample(sampleIn.head);
  // cp932 is never sniffed (its bytes read as a single-byte code page): a pattern that names it is scored on
  // the sample decoded as cp932, so its (Japanese) header can match at all.
  let cp932: Sampled | null = null;
  const fileName = sampleIn.fileName;
  const out: DetectionCandidate[] = [];
  for (const p of patterns) {
    const reasons: string[] = [];
    const s = p.format.encoding === 'cp932' && (sniffed.encoding === 'windows-1252' || sniffed.encoding === 'windows-1251') ? (cp932 ??= sample(sampleIn.head, 'cp932')) : sniffed;
    // --- schema ---------------------------------------------------------------------
    let coverage = 0, specificity = 0, headerRow = -1, forbidden: string[] = [], missing: string[] = [];
    const noHeader = p.format.header === 'none';
    if (p.layout === 'ddex-dsr' || noHeader) {
      // DSR record types, or a header-less file's row kinds: the values of the kind cell.
      const cell = noHeader ? p.rowKinds?.cell ?? 0 : 0;
      const types = new Set(s.rows.slice(0, HEADER_SEARCH_ROWS * 4).map((r) => (r[cell] ?? '').trim().toLowerCase()));
      const want = p.detect.headers;
      const found = want.filter((w) => (noHeader ? types.has(w.trim().toLowerCase()) : [...types].some((t) => t.startsWith(w.toLowerCase()))));
      coverage = found.length / want.length;
      missing = want.filter((w) => !found.includes(w));
      if (noHeader && p.rowKinds && p.rowKinds.other !== 'skip') {
        // every row must be of a kind the pattern knows (another layout's kinds are not this one)
        const rows = s.rows.slice(0, HEADER_SEARCH_ROWS * 4).filter((r) => !(r.length === 1 && r[0] === ''));
        const known = (r: string[]) => p.rowKinds!.kinds.some((k) => k.values.some((v) => v.trim().toLowerCase() === (r[cell] ?? '').trim().toLowerCase()) &&
          Object.entries(k.where ?? {}).every(([c, vs]) => vs.some((v) => v.trim().toLowerCase() === (r[+c] ?? '').trim().toLowerCase())));
        const share = rows.length ? rows.filter(known).length / rows.length : 0;
        if (share < 1) {
          coverage = Math.min(coverage, share * 0.99);
          missing.push(`${rows.length - rows.filter(known).length} row(s) of no known kind`);
        }
      }
      specificity = coverage;
      headerRow = 0;
    } else {
      const start = p.format.linesBeforeHeader ?? 0;
      const end = p.format.linesBeforeHeader !== undefined ? start + 1 : HEADER_SEARCH_ROWS;
      for (let i = start; i < Math.min(end, s.rows.length); i++) {
        const m = matchHeader(s.rows[i]!, p);
        if (m.coverage > coverage || (m.coverage === coverage && m.specificity > specificity)) {
          coverage = m.coverage;
          specificity = m.specificity;
          forbidden = m.forbidden;
          missing = m.missing;
          headerRow = i;
        }
        if (m.coverage === 1) break;
      }
    }
    let schema = coverage;
    if (coverage === 1) reasons.push(p.layout === 'ddex-dsr' ? 'DSR record types present' : noHeader ? 'row kinds present' : `header signature matched on line ${headerRow + 1}`);
    else if (coverage > 0) reasons.push(`header partly matched (${Math.round(coverage * 100)}%), missing ${missing.join(', ')}`);
    if (forbidden.length) {
      schema *= 0.5;
      reasons.push(`has column(s) this layout does not: ${forbidden.join(', ')}`);
    }
    // --- file name, delimiter, encoding -----------------------------------------------
    let fn = 0.5;
    if (p.detect.fileName) {
      fn = new RegExp(p.detect.fileName, 'i').test(fileName) ? 1 : 0;
      if (fn) reasons.push('file name matches');
    }
    const delimOk = p.format.delimiter === 'auto' || p.format.delimiter === s.delimiter ? 1 : 0;
    if (!delimOk) reasons.push(`delimiter is ${JSON.stringify(s.delimiter)}, pattern expects ${JSON.stringify(p.format.delimiter)}`);
    const pe = p.format.encoding;
    const encOk =
      pe === 'auto' || pe === s.encoding || (isAscii(sniffed.text) && pe !== 'utf-16le') ? 1 : 0;
    let score = 0.65 * schema + 0.05 * specificity + 0.15 * fn + 0.1 * delimOk + 0.05 * encOk;
    if (coverage < 1 || forbidden.length) score = Math.min(score, NOT_A_WINNER);
    if (coverage === 0) score = Math.min(score, 0.3);

    // --- period -------------------------------------------------------------------------
    let period: DetectionCandidate['period'] = null;
    let periodConf = 0;
    const preamble = new Map<string, string>();
    if (p.format.preamble === 'keyValue' && headerRow > 0)
      for (const r of s.rows.slice(0, headerRow)) if (r.length >= 2) preamble.set(headerKey(r[0]!), (r[1] ?? '').trim());
    const fixed = statementPeriod(p, fileName, preamble);
    if (fixed) {
      period = fixed;
      periodConf = 1;
      reasons.push('period from ' + (p.period?.preambleStart && preamble.size ? 'preamble' : 'file name'));
    } else if (coverage === 1 && p.layout === 'table') {
      const m = p.columns.saleMonth ?? p.columns.salePeriodStart;
      const names = m?.from ? (Array.isArray(m.from) ? m.from : [m.from]) : [];
      const hdr = s.rows[headerRow]!.map(headerKey);
      const idx = names.map((n) => hdr.indexOf(headerKey(n))).find((i) => i >= 0);
      if (idx !== undefined) {
        let lo: string | null = null, hi: string | null = null, n = 0;
        for (const r of s.rows.slice(headerRow + 1, headerRow + 200)) {
          const d = normDate(r[idx] ?? '', p.format.dayFirst, fiscalOf(p.format));
          if (!d) continue;
          n++;
          if (lo === null || d.month < lo) lo = d.month;
          if (hi === null || d.month > hi) hi = d.month;
        }
        if (lo && hi) {
          period = { start: lo, end: monthEnd(hi) };
          periodConf = 0.6;
          reasons.push(`period from the first ${n} rows`);
        }
      }
    }
    const source = fn === 1 ? (coverage === 1 ? 1 : 0.6) : coverage === 1 ? 0.8 : coverage * 0.5;
    out.push({
      patternKey: p.key,
      score: Math.round(score * 1000) / 1000,
      confidence: { source: Math.round(source * 1000) / 1000, period: periodConf, schema: Math.round(schema * 1000) / 1000 },
      period,
      reasons,
    });
  }
  out.sort((a, b) => b.score - a.score || b.confidence.schema - a.confidence.schema);
  const [a, b] = out;
  if (a && b && a.confidence.schema === 1 && b.confidence.schema === 1 && a.score - b.score < 0.05) {
    const tied = out.filter((c) => c.confidence.schema === 1 && a.score - c.score < 0.05);
    const own = opts.own ? tied.filter((c) => opts.own!.has(c.patternKey)) : [];
    const best = a.score;
    for (const c of tied) {
      if (own.length === 1 && c === own[0]) continue;
      c.score = Math.min(c.score, NOT_A_WINNER);
      c.reasons.push(own.length === 1 ? "the workspace's own layout reads the same header: it wins" : 'ambiguous: another pattern matches the same header');
    }
    if (own.length === 1) {
      own[0]!.score = best;
      own[0]!.reasons.push("the workspace's own layout, preferred to a built-in one that reads the same header");
      out.sort((x, y) => y.score - x.score || y.confidence.schema - x.confidence.schema);
    }
  }
  return out;
}

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { builtinPatterns, readStatement, type CanonicalLine, type LineError, type ReadSummary, type SourcePattern } from '../../../parsers/index';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/statements/', import.meta.url));
export const fixture = (name: string): Buffer => readFileSync(FIXTURES + name);
export const pattern = (key: string) => {
  const p = builtinPatterns.find((x) => x.key === key);
  if (!p) throw new Error(`no pattern ${key}`);
  return p;
};

/** Reads a fixture (gunzipping .gz as the job does) in small chunks to exercise chunk boundaries. */
export async function read(
  name: string,
  key: string,
  chunk = 97,
): Promise<{ summary: ReadSummary; lines: CanonicalLine[]; errors: LineError[]; warnings: LineError[]; expenses: CanonicalLine[] }> {
  return readWith(name, pattern(key), chunk);
}

/** Reads a fixture with the given pattern (a built-in one, or a draft). */
export async function readWith(
  name: string,
  p: SourcePattern,
  chunk = 97,
): Promise<{ summary: ReadSummary; lines: CanonicalLine[]; errors: LineError[]; warnings: LineError[]; expenses: CanonicalLine[] }> {
  let buf = fixture(name);
  if (name.endsWith('.gz')) buf = gunzipSync(buf);
  const parts: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  const lines: CanonicalLine[] = [];
  const errors: LineError[] = [];
  const warnings: LineError[] = [];
  const expenses: CanonicalLine[] = [];
  const summary = await readStatement(Readable.from(parts), { fileName: name, pattern: p }, {
    lines: (b) => void lines.push(...b),
    error: (e) => void (e.kept ? warnings : errors).push(e),
    expense: (l) => void expenses.push(l),
  });
  return { summary, lines, errors, warnings, expenses };
}

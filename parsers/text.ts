/**
 * Bytes → text: encoding sniffing, streaming decoding, delimiter and newline sniffing,
 * archive magic bytes. Shared by detect.ts and read.ts.
 */
import iconv from 'iconv-lite';
import { gunzipSync, constants as zc } from 'node:zlib';
import { isAscii } from 'node:buffer';

/** Single-byte code pages read through iconv-lite. `latin1` is read as windows-1252, as browsers do (its 0x80–0x9F are ’ “ ” € … in real files, never C1 controls). */
export const SINGLE_BYTE = ['latin1', 'windows-1252', 'windows-1250', 'windows-1251', 'iso-8859-15'] as const;
export type SingleByte = (typeof SINGLE_BYTE)[number];
export type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'cp932' | SingleByte;
export type PatternEncoding = 'auto' | 'utf-8' | 'utf-16le' | 'cp932' | SingleByte;
const isSingleByte = (e: string): e is SingleByte => (SINGLE_BYTE as readonly string[]).includes(e);
/** iconv-lite's name of a single-byte code page. */
const codePage = (e: SingleByte): string => (e === 'latin1' ? 'win1252' : e === 'iso-8859-15' ? 'iso885915' : e.replace('windows-', 'win'));
/** Decodes single-byte text (every byte is one character: chunks decode on their own). */
export function decodeSingleByte(b: Buffer, e: SingleByte): string {
  return iconv.decode(b, codePage(e));
}

/** 'zip' (PK\x03\x04 / empty PK\x05\x06), 'gzip' (1f 8b) or null, by magic bytes. */
export function detectArchive(head: Buffer): 'zip' | 'gzip' | null {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6))
    return 'zip';
  return null;
}

/** Decompresses as much of a gzip head as is there (detection only; the job unwraps the real file). */
export function gunzipHead(head: Buffer): Buffer {
  try {
    return gunzipSync(head, { finishFlush: zc.Z_SYNC_FLUSH });
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * Sniffs the encoding from the first bytes: BOM first (UTF-8, UTF-16 LE/BE), then the
 * UTF-16 NUL pattern (ASCII text in UTF-16 has a NUL in every other byte), then UTF-8
 * validity; bytes that are not valid UTF-8 mean a single-byte legacy encoding: windows-1252
 * (Western European, a superset of ISO-8859-1's letters), or windows-1251 when the high bytes
 * are mostly Cyrillic letters in runs. cp932 is never guessed: a pattern must say so.
 */
export function sniffEncoding(head: Buffer): { encoding: Encoding; bom: boolean } {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bom: true };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true };
  const n = Math.min(head.length, 4096);
  let evenNul = 0, oddNul = 0;
  for (let i = 0; i < n; i++) if (head[i] === 0) (i & 1 ? oddNul++ : evenNul++);
  if (n >= 4 && oddNul > n / 8 && oddNul > evenNul * 4) return { encoding: 'utf-16le', bom: false };
  if (n >= 4 && evenNul > n / 8 && evenNul > oddNul * 4) return { encoding: 'utf-16be', bom: false };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return { encoding: 'utf-8', bom: false };
  } catch {
    return { encoding: cyrillic(head.subarray(0, n)) ? 'windows-1251' : 'windows-1252', bom: false };
  }
}

/** High bytes mostly 0xC0–0xFF in runs of 3+ (words of Cyrillic letters), as windows-1251 text has. */
function cyrillic(b: Buffer): boolean {
  let high = 0, inRuns = 0, run = 0;
  for (let i = 0; i <= b.length; i++) {
    const c = i < b.length ? b[i]! : 0;
    if (c >= 0xc0) run++;
    else {
      if (run >= 3) inRuns += run;
      run = 0;
    }
    if (c >= 0x80) high++;
  }
  return high >= 8 && inRuns / high >= 0.6;
}

/** Decodes a head sample (tolerant: a cut multibyte sequence at the end is dropped). BOM stripped. */
export function decodeHead(head: Buffer, enc: Encoding): string {
  let s: string;
  if (enc === 'utf-8') s = new TextDecoder('utf-8').decode(head, { stream: true });
  else if (isSingleByte(enc)) s = decodeSingleByte(head, enc);
  else if (enc === 'utf-16le') s = new TextDecoder('utf-16le').decode(head, { stream: true });
  else s = iconv.decode(head, enc === 'utf-16be' ? 'utf-16be' : 'cp932');
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/** The encoding to read with: the pattern's, or the sniffed one when the pattern says 'auto'. */
export function resolveEncoding(patternEnc: PatternEncoding, head: Buffer): Encoding {
  const sniffed = sniffEncoding(head);
  if (patternEnc === 'auto') return sniffed.encoding;
  // A BOM is authoritative; otherwise trust the pattern.
  if (sniffed.bom) return sniffed.encoding;
  return patternEnc;
}

export class DecodeError extends Error {}

/**
 * Streaming decoder. UTF-8 is decoded strictly: invalid bytes reject with a clear error,
 * except in 'auto' mode when nothing but ASCII was seen before the first invalid byte —
 * then the file is a legacy single-byte file after all and the rest is read as latin1
 * (identical to UTF-8 on the ASCII already decoded). BOM stripped.
 */
export async function* decodeChunks(
  source: AsyncIterable<Buffer>,
  enc: Encoding,
  auto: boolean,
): AsyncGenerator<string> {
  let first = true;
  const stripBom = (s: string) => {
    if (first && s.length) {
      first = false;
      if (s.charCodeAt(0) === 0xfeff) return s.slice(1);
    }
    return s;
  };
  if (isSingleByte(enc)) {
    for await (const b of source) yield stripBom(decodeSingleByte(b, enc));
    return;
  }
  if (enc === 'utf-8' || enc === 'utf-16le') {
    const td = new TextDecoder(enc, { fatal: true, ignoreBOM: true });
    let offset = 0;
    let asciiSoFar = true;
    let latin1 = false;
    for await (const b of source) {
      if (latin1) {
        yield decodeSingleByte(b, 'windows-1252');
        continue;
      }
      let s: string;
      try {
        s = td.decode(b, { stream: true });
      } catch {
        const prevTailHigh = offset > 0 && !asciiSoFar;
        if (enc === 'utf-8' && auto && asciiSoFar && !prevTailHigh) {
          latin1 = true;
          yield stripBom(decodeSingleByte(b, 'windows-1252'));
          continue;
        }
        throw new DecodeError(
          `file is not valid ${enc.toUpperCase()} (invalid byte sequence near byte ${offset}); ` +
            `set the source pattern's encoding (e.g. latin1) to read it`,
        );
      }
      offset += b.length;
      if (asciiSoFar && auto && enc === 'utf-8' && !isAscii(b)) asciiSoFar = false;
      if (s) yield stripBom(s);
    }
    try {
      const tail = td.decode();
      if (tail) yield stripBom(tail);
    } catch {
      throw new DecodeError(`file is not valid ${enc.toUpperCase()}: it ends inside a character`);
    }
    return;
  }
  const dec = iconv.getDecoder(enc === 'utf-16be' ? 'utf-16be' : 'cp932', { stripBOM: true });
  let bad = 0, total = 0;
  for await (const b of source) {
    const s = dec.write(b);
    total += s.length;
    for (let i = s.indexOf('\ufffd'); i !== -1; i = s.indexOf('\ufffd', i + 1)) bad++;
    if (total > 1000 && bad > total / 100)
      throw new DecodeError(`file does not decode as ${enc} (${bad} undecodable characters)`);
    if (s) yield stripBom(s);
  }
  const tail = dec.end();
  if (tail) yield tail;
}

/** '\r\n', '\n' or '\r': the first line break outside quotes. */
export function guessNewline(text: string): '\r\n' | '\n' | '\r' {
  let inQ = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') inQ = !inQ;
    else if (!inQ && c === '\n') return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
    else if (!inQ && c === '\r' && text[i + 1] !== '\n') return '\r';
  }
  return '\n';
}

const DELIMS = ['\t', ',', ';', '|'] as const;
export type Delimiter = (typeof DELIMS)[number];

/**
 * Picks the delimiter whose per-line count (outside quotes) is the same on the most lines
 * (preambles and footers have other counts); ties go to the higher count, then to the
 * order tab, comma, semicolon, pipe.
 */
export function sniffDelimiter(text: string): Delimiter {
  const lines: string[] = [];
  let start = 0, inQ = false;
  for (let i = 0; i < text.length && lines.length < 30; i++) {
    const c = text[i];
    if (c === '"') inQ = !inQ;
    else if (!inQ && (c === '\n' || c === '\r')) {
      if (i > start) lines.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (lines.length === 0 && text.length) lines.push(text);
  let best: Delimiter = ',';
  let bestScore = -1;
  for (const d of DELIMS) {
    const freq = new Map<number, number>();
    for (const line of lines) {
      let n = 0, q = false;
      for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (c === '"') q = !q;
        else if (!q && c === d) n++;
      }
      if (n > 0) freq.set(n, (freq.get(n) ?? 0) + 1);
    }
    for (const [count, lines] of freq) {
      const score = lines * 1000 + count;
      if (score > bestScore) {
        bestScore = score;
        best = d;
      }
    }
  }
  return best;
}

/** Reads up to `n` bytes from the stream, and gives back an iterator over the head + the rest. */
export async function peekHead(
  input: AsyncIterable<Buffer | string>,
  n: number,
): Promise<{ head: Buffer; all: AsyncIterable<Buffer> }> {
  const it = input[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < n) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    const b = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    parts.push(b);
    size += b.length;
  }
  const head = Buffer.concat(parts);
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    if (done) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    }
  }
  return { head, all: all() };
}

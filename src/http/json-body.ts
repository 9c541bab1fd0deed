/**
 * JSON request bodies read losslessly (docs/api.md, "Numbers in JSON bodies"). A JSON number
 * that a double holds exactly as written stays a number; any other number (more than 15
 * significant digits, or beyond a double's range) becomes the exact decimal string of what
 * was written (`123456789012.123456` → "123456789012.123456", `1.5E+20` →
 * "150000000000000000000"). Money, shares and rates accept a decimal string, so they get the
 * exact figure and the schema's limits (digits before and after the point) apply to it; a
 * field that takes only a number refuses the string with a 400 naming the field. Nothing is
 * ever rounded through binary arithmetic.
 *
 * The parsing is lossless-json's. Koa's body parser (JSON.parse) runs first; its answer is
 * kept when no number of the raw text can have lost anything: a number of at most 15
 * significant digits (a run of at most 15 digits and points) with an exponent of at most two
 * digits is exactly a double. Otherwise the raw text is parsed again by lossless-json (duplicate
 * keys: the last wins, as JSON.parse).
 */
import type { Context } from 'koa';
import Decimal from 'decimal.js';
import { parse } from 'lossless-json';
import { ValidationError } from '../lib/errors';

/** Raw text that may hold a number a double cannot hold exactly (a long digit run, a 3-digit exponent). */
const MAYBE_INEXACT = /[0-9.]{16,}|[eE][+-]?0*[1-9][0-9]{2}/;

/** Exponent (position of the leading digit) beyond which a decimal string is not written out in full. */
const MAX_PLAIN_EXPONENT = 64;

/** A JSON number's text → the number when a double holds it exactly, else its exact decimal string. */
export function exactNumber(text: string): number | string {
  const n = Number(text);
  if (text.length <= 15 && !/[eE]/.test(text)) return n; // ≤ 15 significant digits, no exponent: exact
  const d = new Decimal(text);
  if (Number.isFinite(n) && new Decimal(String(n)).eq(d)) return n;
  // plain decimal text unless absurdly large or small (then the text as written: refused as a decimal)
  return Math.abs(d.e) <= MAX_PLAIN_EXPONENT ? d.toFixed() : text;
}

/** Parses JSON text keeping every number exactly (see above). */
export function parseLossless(text: string): unknown {
  return parse(text, null, { parseNumber: exactNumber, onDuplicateKey: ({ newValue }) => newValue });
}

/** After Koa's body parser: a JSON body whose numbers may have lost digits is read again, losslessly. */
export function losslessJsonBody(ctx: Context): void {
  const raw = (ctx.request as unknown as { rawBody?: unknown }).rawBody;
  if (typeof raw !== 'string' || !MAYBE_INEXACT.test(raw)) return;
  if (!ctx.request.is(['json', '+json', 'application/csp-report'])) return;
  try {
    (ctx.request as unknown as { body: unknown }).body = parseLossless(raw);
  } catch {
    // JSON.parse accepted the text, so this is not expected; never echo the body
    throw new ValidationError('Malformed request body', ['body is not valid JSON'], 'MALFORMED_BODY');
  }
}

/**
 * The reference service's body field names (docs/api.md "Coming from the reference service"):
 * where a reference name names the same thing as a Rondo field, a request may use either, and
 * the answer carries both. A route declares its names as `referenceNames` (route.ts):
 *
 * - `rename`: reference name → Rondo name (`artistName` → `name`), the value unchanged;
 * - `metadata`: reference names Rondo keeps under the record's `metadata` object, by the same
 *   name (an artist's `signDate`), answered back beside it.
 *
 * A body that sends both names of one field with different values is refused (400 naming both);
 * the same value twice is taken.
 */
export interface ReferenceNames {
  rename: Readonly<Record<string, string>>;
  metadata?: readonly string[];
  /** What `body` and `answer` do, in a sentence (the OpenAPI document shows it). */
  about?: string;
  /** Reference fields that take more than a new name (a split's `shares`): rewrites the body in place, answers its problems. */
  body?: (body: Record<string, unknown>) => string[];
  /** The reference's fields of one answered record that take more than a new name. */
  answer?: (item: Record<string, unknown>) => Record<string, unknown>;
}

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The body in Rondo's names, and the problems (both names sent, disagreeing); `at` prefixes the fields named (a bulk item: ''). */
export function fromReferenceNames(body: unknown, names: ReferenceNames, at = 'body.'): { body: unknown; problems: string[] } {
  if (!isObject(body)) return { body, problems: [] };
  const out: Record<string, unknown> = { ...body };
  const problems: string[] = [];
  for (const [ref, own] of Object.entries(names.rename)) {
    if (!(ref in out)) continue;
    if (own in out && !same(out[own], out[ref])) problems.push(`${at}${ref} and ${at}${own} name the same field with different values: send one`);
    else out[own] = out[ref];
    delete out[ref];
  }
  const meta = (names.metadata ?? []).filter((k) => k in out);
  if (meta.length) {
    const m: Record<string, unknown> = isObject(out.metadata) ? { ...out.metadata } : {};
    for (const k of meta) {
      if (k in m && !same(m[k], out[k])) problems.push(`${at}${k} and ${at}metadata.${k} name the same field with different values: send one`);
      else m[k] = out[k];
      delete out[k];
    }
    if (out.metadata === undefined || isObject(out.metadata)) out.metadata = m;
  }
  if (names.body) problems.push(...names.body(out));
  return { body: out, problems };
}

function withNames(item: unknown, names: ReferenceNames): unknown {
  if (!isObject(item)) return item;
  const out: Record<string, unknown> = { ...item };
  for (const [ref, own] of Object.entries(names.rename)) if (own in out && !(ref in out)) out[ref] = out[own];
  const m = out.metadata;
  if (isObject(m)) for (const k of names.metadata ?? []) if (k in m && !(k in out)) out[k] = m[k];
  return names.answer ? names.answer(out) : out;
}

/** The answer with the reference names beside Rondo's, on `data` (one record or a list of them). */
export function withReferenceNames(result: unknown, names: ReferenceNames): unknown {
  if (!isObject(result) || !('data' in result)) return result;
  const data = result.data;
  return { ...result, data: Array.isArray(data) ? data.map((d) => withNames(d, names)) : withNames(data, names) };
}

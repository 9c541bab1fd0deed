/**
 * A database row as an API object: each listed column under its camelCase name
 * (`resource_type` → `resourceType`), or under the name given (`['dsp', 'dsp_norm']`).
 * Dates become ISO strings, everything else is passed as it is (null stays null).
 */
export type ViewColumn = string | [name: string, column: string];

const camel = (c: string) => c.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());

export function rowView(r: Record<string, unknown>, columns: ViewColumn[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) {
    const [name, col] = typeof c === 'string' ? [camel(c), c] : c;
    const v = r[col];
    out[name] = v instanceof Date ? v.toISOString() : v;
  }
  return out;
}

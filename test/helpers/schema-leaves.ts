/**
 * The leaves of a request schema (each value a client sends), with the kind of value each
 * takes: the input sweep sends out-of-range values of each kind to every route that
 * declares one, so a route added later is swept without a line here.
 */
import crypto from 'node:crypto';

type Node = Record<string, any>;
export type Kind = 'decimal' | 'number' | 'integer' | 'date' | 'date-time' | 'month' | 'month-or-date' | 'currency' | 'uuid' | 'text' | 'other';

export interface Leaf {
  /** Keys from the root; array items are index 0. */
  path: (string | number)[];
  kind: Kind;
  schema: Node;
}

function kindOf(s: Node): Kind {
  if (s['x-decimal']) return 'decimal';
  if (s.type === 'integer') return 'integer';
  if (s.type === 'number') return 'number';
  if (s.type === 'string') {
    if (s.const !== undefined || s.enum) return 'other';
    switch (s.format) {
      case 'date':
      case 'date-time':
      case 'month':
      case 'month-or-date':
      case 'uuid':
        return s.format;
      case 'iso4217':
        return 'currency';
      default:
        return 'text';
    }
  }
  return 'other';
}

/** Every leaf of `schema`; a leaf reached through several union branches is listed once per kind. */
export function leaves(schema: Node | undefined, path: (string | number)[] = []): Leaf[] {
  if (!schema) return [];
  const out: Leaf[] = [];
  const seen = new Set<string>();
  const add = (l: Leaf) => {
    const key = `${l.path.join('.')}|${l.kind}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(l);
    }
  };
  const walk = (s: Node, p: (string | number)[]) => {
    if (s['x-decimal']) return add({ path: p, kind: 'decimal', schema: s });
    for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(branch, p);
    if (s.type === 'object' && s.properties) for (const [k, v] of Object.entries(s.properties)) walk(v as Node, [...p, k]);
    if (s.type === 'object' && s.patternProperties) for (const v of Object.values(s.patternProperties)) walk(v as Node, [...p, 'key']);
    if (s.type === 'array' && s.items && !Array.isArray(s.items)) walk(s.items, [...p, 0]);
    const k = kindOf(s);
    if (k !== 'other') add({ path: p, kind: k, schema: s });
  };
  walk(schema, path);
  return out;
}

/** An acceptable value of a kind (to fill path params other than the one under test). */
export function goodValue(kind: Kind): string {
  switch (kind) {
    case 'uuid':
      return crypto.randomUUID();
    case 'date':
    case 'month-or-date':
      return '2024-01-01';
    case 'month':
      return '2024-01';
    case 'currency':
      return 'USD';
    case 'integer':
    case 'number':
    case 'decimal':
      return '1';
    default:
      return 'x';
  }
}

/** Values of a kind that no column behind it can hold (or that are outside the business range). */
export function badValues(leaf: Leaf, where: 'body' | 'query' | 'params'): unknown[] {
  const inBody = where === 'body';
  switch (leaf.kind) {
    case 'decimal': {
      const rule = leaf.schema['x-decimal'] as { precision: number; scale: number };
      const whole = rule.precision - rule.scale;
      const vals: unknown[] = [`1${'0'.repeat(whole)}`, `0.${'0'.repeat(rule.scale)}1`, '1e400'];
      if (inBody) vals.push(10 ** whole, 10 ** -(rule.scale + 1), 1e300);
      return vals;
    }
    case 'number':
      return inBody ? [1e300, -1e300] : ['1e300'];
    case 'integer': {
      const vals: unknown[] = ['1e19', '99999999999999999999'];
      if (inBody) vals.push(1e19, 2 ** 63);
      const max = leaf.schema.maximum as number | undefined;
      if (max !== undefined && max < 2_147_483_647) vals.push(inBody ? max + 1 : String(max + 1));
      return inBody ? vals.filter((v) => typeof v === 'number') : vals;
    }
    case 'date':
      return ['0000-01-01', '1899-12-31', '2200-01-01', '2024-02-30', '99999-01-01'];
    case 'date-time':
      return ['0000-01-01T00:00:00Z', '2024-02-30T00:00:00Z', '2200-01-01T00:00:00Z', '294277-01-01T00:00:00Z'];
    case 'month':
      return ['0000-01', '2024-13', '2200-01'];
    case 'month-or-date':
      return ['0000-01', '2024-02-30', '2200-01-01'];
    case 'currency':
      return ['ABC', 'XXX', 'US'];
    case 'uuid':
      return ['not-a-uuid', '00000000-0000-0000-0000-00000000000g'];
    case 'text':
      return inBody ? ['a\u0000b', '\uD800x', `x${'\uDC00'}`] : ['a\u0000b'];
    default:
      return [];
  }
}

/** `body.splits.0.share`: how validation names a field in its messages. */
export function fieldName(where: string, path: (string | number)[]): string {
  return [where, ...path].join('.');
}

/** An object holding `value` at `path` (and nothing else). */
export function holding(path: (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  const [head, ...rest] = path;
  const inner = holding(rest, value);
  return typeof head === 'number' ? [inner] : { [head]: inner };
}

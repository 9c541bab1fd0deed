/**
 * The layouts page's words and figures, pure: which column a line field reads, how a field is
 * read said in words, and the exact difference of two decimal strings.
 */
type Any = Record<string, any>;

/** The column a simple mapping reads: its header name, or "#n" by position. */
export function columnOf(m: Any | undefined): string | null {
  if (!m || m.compute) return null;
  if (typeof m.from === 'string') return m.from;
  if (Array.isArray(m.from)) return m.from[0] ?? null;
  if (typeof m.column === 'number') return `#${m.column}`;
  return null;
}
export const colId = (c: Any) => c.name ?? `#${c.index}`;
export const colLabel = (c: Any) => c.name ?? `Column ${c.index + 1}`;

/** How one line field is read, in words. */
export function mappingWords(m: Any | undefined): string {
  if (!m) return '—';
  const parts: string[] = [];
  const col = (c: string | number) => (typeof c === 'number' ? `column ${c + 1}` : `“${c}”`);
  if (m.compute) {
    const op: Record<string, string> = { sum: 'the sum of', difference: 'the first minus the others of', product: 'the product of', join: 'joined' };
    parts.push(`${op[m.compute.op] ?? m.compute.op} ${m.compute.of.map(col).join(', ')}`);
  } else if (m.from !== undefined) parts.push(`the column ${[].concat(m.from).map((x: string) => col(x)).join(' or ')}`);
  else if (m.column !== undefined) parts.push(col(m.column));
  if (m.preamble) parts.push(`the line “${m.preamble}” above the header`);
  if (m.fileName) parts.push('the file name');
  if (m.const !== undefined) parts.push(parts.length ? `else always ${m.const}` : `always ${m.const}`);
  if (m.default !== undefined) parts.push(`${m.default} when empty`);
  if (m.map) parts.push(`values translated (${Object.entries(m.map).slice(0, 3).map(([k, v]) => `${k} → ${v}`).join(', ')}${Object.keys(m.map).length > 3 ? '…' : ''})`);
  if (m.negativeWhen) parts.push(`negative when “${m.negativeWhen.column}” is ${m.negativeWhen.values.join(' or ')}`);
  if (m.extract) parts.push('part of the cell');
  return parts.join('; ') || '—';
}

/** a − b on decimal strings, exactly (scaled integers). */
export function minus(a: string, b: string): string {
  const places = Math.max((a.split('.')[1] ?? '').length, (b.split('.')[1] ?? '').length);
  const scale = (s: string) => {
    const neg = s.startsWith('-');
    const [i, f = ''] = s.replace('-', '').split('.');
    const v = BigInt(i + f.padEnd(places, '0'));
    return neg ? -v : v;
  };
  const d = scale(a) - scale(b);
  const neg = d < 0n;
  const digits = (neg ? -d : d).toString().padStart(places + 1, '0');
  const out = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  return (neg ? '-' : '') + out;
}

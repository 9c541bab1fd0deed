/**
 * Sorting of lists, one convention for every list (docs/api.md, "Lists and paging"):
 * `sort` names a field the list's item shows, `order` is asc|desc (default desc for a
 * field ending in At or Date, asc otherwise), ties break on the id.
 *
 * Each list names its sortable fields once, as item field → column (`sortColumns`); only
 * those columns ever reach SQL, the client's text never does. A field the list does not
 * sort by is a 400 `INVALID_SORT` naming it and the fields it takes.
 */
import { Type } from './schema';
import type { Knex } from 'knex';
import { ValidationError } from '../lib/errors';

/**
 * An SQL expression a list sorts by where the field is not one plain column (a grouped list's
 * aggregate, a coalesce of two columns): written in the code, never from the client.
 */
export interface SortExpr { readonly sql: string }
export const sortExpr = (sql: string): SortExpr => Object.freeze({ sql });

export type SortColumns = Readonly<Record<string, string | SortExpr>>;

const COLUMN = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

/** A list's sortable fields: the name the item shows → the real column (`alias.column`) or a sortExpr. */
export function sortColumns<T extends Record<string, string | SortExpr>>(cols: T): Readonly<T> {
  for (const [field, col] of Object.entries(cols)) {
    if (typeof col === 'string' && !COLUMN.test(col)) throw new Error(`sort column of ${field} is not a plain column: ${col}`);
  }
  return Object.freeze({ ...cols });
}

export interface SortChoice { field: string; column: string | SortExpr; order: 'asc' | 'desc' }

/**
 * The column and direction a list query asks for; 400 naming a field the list does not sort by.
 * `defaultOrder` is the list's order when the query names neither sort nor order.
 */
export function resolveSort(q: { sort?: string; order?: 'asc' | 'desc' }, cols: SortColumns, defaultSort: string, defaultOrder?: 'asc' | 'desc'): SortChoice {
  const field = q.sort ?? defaultSort;
  const column = Object.prototype.hasOwnProperty.call(cols, field) ? cols[field] : undefined;
  if (!column) {
    throw new ValidationError(`Unknown sort field "${field}"`, [`sort: "${field}" is not a field this list sorts by (one of ${Object.keys(cols).join(', ')})`], 'INVALID_SORT');
  }
  const implied = q.sort === undefined && defaultOrder ? defaultOrder : /At$|Date$/.test(field) ? 'desc' : 'asc';
  return { field, column, order: q.order ?? implied };
}

/** `orderByRaw` text for a choice (the column is one of sortColumns', never client text). */
export function orderSql(c: SortChoice): string {
  return `${typeof c.column === 'string' ? quoted(c.column) : c.column.sql} ${c.order === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`;
}

/** A plain column (`alias.column`, checked by sortColumns) quoted, so a column named like a keyword (`right`) works. */
function quoted(column: string): string {
  return column.split('.').map((p) => `"${p}"`).join('.');
}

/**
 * The query parameters of a sortable list (spread into its query schema beside page/size):
 * `sort` documents the fields it takes, `order` and `search`.
 */
export function sortQuery(cols: SortColumns, defaultSort: string, searchAbout = 'text to look for', sortNote?: string) {
  return {
    search: Type.Optional(Type.String({ maxLength: 200, description: searchAbout })),
    sort: Type.Optional(Type.String({ maxLength: 64, description: `A field of the item: ${Object.keys(cols).join(', ')} (default ${defaultSort})${sortNote ? `. ${sortNote}` : ''}`, examples: [defaultSort] })),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'asc or desc (default desc for dates, asc otherwise)' })),
  };
}

/** `%text%` for a case-insensitive LIKE, the client's wildcards escaped. */
export const likeText = (text: string) => `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Narrows `b` to the rows where one of `columns` holds `search` (case-insensitive); no-op without search. */
export function whereSearch(b: Knex.QueryBuilder, search: string | undefined, columns: string[]): Knex.QueryBuilder {
  const s = search?.trim();
  if (!s) return b;
  for (const c of columns) if (!COLUMN.test(c)) throw new Error(`search column is not a plain column: ${c}`);
  return b.where((w) => {
    for (const c of columns) w.orWhereRaw(`${quoted(c)}::text ILIKE ?`, [likeText(s)]);
  });
}

/**
 * One page of a sortable list: how many rows `base` has in all, and this page's rows in the
 * order the query asks (`sort`/`order`, resolveSort), the id last so pages never overlap.
 * A grouped list (no id) names its group key's columns as `id`, and `tieOrder` when its ties
 * always break one way (its order before it took `sort`). `oneScan`: `base` is read once, the
 * count a window over the same rows (for a base that groups many rows).
 */
export async function sortedPage(
  base: Knex.QueryBuilder,
  q: { page: number; size: number; sort?: string; order?: 'asc' | 'desc' },
  cols: SortColumns,
  defaultSort: string,
  id: string | readonly string[] = 'id',
  defaultOrder?: 'asc' | 'desc',
  tieOrder?: 'asc' | 'desc',
  opts: { oneScan?: boolean } = {},
): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  const sort = resolveSort(q, cols, defaultSort, defaultOrder);
  const count = async () => Number((await base.clone().clearSelect().clearOrder().count<{ count: string }[]>('* as count'))[0]!.count);
  const page = base.clone().clearOrder().orderByRaw(orderSql(sort));
  for (const c of typeof id === 'string' ? [id] : id) page.orderBy(c, tieOrder ?? sort.order);
  if (opts.oneScan) {
    // a costly `base` (lines grouped as they are read) read once: the page's rows carry the
    // count of all rows; an empty first page has none, and only a page past the end counts apart
    const rows = (await page.select(base.client.raw('count(*) OVER () AS "__total"')).limit(q.size).offset((q.page - 1) * q.size)) as Record<string, unknown>[];
    const total = rows.length ? Number(rows[0]!.__total) : q.page === 1 ? 0 : await count();
    for (const r of rows) delete r.__total;
    return { rows, total };
  }
  const total = await count();
  const rows = await page.limit(q.size).offset((q.page - 1) * q.size);
  return { rows: rows as Record<string, unknown>[], total };
}

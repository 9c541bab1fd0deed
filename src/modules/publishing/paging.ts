/** One page of a publishing list: the rows of `base` in `order` (id last, for a stable order), and how many there are in all. */
import type { Knex } from 'knex';

export async function pageOf(base: Knex.QueryBuilder, q: { page: number; size: number }, order: [column: string, dir?: 'asc' | 'desc'][], id = 'id') {
  const [{ count }] = await base.clone().clearSelect().count<{ count: string }[]>('* as count');
  const rows = base.clone();
  for (const [column, dir] of order) rows.orderBy(column, dir ?? 'asc');
  return { rows: (await rows.orderBy(id).limit(q.size).offset((q.page - 1) * q.size)) as Record<string, unknown>[], total: Number(count) };
}

/** `%text%` for a case-insensitive LIKE, the caller's wildcards escaped. */
export const likeOf = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

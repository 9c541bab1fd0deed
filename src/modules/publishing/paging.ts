/** One page of a publishing list: sorted as the query asks among the list's fields (http/list-sort), id last. */
import type { Knex } from 'knex';
import { sortedPage, type SortColumns } from '../../http/list-sort';

export async function pageOf(
  base: Knex.QueryBuilder,
  q: { page: number; size: number; sort?: string; order?: 'asc' | 'desc' },
  sort: { cols: SortColumns; default: string; order?: 'asc' | 'desc' },
  id = 'id',
) {
  return sortedPage(base, q, sort.cols, sort.default, id, sort.order);
}

/** `%text%` for a case-insensitive LIKE, the caller's wildcards escaped. */
export const likeOf = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

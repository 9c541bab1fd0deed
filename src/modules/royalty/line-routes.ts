/**
 * The raw statement lines of a file (`GET /file/{id}/lines`) or of an accounting period
 * (`GET /royalty/lines?period=`): paged JSON, or every line as CSV/XLSX (streamed).
 * Admins and owners read the lines as stored; other members the lines that pay them, with
 * their share and earnings.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Pagination, Type, Uuid } from '../../http/schema';
import { ValidationError } from '../../lib/errors';
import type { AppServices } from '../../services';
import { periodSpanOf } from '../settings/periods';
import { assertFileVisible, checkLineSort, LINE_SORT, lineColumns, pageLines, streamLines, type LineSelection } from './lines';
import { sortQuery } from '../../http/list-sort';
import { payeeOf } from './views';

const PeriodLabel = Type.String({ maxLength: 7, pattern: '^\\d{4}-(0[1-9]|1[0-2]|Q[1-4]|H[12])$', description: 'Accounting period: YYYY-MM, YYYY-Qn or YYYY-Hn' });
const Paging = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'JSON only (default 100); csv and xlsx answer every line' })),
};
const Sorting = sortQuery(
  LINE_SORT, 'lineNo', 'Part of the ISRC, UPC, track or release title, artist, label, DSP or country (every selected line is read: slow over millions of lines)',
  "Members' share and earnings are not sort fields. Only lineNo of a file is indexed; any other field, and any sort of a period's lines, sorts every selected line before the page is taken (seconds over millions of lines)",
);
const Cell = Type.Union([Type.String(), Type.Integer(), Type.Null()]);
const LineRow = Type.Object(
  Object.fromEntries(lineColumns('member').map((c) => [c.key, c.key === 'share' || c.key === 'earnings' ? Type.Optional(Cell) : Cell])),
  { description: 'Amounts and quantities are exact decimal strings; `share` (percent) and `earnings` only for members' },
);
const Answer = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(LineRow), pagination: Pagination });
const DESCRIPTION =
  'Admins and owners: every stored line. Other members: the lines that pay them, with their `share` and `earnings`. ' +
  'Amounts are exact decimal strings (trailing zeros trimmed). `format=csv|xlsx` streams every line `search` selects, in the order `sort`/`order` ask (line order by default; docs/exports.md).';

/** The query's sort, order and search, checked before anything is read (400 INVALID_SORT). */
function selection(sel: LineSelection, q: { sort?: string; order?: 'asc' | 'desc'; search?: string }): LineSelection {
  const s = { ...sel, sort: q.sort, order: q.order, search: q.search };
  checkLineSort(s);
  return s;
}

function periodOf(label: string): LineSelection['period'] {
  const span = periodSpanOf(label);
  if (!span) throw new ValidationError('Invalid request', ['query.period must be YYYY-MM, YYYY-Qn or YYYY-Hn']);
  return span;
}

export function registerLineRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Royalty', errorShape: 'status', scope: 'own' }, [
    route({
      method: 'get',
      path: '/file/:id/lines',
      summary: 'The statement lines of a file (JSON pages, or every line as CSV / XLSX)',
      description: DESCRIPTION,
      access: 'user',
      params: Type.Object({ id: Uuid }),
      query: Type.Object({ ...Paging, ...Sorting }),
      responses: { 200: Answer },
      async handler({ trx, auth, params, query }) {
        await assertFileVisible(trx, params.id);
        const sel = selection({ fileId: params.id }, query);
        const r = await pageLines(trx, payeeOf(auth), sel, query.page ?? 1, query.size ?? 100);
        return { success: true, message: 'Statement lines', ...r };
      },
      async export({ trx, auth, params, query }) {
        const sel = selection({ fileId: params.id }, query);
        const f = await assertFileVisible(trx, params.id);
        const payee = payeeOf(auth);
        return { filename: `${f.name}.lines`, columns: lineColumns(payee), rows: streamLines(trx, payee, sel) };
      },
    }),
    route({
      method: 'get',
      path: '/royalty/lines',
      summary: 'The statement lines of an accounting period (processed files; JSON pages, or every line as CSV / XLSX)',
      description: `${DESCRIPTION} A line belongs to the period of its file (the file's accounting period); a quarter or half-year covers the files of every period within it.`,
      access: 'user',
      query: Type.Object({ period: PeriodLabel, ...Paging, ...Sorting }),
      responses: { 200: Answer },
      async handler({ trx, auth, query }) {
        const r = await pageLines(trx, payeeOf(auth), selection({ period: periodOf(query.period) }, query), query.page ?? 1, query.size ?? 100);
        return { success: true, message: 'Statement lines', ...r };
      },
      export({ trx, auth, query }) {
        const payee = payeeOf(auth);
        return { filename: `lines-${query.period}`, columns: lineColumns(payee), rows: streamLines(trx, payee, selection({ period: periodOf(query.period) }, query)) };
      },
    }),
  ]);
}

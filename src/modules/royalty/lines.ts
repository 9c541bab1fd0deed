/**
 * The raw statement lines of a file or of an accounting period, as stored (plus, for a member,
 * their share and earnings of each line they are paid from). Paged for JSON; streamed
 * through a server-side cursor (pg-query-stream) for CSV/XLSX exports, so a file of a
 * million lines is read in constant memory, in line order.
 */
import QueryStream from 'pg-query-stream';
import { rawConnection, type Trx } from '../../db';
import type { ExportColumn } from '../../http/export';
import { NotFoundError } from '../../lib/errors';
import { visibleFileRow } from '../../repositories/files';
import { likeText, orderSql, resolveSort, sortColumns, sortExpr } from '../../http/list-sort';

export interface LineSelection {
  fileId?: string;
  /** Accounting period [start, end) (files' accounting period; processed files only). */
  period?: { start: string; end: string };
  /** `sort`/`order` (LINE_SORT) and `search` (LINE_SEARCH); without sort and order, line order. */
  sort?: string;
  order?: 'asc' | 'desc';
  search?: string;
}

const TEXT = (key: string): ExportColumn => ({ key });
const DEC = (key: string): ExportColumn => ({ key, kind: 'decimal' });
const DATE = (key: string): ExportColumn => ({ key, kind: 'date' });

/** Column key → SQL over `l` (royalty_lines) and `f` (files). */
const LINE_SQL: [ExportColumn, string][] = [
  [TEXT('fileId'), 'l.file_id'],
  [{ key: 'lineNo', kind: 'integer' }, 'l.line_no'],
  [DATE('saleMonth'), `to_char(l.sale_month, 'YYYY-MM')`],
  [DATE('accountingPeriod'), `to_char(coalesce(f.accounting_period, l.accounting_period), 'YYYY-MM-DD')`],
  [TEXT('dsp'), 'l.dsp'],
  [TEXT('country'), 'l.country'],
  [TEXT('saleType'), 'l.sale_type'],
  [TEXT('aggregator'), 'l.aggregator'],
  [TEXT('isrc'), 'l.isrc'],
  [TEXT('upc'), 'l.upc'],
  [TEXT('trackTitle'), 'l.track_title'],
  [TEXT('artist'), 'l.artist'],
  [TEXT('releaseTitle'), 'l.release_title'],
  [TEXT('label'), 'l.label'],
  [DEC('quantity'), 'l.quantity'],
  [DEC('gross'), 'l.gross'],
  [TEXT('grossCurrency'), 'l.gross_currency'],
  [DEC('net'), 'l.net'],
  [TEXT('currency'), 'l.currency'],
  [DEC('exchangeRate'), 'l.exchange_rate'],
  [DEC('baseAmount'), 'l.base_amount'],
  [TEXT('baseCurrency'), 'l.base_currency'],
  [DEC('fxRate'), 'l.fx_rate'],
  [TEXT('matchStatus'), 'l.match_status'],
  [TEXT('assetId'), 'l.asset_id'],
  [TEXT('productId'), 'l.product_id'],
  [TEXT('artistId'), 'l.artist_id'],
];
/**
 * A member's own part of each line: the exact product amount × share, as the analytics routes
 * sum it (docs/engine.md, shares applied at read), so the lines add up to the member's totals.
 */
const EARNINGS_SQL: [ExportColumn, string][] = [
  [DEC('share'), 'e.share'],
  [DEC('earnings'), 'l.base_amount * e.share * 0.01'],
];

/**
 * The fields the lines sort by: every field the line shows but a member's `share` and
 * `earnings` (line order is their natural order). Only `lineNo` of one file is indexed
 * (tenant, file, line); any other sort of a large file, and every sort of a period, sorts
 * the selected lines on the server before the page is taken.
 */
const LINE_FIELD_SORT = Object.fromEntries(LINE_SQL.map(([c, sql]) => [c.key, /^l\.[a-z_]+$/.test(sql) ? sql : null]));
export const LINE_SORT = sortColumns({
  ...(LINE_FIELD_SORT as Record<string, string>),
  saleMonth: 'l.sale_month',
  accountingPeriod: sortExpr('coalesce(f.accounting_period, l.accounting_period)'),
});
/** A period's lines by number: file by file in upload order, each file's lines by number (its default order). */
const PERIOD_LINE_SORT = sortColumns({ ...LINE_SORT, lineNo: sortExpr('(f.created_at, l.file_id, l.line_no)') });
/** The text `search` looks in (case-insensitive, anywhere in the value). */
const LINE_SEARCH = ['l.isrc', 'l.upc', 'l.track_title', 'l.artist', 'l.release_title', 'l.label', 'l.dsp', 'l.country'];

/** 400 INVALID_SORT for a field the lines do not sort by (before anything is streamed). */
export function checkLineSort(sel: LineSelection): void {
  if (sel.sort !== undefined || sel.order !== undefined) resolveSort(sel, sel.fileId ? LINE_SORT : PERIOD_LINE_SORT, 'lineNo');
}

export function lineColumns(payee: string | null): ExportColumn[] {
  return [...LINE_SQL, ...(payee ? EARNINGS_SQL : [])].map(([c]) => c);
}

function linesQuery(payee: string | null, sel: LineSelection): { sql: string; countSql: string; bindings: unknown[] } {
  const cols = [...LINE_SQL, ...(payee ? EARNINGS_SQL : [])]
    .map(([c, sql]) => `${c.kind === 'decimal' ? `trim_scale(${sql})` : sql}${c.kind === 'integer' ? '' : '::text'} AS "${c.key}"`)
    .join(', ');
  const where: string[] = [];
  const bindings: unknown[] = [];
  if (sel.fileId) {
    where.push('l.file_id = ?');
    bindings.push(sel.fileId);
  }
  if (sel.period) {
    where.push(`f.status = 'processed' AND coalesce(f.accounting_period, l.accounting_period) >= ?::date AND coalesce(f.accounting_period, l.accounting_period) < ?::date`);
    bindings.push(sel.period.start, sel.period.end);
  }
  const search = sel.search?.trim();
  if (search) {
    where.push(`(${LINE_SEARCH.map((c) => `${c}::text ILIKE ?`).join(' OR ')})`);
    bindings.push(...LINE_SEARCH.map(() => likeText(search)));
  }
  let from = `royalty_lines l LEFT JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id`;
  if (payee) {
    // RLS keeps the tenant; the member sees the lines that pay them, with their current share.
    from += ` JOIN royalty_earnings e ON e.tenant_id = l.tenant_id AND e.file_id = l.file_id AND e.line_id = l.line_no
               AND e.tenant_user_id = ? AND e.superseded_at IS NULL`;
    bindings.unshift(payee);
  }
  // without sort and order, line order as ever; else the field asked, ties by file and line
  const ties = sel.fileId ? ['l.line_no'] : ['l.file_id', 'l.line_no'];
  const choice = sel.sort === undefined && sel.order === undefined ? null : resolveSort(sel, sel.fileId ? LINE_SORT : PERIOD_LINE_SORT, 'lineNo');
  const order = choice ? [orderSql(choice), ...ties.map((t) => `${t} ${choice.order === 'desc' ? 'DESC' : 'ASC'}`)].join(', ')
    : sel.fileId ? 'l.line_no' : 'f.created_at, l.file_id, l.line_no';
  const rows = `FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return { sql: `SELECT ${cols} ${rows} ORDER BY ${order}`, countSql: `SELECT count(*)::int AS n ${rows}`, bindings };
}

/** `?` placeholders → `$n` (pg-query-stream speaks the wire protocol, not knex). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The file exists in this workspace (RLS), else 404; its original name. */
export async function assertFileVisible(trx: Trx, fileId: string): Promise<{ name: string }> {
  const f = await visibleFileRow(trx, fileId, ['original_name']);
  if (!f) throw new NotFoundError('File');
  return { name: String(f.original_name ?? fileId) };
}

/** One page of lines (JSON answers). */
export async function pageLines(trx: Trx, payee: string | null, sel: LineSelection, page: number, size: number) {
  const q = linesQuery(payee, sel);
  const { rows } = await trx.raw(`${q.sql} LIMIT ${Number(size)} OFFSET ${(Number(page) - 1) * Number(size)}`, q.bindings as never[]);
  const count = await trx.raw(q.countSql, q.bindings as never[]);
  return { data: rows as Record<string, unknown>[], pagination: { page, size, total: Number(count.rows[0]?.n ?? 0) } };
}

/** Every line, through a cursor on the transaction's own connection (batches of 2,000 rows). */
export async function* streamLines(trx: Trx, payee: string | null, sel: LineSelection): AsyncGenerator<Record<string, unknown>> {
  const q = linesQuery(payee, sel);
  const conn = await rawConnection(trx);
  const stream = conn.query(new QueryStream(numbered(q.sql), q.bindings, { batchSize: 2000 }));
  try {
    for await (const row of stream) yield row as Record<string, unknown>;
  } finally {
    stream.destroy();
  }
}

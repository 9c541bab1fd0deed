/**
 * Publisher statements (docs/publishing.md, "Publisher statements"): what a writer or a
 * publisher earned from publishing income in a period, computed when the draft is created
 * (income lines of files whose accounting period falls in the period), one line per work,
 * right and source. Exact sums are rounded where money leaves, with the rule of
 * money/rounding.ts: the statement's rounded income total is round(Σ exact), its lines get
 * the largest-remainder apportionment of it, so they add up to it exactly.
 *
 * States (docs/publishing.md, "Publisher statements"): draft → pending → approved → paid, and back pending → draft,
 * approved → pending; nothing else. Adjustments only in draft and pending.
 */
import { likeText, sortColumns, sortedPage, sortExpr } from '../../http/list-sort';
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { baseCurrency, Decimal } from '../money/common';
import { apportion, minorDigits } from '../money/rounding';
import { allocatePublishing } from './allocate';

export const STATUSES = ['draft', 'pending', 'approved', 'paid'] as const;
export type Status = (typeof STATUSES)[number];
/** The allowed moves, exactly (docs/publishing.md, "Publisher statements"). */
export const MOVES: Record<Status, Status[]> = { draft: ['pending'], pending: ['approved', 'draft'], approved: ['paid', 'pending'], paid: [] };

export interface CreateInput { writer?: string; publisher?: string; periodStart: string; periodEnd: string }

export async function createStatement(trx: Trx, tenantId: number, body: CreateInput, by: string | null) {
  if ((body.writer === undefined) === (body.publisher === undefined)) throw new ValidationError('Give exactly one of writer and publisher', ['writer: or publisher, not both, not neither']);
  if (body.periodEnd < body.periodStart) throw new ValidationError('periodEnd is before periodStart', ['periodEnd: on or after periodStart']);
  const kind = body.writer !== undefined ? 'writer' : 'publisher';
  const payeeId = (body.writer ?? body.publisher)!;
  const payee = await trx(kind === 'writer' ? 'writers' : 'publishers').where({ id: payeeId }).first('id');
  if (!payee) throw new NotFoundError(kind === 'writer' ? 'Writer' : 'Publisher');
  const col = kind === 'writer' ? 'writer_id' : 'publisher_id';
  // One statement at a time per payee, so two overlapping requests cannot both pass the check.
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext(?))`, [`publisher-statement:${payeeId}`]);
  const overlap = await trx('publisher_statements').where(col, payeeId).where('period_start', '<=', body.periodEnd).where('period_end', '>=', body.periodStart).first('id');
  if (overlap) throw new ValidationError(`A statement of this ${kind} already covers part of this period`, [`periodStart: overlaps statement ${overlap.id}`]);

  // Agreements and works may have changed since the files were processed: decide again first.
  await allocatePublishing(trx, tenantId);
  const currency = await baseCurrency(trx);
  const { rows } = await trx.raw(
    `SELECT e.work_id, coalesce(w.title, '(deleted work)') AS work_title, w.iswc, e.right_type, e.source, count(*)::int AS lines, sum(e.amount)::text AS exact
       FROM publishing_earnings e LEFT JOIN works w ON w.tenant_id = e.tenant_id AND w.id = e.work_id
      WHERE e.payee_kind = ? AND e.payee_id = ? AND e.accounting_period >= ? AND e.accounting_period <= ?
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 2, 4, 5, 1`,
    [kind, payeeId, body.periodStart, body.periodEnd],
  );
  const rounded = apportion(rows.map((r: Record<string, string>) => ({ key: `${r.work_id}|${r.right_type}|${r.source}`, exact: r.exact })), minorDigits(currency));
  const exactTotal = rows.reduce((a: Decimal, r: Record<string, string>) => a.plus(r.exact), new Decimal(0));
  const [st] = await trx('publisher_statements').insert({
    tenant_id: tenantId, payee_kind: kind, writer_id: body.writer ?? null, publisher_id: body.publisher ?? null,
    period_start: body.periodStart, period_end: body.periodEnd, status: 'draft', currency, income_total: exactTotal.toFixed(), created_by: by,
  }).returning('id');
  if (rows.length) {
    await trx('publisher_statement_lines').insert(rows.map((r: Record<string, string | number>, i: number) => ({
      tenant_id: tenantId, statement_id: st.id, position: i + 1, work_id: r.work_id, work_title: r.work_title, iswc: r.iswc,
      right_type: r.right_type, source: r.source, lines: r.lines, exact: r.exact, amount: rounded[i]!.toFixed(),
    })));
  }
  return getStatement(trx, st.id);
}

export interface StatementView {
  id: string; status: Status; payee: { kind: string; id: string; name: string }; periodStart: string; periodEnd: string; currency: string;
  incomeExact: string; incomeTotal: string; adjustmentsTotal: string; total: string; createdAt: string; updatedAt: string;
  lines: { position: number; work: { id: string | null; title: string; iswc: string | null }; rightType: string; source: string; lines: number; exact: string; amount: string }[];
  adjustments: { id: string; amount: string; memo: string; createdAt: string }[];
}

const money = (v: Decimal.Value, currency: string) => new Decimal(v).toFixed(minorDigits(currency));
const day = (d: Date | string) => (d instanceof Date ? `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}` : String(d).slice(0, 10));

export async function getStatement(trx: Trx, id: string): Promise<StatementView> {
  const s = await trx('publisher_statements as s')
    .leftJoin('writers as w', function () { this.on('w.tenant_id', 's.tenant_id').andOn('w.id', 's.writer_id'); })
    .leftJoin('publishers as p', function () { this.on('p.tenant_id', 's.tenant_id').andOn('p.id', 's.publisher_id'); })
    .where('s.id', id)
    .first('s.*', trx.raw(`coalesce(p.name, concat_ws(' ', w.first_name, w.last_name)) AS payee_name`));
  if (!s) throw new NotFoundError('Publisher statement');
  const cur = String(s.currency).trim();
  const lines = await trx('publisher_statement_lines').where({ statement_id: id }).orderBy('position');
  const adjs = await trx('publisher_statement_adjustments').where({ statement_id: id }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
  const income = lines.reduce((a, l) => a.plus(l.amount), new Decimal(0));
  const adj = adjs.reduce((a, x) => a.plus(x.amount), new Decimal(0));
  return {
    id: s.id, status: s.status, payee: { kind: s.payee_kind, id: s.writer_id ?? s.publisher_id, name: s.payee_name ?? '' },
    periodStart: day(s.period_start), periodEnd: day(s.period_end), currency: cur,
    incomeExact: new Decimal(s.income_total).toFixed(), incomeTotal: money(income, cur), adjustmentsTotal: money(adj, cur), total: money(income.plus(adj), cur),
    createdAt: new Date(s.created_at).toISOString(), updatedAt: new Date(s.updated_at).toISOString(),
    lines: lines.map((l) => ({ position: l.position, work: { id: l.work_id, title: l.work_title, iswc: l.iswc }, rightType: l.right_type, source: l.source, lines: l.lines, exact: new Decimal(l.exact).toFixed(), amount: money(l.amount, cur) })),
    adjustments: adjs.map((x) => ({ id: x.id, amount: money(x.amount, cur), memo: x.memo, createdAt: new Date(x.created_at).toISOString() })),
  };
}

const ADJUSTMENTS = '(SELECT coalesce(sum(a.amount), 0) FROM publisher_statement_adjustments a WHERE a.statement_id = publisher_statements.id)';
/** The fields the publisher statement list sorts by (the names its items show) and their columns; see http/list-sort. */
export const PUBLISHER_STATEMENT_SORT = sortColumns({
  periodStart: 'period_start', periodEnd: 'period_end', status: 'status', currency: 'currency', incomeTotal: 'income_total', createdAt: 'created_at', updatedAt: 'updated_at',
  incomeExact: 'income_total', adjustmentsTotal: sortExpr(ADJUSTMENTS), total: sortExpr(`(SELECT coalesce(sum(l.amount), 0) FROM publisher_statement_lines l WHERE l.statement_id = publisher_statements.id) + ${ADJUSTMENTS}`),
});

export async function listStatements(trx: Trx, q: { status?: string; writer?: string; publisher?: string; page: number; size: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const base = trx('publisher_statements').modify((b) => {
    if (q.search?.trim()) {
      // the payee's name: the writer's or the publisher's
      const like = likeText(q.search);
      b.where((w) => w
        .whereExists(trx('writers as x').whereRaw('x.id = publisher_statements.writer_id').whereRaw("(coalesce(x.first_name, '') || ' ' || x.last_name) ILIKE ?", [like]))
        .orWhereExists(trx('publishers as x').whereRaw('x.id = publisher_statements.publisher_id').whereILike('x.name', like)));
    }
    if (q.status) b.where('status', q.status);
    if (q.writer) b.where('writer_id', q.writer);
    if (q.publisher) b.where('publisher_id', q.publisher);
  });
  const page = await sortedPage(base.select('id'), q, PUBLISHER_STATEMENT_SORT, 'periodStart');
  const n = page.total;
  const ids = page.rows.map((r) => r.id as string);
  const rows = [];
  for (const id of ids) {
    const { lines: _l, adjustments: _a, ...head } = await getStatement(trx, id);
    rows.push(head);
  }
  return { rows, total: Number(n) };
}

export async function setStatus(trx: Trx, id: string, status: Status): Promise<StatementView> {
  const s = await trx('publisher_statements').where({ id }).forUpdate().first('status');
  if (!s) throw new NotFoundError('Publisher statement');
  const from = s.status as Status;
  if (!MOVES[from].includes(status))
    throw new ValidationError(`A ${from} statement cannot move to ${status}`, [`status: from ${from} only ${MOVES[from].join(' or ') || 'no move'} is allowed`]);
  const now = clock.now();
  await trx('publisher_statements').where({ id }).update({ status, status_changed_at: now, updated_at: now });
  return getStatement(trx, id);
}

export async function addAdjustment(trx: Trx, tenantId: number, id: string, body: { amount: string | number; memo: string }, by: string | null): Promise<StatementView> {
  const s = await trx('publisher_statements').where({ id }).forUpdate().first('status', 'currency');
  if (!s) throw new NotFoundError('Publisher statement');
  if (s.status !== 'draft' && s.status !== 'pending')
    throw new ValidationError(`Adjustments are locked once a statement is ${s.status}`, [`status: ${s.status}; adjustments only in draft or pending`]);
  const amount = new Decimal(String(body.amount));
  const digits = minorDigits(String(s.currency).trim());
  if (amount.decimalPlaces() > digits) throw new ValidationError(`amount has more decimals than ${String(s.currency).trim()} (${digits})`, [`amount: at most ${digits} decimals`]);
  if (amount.isZero()) throw new ValidationError('amount must not be 0', ['amount: not 0']);
  if (!body.memo.trim()) throw new ValidationError('memo is required', ['memo: not empty']);
  await trx('publisher_statement_adjustments').insert({ tenant_id: tenantId, statement_id: id, amount: amount.toFixed(), memo: body.memo.trim(), created_by: by });
  await trx('publisher_statements').where({ id }).update({ updated_at: clock.now() });
  return getStatement(trx, id);
}

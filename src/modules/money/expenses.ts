/**
 * Expenses. Non-recoupable ones are only recorded; recoupable ones are taken from their
 * payee's earnings (see RECOUPMENT in ledger.ts) before anything is due.
 */
import { orderSql, resolveSort } from '../../http/list-sort';
import { EXPENSE_SORT } from './sorts';
import type { Trx } from '../../db';
import type { CrudService } from '../../http/crud';
import type { AuthContext } from '../auth/tokens';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { amountView, assertCurrency, baseCurrency, dateOnly, dec, existingMembers, iso, isAdmin, money, toBase, type Decimal } from './common';
import { existingTargets, type TargetType } from './targets';
import { reconcileRecoupment } from './ledger';
import { changesOf, emitEvent, emitEvents } from '../webhooks/events';
import { minorDigits, roundMinor } from './rounding';

export interface ExpenseInput {
  user: string;
  title: string;
  description?: string | null;
  category?: string | null;
  amount: number | string;
  currency: string;
  conversionRate?: number | string;
  date?: string;
  recoupable?: boolean;
  targetType?: TargetType | null;
  targetId?: string | null;
}

const COLS = `x.*, (SELECT coalesce(-sum(l.amount), 0)::text FROM ledger_entries l WHERE l.source_type = 'expense' AND l.source_id = x.id) AS recouped`;

export function toExpenseView(r: Record<string, unknown>, base: string) {
  const recouped = dec((r.recouped as string) ?? '0');
  // what is left to recoup: the expense as the ledger recoups it (its base amount in minor units) − what was recouped
  const toRecoup = roundMinor(r.base_amount as string, minorDigits(base));
  return {
    id: r.id,
    user: r.tenant_user_id,
    title: r.title,
    description: r.description ?? null,
    category: r.category ?? null,
    ...amountView(r, base),
    date: dateOnly(r.expense_date),
    recoupable: r.recoupable,
    targetType: r.target_type ?? null,
    targetId: r.target_id ?? null,
    recouped: money(recouped),
    unrecouped: r.recoupable ? money(toRecoup.minus(recouped)) : '0',
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** Validate one expense; returns the row to write or the reasons it cannot be. */
async function prepare(trx: Trx, input: ExpenseInput, base: string, where: string): Promise<{ row: Record<string, unknown> } | { errors: string[] }> {
  const errors: string[] = [];
  if (!(await existingMembers(trx, [input.user])).has(input.user)) errors.push(`${where}: user ${input.user} is not a member of this workspace`);
  let currency = '';
  try {
    currency = assertCurrency(input.currency, `${where}.currency`);
  } catch (e) {
    errors.push(...((e as ValidationError).details ?? []));
  }
  let amount: Decimal | null = null;
  let rate: Decimal | null = null;
  try {
    amount = dec(input.amount);
    rate = dec(input.conversionRate ?? 1);
    if (amount.lte(0)) errors.push(`${where}.amount must be greater than 0`);
    if (rate.lte(0)) errors.push(`${where}.conversionRate must be greater than 0`);
    if (currency && currency === base && !rate.eq(1)) errors.push(`${where}.conversionRate must be 1 when currency is the base currency ${base}`);
  } catch {
    errors.push(`${where}.amount is not a number`);
  }
  const targetType = input.targetType ?? null;
  const targetId = input.targetId ?? null;
  if ((targetType === null) !== (targetId === null)) errors.push(`${where}: targetType and targetId go together`);
  if (targetType && targetId && !(await existingTargets(trx, targetType, [targetId])).has(targetId)) {
    errors.push(`${where}: ${targetType} ${targetId} not found`);
  }
  if (targetType && input.recoupable === false) errors.push(`${where}: a target only makes sense for a recoupable expense`);
  if (errors.length) return { errors };
  return {
    row: {
      tenant_user_id: input.user,
      title: input.title,
      description: input.description ?? null,
      category: input.category ?? null,
      amount: amount!.toFixed(),
      currency,
      conversion_rate: rate!.toFixed(),
      base_amount: toBase(amount!, rate!).toFixed(),
      expense_date: input.date ?? dateOnly(clock.now().toISOString()),
      recoupable: input.recoupable ?? !!targetType,
      target_type: targetType,
      target_id: targetId,
    },
  };
}

/** The data of `expense.created`. */
function expenseCreated(expenseId: string, row: Record<string, unknown>) {
  return { expenseId, userId: row.tenant_user_id, title: row.title, category: row.category ?? null, amount: row.amount, currency: row.currency, baseAmount: row.base_amount, date: row.expense_date, recoupable: !!row.recoupable };
}

export async function createExpense(trx: Trx, auth: AuthContext, input: ExpenseInput) {
  const base = await baseCurrency(trx);
  const p = await prepare(trx, input, base, 'body');
  if ('errors' in p) throw new ValidationError('Invalid expense', p.errors);
  const [row] = await trx('expenses').insert({ ...p.row, tenant_id: trx.raw('app_tenant_id()'), created_by: auth.tenantUserId, created_at: clock.now(), updated_at: clock.now() }).returning('id');
  await emitEvent(trx, null, 'expense.created', expenseCreated(row.id, p.row));
  if (p.row.recoupable) await reconcileRecoupment(trx, [input.user]);
  return getExpense(trx, auth, row.id);
}

export async function bulkCreateExpenses(trx: Trx, auth: AuthContext, items: { i: number; item: ExpenseInput }[]) {
  const base = await baseCurrency(trx);
  const created: string[] = [];
  const errors: string[] = [];
  const payees = new Set<string>();
  for (const { i, item } of items) {
    const p = await prepare(trx, item, base, `expenses[${i}]`);
    if ('errors' in p) {
      errors.push(...p.errors);
      continue;
    }
    const [row] = await trx('expenses').insert({ ...p.row, tenant_id: trx.raw('app_tenant_id()'), created_by: auth.tenantUserId, created_at: clock.now(), updated_at: clock.now() }).returning('id');
    created.push(row.id);
    await emitEvent(trx, null, 'expense.created', expenseCreated(row.id, p.row));
    if (p.row.recoupable) payees.add(item.user);
  }
  if (payees.size) await reconcileRecoupment(trx, [...payees]);
  return { message: `${created.length} expense(s) created, ${errors.length} error(s)`, createdExpenses: created, errors };
}

export async function getExpense(trx: Trx, auth: AuthContext, id: string) {
  const q = trx('expenses as x').where('x.id', id).first(trx.raw(COLS));
  if (!isAdmin(auth)) q.andWhere('x.tenant_user_id', auth.tenantUserId);
  const r = await q;
  if (!r) throw new NotFoundError('Expense');
  return toExpenseView(r, await baseCurrency(trx));
}

export async function listExpenses(
  trx: Trx,
  auth: AuthContext,
  o: { page: number; size: number; search?: string; user?: string; recoupable?: boolean; sort?: string; order?: 'asc' | 'desc' },
) {
  const q = trx('expenses as x');
  if (!isAdmin(auth)) q.where('x.tenant_user_id', auth.tenantUserId);
  else if (o.user) q.where('x.tenant_user_id', o.user);
  if (o.recoupable !== undefined) q.where('x.recoupable', o.recoupable);
  if (o.search) q.whereILike('x.title', `%${o.search.replace(/[%_\\]/g, '\\$&')}%`);
  const [{ n }] = await q.clone().count({ n: '*' });
  const sort = resolveSort(o, EXPENSE_SORT, 'createdAt');
  const rows = await q.select(trx.raw(COLS)).orderByRaw(orderSql(sort)).orderBy('x.id', sort.order).limit(o.size).offset((o.page - 1) * o.size);
  const base = await baseCurrency(trx);
  return { data: rows.map((r) => toExpenseView(r, base)), total: Number(n) };
}

export async function updateExpense(trx: Trx, auth: AuthContext, id: string, patch: Partial<ExpenseInput>) {
  const cur = await trx('expenses').where({ id }).forUpdate().first();
  if (!cur) throw new NotFoundError('Expense');
  const before = await getExpense(trx, auth, id);
  const merged: ExpenseInput = {
    user: patch.user ?? cur.tenant_user_id,
    title: patch.title ?? cur.title,
    description: patch.description !== undefined ? patch.description : cur.description,
    category: patch.category !== undefined ? patch.category : cur.category,
    amount: patch.amount ?? cur.amount,
    currency: patch.currency ?? String(cur.currency).trim(),
    conversionRate: patch.conversionRate ?? (patch.currency ? undefined : cur.conversion_rate),
    date: patch.date ?? dateOnly(cur.expense_date)!,
    recoupable: patch.recoupable ?? cur.recoupable,
    targetType: patch.targetType !== undefined ? patch.targetType : cur.target_type,
    targetId: patch.targetId !== undefined ? patch.targetId : cur.target_id,
  };
  if (patch.recoupable === false && patch.targetType === undefined) (merged.targetType = null), (merged.targetId = null);
  const p = await prepare(trx, merged, await baseCurrency(trx), 'body');
  if ('errors' in p) throw new ValidationError('Invalid expense', p.errors);
  await trx('expenses').where({ id }).update({ ...p.row, updated_at: clock.now() });
  await reconcileRecoupment(trx, [...new Set([cur.tenant_user_id as string, merged.user])]);
  const after = await getExpense(trx, auth, id);
  await emitEvent(trx, null, 'expense.updated', { expenseId: id, title: after.title, ...changesOf(before, after) });
  return after;
}

export async function bulkDeleteExpenses(trx: Trx, ids: string[]) {
  const rows = await trx('expenses').whereIn('id', ids).select('id', 'tenant_user_id', 'recoupable');
  const found = new Set(rows.map((r) => r.id as string));
  if (rows.length) await trx('expenses').whereIn('id', [...found]).delete();
  await emitEvents(trx, null, 'expense.deleted', rows.map((r) => ({ expenseId: r.id, userId: r.tenant_user_id })));
  const payees = [...new Set(rows.filter((r) => r.recoupable).map((r) => r.tenant_user_id as string))];
  if (payees.length) await reconcileRecoupment(trx, payees);
  const failedDeletions = ids.filter((id) => !found.has(id)).map((id) => ({ id, error: 'Expense not found' }));
  return { message: `${found.size} expense(s) deleted`, processedCount: found.size, failedDeletions };
}

/**
 * Figures for display, in minor units: each expense's base amount rounded once (half away
 * from zero, as recoupment takes it), then summed, so the parts add up to the totals.
 */
export async function expenseSummary(trx: Trx, payee: string | null) {
  const currency = await baseCurrency(trx);
  const d = minorDigits(currency);
  const r = await trx.raw(
    `SELECT count(*)::int AS count, coalesce(sum(round(base_amount, ${d})), 0)::text AS total,
            count(*) FILTER (WHERE recoupable)::int AS recoupable_count,
            coalesce(sum(round(base_amount, ${d})) FILTER (WHERE recoupable), 0)::text AS recoupable_total
     FROM expenses ${payee ? 'WHERE tenant_user_id = ?' : ''}`,
    payee ? [payee] : [],
  );
  const l = await trx.raw(`SELECT coalesce(-sum(amount), 0)::text AS recouped FROM ledger_entries WHERE kind = 'expense_recoup' ${payee ? 'AND tenant_user_id = ?' : ''}`, payee ? [payee] : []);
  const byTarget = await trx.raw(
    `SELECT coalesce(target_type, 'none') AS target_type, count(*)::int AS count, coalesce(sum(round(base_amount, ${d})), 0)::text AS total
     FROM expenses ${payee ? 'WHERE tenant_user_id = ?' : ''} GROUP BY 1 ORDER BY 1`,
    payee ? [payee] : [],
  );
  const s = r.rows[0];
  const recouped = dec(l.rows[0].recouped);
  return {
    currency,
    totalExpenses: s.count,
    totalAmount: money(s.total),
    recoupableExpenses: s.recoupable_count,
    recoupableAmount: money(s.recoupable_total),
    recouped: money(recouped),
    unrecouped: money(dec(s.recoupable_total).minus(recouped)),
    byTargetType: byTarget.rows.map((b: Record<string, unknown>) => ({ targetType: b.target_type, count: b.count, amount: money(b.total as string) })),
  };
}

/** The expense area as the route factory calls it (no DELETE /expense/{id} in the spec). */
export const expenseCrud: CrudService<Parameters<typeof listExpenses>[2], ExpenseInput, Partial<ExpenseInput>> = {
  list: listExpenses,
  get: getExpense,
  create: createExpense,
  update: updateExpense,
  bulkRemove: (trx, _auth, ids) => bulkDeleteExpenses(trx, ids),
  summary: expenseSummary,
  bulkCreate: bulkCreateExpenses,
};

/**
 * Revenues: income that does not come from statements (sync fees, grants, live…), split
 * between members like royalties. Shares must sum to exactly 100. Each member's amount is
 * base_amount × share / 100 apportioned to the minor unit (largest remainder, rounding.ts), so
 * the shares sum exactly to the revenue's rounded base amount. Posted to the ledger as revenue_share entries in the revenue's accounting period.
 */
import { orderSql, resolveSort } from '../../http/list-sort';
import { REVENUE_SORT } from './sorts';
import type { Trx } from '../../db';
import type { CrudService } from '../../http/crud';
import type { AuthContext } from '../auth/tokens';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { apportion, minorDigits } from './rounding';
import { amountView, assertCurrency, baseCurrency, dateOnly, dec, Decimal, existingMembers, iso, isAdmin, money, periodBounds, SCALE, toBase, oneDeleted } from './common';
import { reconcileRecoupment, reconcileRevenues } from './ledger';
import { changesOf, emitEvent, emitEvents } from '../webhooks/events';

export interface RevenueInput {
  title: string;
  description?: string | null;
  source?: string | null;
  amount: number | string;
  currency: string;
  conversionRate?: number | string;
  date?: string;
  accountingPeriod?: string;
  splits: { user: string; share: number | string }[];
}

/**
 * Split `base` by `shares` (percent, summing to 100) in the base currency's minor unit:
 * largest-remainder apportionment (rounding.ts), ties in the order the splits are listed,
 * so the shares add up exactly to the revenue's rounded base amount.
 */
export function splitAmount(base: Decimal, shares: Decimal[], digits: number): Decimal[] {
  return apportion(shares.map((s, i) => ({ key: String(i).padStart(6, '0'), exact: base.mul(s).div(100) })), digits);
}

async function prepare(trx: Trx, input: RevenueInput, base: string, where: string) {
  const errors: string[] = [];
  let currency = '';
  try {
    currency = assertCurrency(input.currency, `${where}.currency`);
  } catch (e) {
    errors.push(...(e as ValidationError).details);
  }
  const amount = dec(input.amount);
  const rate = dec(input.conversionRate ?? 1);
  if (amount.lte(0)) errors.push(`${where}.amount must be greater than 0`);
  if (rate.lte(0)) errors.push(`${where}.conversionRate must be greater than 0`);
  if (currency && currency === base && !rate.eq(1)) errors.push(`${where}.conversionRate must be 1 when currency is the base currency ${base}`);
  const users = input.splits.map((s) => s.user);
  if (new Set(users).size !== users.length) errors.push(`${where}.splits names a user twice`);
  const members = await existingMembers(trx, users);
  for (const u of users) if (!members.has(u)) errors.push(`${where}.splits: user ${u} is not a member of this workspace`);
  const shares = input.splits.map((s) => dec(s.share));
  if (shares.some((s) => s.lte(0) || s.gt(100) || s.decimalPlaces() > 6)) errors.push(`${where}.splits: each share is > 0, ≤ 100, at most 6 decimals`);
  const sum = shares.reduce((a, b) => a.plus(b), new Decimal(0));
  if (!sum.eq(100)) errors.push(`${where}.splits: shares must sum to exactly 100 (got ${sum.toFixed()})`);
  if (errors.length) return { errors };
  const baseAmount = toBase(amount, rate);
  const parts = splitAmount(baseAmount, shares, minorDigits(base));
  const date = input.date ?? dateOnly(clock.now().toISOString())!;
  return {
    row: {
      title: input.title,
      description: input.description ?? null,
      source: input.source ?? null,
      amount: amount.toFixed(),
      currency,
      conversion_rate: rate.toFixed(),
      base_amount: baseAmount.toFixed(),
      revenue_date: date,
      accounting_period: input.accountingPeriod ? periodBounds(input.accountingPeriod).start : `${date.slice(0, 7)}-01`,
    },
    shares: input.splits.map((s, i) => ({ tenant_user_id: s.user, share: shares[i]!.toFixed(), amount: parts[i]!.toFixed() })),
  };
}

async function view(trx: Trx, auth: AuthContext, rows: Record<string, unknown>[]) {
  if (!rows.length) return [];
  const base = await baseCurrency(trx);
  const shares = await trx('revenue_shares').whereIn('revenue_id', rows.map((r) => r.id as string)).orderBy([{ column: 'share', order: 'desc' }, 'tenant_user_id']);
  const mine = !isAdmin(auth);
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    description: r.description ?? null,
    source: r.source ?? null,
    ...amountView(r, base),
    date: dateOnly(r.revenue_date),
    accountingPeriod: dateOnly(r.accounting_period)!.slice(0, 7),
    // Members see their own share only.
    splits: shares
      .filter((s) => s.revenue_id === r.id && (!mine || s.tenant_user_id === auth.tenantUserId))
      .map((s) => ({ user: s.tenant_user_id, share: money(s.share), amount: money(s.amount) })),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

async function write(trx: Trx, auth: AuthContext, p: { row: Record<string, unknown>; shares: Record<string, unknown>[] }, id?: string): Promise<string> {
  let revId = id;
  if (revId) {
    await trx('revenues').where({ id: revId }).update({ ...p.row, updated_at: clock.now() });
    await trx('revenue_shares').where({ revenue_id: revId }).delete();
  } else {
    const [r] = await trx('revenues').insert({ ...p.row, tenant_id: trx.raw('app_tenant_id()'), created_by: auth.tenantUserId, created_at: clock.now(), updated_at: clock.now() }).returning('id');
    revId = r.id as string;
  }
  await trx('revenue_shares').insert(p.shares.map((s) => ({ ...s, tenant_id: trx.raw('app_tenant_id()'), revenue_id: revId })));
  if (!id) await emitEvent(trx, null, 'revenue.created', { revenueId: revId, title: p.row.title, amount: p.row.amount, currency: p.row.currency, baseAmount: p.row.base_amount, date: p.row.revenue_date, users: p.shares.map((s) => s.tenant_user_id) });
  return revId!;
}

/** Revenue shares feed untargeted recoupment: re-derive it for the members concerned. */
async function afterChange(trx: Trx, revenueIds: string[], payees: string[]) {
  await reconcileRevenues(trx, revenueIds);
  const withExpenses = await trx('expenses').where('recoupable', true).whereIn('tenant_user_id', payees).distinct('tenant_user_id');
  if (withExpenses.length) await reconcileRecoupment(trx, withExpenses.map((r) => r.tenant_user_id as string));
}

export async function createRevenue(trx: Trx, auth: AuthContext, input: RevenueInput) {
  const p = await prepare(trx, input, await baseCurrency(trx), 'body');
  if ('errors' in p) throw new ValidationError('Invalid revenue', p.errors);
  const id = await write(trx, auth, p);
  await afterChange(trx, [id], input.splits.map((s) => s.user));
  return getRevenue(trx, auth, id);
}

export async function bulkCreateRevenues(trx: Trx, auth: AuthContext, items: { i: number; item: RevenueInput }[]) {
  const base = await baseCurrency(trx);
  const created: string[] = [];
  const errors: string[] = [];
  const payees = new Set<string>();
  for (const { i, item } of items) {
    const p = await prepare(trx, item, base, `revenues[${i}]`);
    if ('errors' in p) {
      errors.push(...p.errors!);
      continue;
    }
    created.push(await write(trx, auth, p));
    item.splits.forEach((s) => payees.add(s.user));
  }
  if (created.length) await afterChange(trx, created, [...payees]);
  return { message: `${created.length} revenue(s) created, ${errors.length} error(s)`, createdRevenues: created, errors };
}

export async function getRevenue(trx: Trx, auth: AuthContext, id: string) {
  const q = trx('revenues as r').where('r.id', id).select('r.*');
  if (!isAdmin(auth)) q.whereExists(trx('revenue_shares as s').whereRaw('s.revenue_id = r.id').where('s.tenant_user_id', auth.tenantUserId));
  const [v] = await view(trx, auth, await q);
  if (!v) throw new NotFoundError('Revenue');
  return v;
}

export async function listRevenues(trx: Trx, auth: AuthContext, o: { page: number; size: number; search?: string; user?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const q = trx('revenues as r');
  const who = isAdmin(auth) ? o.user : auth.tenantUserId;
  if (who) q.whereExists(trx('revenue_shares as s').whereRaw('s.revenue_id = r.id').where('s.tenant_user_id', who));
  if (o.search) q.whereILike('r.title', `%${o.search.replace(/[%_\\]/g, '\\$&')}%`);
  const [{ n }] = await q.clone().count({ n: '*' });
  const sort = resolveSort(o, REVENUE_SORT, 'createdAt');
  const rows = await q.select('r.*').orderByRaw(orderSql(sort)).orderBy('r.id', sort.order).limit(o.size).offset((o.page - 1) * o.size);
  return { data: await view(trx, auth, rows), total: Number(n) };
}

export async function updateRevenue(trx: Trx, auth: AuthContext, id: string, patch: Partial<RevenueInput>) {
  const cur = await trx('revenues').where({ id }).forUpdate().first();
  if (!cur) throw new NotFoundError('Revenue');
  const oldShares = await trx('revenue_shares').where({ revenue_id: id });
  const before = await getRevenue(trx, auth, id);
  const merged: RevenueInput = {
    title: patch.title ?? cur.title,
    description: patch.description !== undefined ? patch.description : cur.description,
    source: patch.source !== undefined ? patch.source : cur.source,
    amount: patch.amount ?? cur.amount,
    currency: patch.currency ?? String(cur.currency).trim(),
    conversionRate: patch.conversionRate ?? (patch.currency ? undefined : cur.conversion_rate),
    date: patch.date ?? dateOnly(cur.revenue_date)!,
    accountingPeriod: patch.accountingPeriod ?? (patch.date ? undefined : dateOnly(cur.accounting_period)!.slice(0, 7)),
    splits: patch.splits ?? oldShares.map((s) => ({ user: s.tenant_user_id, share: s.share })),
  };
  const p = await prepare(trx, merged, await baseCurrency(trx), 'body');
  if ('errors' in p) throw new ValidationError('Invalid revenue', p.errors);
  await write(trx, auth, p, id);
  await afterChange(trx, [id], [...new Set([...oldShares.map((s) => s.tenant_user_id as string), ...merged.splits.map((s) => s.user)])]);
  const after = await getRevenue(trx, auth, id);
  await emitEvent(trx, null, 'revenue.updated', { revenueId: id, title: after.title, ...changesOf(before, after) });
  return after;
}

export async function deleteRevenues(trx: Trx, ids: string[]) {
  const shares = await trx('revenue_shares').whereIn('revenue_id', ids).select('tenant_user_id');
  const found = (await trx('revenues').whereIn('id', ids).delete().returning('id')).map((r) => r.id as string);
  if (found.length) await afterChange(trx, found, [...new Set(shares.map((s) => s.tenant_user_id as string))]);
  await emitEvents(trx, null, 'revenue.deleted', found.map((revenueId) => ({ revenueId })));
  const set = new Set(found);
  return { message: `${found.length} revenue(s) deleted`, processedCount: found.length, failedDeletions: ids.filter((i) => !set.has(i)).map((id) => ({ id, error: 'Revenue not found' })) };
}

export async function revenueSummary(trx: Trx, payee: string | null) {
  const base = await baseCurrency(trx);
  if (payee) {
    const r = await trx.raw(
      `SELECT count(*)::int AS count, coalesce(sum(s.amount), 0)::text AS total FROM revenue_shares s WHERE s.tenant_user_id = ?`,
      [payee],
    );
    return { currency: base, totalRevenues: r.rows[0].count, totalAmount: money(r.rows[0].total), yourShare: money(r.rows[0].total) };
  }
  // each revenue's base amount in minor units (what its splits add up to), then summed
  const d = minorDigits(base);
  const r = await trx.raw(`SELECT count(*)::int AS count, coalesce(sum(round(base_amount, ${d})), 0)::text AS total FROM revenues`);
  const bySource = await trx.raw(`SELECT coalesce(source, 'unspecified') AS source, count(*)::int AS count, sum(round(base_amount, ${d}))::text AS total FROM revenues GROUP BY 1 ORDER BY 1`);
  const byUser = await trx.raw(`SELECT tenant_user_id, sum(amount)::text AS total FROM revenue_shares GROUP BY 1 ORDER BY sum(amount) DESC LIMIT 50`);
  return {
    currency: base,
    totalRevenues: r.rows[0].count,
    totalAmount: money(r.rows[0].total),
    bySource: bySource.rows.map((b: Record<string, unknown>) => ({ source: b.source, count: b.count, amount: money(b.total as string) })),
    byUser: byUser.rows.map((b: Record<string, unknown>) => ({ user: b.tenant_user_id, amount: money(b.total as string) })),
  };
}

/** Delete one revenue; 404 when it is absent (or another workspace's). */
export async function deleteRevenue(trx: Trx, _auth: AuthContext, id: string): Promise<void> {
  oneDeleted(await deleteRevenues(trx, [id]), 'Revenue');
}

/** The revenue area as the route factory calls it. */
export const revenueCrud: CrudService<Parameters<typeof listRevenues>[2], RevenueInput, Partial<RevenueInput>> = {
  list: listRevenues,
  get: getRevenue,
  create: createRevenue,
  update: updateRevenue,
  remove: deleteRevenue,
  bulkRemove: (trx, _auth, ids) => deleteRevenues(trx, ids),
  summary: revenueSummary,
  bulkCreate: bulkCreateRevenues,
};

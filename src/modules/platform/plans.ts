/**
 * Plans and subscriptions. Plans are data (the `plans` table, seeded by migration); a
 * tenant has one plan, a subscription state and a calendar-month usage period.
 */
import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import type { Trx } from '../../db';
import { billingEnabled, effectivePlanSql, UNLIMITED_PLAN } from '../../domain/features';
import { membersUsed, planLimit, storageUsed } from '../../domain/quota';
import { emitEvent } from '../webhooks/events';
import { linesIngestedSince } from '../../repositories/files';

export interface PlanLimits {
  statementLinesPerMonth: number | null;
  members: number | null;
  storageBytes: number | null;
}
export interface Plan {
  code: string;
  name: string;
  features: string[];
  limits: PlanLimits;
}
export const SUBSCRIPTION_STATES = ['trialing', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

function toPlan(r: Record<string, any>): Plan {
  return { code: r.code, name: r.name, features: r.features, limits: { statementLinesPerMonth: null, members: null, storageBytes: null, ...r.limits } };
}

export async function listPlans(db: Knex): Promise<Plan[]> {
  return (await db('plans').orderBy('sort').select('code', 'name', 'features', 'limits')).map(toPlan);
}

/** The usage period: the current calendar month (UTC). */
export function currentPeriod(now = clock.now()): { start: string; end: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
  return { start: start.toISOString().slice(0, 10), end: end.toISOString().slice(0, 10) };
}

/** Statement lines ingested this period (files of other periods and this file itself left out). */
async function linesThisPeriod(trx: Knex, tenantId: number, exceptFileId?: string): Promise<number> {
  const { start } = currentPeriod();
  return linesIngestedSince(trx, tenantId, start, exceptFileId);
}

/** The tenant's subscription: plan, state, period, and usage against each limit. Works on a tenant trx or the owner pool. */
export async function subscriptionOf(db: Knex, tenantId: number) {
  const t = await db('tenants as t').join('plans as p', 'p.code', db.raw(effectivePlanSql())).where('t.id', tenantId)
    .first('t.plan', 't.subscription_state', 't.subscription_since', 'p.code', 'p.name', 'p.features', 'p.limits');
  if (!t) throw new NotFoundError('Workspace', 'WORKSPACE_NOT_FOUND');
  const plan = toPlan(t);
  const usage = { statementLinesPerMonth: await linesThisPeriod(db, tenantId), members: await membersUsed(db, tenantId), storageBytes: await storageUsed(db, tenantId) };
  return {
    plan: t.plan as string,
    effectivePlan: plan.code,
    billing: billingEnabled(),
    state: t.subscription_state as SubscriptionState,
    since: new Date(t.subscription_since).toISOString(),
    period: currentPeriod(),
    features: plan.features,
    limits: plan.limits,
    usage,
  };
}

/**
 * The ingest step's quota check, inside the file's transaction before its lines commit:
 * a message when the file would take the workspace past its monthly line limit (the file
 * then fails with it; nothing is lost: the stored file can be reprocessed later), else null.
 */
export async function lineQuotaProblem(trx: Trx, tenantId: number, lines: number, fileId?: string): Promise<string | null> {
  const { plan, allowed: limit } = await planLimit(trx, tenantId, 'statementLinesPerMonth');
  if (limit === null) return null;
  const used = await linesThisPeriod(trx, tenantId, fileId);
  if (used + lines <= limit) return null;
  return `Plan limit reached: the ${plan} plan allows ${limit} statement lines per month; ${used} are used this month and this file has ${lines}. Upgrade the plan, or reprocess the file next month: it is kept.`;
}

/** Throws the file-failing error when lines would pass the monthly limit. */
export async function checkLineQuota(trx: Trx, tenantId: number, lines: number, fileId?: string): Promise<void> {
  const problem = await lineQuotaProblem(trx, tenantId, lines, fileId);
  if (problem) throw new ValidationError(problem, [], 'PLAN_LIMIT_REACHED');
}

/** The features a plan and state give (a canceled subscription: the free plan's; billing off: the unlimited plan's). */
async function effectiveFeatures(trx: Knex, t: { plan: string; subscription_state: string }): Promise<string[]> {
  const code = !billingEnabled() ? UNLIMITED_PLAN : t.subscription_state === 'canceled' ? 'free' : t.plan;
  const row = await trx('plans').where({ code }).first('features');
  return [...(row?.features ?? [])].sort();
}

/** A super-admin sets a tenant's plan and state (owner pool, inside the caller's transaction). Emits `billing.subscription.updated` (docs/webhooks.md) in the same transaction. */
export async function setSubscription(trx: Knex, tenantId: number, patch: { plan?: string; state?: SubscriptionState }) {
  const before = await trx('tenants').where({ id: tenantId }).forUpdate().first('plan', 'subscription_state');
  if (!before) throw new NotFoundError('Workspace', 'WORKSPACE_NOT_FOUND');
  if (patch.plan && !(await trx('plans').where({ code: patch.plan }).first('code'))) {
    throw new ValidationError('Unknown plan', [`body.plan must be one of: ${(await listPlans(trx)).map((p) => p.code).join(', ')}`]);
  }
  const next = { plan: patch.plan ?? before.plan, subscription_state: patch.state ?? before.subscription_state };
  const changed = next.plan !== before.plan || next.subscription_state !== before.subscription_state;
  if (changed) {
    await trx('tenants').where({ id: tenantId }).update({ ...next, subscription_since: clock.now(), updated_at: clock.now() });
    await emitEvent(trx, tenantId, 'billing.subscription.updated', {
      plan: next.plan,
      state: next.subscription_state,
      previous: { plan: before.plan, state: before.subscription_state },
      features: await effectiveFeatures(trx, next),
    });
  }
  return { before: { plan: before.plan, state: before.subscription_state }, after: { plan: next.plan, state: next.subscription_state }, changed };
}

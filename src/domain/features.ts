/**
 * Plan features: the one typed list of what a plan can switch on. A route declares the
 * feature it needs (`feature: 'webhooks'` on its RouteDef); defineRoutes checks it after
 * the role check and the OpenAPI document shows it (`x-feature`, and the 403).
 */
import type { Knex } from 'knex';
import { AppError } from '../lib/errors';

export const FEATURES = {
  webhooks: 'Outbound webhooks',
  fxpartner: 'Foreign-exchange payout partner',
  publishing: 'Publishing',
  custom_domains: 'Custom domains',
  email_domains: 'E-mail domains (own sender domain with DKIM)',
  branding: 'Workspace branding (logo, colours, sender name)',
} as const;

export type FeatureName = keyof typeof FEATURES;
export const FEATURE_NAMES = Object.keys(FEATURES) as FeatureName[];

/** For a route definition: `...requiresFeature('webhooks')`, or write `feature: 'webhooks'` directly. */
export function requiresFeature(name: FeatureName): { feature: FeatureName } {
  return { feature: name };
}

/** 403 FEATURE_REQUIRED, naming the feature, the plan and the plans that include it. */
export class FeatureRequiredError extends AppError {
  constructor(feature: FeatureName, plan: string, plansWithIt: string[]) {
    super(403, 'FEATURE_REQUIRED', `Your plan (${plan}) does not include the ${feature} feature (${FEATURES[feature]})`, [
      `feature: ${feature}`,
      `plan: ${plan}`,
      `included in: ${plansWithIt.join(', ') || 'no plan'}`,
    ]);
  }
}

/**
 * Billing (BILLING=on, docs/platform.md "Plans and billing"): only an install that sells plans
 * turns it on. Off (the default, a label running its own Rondo), every workspace has the
 * `unlimited` plan's features and no limit, whatever plan is recorded for it; turning billing on
 * later makes the recorded plans apply. Set once per process by boot().
 */
let billing = false;
export function setBilling(on: boolean): void {
  billing = on;
}
export function billingEnabled(): boolean {
  return billing;
}
/** The plan every workspace has while billing is off: every feature, no limit (seeded by migration). */
export const UNLIMITED_PLAN = 'unlimited';

/**
 * SQL for the plan whose features a tenant `t` has now: with billing on, its own plan, a
 * canceled subscription falling back to free; with billing off, the unlimited plan.
 */
export function effectivePlanSql(): string {
  return billing ? `CASE WHEN t.subscription_state = 'canceled' THEN 'free' ELSE t.plan END` : `'${UNLIMITED_PLAN}'::text`;
}

/** The FeatureRequiredError a tenant's plan earns for `feature`, or null when it has it. */
export async function missingFeature(owner: Knex, tenantId: number, feature: FeatureName): Promise<FeatureRequiredError | null> {
  const { rows } = await owner.raw(
    `SELECT p.code, ? = ANY (p.features) AS has,
            ARRAY(SELECT code FROM plans WHERE ? = ANY (features) ORDER BY sort) AS with_it
       FROM tenants t JOIN plans p ON p.code = ${effectivePlanSql()}
      WHERE t.id = ?`,
    [feature, feature, tenantId],
  );
  const r = rows[0] as { code: string; has: boolean; with_it: string[] } | undefined;
  if (!r) return new FeatureRequiredError(feature, 'none', []);
  return r.has ? null : new FeatureRequiredError(feature, r.code, r.with_it);
}

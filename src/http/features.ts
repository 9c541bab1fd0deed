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

/** The plan whose features a tenant has now: a canceled subscription falls back to free. */
export const EFFECTIVE_PLAN_SQL = `CASE WHEN t.subscription_state = 'canceled' THEN 'free' ELSE t.plan END`;

/** The FeatureRequiredError a tenant's plan earns for `feature`, or null when it has it. */
export async function missingFeature(owner: Knex, tenantId: number, feature: FeatureName): Promise<FeatureRequiredError | null> {
  const { rows } = await owner.raw(
    `SELECT p.code, ? = ANY (p.features) AS has,
            ARRAY(SELECT code FROM plans WHERE ? = ANY (features) ORDER BY sort) AS with_it
       FROM tenants t JOIN plans p ON p.code = ${EFFECTIVE_PLAN_SQL}
      WHERE t.id = ?`,
    [feature, feature, tenantId],
  );
  const r = rows[0] as { code: string; has: boolean; with_it: string[] } | undefined;
  if (!r) return new FeatureRequiredError(feature, 'none', []);
  return r.has ? null : new FeatureRequiredError(feature, r.code, r.with_it);
}

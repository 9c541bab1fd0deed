/**
 * GET /metrics (Prometheus text format), outside the API's routes and its OpenAPI document.
 * With METRICS_TOKEN set it wants `Authorization: Bearer <METRICS_TOKEN>`.
 */
import type Koa from 'koa';
import { safeEqual } from '../lib/crypto';

export const METRICS_PATH = '/metrics';

/** true when the request may read the metrics (no token configured, or the right one given). */
export function metricsAllowed(token: string | null, authorization: string | undefined): boolean {
  if (!token) return true;
  const given = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  return !!given && safeEqual(given, token);
}

/** What the endpoint serves (src/metrics.ts). */
export interface MetricsSource {
  text(): Promise<{ contentType: string; body: string }>;
}

export function metricsEndpoint(metrics: MetricsSource, token: string | null): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== METRICS_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (!metricsAllowed(token, ctx.get('authorization'))) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.body = { status: 'error', message: 'Unauthorized' };
      return;
    }
    const m = await metrics.text();
    ctx.type = m.contentType;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = m.body;
  };
}

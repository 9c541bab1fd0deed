/**
 * The Koa app: request id + structured log + latency metric, security headers, CORS,
 * /metrics, one error path, routes.
 */
import Koa from 'koa';
import compress from 'koa-compress';
import Router from '@koa/router';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { AppServices } from './services';
import { errorMiddleware } from './http/errors';
import { mountModules } from './modules';
import { addSlashAliases, routeRegistry } from './http/route';
import { methodAliasMiddleware } from './http/method-aliases';
import { clientAddress, proxyTrust } from './http/client-address';
import { requestContext } from './lib/process-guard';
import { corsMiddleware, securityHeaders } from './http/security';
import { METRICS_PATH, metricsEndpoint } from './http/metrics';

/** The latency metric's route label: the router's path template, so its cardinality is bounded. */
function routeLabel(ctx: Koa.Context): string {
  if (ctx.path === METRICS_PATH) return METRICS_PATH;
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return matched ? String(matched) : 'unmatched';
}

/** `trustProxy` overrides TRUST_PROXY (tests); TRUSTED_PROXIES always comes from the config. */
export function createApp(svc: AppServices, opts: { trustProxy?: boolean } = {}): Koa {
  const trustProxy = opts.trustProxy ?? svc.cfg.trustProxy;
  const trust = proxyTrust({ trustProxy, trustedProxies: svc.cfg.trustedProxies });
  const app = new Koa({ proxy: trustProxy });
  app.silent = true; // errors are logged by our middleware, once
  routeRegistry.length = 0; // one app per process in production; tests build several
  const router = new Router({ strict: true });
  mountModules(router, svc);
  addSlashAliases(router);

  app.use(clientAddress(trust));
  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = (ctx.get('x-request-id') || crypto.randomUUID()).slice(0, 100);
    ctx.state.requestId = requestId;
    ctx.state.log = svc.log.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await requestContext.run({ requestId }, next);
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      svc.metrics.observeHttp(ctx.method, routeLabel(ctx), ctx.status, ms / 1000);
      ctx.state.log.info({ method: ctx.method, path: loggedPath(ctx.path), status: ctx.status, ms: Math.round(ms * 10) / 10, tenantId: ctx.state.auth?.tenantId ?? undefined }, 'request');
    }
  });
  app.use(securityHeaders(svc.cfg));
  app.use(corsMiddleware(svc.cfg));
  app.use(metricsEndpoint(svc.metrics, svc.cfg.metricsToken));
  // gzip/brotli for what compresses (JSON, CSV, the OpenAPI document, the web app's assets), from 1 KiB;
  // a server-sent event stream sets ctx.compress = false: its events must reach the client as written
  app.use(compress({ threshold: 1024, br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } }));
  app.use(errorMiddleware());
  app.use(methodAliasMiddleware(routeRegistry));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** The request path as logged: a credential carried in a path (a data-share link token) is masked. */
export function loggedPath(p: string): string {
  return p.replace(/^(\/data-shares\/access\/)[^/]+/, '$1***');
}

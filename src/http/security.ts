/**
 * Security headers (helmet) and CORS (@koa/cors) for every response.
 *
 * CSP: scripts, styles, fonts and images from this origin only (inline styles allowed; no
 * inline scripts), so a page that loads its scripts from our own paths (the /docs UI) works
 * and an injected <script> does not. HSTS and upgrade-insecure-requests only when PUBLIC_URL
 * is https (a plain-http local setup must keep working).
 *
 * CORS: none unless CORS_ORIGINS lists origins (exact `scheme://host[:port]`); those get
 * credentials (the refresh cookie). `*` allows any origin, without credentials.
 */
import type Koa from 'koa';
import cors from '@koa/cors';
import helmet from 'helmet';
import type { Config } from '../config';

export function securityHeaders(cfg: Pick<Config, 'publicUrl' | 'corsOrigins'>): Koa.Middleware {
  const https = cfg.publicUrl.startsWith('https://');
  const h = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        scriptSrcAttr: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: https ? { maxAge: 180 * 24 * 3600, includeSubDomains: true } : false,
    // Listed origins read our responses through CORS; resources stay same-origin otherwise.
    crossOriginResourcePolicy: { policy: cfg.corsOrigins.length ? 'cross-origin' : 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  return (ctx, next) =>
    new Promise<void>((resolve, reject) => h(ctx.req, ctx.res, (err?: unknown) => (err ? reject(err) : resolve()))).then(next);
}

export function corsMiddleware(cfg: Pick<Config, 'corsOrigins'>): Koa.Middleware {
  const any = cfg.corsOrigins.includes('*');
  const allowed = new Set(cfg.corsOrigins.filter((o) => o !== '*').map((o) => o.toLowerCase()));
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (!origin) return '';
      if (allowed.has(origin.toLowerCase())) return origin;
      return any ? '*' : '';
    },
    credentials: (ctx) => allowed.has(ctx.get('Origin').toLowerCase()),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'X-Workspace-Id'],
    exposeHeaders: ['X-Request-Id', 'Content-Disposition', 'Location'],
    maxAge: 600,
  });
}

/**
 * The web app: the files Vite built into web/dist, served at /app with a fallback to
 * index.html for the app's own routes; `/` redirects there, and the page paths the
 * e-mails of earlier versions named (/set-password, /reset-password, /accept-invitation)
 * redirect to the app's pages with their query. Not part of the API (no OpenAPI entry).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import fs from 'node:fs';
import path from 'node:path';
import type { AppServices } from '../../services';
import { packageRoot } from '../../lib/package-root';

export const WEB_DIST = path.join(packageRoot(import.meta.url), 'web', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

function sendFile(ctx: Context, file: string, immutable: boolean): void {
  ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
  ctx.set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = fs.createReadStream(file);
}

/** The file under web/dist a request path names, or null (outside dist, missing, a folder). */
function distFile(rel: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rel);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const file = path.resolve(WEB_DIST, '.' + path.posix.normalize('/' + decoded));
  if (!file.startsWith(WEB_DIST + path.sep)) return null;
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

export function registerWebRoutes(router: Router, svc: AppServices): void {
  const index = path.join(WEB_DIST, 'index.html');
  const serve = (ctx: Context) => {
    const rel = ctx.path.slice('/app'.length) || '/';
    const file = rel === '/' ? null : distFile(rel);
    if (file) return sendFile(ctx, file, rel.startsWith('/assets/'));
    // a missing asset is a 404; any other path is one of the app's own routes
    if (rel.startsWith('/assets/') || path.posix.extname(rel)) {
      ctx.status = 404;
      ctx.body = { success: false, error: { code: 'NOT_FOUND', message: 'Not found', details: [] } };
      return;
    }
    if (!fs.existsSync(index)) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The web app is not built: run `npm run build:web` (or `npm start`, which builds it when missing).\n';
      return;
    }
    sendFile(ctx, index, false);
  };
  router.get('/', (ctx) => {
    ctx.status = 302;
    ctx.redirect('/app/');
  });
  router.get('/app', (ctx) => {
    ctx.status = 302;
    ctx.redirect('/app/');
  });
  // which social providers to offer on the sign-in page (public, like the providers' own routes)
  router.get('/app/config.json', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = { socialProviders: Object.keys(svc.cfg.social).sort() };
  });
  router.get('/app/', serve);
  router.get('/app/*rest', serve);
  for (const page of ['set-password', 'reset-password', 'accept-invitation']) {
    router.get(`/${page}`, (ctx) => {
      ctx.status = 302;
      ctx.redirect(`/app/${page}${ctx.search}`);
    });
  }
}

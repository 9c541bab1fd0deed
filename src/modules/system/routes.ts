import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import type { AppServices } from '../../services';
import { buildOpenApi, docsHtml } from '../../http/openapi';

export const VERSION = '0.1.0';

export function registerSystemRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'System' }, [
    route({
      method: 'get',
      path: '/health',
      summary: 'Liveness: the process answers',
      access: 'public',
      handler: () => ({ status: 'ok' }),
    }),
    route({
      method: 'get',
      path: '/ready',
      summary: 'Readiness: database and queue reachable (503 when not)',
      access: 'public',
      async handler({ ctx }) {
        const checks: Record<string, string> = {};
        try {
          await svc.db.app.raw('select 1');
          checks.database = 'ok';
        } catch (err) {
          checks.database = `error: ${(err as Error).message}`;
        }
        try {
          checks.queue = (await svc.queue.ping()) ? 'ok' : 'error';
        } catch (err) {
          checks.queue = `error: ${(err as Error).message}`;
        }
        const ok = Object.values(checks).every((v) => v === 'ok');
        ctx.status = ok ? 200 : 503;
        ctx.body = { status: ok ? 'ok' : 'error', checks };
      },
    }),
    route({
      method: 'get',
      path: '/openapi.json',
      summary: 'The OpenAPI 3.1 document of this API',
      access: 'public',
      handler: () => buildOpenApi(VERSION),
    }),
    route({
      method: 'get',
      path: '/docs',
      summary: 'Browsable API documentation',
      access: 'public',
      handler({ ctx }) {
        ctx.type = 'html';
        ctx.body = docsHtml(buildOpenApi(VERSION));
      },
    }),
  ]);
}

import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import type { AppServices } from '../../services';
import { buildOpenApi, docsHtml } from '../../http/openapi';
import { readiness } from './service';

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
        const { ok, checks } = await readiness(svc);
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

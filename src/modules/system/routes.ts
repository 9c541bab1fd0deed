import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import type { AppServices } from '../../services';
import { Type } from '@sinclair/typebox';
import { buildOpenApi, INTERFACE_VERSION } from '../../http/openapi';
import { DOCS_HTML, docsAsset } from '../../http/docs-ui';
import { readiness } from './service';

export const VERSION = '0.1.0';

export function registerSystemRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'System' }, [
    route({
      method: 'get',
      path: '/health',
      summary: 'Liveness: the process answers',
      access: 'public',
      responses: { 200: Type.Object({ status: Type.Literal('ok') }) },
      handler: () => ({ status: 'ok' }),
    }),
    route({
      method: 'get',
      path: '/ready',
      summary: 'Readiness: database and queue reachable (503 when not)',
      access: 'public',
      responses: {
        200: Type.Object({ status: Type.Literal('ok'), checks: Type.Object({ database: Type.Literal('ok'), queue: Type.Literal('ok') }) }),
        503: Type.Object({ status: Type.Literal('error'), checks: Type.Record(Type.String(), Type.String(), { examples: [{ database: 'ok', queue: 'error' }] }) }),
      },
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
      responses: { 200: Type.Object({ openapi: Type.Literal('3.1.0'), info: Type.Object({ title: Type.String(), version: Type.String({ examples: [INTERFACE_VERSION] }) }), paths: Type.Object({}) }) },
      handler: () => buildOpenApi(VERSION),
    }),
    route({
      method: 'get',
      path: '/docs',
      summary: 'API reference (Swagger UI over /openapi.json)',
      access: 'public',
      responses: { 200: Type.String({ contentMediaType: 'text/html', examples: ['<!doctype html><html>…</html>'] }) },
      handler({ ctx }) {
        ctx.type = 'html';
        ctx.body = DOCS_HTML;
      },
    }),
  ]);
  // The reference page's static assets: not API operations, so not in the registry.
  router.get('/docs/:asset', (ctx) => {
    const asset = docsAsset(ctx.params.asset!);
    if (!asset) return; // 404 in the error shape
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset.body;
  });
}

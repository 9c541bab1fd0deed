import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import type { AppServices } from '../../services';
import { Type } from '@sinclair/typebox';
import { buildOpenApi, INTERFACE_VERSION, openApiAreas } from '../../http/openapi';
import { NotFoundError } from '../../lib/errors';
import { DOCS_HTML, docsAsset } from '../../http/docs-ui';
import { readiness } from './service';

export const VERSION = '0.1.0';

export function registerSystemRoutes(router: Router, svc: AppServices): void {
  // Built once, on first use (every module has mounted its routes by then): about 0.5 s of work.
  let whole: Record<string, unknown> | null = null;
  const areas = new Map<string, Record<string, unknown> | null>();
  const documents = {
    whole: () => (whole ??= buildOpenApi(VERSION)),
    area: (a: string) => {
      if (!areas.has(a)) areas.set(a, buildOpenApi(VERSION, a));
      return areas.get(a) ?? null;
    },
  };
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
      handler: () => documents.whole(),
    }),
    route({
      method: 'get',
      path: '/openapi/:area',
      summary: 'The OpenAPI 3.1 document of one area of this API (a tag, as `/docs` lists them: `royalty`, `payout-partner`…)',
      access: 'public',
      params: Type.Object({ area: Type.String({ pattern: '^[a-z0-9-]{1,60}$', maxLength: 60, examples: ['royalty'] }) }, { additionalProperties: false }),
      responses: { 200: Type.Object({ openapi: Type.Literal('3.1.0'), info: Type.Object({ title: Type.String({ examples: ['Rondo: Royalty'] }), version: Type.String({ examples: [INTERFACE_VERSION] }) }), paths: Type.Object({}) }) },
      handler: ({ params }) => {
        const doc = documents.area(params.area);
        if (!doc) throw new NotFoundError('API area');
        return doc;
      },
    }),
    route({
      method: 'get',
      path: '/docs',
      summary: 'API reference (Swagger UI, one area of the API at a time)',
      access: 'public',
      // the page's area picker writes the chosen area here, so a reload or a shared link opens it again
      query: Type.Object({ 'urls.primaryName': Type.Optional(Type.String({ maxLength: 100, description: 'The area to open (its name in the top bar)', examples: ['Royalty'] })) }),
      responses: { 200: Type.String({ contentMediaType: 'text/html', examples: ['<!doctype html><html>…</html>'] }) },
      handler({ ctx }) {
        ctx.type = 'html';
        ctx.body = DOCS_HTML;
      },
    }),
  ]);
  // The reference page's static assets: not API operations, so not in the registry.
  router.get('/docs/:asset', (ctx) => {
    const asset = docsAsset(ctx.params.asset!, openApiAreas);
    if (!asset) return; // 404 in the error shape
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = asset.body;
  });
}

/**
 * Sources and the pattern creator (super-admin; docs/patterns.md, "Routes").
 * Success bodies `{status:'success', message, data}`; errors `{status:'error', message}`.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { StatusAnswer, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { ValidationError } from '../../lib/errors';
import { receiveMultipartHead } from '../../http/upload';
import { SourcePatternSchema, validatePattern } from '../../../parsers';
import {
  configureSource, createGlobalPattern, deleteGlobalPattern, getGlobalPattern, getTenantSource,
  listGlobalPatterns, listTenantSources, setTenantSourceActive, updateGlobalPattern, updateTenantSource,
} from './service';
import { DRY_RUN_MAX_BYTES, dryRun } from './dry-run';
import * as Res from './responses';

const IdParams = Type.Object({ id: Uuid });
const PatternObject = Type.Object({}, { additionalProperties: true, description: 'A source pattern (GET /pattern-creator/schema)' });


/** The global source patterns (super-admin). */
export function registerSourceAdminRoutes(router: Router, svc: AppServices): void {
  const owner = svc.db.owner;
  defineRoutes(router, svc, { tag: 'Sources (admin)' }, [
    route({
      method: 'get',
      path: '/sources/admin', responses: { 200: Res.GetSourcesAdmin },
      summary: 'Every global source pattern (built-in and posted); includeInactive=true adds deactivated ones',
      access: 'super_admin',
      query: Type.Object({ includeInactive: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) }),
      async handler({ query }) {
        return { status: 'success', message: 'Sources', data: await listGlobalPatterns(owner, { includeInactive: query.includeInactive === 'true' }) };
      },
    }),
    route({
      method: 'post',
      path: '/sources/admin', responses: { 201: Res.PostSourcesAdmin },
      summary: 'Create a global source pattern (validated); used by the very next detection',
      access: 'super_admin',
      status: 201,
      body: Strict({ pattern: PatternObject, active: Type.Optional(Type.Boolean()) }),
      async handler({ body, auth }) {
        return { status: 'success', message: 'Source created', data: await createGlobalPattern(owner, body, auth.userId) };
      },
    }),
    route({
      method: 'get',
      path: '/sources/admin/:id', responses: { 200: Res.PutSourcesAdminById },
      summary: 'One global source pattern with its definition and version history',
      access: 'super_admin',
      params: IdParams,
      async handler({ params }) {
        return { status: 'success', message: 'Source', data: await getGlobalPattern(owner, params.id) };
      },
    }),
    route({
      method: 'put',
      path: '/sources/admin/:id', responses: { 200: Res.PutSourcesAdminById },
      summary: 'Change a global source: a new definition becomes a new version (old versions are kept); active; name',
      access: 'super_admin',
      params: IdParams,
      body: Strict({ pattern: Type.Optional(PatternObject), active: Type.Optional(Type.Boolean()), name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { minProperties: 1 }),
      async handler({ params, body, auth }) {
        return { status: 'success', message: 'Source updated', data: await updateGlobalPattern(owner, params.id, body, auth.userId) };
      },
    }),
    route({
      method: 'delete',
      path: '/sources/admin/:id', responses: { 200: Res.DeleteSourcesAdminById },
      summary: 'Delete a global source (a built-in is deactivated instead)',
      access: 'super_admin',
      params: IdParams,
      async handler({ params }) {
        const r = await deleteGlobalPattern(owner, params.id);
        return { status: 'success', message: r === 'deleted' ? 'Source deleted' : 'Built-in source deactivated', data: { id: params.id, result: r } };
      },
    }),
  ]);

  defineRoutes(router, svc, { tag: 'Pattern creator' }, [
    route({
      method: 'get',
      path: '/pattern-creator/schema', responses: { 200: StatusAnswer(Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON Schema' })) },
      summary: 'The JSON Schema every source pattern is validated against',
      access: 'super_admin',
      handler: () => ({ status: 'success', message: 'Source pattern schema', data: SourcePatternSchema }),
    }),
    route({
      method: 'post',
      path: '/pattern-creator/validate', responses: { 200: Res.PostPatternCreatorValidate },
      summary: 'Validate a pattern without saving it',
      access: 'super_admin',
      body: Strict({ pattern: PatternObject }),
      handler({ body }) {
        const v = validatePattern(body.pattern);
        return { status: 'success', message: v.ok ? 'Valid' : 'Invalid', data: { valid: v.ok, errors: v.ok ? [] : v.errors } };
      },
    }),
    route({
      method: 'post',
      path: '/pattern-creator/dry-run', responses: { 200: Res.PostPatternCreatorDryRun },
      summary: 'Multipart: `file` (a sample statement, ≤10 MB read) and optional `pattern` (JSON). Shows detection scores and the first mapped lines; saves nothing',
      access: 'super_admin',
      rawBody: true,
      async handler({ ctx, auth }) {
        const { sample, fileName, fields } = await readSample(ctx);
        const data = await dryRun(svc, auth.tenantId, { sample, fileName, patternJson: fields.pattern });
        return { status: 'success', message: 'Dry run', data };
      },
    }),
  ]);
}

/** The workspace's sources (mounted after the teaching routes, whose fixed paths must win over /sources/:id). */
export function registerWorkspaceSourceRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Sources', scope: 'workspace' }, [
    route({
      method: 'get',
      path: '/sources', responses: { 200: Res.GetSources },
      summary: "The workspace's configured sources",
      access: 'user',
      async handler({ trx }) {
        return { status: 'success', message: 'Sources', data: await listTenantSources(trx) };
      },
    }),
    route({
      method: 'post',
      path: '/sources', responses: { 201: Res.PostSources },
      summary: 'Configure a source: a global one (sourceId or sourceKey) or the workspace\'s own pattern (pattern)',
      access: 'admin',
      status: 201,
      body: Strict({
        sourceId: Type.Optional(Uuid),
        sourceKey: Type.Optional(Type.String({ maxLength: 64 })),
        pattern: Type.Optional(PatternObject),
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        active: Type.Optional(Type.Boolean()),
        settings: Type.Optional(Type.Object({}, { additionalProperties: true })),
      }),
      async handler({ trx, tenantId, body, auth }) {
        return { status: 'success', message: 'Source configured', data: await configureSource(trx, svc.db.owner, tenantId, body, auth.tenantUserId) };
      },
    }),
    route({
      method: 'get',
      path: '/sources/:id', responses: { 200: Res.GetSourcesById },
      summary: 'One configured source with its pattern',
      access: 'user',
      params: IdParams,
      async handler({ trx, params }) {
        return { status: 'success', message: 'Source', data: await getTenantSource(trx, params.id, true) };
      },
    }),
    route({
      method: 'put',
      path: '/sources/:id', responses: { 200: Res.PutSourcesById },
      summary: "Rename, change settings or (the workspace's own pattern only) change the pattern: a new version",
      access: 'admin',
      params: IdParams,
      body: Strict({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), pattern: Type.Optional(PatternObject), settings: Type.Optional(Type.Object({}, { additionalProperties: true })) }, { minProperties: 1 }),
      async handler({ trx, params, body, auth }) {
        return { status: 'success', message: 'Source updated', data: await updateTenantSource(trx, params.id, body, auth.tenantUserId) };
      },
    }),
    ...([
      ['activate', true, 'Use this source in detection'],
      ['deactivate', false, 'Stop using this source in detection (a global one is then skipped for this workspace)'],
    ] as const).map(([verb, active, summary]) =>
      route({
        method: 'post',
        path: `/sources/:id/${verb}`, responses: { 200: Res.SourceActive },
        summary,
        access: 'admin',
        params: IdParams,
        async handler({ trx, params }) {
          return { status: 'success', message: `Source ${verb}d`, data: await setTenantSourceActive(trx, params.id, active) };
        },
      }),
    ),
  ]);
}

async function readSample(ctx: import('koa').Context): Promise<{ sample: Buffer; fileName: string; fields: Record<string, string> }> {
  const r = await receiveMultipartHead({ stream: ctx.req, headers: ctx.req.headers }, DRY_RUN_MAX_BYTES, {
    fieldSize: 2 * 1024 * 1024,
    requireFile: { code: 'FILE_REQUIRED', message: 'No "file" part in the request' },
  });
  return { sample: r.head, fileName: r.fileName || 'sample', fields: r.fields };
}

/**
 * Sources (spec 4.3 "Sources") and the pattern creator (super-admin, spec 4.2/9).
 * Success bodies `{status:'success', message, data}`; errors `{status:'error', message}`.
 */
import type Router from '@koa/router';
import { Readable } from 'node:stream';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { ValidationError } from '../../lib/errors';
import { SourcePatternSchema, detectSource, readStatement, validatePattern, type SourcePattern } from '../../../parsers';
import type { CanonicalLine, LineError } from '../../../parsers/types';
import {
  checkPattern, createGlobalPattern, createTenantSource, deleteGlobalPattern, ensureBuiltinPatterns, getGlobalPattern, getTenantSource,
  listGlobalPatterns, listTenantSources, setTenantSourceActive, updateGlobalPattern, updateTenantSource, patternsForDetection,
} from './service';
import { withTenant } from '../../db';
import { INGEST_LIMITS, workbookBufferText } from '../../lib/statement-open';

/** An .xlsx sample becomes the CSV text of its first sheet (as the ingest reads it); other samples stay as they are. */
async function sampleText(sample: Buffer, pattern?: SourcePattern | null): Promise<Buffer> {
  try {
    const csv = pattern
      ? { delimiter: pattern.format.delimiter === 'auto' ? ',' : pattern.format.delimiter, decimalComma: pattern.format.decimal === ',' }
      : {};
    return (await workbookBufferText(sample, INGEST_LIMITS, 10 * 1024 * 1024, csv)) ?? sample;
  } catch (e) {
    throw new ValidationError(`The sample is a zip that cannot be read as an xlsx workbook (send a workbook under 10 MB, or a statement): ${(e as Error).message}`);
  }
}

const IdParams = Type.Object({ id: Uuid });
const PatternObject = Type.Object({}, { additionalProperties: true, description: 'A source pattern (GET /pattern-creator/schema)' });

/** Dry runs read at most this much of the sample. */
export const DRY_RUN_MAX_BYTES = 10 * 1024 * 1024;

export function registerSourceRoutes(router: Router, svc: AppServices): void {
  const owner = svc.db.owner;
  defineRoutes(router, svc, { tag: 'Sources (admin)' }, [
    route({
      method: 'get',
      path: '/sources/admin',
      summary: 'Every global source pattern (built-in and posted); includeInactive=true adds deactivated ones',
      access: 'super_admin',
      query: Type.Object({ includeInactive: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) }),
      async handler({ query }) {
        return { status: 'success', message: 'Sources', data: await listGlobalPatterns(owner, { includeInactive: query.includeInactive === 'true' }) };
      },
    }),
    route({
      method: 'post',
      path: '/sources/admin',
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
      path: '/sources/admin/:id',
      summary: 'One global source pattern with its definition and version history',
      access: 'super_admin',
      params: IdParams,
      async handler({ params }) {
        return { status: 'success', message: 'Source', data: await getGlobalPattern(owner, params.id) };
      },
    }),
    route({
      method: 'put',
      path: '/sources/admin/:id',
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
      path: '/sources/admin/:id',
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
      path: '/pattern-creator/schema',
      summary: 'The JSON Schema every source pattern is validated against',
      access: 'super_admin',
      handler: () => ({ status: 'success', message: 'Source pattern schema', data: SourcePatternSchema }),
    }),
    route({
      method: 'post',
      path: '/pattern-creator/validate',
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
      path: '/pattern-creator/dry-run',
      summary: 'Multipart: `file` (a sample statement, ≤10 MB read) and optional `pattern` (JSON). Shows detection scores and the first mapped lines; saves nothing',
      access: 'super_admin',
      rawBody: true,
      async handler({ ctx }) {
        const { sample, fileName, fields } = await readSample(ctx);
        let candidatePatterns: SourcePattern[];
        let chosen: SourcePattern | null = null;
        if (fields.pattern) {
          let obj: unknown;
          try {
            obj = JSON.parse(fields.pattern);
          } catch (e) {
            throw new ValidationError('pattern is not valid JSON', [(e as Error).message]);
          }
          chosen = checkPattern(obj);
        }
        await ensureBuiltinPatterns(owner);
        if (ctx.state.auth?.tenantId) {
          candidatePatterns = (await withTenant(svc.db.app, ctx.state.auth.tenantId, (trx) => patternsForDetection(trx))).map((p) => p.definition);
        } else {
          candidatePatterns = (await listGlobalPatterns(owner)).length ? await globalDefinitions(svc) : [];
        }
        if (chosen) candidatePatterns = [chosen, ...candidatePatterns.filter((p) => p.key !== chosen!.key)];
        const detection = detectSource({ fileName, head: (await sampleText(sample)).subarray(0, 64 * 1024) }, candidatePatterns).slice(0, 8);
        const pattern = chosen ?? candidatePatterns.find((p) => p.key === detection[0]?.patternKey) ?? null;
        let read: Record<string, unknown> | null = null;
        if (pattern) {
          const lines: CanonicalLine[] = [];
          const errors: LineError[] = [];
          try {
            const summary = await readStatement(Readable.from([await sampleText(sample, pattern)]), { fileName, pattern }, {
              lines(b) {
                for (const l of b) if (lines.length < 20) lines.push(l);
              },
              error(e) {
                if (errors.length < 20) errors.push(e);
              },
            });
            read = { pattern: pattern.key, summary, lines, errors };
          } catch (e) {
            read = { pattern: pattern.key, failed: (e as Error).message, lines, errors };
          }
        }
        return { status: 'success', message: 'Dry run', data: { fileName, bytesRead: sample.length, threshold: svc.cfg.detectionThreshold, detection, read } };
      },
    }),
  ]);

  defineRoutes(router, svc, { tag: 'Sources' }, [
    route({
      method: 'get',
      path: '/sources',
      summary: "The workspace's configured sources",
      access: 'user',
      async handler({ trx }) {
        return { status: 'success', message: 'Sources', data: await listTenantSources(trx) };
      },
    }),
    route({
      method: 'post',
      path: '/sources',
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
        const n = [body.sourceId, body.sourceKey, body.pattern].filter((x) => x !== undefined).length;
        if (n !== 1) throw new ValidationError('Give exactly one of sourceId, sourceKey, pattern', [], 'SOURCE_REQUIRED');
        await ensureBuiltinPatterns(owner);
        return { status: 'success', message: 'Source configured', data: await createTenantSource(trx, tenantId, body, auth.tenantUserId) };
      },
    }),
    route({
      method: 'get',
      path: '/sources/:id',
      summary: 'One configured source with its pattern',
      access: 'user',
      params: IdParams,
      async handler({ trx, params }) {
        return { status: 'success', message: 'Source', data: await getTenantSource(trx, params.id, true) };
      },
    }),
    route({
      method: 'put',
      path: '/sources/:id',
      summary: "Rename, change settings or (the workspace's own pattern only) change the pattern: a new version",
      access: 'admin',
      params: IdParams,
      body: Strict({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), pattern: Type.Optional(PatternObject), settings: Type.Optional(Type.Object({}, { additionalProperties: true })) }, { minProperties: 1 }),
      async handler({ trx, params, body, auth }) {
        return { status: 'success', message: 'Source updated', data: await updateTenantSource(trx, params.id, body, auth.tenantUserId) };
      },
    }),
    route({
      method: 'post',
      path: '/sources/:id/activate',
      summary: 'Use this source in detection',
      access: 'admin',
      params: IdParams,
      async handler({ trx, params }) {
        return { status: 'success', message: 'Source activated', data: await setTenantSourceActive(trx, params.id, true) };
      },
    }),
    route({
      method: 'post',
      path: '/sources/:id/deactivate',
      summary: 'Stop using this source in detection (a global one is then skipped for this workspace)',
      access: 'admin',
      params: IdParams,
      async handler({ trx, params }) {
        return { status: 'success', message: 'Source deactivated', data: await setTenantSourceActive(trx, params.id, false) };
      },
    }),
  ]);
}

async function globalDefinitions(svc: AppServices): Promise<SourcePattern[]> {
  const rows = await svc.db.owner('source_patterns as p')
    .join('source_pattern_versions as v', function () {
      this.on('v.pattern_id', '=', 'p.id').andOn('v.version', '=', 'p.current_version');
    })
    .whereNull('p.tenant_id')
    .where('p.active', true)
    .select('v.definition');
  return rows.map((r) => r.definition as SourcePattern);
}

async function readSample(ctx: import('koa').Context): Promise<{ sample: Buffer; fileName: string; fields: Record<string, string> }> {
  const busboy = (await import('busboy')).default;
  if (!ctx.get('content-type').toLowerCase().startsWith('multipart/form-data')) throw new ValidationError('Expected multipart/form-data with a "file" part');
  const fields: Record<string, string> = {};
  const parts: Buffer[] = [];
  let size = 0;
  let fileName = '';
  let got = false;
  await new Promise<void>((resolve, reject) => {
    const bb = busboy({ headers: ctx.req.headers, limits: { files: 1, fieldSize: 2 * 1024 * 1024 } });
    bb.on('field', (n, v) => (fields[n] = v));
    bb.on('file', (name, stream, info) => {
      if (name !== 'file') return stream.resume();
      got = true;
      fileName = info.filename || 'sample';
      stream.on('data', (c: Buffer) => {
        if (size < DRY_RUN_MAX_BYTES) {
          parts.push(c.subarray(0, DRY_RUN_MAX_BYTES - size));
          size += Math.min(c.length, DRY_RUN_MAX_BYTES - size);
        }
      });
    });
    bb.on('close', () => resolve());
    bb.on('error', (e) => reject(new ValidationError('Malformed multipart request', [(e as Error).message])));
    ctx.req.pipe(bb);
  });
  if (!got) throw new ValidationError('No "file" part in the request');
  return { sample: Buffer.concat(parts), fileName, fields };
}

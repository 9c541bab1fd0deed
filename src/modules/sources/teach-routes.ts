/**
 * Teaching a layout, for a workspace's admins (issue: statement layouts taught in minutes):
 * the pattern schema with a description and an example for every field, a draft pattern
 * from a sample, validation against a sample and a dry run. A sample is a file the
 * workspace already uploaded (`fileId`, JSON body) or one sent with the request (multipart
 * `file`, with `pattern` as JSON text). Nothing is saved.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { defineRoutes, route } from '../../http/route';
import { Type } from '../../http/schema';
import type { AppServices } from '../../services';
import type { Trx } from '../../db';
import { ValidationError } from '../../lib/errors';
import { inputProblems } from '../../http/limits';
import { receiveMultipartHead } from '../../http/upload';
import { SourcePatternSchema, ROLES } from '../../../parsers';
import { DRY_RUN_MAX_BYTES } from './dry-run';
import { draftFromSample, dryRunOnSample, sentSample, storedSample, validateOnSample, type Sample } from './teach';
import { builtinDefinition } from './service';

const JSON_MAX = 2 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function readJson(ctx: Context): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of ctx.req as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > JSON_MAX) throw new ValidationError(`The body is over ${JSON_MAX} bytes`, ['body'], 'BODY_TOO_LARGE');
    parts.push(c);
  }
  const text = Buffer.concat(parts).toString('utf8');
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ValidationError('The body is not valid JSON', [(e as Error).message]);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ValidationError('The body must be a JSON object', ['body']);
  return v as Record<string, unknown>;
}

/** `{pattern?, fileId?}` as JSON, or multipart `file` + `pattern` (JSON text) + `fileId`. */
async function teachInput(svc: AppServices, trx: Trx, ctx: Context, needSample: boolean): Promise<{ pattern: unknown; sample: Sample | null }> {
  let pattern: unknown;
  let fileId: unknown;
  let sample: Sample | null = null;
  if ((ctx.get('content-type') || '').toLowerCase().startsWith('multipart/')) {
    const r = await receiveMultipartHead({ stream: ctx.req, headers: ctx.req.headers }, DRY_RUN_MAX_BYTES, { fieldSize: JSON_MAX });
    if (r.fields.pattern !== undefined) {
      try {
        pattern = JSON.parse(r.fields.pattern);
      } catch (e) {
        throw new ValidationError('pattern is not valid JSON', [`pattern: ${(e as Error).message}`]);
      }
    }
    fileId = r.fields.fileId;
    if (r.fileName || r.head.length) sample = await sentSample(r.head, r.fileName || 'sample');
  } else {
    const body = await readJson(ctx);
    const extra = Object.keys(body).filter((k) => k !== 'pattern' && k !== 'fileId');
    if (extra.length) throw new ValidationError(`Unknown field(s): ${extra.join(', ')}`, extra.map((k) => `body.${k}`));
    pattern = body.pattern;
    fileId = body.fileId;
  }
  const problems = inputProblems(pattern ?? {}, 'pattern');
  if (problems.length) throw new ValidationError('Invalid pattern', problems);
  if (pattern !== undefined && (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern)))
    throw new ValidationError('pattern must be an object', ['body.pattern']);
  if (fileId !== undefined && (typeof fileId !== 'string' || !UUID.test(fileId))) throw new ValidationError('fileId must be a file id (uuid)', ['body.fileId']);
  if (!sample && typeof fileId === 'string') sample = await storedSample(svc, trx, fileId);
  if (needSample && !sample) throw new ValidationError('Send a sample: multipart "file", or "fileId" of a file already uploaded', ['body.fileId'], 'FILE_REQUIRED');
  return { pattern, sample };
}

const Loose = (description: string) => Type.Object({}, { additionalProperties: true, description });
const ok = (data: ReturnType<typeof Type.Object>) => Type.Object({ status: Type.Literal('success'), message: Type.String(), data });

const DraftData = Type.Object(
  {
    fileId: Type.Union([Type.String(), Type.Null()]),
    fileName: Type.String(),
    encoding: Type.String(),
    delimiter: Type.String(),
    headerLine: Type.Union([Type.Integer(), Type.Null()], { description: '1-based line of the header row; null: no header row' }),
    columns: Type.Array(Type.Object({
      index: Type.Integer(),
      name: Type.Union([Type.String(), Type.Null()]),
      role: Type.Union([...ROLES.map((r) => Type.Literal(r)), Type.Null()]),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      samples: Type.Array(Type.String()),
    })),
    money: Type.Array(Type.Object({
      index: Type.Integer(),
      name: Type.Union([Type.String(), Type.Null()]),
      basis: Type.Union([Type.Literal('gross'), Type.Literal('net'), Type.Literal('fee'), Type.Literal('unknown')], { description: 'gross: before fees; net: after them (what is owed); fee: a deduction; unknown: the sample does not say' }),
      why: Type.String(),
      wholeNumbers: Type.Boolean({ description: 'Every sample value is a whole number (a count rather than money?)' }),
      perUnit: Type.Optional(Type.Boolean({ description: 'A price per unit: another column is it times the quantity' })),
    }), { description: 'Each money column: gross or net of fees, and why' }),
    currency: Type.Object({
      code: Type.Union([Type.String(), Type.Null()]),
      source: Type.Union([Type.Literal('column'), Type.Literal('header'), Type.Literal('fileName'), Type.Literal('workspace'), Type.Literal('none')], { description: 'Where the currency comes from; workspace and none are guesses to confirm' }),
      why: Type.String(),
    }),
    rowFilters: Type.Array(Type.Object({
      kind: Type.String(), column: Type.Union([Type.String(), Type.Null()]), cell: Type.Integer(), matches: Type.String(),
      action: Type.Union([Type.Literal('skip'), Type.Literal('total'), Type.Literal('deduction')]), rows: Type.Integer(), why: Type.String(),
    }), { description: 'Rows proposed to be skipped (shipping, payouts…) or read as the file\'s own total; also in pattern.rows' }),
    income: Type.Object({
      income: Type.Union([Type.Literal('recording'), Type.Literal('publishing')]),
      why: Type.String(),
      extra: Type.Record(Type.String(), Type.String(), { description: 'Work fields proposed (iswc, workTitle, writers, rightType…) and their columns' }),
    }),
    warnings: Type.Array(Type.String(), { description: 'Guesses and doubts to check before saving' }),
    pattern: Loose('The proposed pattern: correct it, then POST /sources {pattern}'),
    preview: Type.Object({ lines: Type.Array(Loose('A line as it would be stored')), errors: Type.Array(Loose('A line error')), summary: Type.Union([Loose('Read summary'), Type.Null()]), failed: Type.Union([Type.String(), Type.Null()]) }),
    known: Type.Array(Type.Object({ key: Type.String(), score: Type.Number() }), { description: 'Sources Rondo already has whose header fits the sample' }),
  },
);
const ValidateData = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Type.String(), { description: 'Every problem, one sentence each' }),
  warnings: Type.Array(Type.String(), { description: 'Guesses (a currency no part of the sample names) and doubts (amounts that are all whole numbers): the pattern reads the sample, but check these' }),
  fileId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  missingColumns: Type.Optional(Type.Array(Type.Object({ field: Type.String(), column: Type.String() }))),
  unreadable: Type.Optional(Type.Array(Type.Object({ field: Type.String(), column: Type.String(), count: Type.Integer(), examples: Type.Array(Type.Object({ lineNo: Type.Integer(), value: Type.String() })) }))),
  otherErrors: Type.Optional(Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer(), lineNos: Type.Array(Type.Integer()) }))),
  totals: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], { description: 'Exact net per currency the sample would load' })),
  rows: Type.Optional(Type.Union([Type.Object({ read: Type.Integer(), ingested: Type.Integer(), failed: Type.Integer(), skipped: Type.Integer() }), Type.Null()])),
  skipped: Type.Optional(Type.Union([Type.Object({ rows: Type.Integer(), totals: Type.Record(Type.String(), Type.String()) }), Type.Null()], { description: 'Rows skipped by a rule or row kind, and the amounts they held' })),
  deductions: Type.Optional(Type.Union([Type.Object({ rows: Type.Integer(), totals: Type.Record(Type.String(), Type.String()) }), Type.Null()], { description: 'Cost, recharge and fee rows read as deductions (not sales): how many, and the amounts they take off per currency' })),
  expenses: Type.Optional(Type.Union([Type.Object({ rows: Type.Integer(), totals: Type.Record(Type.String(), Type.String()) }), Type.Null()], { description: 'Cost, recharge and fee rows read as expenses (recorded in the ledger when the file is loaded): how many, and their amounts per currency' })),
  control: Type.Optional(Type.Union([Loose('The file\'s own control totals'), Type.Null()])),
  reconciles: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  period: Type.Optional(Type.Union([Loose('Statement period'), Type.Null()])),
  lines: Type.Optional(Type.Array(Loose('A line as it would be stored'))),
});

/**
 * POST /sources/<action> (admin): reads the teaching input (`needSample`: a sample is required)
 * and answers `{status: 'success', message, data}` with what `run` makes of it.
 */
function sampleRoute(
  path: string, summary: string, data: ReturnType<typeof Type.Object>, needSample: boolean,
  run: (input: { pattern: unknown; sample: Sample | null }, args: { svc: AppServices; trx: Trx; tenantId: number }) => Promise<{ message: string; data: unknown }>,
) {
  return route({
    method: 'post', path, summary, access: 'admin', rawBody: true, responses: { 200: ok(data) },
    async handler(args) {
      return { status: 'success', ...(await run(await teachInput(args.svc, args.trx, args.ctx, needSample), args)) };
    },
  });
}

export function registerTeachRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Sources' }, [
    route({
      method: 'get',
      path: '/sources/pattern-schema',
      summary: 'The JSON Schema of a source pattern, with a description and an example for every field',
      access: 'admin',
      responses: { 200: ok(Loose('JSON Schema (draft 7) of a source pattern')) },
      handler: () => ({ status: 'success', message: 'Source pattern schema', data: SourcePatternSchema }),
    }),
    route({
      method: 'get',
      path: '/sources/builtin/:key',
      summary: 'A built-in (global) layout\'s definition, read-only: to see how Rondo reads it, or to derive the workspace\'s own layout from it (POST /sources {pattern}; the workspace\'s own layout with the same key wins over the built-in one)',
      access: 'admin',
      params: Type.Object({ key: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{1,63}$' }) }),
      responses: { 200: ok(Type.Object({
        id: Type.String(), key: Type.String(), name: Type.String(), aggregator: Type.Union([Type.String(), Type.Null()]),
        builtin: Type.Boolean(), version: Type.Integer(), pattern: Loose('The layout\'s definition (a source pattern)'),
      })) },
      async handler({ params, svc: s, trx }) {
        return { status: 'success', message: 'Built-in layout', data: await builtinDefinition(s.db.owner, trx, params.key) };
      },
    }),
    sampleRoute(
      '/sources/draft',
      'Propose a pattern from a sample: JSON {fileId} (a file already uploaded) or multipart "file". Delimiter, encoding, header row, each column\'s role with a confidence, a pattern to correct and save, and the first lines as they would be stored',
      DraftData, true,
      async ({ sample }, { trx, tenantId }) => {
        const data = await draftFromSample(trx, sample!, tenantId);
        return { message: data.warnings.length ? `Draft pattern, with guesses to confirm: ${data.warnings.join('; ')}` : 'Draft pattern', data };
      },
    ),
    sampleRoute(
      '/sources/validate',
      'Validate a pattern: JSON {pattern, fileId?} or multipart "pattern" + "file". With a sample: mapped columns missing from its header, values that cannot be read (counts, examples), other line errors, and the totals, skipped rows and control totals it would load',
      ValidateData, false,
      async ({ pattern, sample }) => {
        if (pattern === undefined) throw new ValidationError('pattern is required', ['body.pattern']);
        const data = await validateOnSample(pattern, sample);
        const checked = data.reconciles === true ? ', and its totals match the file\'s own' : '';
        const message = !data.valid ? 'Invalid' : data.warnings.length ? `Valid, with guesses to confirm: ${data.warnings.join('; ')}` : `Valid${checked}`;
        return { message, data };
      },
    ),
    sampleRoute(
      '/sources/dry-run',
      'Detection scores of a sample against the workspace\'s sources and the first mapped lines of the best (or of the given pattern): JSON {fileId, pattern?} or multipart "file" + "pattern"',
      Loose('fileName, bytesRead, threshold, detection (scores), read (pattern, summary, lines, errors)'), true,
      async ({ pattern, sample }, { svc, tenantId }) => ({ message: 'Dry run', data: await dryRunOnSample(svc, tenantId, sample!, pattern) }),
    ),
  ]);
}

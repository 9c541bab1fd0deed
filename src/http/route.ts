/**
 * Route definitions. Each route declares its access level, its JSON Schemas (validated by
 * ajv, also published as OpenAPI) and one handler. The handler gets validated input, the
 * caller's identity and, for tenant routes, a transaction scoped to the caller's tenant.
 *
 *   defineRoutes(router, svc, { tag: 'Users', errorShape: 'catalogue' }, [ { method, path, ... } ])
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { TSchema, Static } from '@sinclair/typebox';
import { answerProblems, compile, DataAnswer, formatAjvErrors, type RoleName } from './schema';
import { inputProblems } from './limits';
import type { ErrorShape } from './errors';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../lib/errors';
import { withTenant, type Trx } from '../db';
import { bodyParser } from '@koa/bodyparser';
import { losslessJsonBody } from './json-body';
import { fromReferenceNames, withReferenceNames, type ReferenceNames } from './reference-names';

// Bodies are parsed inside each route (not app-wide) so that a malformed body gets the
// route's own error shape, and raw-body routes (uploads, signed webhooks) keep their stream.
const parseBody = bodyParser({
  enableTypes: ['json', 'form'],
  parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  jsonLimit: '20mb',
  encoding: 'utf-8',
  onError: (err: Error) => {
    // V8 quotes the start of the text in a JSON syntax error: never echo a body (it may hold a secret)
    const at = /position (\d+)/.exec(err.message);
    const detail = err instanceof SyntaxError ? `body is not valid JSON${at ? ` (position ${at[1]})` : ''}` : err.message;
    throw new ValidationError('Malformed request body', [detail], 'MALFORMED_BODY');
  },
});
import type { AppServices } from '../services';
import { REFRESH_COOKIE, type AuthContext } from '../lib/identity';
import { missingFeature, type FeatureName } from '../domain/features';
import { sendTable, withFormatParam, type ExportFormat, type ExportTable } from './export';
import { rankOf, ROLE_RANK, seesWorkspace, type Scope } from '../domain/roles';

export type { Access } from './schema';
import type { Access } from './schema';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

type S<T> = T extends TSchema ? Static<T> : undefined;

export interface HandlerArgs<B, Q, P> {
  ctx: Context;
  body: B;
  query: Q;
  params: P;
  auth: AuthContext;
  /** Tenant-scoped transaction (tenant routes only; throws elsewhere). */
  trx: Trx;
  tenantId: number;
  svc: AppServices;
}

export interface RouteDef<BS extends TSchema | undefined = TSchema | undefined, QS extends TSchema | undefined = TSchema | undefined, PS extends TSchema | undefined = TSchema | undefined> {
  method: Method;
  /** koa-router syntax: /user/:id */
  path: string;
  summary: string;
  access: Access;
  /** What a guest or user sees (required when `access` is guest or user; see Scope). */
  scope?: Scope;
  body?: BS;
  query?: QS;
  params?: PS;
  /** Success status (default 200, 201 is common for creates). */
  status?: number;
  /**
   * Response schemas by status: the OpenAPI document and the web app's generated types. Every
   * route declares its success answer (test/http/response-schemas.test.ts); a non-JSON answer
   * declares its media type (FileAnswer), a redirect or empty answer NoBody (./schema). Under
   * tests every JSON answer is checked against it (checkAnswer).
   */
  responses?: Record<number, TSchema>;
  errorShape?: ErrorShape;
  /** Tenant routes run in a tenant transaction by default; streaming routes open their own. */
  noTransaction?: boolean;
  /** Reads made of several statements: the transaction is REPEATABLE READ, so they all see one snapshot. */
  snapshot?: boolean;
  /**
   * Bulk routes: the body's array of items, each checked on its own by the handler (bad
   * items are reported in the answer, docs/errors.md "Bulk routes"). Documents the item schema and lets the
   * input guard leave the items' text to the per-item check.
   */
  items?: { field: string; schema: TSchema };
  /**
   * The reference service's names for this route's fields (src/http/reference-names.ts): taken in
   * the body beside Rondo's, and answered beside them in `data`.
   */
  referenceNames?: ReferenceNames;
  /** Do not parse the body (multipart uploads, raw-body webhooks). */
  rawBody?: boolean;
  description?: string;
  /** A plan feature the tenant must have (src/domain/features.ts): else 403 FEATURE_REQUIRED. */
  feature?: FeatureName;
  /** Left out of the OpenAPI document: a spec route that only refuses, with the reason in docs/decisions.md. */
  undocumented?: true;
  /**
   * The route also answers `?format=csv|xlsx` (src/http/export.ts): the table to stream,
   * built from the same validated input, read in a tenant transaction that lasts until the
   * last row is written. `format` is added to the query schema and taken out of `query`.
   */
  export?: (args: HandlerArgs<S<BS>, S<QS>, S<PS>>) => Promise<Omit<ExportTable, 'format'>> | Omit<ExportTable, 'format'>;
  handler(args: HandlerArgs<S<BS>, S<QS>, S<PS>>): Promise<unknown> | unknown;
}

export interface RegisteredRoute extends RouteDef {
  tag: string;
  koaHandler: (ctx: Context) => Promise<void>;
}

/** Every route ever defined: the OpenAPI document is built from this list. */
export const routeRegistry: RegisteredRoute[] = [];

/** Helper so each route keeps its own schema types. */
export function route<BS extends TSchema | undefined = undefined, QS extends TSchema | undefined = undefined, PS extends TSchema | undefined = undefined>(
  def: RouteDef<BS, QS, PS>,
): RouteDef {
  return def as unknown as RouteDef;
}

/**
 * A route that is one service call: it answers `{success: true, message?, data}`, `data` being
 * what `run` returns and `message` a fixed text. `data`, the schema of what `run` returns, is
 * documented as the answer under the route's status (no `data`: the route documents none).
 */
export function dataRoute<BS extends TSchema | undefined = undefined, QS extends TSchema | undefined = undefined, PS extends TSchema | undefined = undefined>(
  def: Omit<RouteDef<BS, QS, PS>, 'handler' | 'responses'> & { message?: string; data?: TSchema; run(args: HandlerArgs<S<BS>, S<QS>, S<PS>>): Promise<unknown> },
): RouteDef {
  const { message, data, run, ...rest } = def;
  return route({
    ...rest,
    ...(data ? { responses: { [def.status ?? 200]: DataAnswer(data, message !== undefined) } } : {}),
    async handler(args: HandlerArgs<S<BS>, S<QS>, S<PS>>) {
      return { success: true, ...(message === undefined ? {} : { message }), data: await run(args) };
    },
  } as RouteDef<BS, QS, PS>);
}

/** Problems of one part of the request (params, query or body): the input guard, then the schema. */
function problemsOf(schema: TSchema | undefined, value: unknown, kind: 'body' | 'query', where: string, skip?: string): string[] {
  // Before any schema: what no column can hold (NUL, unpaired surrogates) and nesting past MAX_DEPTH.
  const guard = inputProblems(value, where, { skip });
  if (guard.length || !schema) return guard;
  const v = compile(schema, kind);
  return v(value) ? [] : formatAjvErrors(where, v.errors);
}

/**
 * The query parameters a query schema declares: the properties of an object schema (of each
 * branch of a union or intersection). Nothing else is accepted (see unknownQueryProblems).
 */
export function declaredQueryParams(schema: TSchema | undefined): Set<string> {
  const names = new Set<string>();
  const walk = (s: unknown) => {
    const node = s as { properties?: Record<string, unknown>; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] } | undefined;
    if (!node) return;
    for (const k of Object.keys(node.properties ?? {})) names.add(k);
    for (const b of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) walk(b);
  };
  walk(schema);
  return names;
}

/**
 * No silent no-ops: a query parameter the route does not declare is refused (400, naming it),
 * never ignored. A route without a query schema takes no query parameters at all.
 */
function unknownQueryProblems(declared: Set<string>, query: Record<string, unknown>): string[] {
  const named = (k: string) => (k.length > 100 ? `${Array.from(k).slice(0, 100).join("")}…` : k);
  return Object.keys(query).filter((k) => !declared.has(k)).map((k) => `query.${named(k)}: unknown parameter`);
}

/**
 * A list answer (`data` an array beside `pagination: {page, size, total}`) also answers
 * `totalItems`, `totalPages` and `currentPage` (PageTotals in ./schema); any other answer is
 * left as it is.
 */
export function withPageTotals(result: unknown): unknown {
  if (!result || typeof result !== 'object' || Array.isArray(result)) return result;
  const r = result as { data?: unknown; pagination?: { page?: unknown; size?: unknown; total?: unknown } };
  const p = r.pagination;
  if (!Array.isArray(r.data) || !p || typeof p.page !== 'number' || typeof p.size !== 'number' || typeof p.total !== 'number') return result;
  if ('totalItems' in r || 'totalPages' in r || 'currentPage' in r) return result;
  const totalPages = p.size > 0 ? Math.ceil(p.total / p.size) : p.total > 0 ? 1 : 0;
  return { ...r, totalItems: p.total, totalPages, currentPage: p.page };
}

/**
 * Tests (RONDO_CHECK_RESPONSES=1, set by test/setup.ts) check every JSON answer of a success
 * status against the schema the route declares for it, as it is sent (JSON text): an answer
 * its declaration does not describe is a 500 naming what differs, printed on stderr.
 */
export function checkAnswer(def: Pick<RouteDef, 'method' | 'path' | 'responses'>, ctx: Pick<Context, 'status' | 'body'>): void {
  if (process.env.RONDO_CHECK_RESPONSES !== '1' || ctx.status >= 400) return;
  const body = ctx.body as unknown;
  const json = body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
  const schema = def.responses?.[ctx.status];
  const where = `${def.method.toUpperCase()} ${def.path} (${ctx.status})`;
  let problems: string[] = [];
  if (!schema) problems = [`declares no response schema for status ${ctx.status}`];
  else if (json) {
    if ((schema as { contentMediaType?: string }).contentMediaType) problems = ['answered JSON but declares a file answer'];
    else problems = answerProblems(schema, JSON.parse(JSON.stringify(body)));
  }
  if (!problems.length) return;
  const message = `Answer differs from the declared response schema of ${where}: ${problems.slice(0, 10).join('; ')}`;
  console.error(message);
  throw new Error(message);
}

/** Roles below admin: a route open to them declares what they see. */
const BELOW_ADMIN = new Set<Access>(['guest', 'user']);

export function defineRoutes(router: Router, svc: AppServices, group: { tag: string; errorShape?: ErrorShape; scope?: Scope }, defs: RouteDef[]): void {
  for (const d of defs) {
    const scope = BELOW_ADMIN.has(d.access) ? d.scope ?? group.scope : undefined;
    if (BELOW_ADMIN.has(d.access) && !scope) throw new Error(`${d.method.toUpperCase()} ${d.path} is open to ${d.access}s but declares no scope (own or workspace)`);
    const def: RouteDef = { ...d, scope };
    const shape = def.errorShape ?? group.errorShape ?? 'status';
    const paramSchema = def.params;
    const querySchema = def.export ? withFormatParam(def.query) : def.query;
    const declaredQuery = declaredQueryParams(querySchema);
    const koaHandler = async (ctx: Context) => {
      ctx.state.errorShape = shape;
      const auth = await svc.auth.authenticate({ authorization: ctx.get('authorization'), refreshCookie: ctx.cookies.get(REFRESH_COOKIE), workspaceHeader: ctx.get('x-workspace-id') }, def.access);
      ctx.state.auth = auth;
      // Who may call comes before what they sent: a guest gets 403, not a lesson in the schema.
      const tenantRoute = def.access in ROLE_RANK && def.access !== 'super_admin';
      if (tenantRoute) {
        if (auth.tenantId == null) throw new ForbiddenError('This route needs a workspace');
        if (rankOf(auth) < ROLE_RANK[def.access as RoleName]) {
          throw new ForbiddenError(`This action needs the ${def.access} role or higher`, 'INSUFFICIENT_ROLE');
        }
      } else if (def.access === 'super_admin' && !auth.isSuperAdmin) {
        throw new ForbiddenError('Super-admin access required', 'SUPER_ADMIN_REQUIRED');
      }
      // Read-only impersonation (POST /godmin/impersonate) reads, never writes.
      if (auth.readOnly && def.method !== 'get') throw new ForbiddenError('This session is a read-only impersonation', 'READ_ONLY_SESSION');
      if (def.feature && tenantRoute) {
        const missing = await missingFeature(svc.db.owner, auth.tenantId!, def.feature);
        if (missing) {
          ctx.state.errorShape = 'catalogue'; // FEATURE_REQUIRED has one shape wherever it happens
          throw missing;
        }
      }
      if (!def.rawBody && def.method !== 'get') {
        await parseBody(ctx, async () => undefined);
        losslessJsonBody(ctx); // numbers kept exactly as written (json-body.ts)
      }
      // Every part is checked and every problem named in one answer.
      const params = { ...ctx.params };
      const query = { ...ctx.query };
      const problems = [...problemsOf(paramSchema, params, 'query', 'params'), ...unknownQueryProblems(declaredQuery, query), ...problemsOf(querySchema, query, 'query', 'query')];
      const format = (def.export ? (query as { format?: ExportFormat }).format ?? 'json' : 'json');
      if (def.export) delete (query as { format?: string }).format;
      let body: unknown = undefined;
      if (!def.rawBody && def.method !== 'get' && def.method !== 'delete') {
        body = (ctx.request as unknown as { body?: unknown }).body;
        if (def.body && (body === undefined || body === null)) body = {};
        if (def.referenceNames) {
          const named = fromReferenceNames(body, def.referenceNames);
          body = named.body;
          problems.push(...named.problems);
        }
        problems.push(...problemsOf(def.body, body, 'body', 'body', def.items ? `body.${def.items.field}` : undefined));
      } else if (!def.rawBody && def.method === 'delete') {
        body = (ctx.request as unknown as { body?: unknown }).body ?? {};
        problems.push(...problemsOf(def.body, body, 'body', 'body'));
        if (!def.body) body = undefined;
      }
      if (problems.length) throw new ValidationError('Invalid request', problems);
      const run = async (trx: Trx | null) => {
        const args = {
          ctx,
          body,
          query,
          params,
          auth,
          get trx(): Trx {
            if (!trx) throw new Error(`route ${def.method.toUpperCase()} ${def.path} has no tenant transaction`);
            return trx;
          },
          get tenantId(): number {
            if (auth.tenantId == null) throw new UnauthorizedError('No workspace selected');
            return auth.tenantId;
          },
          svc,
        } as HandlerArgs<unknown, unknown, unknown>;
        if (format !== 'json' && def.export) {
          const table = await def.export(args as never);
          await sendTable(ctx, { ...table, format, onError: (err) => svc.log.warn({ err, route: def.path }, 'export cut short') });
          return;
        }
        const result = await def.handler(args as never);
        if (result !== undefined) {
          ctx.status = def.status ?? 200;
          ctx.body = withPageTotals(def.referenceNames ? withReferenceNames(result, def.referenceNames) : result);
        }
      };
      if (tenantRoute && !def.noTransaction) await withTenant(svc.db.app, auth.tenantId!, (trx) => run(trx), { snapshot: def.snapshot });
      else await run(null);
      checkAnswer(def, ctx);
    };
    routeRegistry.push({ ...def, query: querySchema, errorShape: shape, tag: group.tag, koaHandler });
    router[def.method](def.path, koaHandler);
  }
}

/**
 * `defs` where each route whose path names a resource first checks that the caller may see
 * it: `check` gets the path and its parameters and throws (a 404 as if absent, or a 403) for
 * what is not theirs. An area's rule for its `own` resource routes, written once; it runs
 * after the role and input checks, for members below admin only (admins and owners see the
 * whole workspace), in the route's tenant transaction (or its own, for a route that opens none).
 */
export function checkingOwnership(defs: RouteDef[], check: (trx: Trx, auth: AuthContext, path: string, params: Record<string, string>) => Promise<void>): RouteDef[] {
  return defs.map((d) => {
    if (!d.path.includes(':')) return d;
    const first = async (args: HandlerArgs<unknown, unknown, unknown>) => {
      if (seesWorkspace(args.auth)) return;
      const params = args.params as Record<string, string>;
      if (d.noTransaction) await withTenant(args.svc.db.app, args.tenantId, (trx) => check(trx, args.auth, d.path, params));
      else await check(args.trx, args.auth, d.path, params);
    };
    const { handler, export: exportTable } = d;
    return {
      ...d,
      async handler(args: HandlerArgs<unknown, unknown, unknown>) {
        await first(args);
        return handler(args as never);
      },
      ...(exportTable
        ? {
            async export(args: HandlerArgs<unknown, unknown, unknown>) {
              await first(args);
              return exportTable(args as never);
            },
          }
        : {}),
    };
  });
}

/**
 * The spec names some collections with a trailing slash (/expense/) and some without
 * (/asset); clients use both. Each route also answers at its other spelling unless that
 * spelling is a route of its own (GET /user is "me", GET /user/ is the member list).
 */
export function addSlashAliases(router: Router): void {
  const taken = new Set(routeRegistry.map((r) => `${r.method} ${r.path}`));
  for (const r of [...routeRegistry]) {
    const alt = r.path.endsWith('/') ? r.path.slice(0, -1) : `${r.path}/`;
    if (!alt || taken.has(`${r.method} ${alt}`)) continue;
    taken.add(`${r.method} ${alt}`);
    router[r.method](alt, r.koaHandler);
  }
}

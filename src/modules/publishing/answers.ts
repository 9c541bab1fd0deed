/**
 * What the publishing routes share: the plan gate, the documented answers and the four plain
 * routes of a record (create, paged list, one, change) that agreements, registrations and
 * claims each have, with the area's own routes placed between them by the caller.
 */
import { IdParams, ok, pagedList } from '../../http/crud';
import { route, type RouteDef } from '../../http/route';
import { Pagination, StatusError, Type, type TSchema } from '../../http/schema';
import type { Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';

export const gate = { feature: 'publishing' as const };
/** The `{status: "error", message}` answers of the publishing routes. */
export const statusErrs = { 400: StatusError, 401: StatusError, 403: StatusError, 404: StatusError, 500: StatusError };
/** `{status: 'success', message, data}` */
export const one = (data: TSchema) => Type.Object({ status: Type.Literal('success'), message: Type.String(), data });
/** `{success: true, message, data: [...], pagination}` */
export const many = (data: TSchema) => Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(data), pagination: Pagination });

export interface RecordArea {
  /** 'Registration': the messages ('Registration created', 'Registrations', …) and summaries. */
  noun: string;
  /** '/registrations' */
  path: string;
  view: TSchema;
  /** The error answers of the area. */
  errs: Record<number, TSchema>;
  create: { summary: string; body: TSchema; run(trx: Trx, auth: AuthContext, body: never): Promise<unknown> };
  list: { query: TSchema; run(trx: Trx, q: never): Promise<{ data: unknown[]; total: number }> };
  get(trx: Trx, id: string): Promise<unknown>;
  /** PUT {path}/:id, when the record can be changed. */
  update?: { summary: string; body: TSchema; run(trx: Trx, id: string, patch: never): Promise<unknown> };
  /** PATCH {path}/:id/status `{status, note?}`, when the record moves between states. */
  status?: { summary: string; body: TSchema; run(trx: Trx, id: string, status: never, note?: never): Promise<unknown> };
  /** The area's own routes on fixed paths (defined before `{path}/:id`) and on one record (after it). */
  extra?: RouteDef[];
  extraById?: RouteDef[];
}

/**
 * POST {path} (admin) → 201, GET {path} (members, paged), the area's fixed-path routes,
 * GET {path}/:id (members), then when given PUT {path}/:id and PATCH {path}/:id/status
 * (admin) and the area's routes on one record: all behind the publishing feature.
 */
export function recordRoutes(a: RecordArea): RouteDef[] {
  const { noun, path, view, errs, update, status } = a;
  const lower = noun.toLowerCase();
  const answers = { 200: one(view), ...errs };
  return [
    route({ method: 'post', path, summary: a.create.summary, access: 'admin', ...gate, body: a.create.body, status: 201, responses: { 201: one(view), ...errs },
      async handler({ trx, auth, body }) {
        return ok(`${noun} created`, await a.create.run(trx, auth, body as never));
      } }),
    route({ method: 'get', path, summary: `List ${lower}s (paged)`, access: 'admin', ...gate, query: a.list.query, responses: { 200: many(view), ...errs },
      async handler({ trx, query }) {
        const q = query as { page?: number; size?: number };
        return pagedList(`${noun}s`, q, (page, size) => a.list.run(trx, { ...q, page, size } as never));
      } }),
    ...(a.extra ?? []),
    route({ method: 'get', path: `${path}/:id`, summary: `One ${lower}`, access: 'admin', ...gate, params: IdParams, responses: answers,
      async handler({ trx, params }) {
        return ok(noun, await a.get(trx, params.id));
      } }),
    ...(update ? [route({ method: 'put', path: `${path}/:id`, summary: update.summary, access: 'admin', ...gate, params: IdParams, body: update.body, responses: answers,
      async handler({ trx, params, body }) {
        return ok(`${noun} updated`, await update.run(trx, params.id, body as never));
      } })] : []),
    ...(status ? [route({ method: 'patch', path: `${path}/:id/status`, summary: status.summary, access: 'admin', ...gate, params: IdParams, body: status.body, responses: answers,
      async handler({ trx, params, body }) {
        const b = body as { status: never; note?: never };
        return ok(`${noun} status updated`, await status.run(trx, params.id, b.status, b.note));
      } })] : []),
    ...(a.extraById ?? []),
  ];
}

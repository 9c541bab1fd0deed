/**
 * One route factory for areas that repeat the same resource routes (the money areas:
 * payments, payment requests, payment settings, expenses, revenues). Given an area's
 * service object, schemas, path and role levels it defines, with defineRoutes:
 *
 *   POST {base}/bulk/delete   {ids} → {message, processedCount, failedDeletions}   write role
 *   POST {path}               create → 201 {status, message, data}                 write role
 *   GET  {path}               paged list {success, message, data, pagination}      read role
 *   GET  {base}/:id           one record; 404 when absent or another workspace's   read role
 *   PUT  {base}/:id           update → {status, message, data}                     write role
 *   DELETE {base}/:id         delete → {status, message, data: null}               write role (when the area has `remove`)
 *
 * and, when the area's service has them:
 *
 *   GET  {base}/summary       {message: '<Noun> summary', summary}: tenant-wide for admins, own for members   read role
 *   POST {base}/bulk          {<key>: [items]} → each item validated on its own; {message, created…, errors}  write role
 *
 * `{path}` is the collection path as the spec spells it (`/expense/`, `/payment-setting`),
 * `{base}` the same without a trailing slash. The area's own routes (approve/decline) go
 * in `extra`. Summary and extra routes are defined first, so their fixed paths win over
 * `/:id`. Handlers stay thin: parsed input and the caller's identity go to one
 * service call, whose answer is shaped here.
 */
import type Router from '@koa/router';
import { defineRoutes, route, type RouteDef } from './route';
import { ownOnly, type Scope } from '../domain/roles';
import { itemProblems, PagedAnswer, StatusAnswer, Strict, Type, Uuid, type RoleName, type TSchema } from './schema';
import type { ErrorShape } from './errors';
import type { Trx } from '../db';
import type { AppServices } from '../services';
import type { AuthContext } from '../lib/identity';

export const IdParams = Type.Object({ id: Uuid });
export const Ids = Strict({ ids: Type.Array(Uuid, { minItems: 1, maxItems: 1000 }) });

/** `{status: 'success', message, data}`: the answer of one record. */
export const ok = (message: string, data: unknown) => ({ status: 'success', message, data });

/** Standard paged list answer. */
export function paged<T>(message: string, data: T[], page: number, size: number, total: number) {
  return { success: true, message, data, pagination: { page, size, total } };
}

/** A paged list answer (page 1, size 20 unless asked). */
export async function pagedList(
  message: string, query: { page?: number; size?: number }, fetch: (page: number, size: number) => Promise<{ data: unknown[]; total: number }>,
) {
  const page = query.page ?? 1;
  const size = query.size ?? 20;
  const r = await fetch(page, size);
  return paged(message, r.data, page, size, r.total);
}

/** The answer of POST {base}/bulk/delete. */
export const BulkDeleteAnswer = Type.Object({ message: Type.String(), processedCount: Type.Integer(), failedDeletions: Type.Array(Type.Object({ id: Type.String(), error: Type.String() })) });

export interface BulkDeleteResult {
  message: string;
  processedCount: number;
  failedDeletions: { id: string; error: string }[];
}

/** What the factory calls. Every function gets the tenant transaction and the caller; it scopes and throws NotFoundError itself. */
export interface CrudService<L = Record<string, unknown>, C = unknown, U = unknown> {
  list(trx: Trx, auth: AuthContext, query: L & { page: number; size: number }): Promise<{ data: unknown[]; total: number }>;
  get(trx: Trx, auth: AuthContext, id: string): Promise<unknown>;
  create(trx: Trx, auth: AuthContext, input: C): Promise<unknown>;
  update(trx: Trx, auth: AuthContext, id: string, patch: U): Promise<unknown>;
  /** Absent when the area has no DELETE /{id} (expenses). */
  remove?(trx: Trx, auth: AuthContext, id: string): Promise<void>;
  bulkRemove(trx: Trx, auth: AuthContext, ids: string[]): Promise<BulkDeleteResult>;
  /** GET {base}/summary: `payee` null for admins (the whole workspace), else the caller. */
  summary?(trx: Trx, payee: string | null): Promise<unknown>;
  /** POST {base}/bulk: the schema-valid items with their index, and how many were sent. */
  bulkCreate?(trx: Trx, auth: AuthContext, valid: { i: number; item: C }[], total: number): Promise<{ errors: string[] }>;
}

export interface CrudArea {
  /** 'Payment request': the OpenAPI tag, the messages ('Payment request', '… created', '… updated', '… deleted', '… summary') and, with an s, the list message. */
  noun: string;
  /** Collection path as the spec spells it: '/expense/', '/payment-setting'. */
  path: string;
  /** Role needed to read (list, get, summary) and to write (create, update, delete, bulk routes). */
  access: { read: RoleName; write: RoleName };
  /**
   * What members below admin see of the area's routes open to them (default `own`: the
   * service narrows every read and write to the caller's own records).
   */
  scope?: Scope;
  /** What every route of the area should say about it (OpenAPI description): scoping, side effects. */
  about: string;
  schemas: { list: TSchema; create: TSchema; update: TSchema };
  service: CrudService<any, any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Bulk create: the body's array property ('expenses') and the schema of one item. */
  bulk?: { key: string; item: TSchema };
  /** Error shape of the area (default 'status') and of its bulk routes (default 'catalogue'). */
  errorShape?: ErrorShape;
  bulkErrorShape?: ErrorShape;
  /** The area's own routes, defined before the generated ones but after the summary. */
  extra?: RouteDef[];
  /**
   * What the generated routes answer (their response schemas): `view` one record (create, list
   * items, get, update), `summary` the summary's figures, `bulk` the bulk create's answer.
   */
  answers?: { view: TSchema; summary?: TSchema; bulk?: TSchema };
}

export function crudRoutes(area: CrudArea): RouteDef[] {
  const { service: s, noun, access, schemas, about: description } = area;
  const base = area.path.replace(/\/$/, '');
  const one = noun.toLowerCase();
  const many = `${one}s`;
  const bulkShape = area.bulkErrorShape ?? 'catalogue';
  const scope = ownOnly;
  const a = /^[aeiou]/.test(one) ? `an ${one}` : `a ${one}`;
  const summary = s.summary?.bind(s);
  const createMany = s.bulkCreate?.bind(s);
  const remove = s.remove?.bind(s);
  const defs: RouteDef[] = [];
  if (summary) {
    defs.push(route({ method: 'get', path: `${base}/summary`, summary: `Counts and totals of ${many}: the whole workspace for admins, their own for members`, description, access: access.read,
      async handler({ trx, auth }) {
        return { message: `${noun} summary`, summary: await summary(trx, scope(auth)) };
      } }));
  }
  defs.push(...(area.extra ?? []));
  if (createMany && area.bulk) {
    const { key, item } = area.bulk;
    const body = Strict({ [key]: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 1000 }) });
    defs.push(route({ method: 'post', path: `${base}/bulk`, summary: `Create many ${many}: each invalid item is reported in errors, the others are created`, description, access: access.write, errorShape: bulkShape, body, items: { field: key, schema: item },
      async handler({ trx, auth, body }) {
        const items = (body as Record<string, unknown[]>)[key]!;
        return bulkCreate(item, items, key, (valid) => createMany(trx, auth, valid, items.length));
      } }));
  }
  defs.push(
    route({ method: 'post', path: `${base}/bulk/delete`, summary: `Delete ${many} by id; each id not deleted is named in failedDeletions`, description, access: access.write, errorShape: bulkShape, body: Ids,
      async handler({ trx, auth, body }) {
        return s.bulkRemove(trx, auth, body.ids);
      } }),
    route({ method: 'post', path: area.path, summary: `Create ${a}`, description, access: access.write, status: 201, body: schemas.create,
      async handler({ trx, auth, body }) {
        return ok(`${noun} created`, await s.create(trx, auth, body));
      } }),
    route({ method: 'get', path: area.path, summary: `List ${many} (paged)`, description, access: access.read, query: schemas.list,
      async handler({ trx, auth, query }) {
        const q = query as { page?: number; size?: number };
        return pagedList(`${noun}s`, q, (page, size) => s.list(trx, auth, { ...q, page, size }));
      } }),
    route({ method: 'get', path: `${base}/:id`, summary: `One ${one}`, description, access: access.read, params: IdParams,
      async handler({ trx, auth, params }) {
        return ok(noun, await s.get(trx, auth, params.id));
      } }),
    route({ method: 'put', path: `${base}/:id`, summary: `Change ${a}`, description, access: access.write, params: IdParams, body: schemas.update,
      async handler({ trx, auth, params, body }) {
        return ok(`${noun} updated`, await s.update(trx, auth, params.id, body));
      } }),
  );
  if (remove) {
    defs.push(route({ method: 'delete', path: `${base}/:id`, summary: `Delete ${a}`, description, access: access.write, params: IdParams,
      async handler({ trx, auth, params }) {
        await remove(trx, auth, params.id);
        return ok(`${noun} deleted`, null);
      } }));
  }
  const answers = area.answers;
  const own = new Set(area.extra ?? []);
  const answerOf = (d: RouteDef): TSchema | undefined => {
    if (!answers || own.has(d)) return undefined;
    if (d.path === `${base}/summary`) return answers.summary && Type.Object({ message: Type.String(), summary: answers.summary });
    if (d.path === `${base}/bulk`) return answers.bulk;
    if (d.path === `${base}/bulk/delete`) return BulkDeleteAnswer;
    if (d.method === 'get' && d.path === area.path) return PagedAnswer(answers.view);
    if (d.method === 'delete') return StatusAnswer(Type.Null());
    return StatusAnswer(answers.view);
  };
  return defs.map((d) => {
    const answer = d.responses ? undefined : answerOf(d);
    return { ...d, scope: d.scope ?? area.scope ?? 'own', ...(answer ? { responses: { [d.status ?? 200]: answer } } : {}) };
  });
}

/** Defines an area's routes: summary and its own routes first, then bulk create and the resource routes. */
export function defineCrudRoutes(router: Router, svc: AppServices, area: CrudArea): void {
  defineRoutes(router, svc, { tag: area.noun, errorShape: area.errorShape ?? 'status' }, crudRoutes(area));
}

/**
 * Bulk create: each item validated on its own against `schema` (a bad item is reported as
 * `name[i]: …`, the others go on), the valid ones handed to `create`; every error, the
 * schema's and the service's, in item order.
 */
export async function bulkCreate<T, R extends { errors: string[] }>(
  schema: TSchema, items: unknown[], name: string, create: (valid: { i: number; item: T }[]) => Promise<R>,
): Promise<R> {
  const valid: { i: number; item: T }[] = [];
  const errors: string[] = [];
  items.forEach((item, i) => {
    const problems = itemProblems(schema, item, `${name}[${i}]`);
    if (!problems.length) valid.push({ i, item: item as T });
    else errors.push(...problems);
  });
  const r = await create(valid);
  const at = (e: string) => Number(/\[(\d+)\]/.exec(e)?.[1]);
  return { ...r, errors: [...errors, ...r.errors].sort((x, y) => at(x) - at(y)) };
}

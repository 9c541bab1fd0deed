/**
 * JSON Schema plumbing: TypeBox builds each schema once; the same object gives the ajv
 * validator (compiled once, at load), the TypeScript type and the OpenAPI component.
 */
import { Type, type TSchema, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Ajv, type ValidateFunction, type ErrorObject } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { addInputRules, FORMAT_TEXT, inputProblems } from './limits';
import type { RoleName } from '../lib/identity';

export { Type };
export type { TSchema, Static, TProperties };
export { Money, Share, Percent, Rate, DateIn, DateTimeIn, MonthIn, MonthOrDateIn, CurrencyCode, Text, Int32, IdInt, DATE_RANGE } from './limits';

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

/** Bodies: no coercion, unknown properties rejected by the schemas themselves. */
export const bodyAjv = addInputRules(addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true })));
/** Query strings and path params arrive as strings: coerce to the declared types. */
export const queryAjv = addInputRules(addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: 'array' })));

const cache = new WeakMap<object, ValidateFunction>();
export function compile(schema: TSchema, kind: 'body' | 'query'): ValidateFunction {
  const hit = cache.get(schema);
  if (hit) return hit;
  const v = (kind === 'body' ? bodyAjv : queryAjv).compile(schema);
  cache.set(schema, v);
  return v;
}

export function formatAjvErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const at = `${where}${e.instancePath.replace(/\//g, '.')}`;
    if (e.keyword === 'additionalProperties') return `${at} has unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    if (e.keyword === 'required') return `${at} must have property "${(e.params as { missingProperty: string }).missingProperty}"`;
    if (e.keyword === 'format') {
      const text = FORMAT_TEXT[(e.params as { format: string }).format];
      if (text) return `${at} ${text}`;
    }
    return `${at} ${e.message ?? 'is invalid'}`;
  });
}

/**
 * One item of a bulk request, checked on its own (docs/errors.md, "Bulk routes": bad items are reported in
 * the answer, the others go on): the input guard, then the schema. Empty when fine.
 */
export function itemProblems(schema: TSchema, item: unknown, where: string): string[] {
  const guard = inputProblems(item, where);
  if (guard.length) return guard;
  const v = compile(schema, 'body');
  return v(item) ? [] : formatAjvErrors(where, v.errors);
}

/** Object schema that rejects unknown properties (the default for request bodies). */
export function Strict<T extends TProperties>(props: T, opts: Record<string, unknown> = {}): TObject<T> {
  return Type.Object(props, { additionalProperties: false, ...opts });
}

export const Uuid = Type.String({ format: 'uuid' });
export const Email = Type.String({ format: 'email', maxLength: 320 });
export const Role = Type.Union([Type.Literal('guest'), Type.Literal('user'), Type.Literal('admin'), Type.Literal('owner')]);
export type { Access, RoleName } from '../lib/identity';
/** Role lists exactly the roles of lib/identity (a compile-time check). */
const ROLE_SCHEMA_MATCHES: [Static<typeof Role>] extends [RoleName] ? ([RoleName] extends [Static<typeof Role>] ? true : never) : never = true;
void ROLE_SCHEMA_MATCHES;

/** Paging query shared by every list (documented once in the README). */
export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20 })),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  sort: Type.Optional(Type.String({ maxLength: 64 })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
};

export const Pagination = Type.Object({ page: Type.Integer(), size: Type.Integer(), total: Type.Integer() }, { $id: 'Pagination' });

/**
 * Beside `data` and `pagination` on every list answer, the names the reference service's clients
 * read: `totalItems` (= pagination.total), `totalPages` (0 for an empty list), `currentPage`
 * (= pagination.page). Added by the route layer (withPageTotals in ./route), documented by openapi.ts.
 */
export const PageTotals = {
  totalItems: Type.Integer({ minimum: 0, description: 'Items over all pages (pagination.total)', examples: [1] }),
  totalPages: Type.Integer({ minimum: 0, description: 'Pages of this size (0 when there is no item)', examples: [1] }),
  currentPage: Type.Integer({ minimum: 1, description: 'This page (pagination.page)', examples: [1] }),
};

export const CatalogueError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({ code: Type.String(), message: Type.String(), details: Type.Array(Type.String()) }),
  },
  { $id: 'CatalogueError' },
);
/** `{success: true, data}` (`{success: true, message, data}` with a message): the schema of a data answer (see dataRoute in ./route). */
export const DataAnswer = <T extends TSchema>(data: T, withMessage = false) =>
  Type.Object({ success: Type.Literal(true), ...(withMessage ? { message: Type.String() } : {}), data });

/** `{status: 'success', message, data}`: one record (crud.ts `ok`). */
export const StatusAnswer = <T extends TSchema>(data: T) => Type.Object({ status: Type.Literal('success'), message: Type.String(), data });
/** `{success: true, message, data: [...], pagination}`: a page of a list (crud.ts `paged`; the route layer adds the page totals). */
export const PagedAnswer = <T extends TSchema>(item: T) => Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(item), pagination: Pagination });
/** An object whose other properties are left undescribed (free-form settings, figures keyed by the data). */
export const OpenObject = <T extends TProperties>(props: T, description?: string) => Type.Object(props, { additionalProperties: true, ...(description ? { description } : {}) });

/**
 * A success answer that is not JSON (CSV, XLSX, PDF, zip, HTML, an event stream): its media type
 * is what the OpenAPI document declares for it (openapi.ts reads `contentMediaType`).
 */
export const FileAnswer = (mediaType: string, description: string) => Type.String({ contentMediaType: mediaType, format: 'binary', description });
/**
 * A JSON answer that the same status also gives as a file (`?format=csv|pdf|xlsx`): the JSON
 * schema, with each other media type and what it holds (openapi.ts documents them beside it).
 */
export const OrFile = <T extends TSchema>(json: T, files: Record<string, string>) => ({ ...json, 'x-files': files }) as T;
/** A success answer without a body (a redirect, 204): documented with its description only. */
export const NoBody = (description: string) => Type.Unsafe<undefined>({ 'x-no-body': true, description });

/** Answers are checked as sent (JSON text), with no coercion or defaults: see checkAnswer in ./route. */
export const responseAjv = addFormats(new Ajv({ allErrors: true, strict: false }));
const answerCache = new WeakMap<object, ValidateFunction>();
/** What `body` (a JSON answer) breaks of `schema`: empty when it conforms. */
export function answerProblems(schema: TSchema, body: unknown): string[] {
  let v = answerCache.get(schema);
  // a shared component ($id Pagination…) may appear more than once in an answer: compiled without ids
  const withoutIds = (n: unknown): unknown =>
    Array.isArray(n) ? n.map(withoutIds) : n && typeof n === 'object' ? Object.fromEntries(Object.entries(n).filter(([k]) => k !== '$id').map(([k, x]) => [k, withoutIds(x)])) : n;
  if (!v) answerCache.set(schema, (v = responseAjv.compile(withoutIds(schema) as TSchema)));
  return v(body) ? [] : formatAjvErrors('answer', v.errors);
}

export const StatusError = Type.Object({ status: Type.Literal('error'), message: Type.String(), code: Type.String({ examples: ['PERIOD_CLOSED'] }), details: Type.Optional(Type.Array(Type.String())) }, { $id: 'StatusError' });

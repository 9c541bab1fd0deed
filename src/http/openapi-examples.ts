/**
 * Examples for the OpenAPI document, derived from the route definitions so that a route
 * added later gets them without writing any: request bodies, query and path parameters and
 * success bodies are sampled from their JSON Schemas (TypeBox `examples`/`default` win when
 * a schema has them); error bodies are built by the same function the error middleware uses.
 */
import { sample } from 'openapi-sampler';
import type { RegisteredRoute } from './route';
import { errorBody, type ErrorShape } from './errors';

/** Sample one schema; `refs` resolves `$ref`s into the document's components. */
export function exampleOf(schema: unknown, refs: object = {}): unknown {
  return sample((schema ?? {}) as Parameters<typeof sample>[0], { quiet: true, skipReadOnly: true, maxSampleDepth: 6 }, refs);
}

/** What each error status means on every route, as the middleware would answer it. */
const ERRORS: Record<string, { code: string; message: string; details: string[] }> = {
  '400': { code: 'VALIDATION_ERROR', message: 'Invalid request', details: ['body.name: must NOT have fewer than 1 characters'] },
  '401': { code: 'UNAUTHORIZED', message: 'Unauthorized', details: [] },
  '403': { code: 'INSUFFICIENT_ROLE', message: 'This action needs the admin role or higher', details: [] },
  '404': { code: 'NOT_FOUND', message: 'Resource not found', details: [] },
  '429': { code: 'RATE_LIMITED', message: 'Too many requests', details: [] },
  '500': { code: 'INTERNAL', message: 'Internal server error', details: ['requestId: 6f1c2a9e-3b7d-4e52-9a0f-1d2c3b4a5e6f'] },
};

export function errorExample(shape: ErrorShape, status: string): unknown {
  const e = ERRORS[status] ?? { code: 'ERROR', message: 'Request failed', details: [] };
  return errorBody(shape, Number(status), e.code, e.message, e.details);
}

/** Routes whose success body has no schema yet: the area's envelope, with a sampled page for lists. */
export function envelopeSchema(r: RegisteredRoute): Record<string, unknown> {
  const q = (r.query as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const paged = r.method === 'get' && 'page' in q;
  const data = paged ? { type: 'array', items: { type: 'object', additionalProperties: true } } : { type: 'object', additionalProperties: true };
  const message = { type: 'string', examples: [r.summary.split(/[.:(]/)[0]!.trim()] };
  const props: Record<string, unknown> =
    r.errorShape === 'catalogue'
      ? { success: { type: 'boolean', const: true }, message, data }
      : { status: { type: 'string', const: 'success' }, message, data };
  if (paged) props.pagination = { $ref: '#/components/schemas/Pagination', examples: [{ page: 1, size: 20, total: 1 }] };
  return { type: 'object', description: 'The success envelope of this area; `data` is not described in detail yet.', properties: props };
}

/** Raw-body routes (uploads, signed webhooks) take no JSON Schema: what they read instead. */
export function rawRequestBody(r: RegisteredRoute): Record<string, unknown> {
  if (/multipart/i.test(`${r.summary} ${r.description ?? ''}`)) {
    const schema = { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] };
    return { required: true, content: { 'multipart/form-data': { schema, example: { file: 'statement.csv' } } } };
  }
  if (/webhook/.test(r.path)) {
    const example = { id: 'evt_1', type: 'transfer.completed', data: { transferId: 'tr_1', status: 'completed' } };
    return { required: true, content: { 'application/json': { schema: { type: 'object' }, example } } };
  }
  return { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' }, example: '<the file bytes>' } } };
}

/**
 * OpenAPI 3.1 built from the route registry: the same TypeBox schemas that validate
 * requests describe them here.
 */
import type { TSchema } from '@sinclair/typebox';
import { routeRegistry, type RegisteredRoute } from './route';
import { CatalogueError, Pagination, StatusError } from './schema';

function clean(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? {}));
}

function paramsOf(r: RegisteredRoute) {
  const out: unknown[] = [];
  const props = (s: TSchema | undefined) => ((s as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const req = (s: TSchema | undefined) => new Set(((s as { required?: string[] } | undefined)?.required ?? []));
  for (const [name, schema] of Object.entries(props(r.params))) out.push({ name, in: 'path', required: true, schema: clean(schema) });
  const qr = req(r.query);
  for (const [name, schema] of Object.entries(props(r.query))) out.push({ name, in: 'query', required: qr.has(name), schema: clean(schema) });
  return out;
}

export function buildOpenApi(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routeRegistry) {
    const p = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const errorRef = r.errorShape === 'catalogue' ? '#/components/schemas/CatalogueError' : '#/components/schemas/StatusError';
    const responses: Record<string, unknown> = {};
    for (const [code, schema] of Object.entries(r.responses ?? {})) responses[code] = { description: 'OK', content: { 'application/json': { schema: clean(schema) } } };
    if (!Object.keys(responses).length) responses[String(r.status ?? 200)] = { description: 'OK' };
    for (const code of ['400', '401', '403', '404', '500']) responses[code] ??= { description: code, content: { 'application/json': { schema: { $ref: errorRef } } } };
    paths[p] ??= {};
    paths[p]![r.method] = {
      tags: [r.tag],
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      'x-access': r.access,
      security: r.access === 'public' ? [] : [{ bearer: [] }],
      parameters: paramsOf(r),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: clean(r.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Rondo', version, description: 'Multi-tenant music royalty platform. Interface version 2.6.0.' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'JWT access/refresh token, or an API key (RWAK_…, RUAK_…, GODK_…)' } },
      schemas: { CatalogueError: clean(CatalogueError), StatusError: clean(StatusError), Pagination: clean(Pagination) },
    },
    paths,
  };
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A self-contained, browsable page (no CDN): endpoints by tag, with their schemas. */
export function docsHtml(doc: Record<string, unknown>): string {
  const paths = doc.paths as Record<string, Record<string, { tags: string[]; summary: string; description?: string; 'x-access': string; parameters: unknown[]; requestBody?: unknown }>>;
  const byTag = new Map<string, string[]>();
  for (const [p, ops] of Object.entries(paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const html = `<details><summary><span class="m ${m}">${m.toUpperCase()}</span> <code>${esc(p)}</code> — ${esc(op.summary)} <span class="a">${esc(op['x-access'])}</span></summary>
${op.description ? `<p>${esc(op.description)}</p>` : ''}${op.parameters.length ? `<h4>Parameters</h4><pre>${esc(JSON.stringify(op.parameters, null, 2))}</pre>` : ''}${op.requestBody ? `<h4>Body</h4><pre>${esc(JSON.stringify(op.requestBody, null, 2))}</pre>` : ''}</details>`;
      const tag = op.tags[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const sections = [...byTag.entries()].map(([t, items]) => `<h2>${esc(t)}</h2>${items.join('\n')}`).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Rondo API</title><style>
body{font:14px/1.5 system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}details{border:1px solid #ddd;border-radius:6px;margin:.3em 0;padding:.3em .6em}
summary{cursor:pointer}.m{display:inline-block;width:4.5em;font-weight:600}.get{color:#0a7}.post{color:#06c}.put,.patch{color:#b60}.delete{color:#c22}.a{float:right;color:#888}pre{background:#f6f6f6;padding:.6em;overflow:auto}
</style></head><body><h1>Rondo API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>${sections}</body></html>`;
}

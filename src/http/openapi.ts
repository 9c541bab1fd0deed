/**
 * OpenAPI 3.1 built from the route registry: the same TypeBox schemas that validate
 * requests describe them here, with an example for every request and every documented
 * response (openapi-examples.ts). `info.version` is the interface version (spec), not the
 * package's own version.
 */
import type { TSchema } from '@sinclair/typebox';
import { routeRegistry, type RegisteredRoute } from './route';
import { aliasRegistry } from './method-aliases';
import { CatalogueError, PageTotals, Pagination, StatusError } from './schema';
import { errorExample, exampleOf, rawRequestBody } from './openapi-examples';
import { CSV_TYPE, XLSX_TYPE } from './export';

/** The interface (spec) version this API implements. */
export const INTERFACE_VERSION = '2.6.0';

function clean(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? {}));
}

const ERROR_SCHEMA_REF: Record<string, string> = { catalogue: '#/components/schemas/CatalogueError', status: '#/components/schemas/StatusError' };

function paramsOf(r: RegisteredRoute) {
  const out: unknown[] = [];
  const props = (s: TSchema | undefined) => ((s as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  const req = (s: TSchema | undefined) => new Set(((s as { required?: string[] } | undefined)?.required ?? []));
  for (const [name, schema] of Object.entries(props(r.params))) out.push({ name, in: 'path', required: true, schema: clean(schema), example: exampleOf(clean(schema), {}, name) });
  const qr = req(r.query);
  for (const [name, schema] of Object.entries(props(r.query))) {
    const description = (schema as { description?: string }).description;
    out.push({ name, in: 'query', required: qr.has(name), ...(description ? { description } : {}), schema: clean(schema), example: exampleOf(clean(schema), {}, name) });
  }
  return out;
}

/** A list answer's schema (`data` an array beside `pagination`) gets the fields the route layer adds (withPageTotals). */
function withPageTotalsSchema<T>(schema: T): T {
  const s = schema as { type?: string; properties?: Record<string, { type?: string }>; required?: string[] };
  if (s.type !== 'object' || !s.properties?.pagination || s.properties.data?.type !== 'array') return schema;
  s.properties = { ...s.properties, ...(clean(PageTotals) as Record<string, { type?: string }>) };
  if (s.required?.includes('pagination')) s.required = [...s.required, ...Object.keys(PageTotals)];
  return schema;
}

function responsesOf(r: RegisteredRoute, components: object): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [code, schema] of Object.entries(r.responses ?? {})) {
    const s = withPageTotalsSchema(clean(schema) as { contentMediaType?: string; description?: string; 'x-no-body'?: true });
    if (s['x-no-body']) {
      responses[code] = { description: s.description ?? 'OK' };
      continue;
    }
    const media = s.contentMediaType ?? 'application/json';
    const files = (s as { 'x-files'?: Record<string, string> })['x-files'] ?? {};
    delete (s as { 'x-files'?: unknown })['x-files'];
    const content: Record<string, unknown> = { [media]: { schema: s, example: exampleOf(s, components) } };
    for (const [type, description] of Object.entries(files)) content[type] = { schema: { type: 'string', format: 'binary', description }, example: `(${description})` };
    responses[code] = { description: Number(code) < 400 ? 'OK' : code, content };
  }
  if (r.export && responses[String(r.status ?? 200)]) {
    // ?format=csv|xlsx: the same rows as a file (src/http/export.ts).
    const ok = responses[String(r.status ?? 200)] as { description: string; content: Record<string, unknown> };
    ok.description = 'OK: JSON, or with `format=csv` / `format=xlsx` the rows as a file (attachment)';
    ok.content[CSV_TYPE.split(';')[0]!] = {
      schema: { type: 'string', description: "RFC 4180 CSV, UTF-8, header row first; text cells starting with = + - @ tab or CR prefixed with '" },
      example: "dsp,revenue,quantity,lines,currency\r\nSpotify,1234.5678,402211,9120,USD\r\n'=cmd|calc,-1.25,-1,1,USD\r\n",
    };
    ok.content[XLSX_TYPE] = { schema: { type: 'string', format: 'binary', description: 'One worksheet (data), header row first' }, example: '(binary XLSX workbook)' };
  }
  const shape = r.errorShape ?? 'status';
  if (r.feature) {
    responses['403'] = {
      description: `403: the role is too low, or the plan lacks the feature \`${r.feature}\` (FEATURE_REQUIRED)`,
      content: { 'application/json': { schema: { $ref: ERROR_SCHEMA_REF.catalogue }, example: featureRequiredExample(r.feature) } },
    };
  }
  const codes = r.access === 'public' ? ['400', '404', '500'] : ['400', '401', '403', '404', '500'];
  for (const code of codes) {
    const schema = ERROR_SCHEMA_REF[shape] ? { $ref: ERROR_SCHEMA_REF[shape] } : { type: 'object' };
    responses[code] ??= { description: code, content: { 'application/json': { schema, example: errorExample(shape, code) } } };
  }
  return responses;
}

function requestBodyOf(r: RegisteredRoute): Record<string, unknown> | undefined {
  if (r.body) {
    const s = clean(r.body);
    return { required: true, content: { 'application/json': { schema: s, example: exampleOf(s) } } };
  }
  if (r.rawBody) return rawRequestBody(r);
  return undefined;
}

function featureRequiredExample(feature: string) {
  return { success: false, error: { code: 'FEATURE_REQUIRED', message: `Your plan (free) does not include the ${feature} feature`, details: [`feature: ${feature}`, 'plan: free', 'included in: pro, enterprise'] } };
}

/** The URL-safe name of a tag's area (`Payout partner` → `payout-partner`). */
export function areaSlug(tag: string): string {
  return tag.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** Every area (tag) of the registry in the order the routes were mounted, with its document's path. */
export function openApiAreas(): { name: string; url: string }[] {
  const tags = [...new Set(routeRegistry.filter((r) => !r.undocumented).map((r) => r.tag))];
  return tags.map((t) => ({ name: t, url: `/openapi/${areaSlug(t)}` }));
}

/** The whole document, or one area's (`area` a slug of areaSlug; null when no route has it). */
export function buildOpenApi(packageVersion?: string, area?: string): Record<string, unknown> | null {
  const components = {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'JWT access/refresh token, or an API key (RWAK_…, RUAK_…, GODK_…)' } },
    schemas: { CatalogueError: clean(CatalogueError), StatusError: clean(StatusError), Pagination: clean(Pagination) },
  };
  const refs = { components };
  const paths: Record<string, Record<string, unknown>> = {};
  const documented = routeRegistry.filter((r) => !r.undocumented);
  const routes = area === undefined ? documented : documented.filter((r) => areaSlug(r.tag) === area);
  if (!routes.length) return null;
  for (const r of routes) {
    const p = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const aliases = aliasRegistry.filter((a) => a.of.method === r.method && a.of.path === r.path).map((a) => ({ method: a.method.toUpperCase(), path: a.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') }));
    const body = requestBodyOf(r);
    paths[p] ??= {};
    paths[p]![r.method] = {
      tags: [r.tag],
      summary: r.summary,
      ...(r.description || r.feature ? { description: [r.description, r.feature ? `Needs the plan feature \`${r.feature}\`: a workspace whose plan lacks it gets 403 FEATURE_REQUIRED.` : ''].filter(Boolean).join(' ') } : {}),
      'x-access': r.access,
      ...(r.scope ? { 'x-scope': r.scope } : {}),
      ...(r.feature ? { 'x-feature': r.feature } : {}),
      ...(aliases.length ? { 'x-aliases': aliases } : {}),
      ...(r.referenceNames ? { 'x-reference-names': { rename: r.referenceNames.rename, metadata: r.referenceNames.metadata ?? [], ...(r.referenceNames.about ? { about: r.referenceNames.about } : {}) } } : {}),
      security: r.access === 'public' ? [] : [{ bearer: [] }],
      parameters: paramsOf(r),
      ...(body ? { requestBody: body } : {}),
      responses: responsesOf(r, refs),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: area === undefined ? 'Rondo' : `Rondo: ${routes[0]!.tag}`,
      version: INTERFACE_VERSION,
      description: `Multi-tenant music royalty platform. Interface version ${INTERFACE_VERSION}${packageVersion ? `; server ${packageVersion}` : ''}.${area === undefined ? '' : ' One area of the API: pick another in the top bar; the whole document is /openapi.json.'}`,
    },
    components,
    paths,
  };
}

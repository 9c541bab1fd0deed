/**
 * Examples for the OpenAPI document, derived from the route definitions so that a route
 * added later gets them without writing any: request bodies, query and path parameters and
 * success bodies are sampled from their JSON Schemas (TypeBox `examples`/`default` win when
 * a schema has them); error bodies are built by the same function the error middleware uses.
 */
import { sample } from 'openapi-sampler';
import type { RegisteredRoute } from './route';
import { errorBody, type ErrorShape } from './errors';

/**
 * Values a person would recognise, for a string or number schema that has no example of its
 * own: by format first, then by the property's name (the last match wins over none), so the
 * document shows `ana@label.example` and `EUR`, never the sampler's `string` and `str`.
 */
const MONEY_EXAMPLE = '1234.56';
const BY_FORMAT: Record<string, unknown> = {
  email: 'ana@label.example',
  uuid: '3f1c2a9e-3b7d-4e52-9a0f-1d2c3b4a5e6f',
  date: '2024-03-31',
  'date-time': '2024-04-02T09:30:00.000Z',
  month: '2024-03',
  'month-or-date': '2024-03',
  uri: 'https://label.example/hooks/rondo',
  url: 'https://label.example/hooks/rondo',
  hostname: 'royalties.label.example',
  binary: '(the file bytes)',
};
const BY_NAME: [RegExp, unknown][] = [
  [/e-?mail/i, 'ana@label.example'],
  [/^(currency|baseCurrency|.*Currency)$/, 'EUR'],
  [/isrc/i, 'GBAYE0601498'],
  [/upc|ean|barcode/i, '0602435174382'],
  [/iswc/i, 'T-345246800-1'],
  [/^(title|.*Title)$/, 'Midnight Tides'],
  [/artist/i, 'Nova Lune'],
  [/^firstName$/, 'Ana'],
  [/^lastName$/, 'Silva'],
  [/^(file|original)Name$|filename/i, 'statement-2024-03.csv'],
  [/^senderName$/, 'Moonlight Records'],
  [/^(name|.*Name)$/, 'Nova Lune'],
  [/country/i, 'DE'],
  [/(dsp|store)$/i, 'Spotify'],
  [/password/i, 'a long passphrase'],
  [/token/i, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIzZjFjIn0.c2lnbmF0dXJl'],
  [/^(url|.*Url|endpoint|link)$/i, 'https://label.example/hooks/rondo'],
  [/domain|host/i, 'royalties.label.example'],
  [/period/i, '2024-03'],
  [/month/i, '2024-03'],
  [/(^|[a-z])(Id|id|ID)$/, '3f1c2a9e-3b7d-4e52-9a0f-1d2c3b4a5e6f'],
  [/role/i, 'admin'],
  [/phone/i, '+4915112345678'],
  [/(description|message|note|reason|comment)/i, 'Advance for the spring tour'],
  [/search|query|^q$/i, 'Midnight'],
  [/(At|Date|^issued|^updated|^created)$/, '2024-04-02T09:30:00.000Z'],
  [/(total|balance|amount|advance|exact|due|paid|recouped|revenue|royalt|income|price|fee|gross|net)/i, MONEY_EXAMPLE],
  [/share$|percentage/i, '50'],
  [/ipi/i, '00014107338'],
  [/iban|accountNumber/i, 'DE89370400440532013000'],
  [/swift|bic/i, 'DEUTDEFF'],
  [/hash$/i, '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  [/^(workspace|currentWorkspace|user|createdBy|claimant|tenant)$/, '3f1c2a9e-3b7d-4e52-9a0f-1d2c3b4a5e6f'],
  [/^details$|^errors$/, 'body.amount: must be a decimal number such as "12.50"'],
  [/lastError|^error$/, 'The receiver answered 503'],
  [/saleType|transactionType/i, 'stream'],
  [/^(status|state)$/, 'active'],
  [/^code$/, '4F2A9C'],
  [/purposeCode/, 'ROYALTY'],
  [/^sort$/, 'createdAt'],
  [/^(label|society|source|publishers?|writers?)$/, 'Moonlight Records'],
  [/memo|text|subject|reference/i, 'Statement March 2024'],
  [/html/i, '<p>Your statement for March 2024 is ready.</p>'],
  [/language/i, 'en'],
  [/territor/i, '2136'],
  [/redirect/i, '/app/'],
  [/^format$/, 'csv'],
  [/genre/i, 'Electronic'],
  [/version/i, '1'],
  [/contentType/i, 'text/csv'],
  [/username/i, 'ana.silva'],
  [/^(type|kind|rightType)$/, 'stream'],
  [/events?$/, 'royalty.file.processed'],
  [/features?$/, 'webhooks'],
  [/plan$/i, 'pro'],
  [/key$/i, 'spotify'],
];
/** A readable value from a property's own name ("mainGenre" → "Main genre"), where nothing above fits. */
function fromName(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function withExamples(schema: unknown, name?: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withExamples(s, name));
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' && v && typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, withExamples(ps, p)]));
    else if (k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'additionalProperties') out[k] = withExamples(v, name);
    else out[k] = v;
  }
  if ('examples' in s || 'example' in s || 'default' in s || 'const' in s || 'enum' in s) return out;
  if (s['x-decimal']) return { ...out, examples: [MONEY_EXAMPLE] };
  if (s.type !== 'string') return out;
  const byFormat = typeof s.format === 'string' ? BY_FORMAT[s.format] : undefined;
  const byName = name ? (BY_NAME.find(([re]) => re.test(name))?.[1] ?? fromName(name)) : undefined;
  const pick = byFormat ?? byName;
  if (pick === undefined) return out;
  // a value the schema itself would refuse is no example
  if (typeof pick === 'string' && ((typeof s.maxLength === 'number' && pick.length > s.maxLength) || (typeof s.minLength === 'number' && pick.length < s.minLength))) return out;
  if (typeof pick === 'string' && typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(pick)) return out;
  return { ...out, examples: [pick] };
}

/** Sample one schema; `refs` resolves `$ref`s into the document's components; `name` is the parameter's. */
export function exampleOf(schema: unknown, refs: object = {}, name?: string): unknown {
  return sample(withExamples(schema ?? {}, name) as Parameters<typeof sample>[0], { quiet: true, skipReadOnly: true, maxSampleDepth: 6 }, refs);
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

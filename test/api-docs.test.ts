import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestApp, type TestApp } from './helpers/app';

type Op = {
  parameters: { name: string; in: string; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
};

describe('API reference: /openapi.json examples and the /docs page', () => {
  let app: TestApp;
  let doc: { info: { version: string }; paths: Record<string, Record<string, Op>> };
  before(async () => {
    app = await startTestApp();
    doc = (await app.request('GET', '/openapi.json')).body;
  });
  after(async () => app.close());

  it('states the interface version in info.version', () => {
    assert.equal(doc.info.version, '2.6.0');
  });

  it('every operation has an example for each parameter, its request body and every documented response', () => {
    const missing: string[] = [];
    let ops = 0;
    for (const [p, byMethod] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(byMethod)) {
        ops++;
        const where = `${m.toUpperCase()} ${p}`;
        for (const prm of op.parameters) if (!('example' in prm)) missing.push(`${where} ${prm.in} ${prm.name}`);
        for (const [type, c] of Object.entries(op.requestBody?.content ?? {})) if (c.example === undefined) missing.push(`${where} request ${type}`);
        const codes = Object.keys(op.responses);
        if (!codes.some((c) => /^[23]/.test(c))) missing.push(`${where} no success response`);
        for (const code of codes) {
          const content = op.responses[code]!.content;
          // a redirect or an empty answer (204) has no body to show
          if ((!content || !Object.values(content).length) && !/^(204|3\d\d)$/.test(code)) missing.push(`${where} ${code} has no content`);
          for (const [type, c] of Object.entries(content ?? {})) if (c.example === undefined) missing.push(`${where} ${code} ${type}`);
        }
      }
    }
    assert.ok(ops > 150, `only ${ops} operations`);
    assert.deepEqual(missing, []);
  });

  it('routes that take a body or a query document them with examples that use the right types', () => {
    const login = doc.paths['/auth/login']!.post!;
    const ex = login.requestBody!.content['application/json']!.example as Record<string, unknown>;
    assert.equal(typeof ex.email, 'string');
    assert.equal(typeof ex.password, 'string');
    const upload = doc.paths['/file/royalty']!.post!;
    assert.ok(upload.requestBody!.content['multipart/form-data']);
    const authtoken = doc.paths['/auth/authtoken']!.get!;
    assert.ok(authtoken.parameters.some((p) => p.in === 'query' && p.name === 'currentWorkspace' && typeof p.example === 'string'));
    const err = doc.paths['/artist/{id}']!.get!.responses['404']!.content!['application/json']!.example as { success: boolean; error: { code: string } };
    assert.equal(err.success, false);
    assert.equal(err.error.code, 'NOT_FOUND');
  });

  it('/docs serves Swagger UI from the package, with every asset it names', async () => {
    const page = await app.request('GET', '/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.ok(page.text.includes('id="swagger-ui"'));
    const assets = [...page.text.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(assets.sort(), ['/docs/favicon-32x32.png', '/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-standalone-preset.js', '/docs/swagger-ui.css']);
    assert.ok(!/https?:\/\//.test(page.text), 'the page loads nothing from another site');
    for (const a of assets) {
      const r = await app.request('GET', a);
      assert.equal(r.status, 200, a);
      assert.ok(r.text.length > 0, a);
    }
    assert.match((await app.request('GET', '/docs/swagger-ui.css')).headers.get('content-type') ?? '', /text\/css/);
    assert.ok((await app.request('GET', '/docs/init.js')).text.includes('"url":"/openapi/auth"'));
  });

  it('examples are values a person recognises, never the sampler\'s placeholders', () => {
    const placeholders: string[] = [];
    const walk = (v: unknown, where: string) => {
      if (v === 'string' || v === 'str') placeholders.push(where);
      else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${where}.${k}`);
    };
    for (const [p, byMethod] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(byMethod)) {
        const where = `${m.toUpperCase()} ${p}`;
        for (const prm of op.parameters) walk(prm.example, `${where} ${prm.in} ${prm.name}`);
        for (const [type, c] of Object.entries(op.requestBody?.content ?? {})) walk(c.example, `${where} request ${type}`);
        for (const [code, r] of Object.entries(op.responses)) for (const [type, c] of Object.entries(r.content ?? {})) walk(c.example, `${where} ${code} ${type}`);
      }
    }
    assert.deepEqual(placeholders.slice(0, 20), [], `${placeholders.length} placeholder values`);
    const login = doc.paths['/auth/login']!.post!.requestBody!.content['application/json']!.example as { email: string };
    assert.equal(login.email, 'ana@label.example');
  });

  it('/openapi.json and the page\'s assets are served compressed to a client that accepts it, ', async () => {
    for (const p of ['/openapi.json', '/docs/swagger-ui-bundle.js']) {
      const r = await fetch(app.url + p, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(r.status, 200, p);
      assert.equal(r.headers.get('content-encoding'), 'gzip', p);
      await r.arrayBuffer();
    }
    const raw = await new Promise<{ encoding?: string; bytes: number }>((resolve, reject) => {
      http.get(app.url + '/openapi.json', { headers: { 'accept-encoding': 'br' } }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes }));
      }).on('error', reject);
    });
    const plain = Buffer.byteLength(JSON.stringify(doc));
    assert.equal(raw.encoding, 'br');
    assert.ok(raw.bytes * 5 < plain, `${raw.bytes} compressed bytes of ${plain}`);
  });

  it('/docs opens one area at a time: every area has its document, and together they are the whole document', async () => {
    const init = (await app.request('GET', '/docs/init.js')).text;
    const urls = JSON.parse(/urls: (\[.*\]),\n/.exec(init)![1]!) as { name: string; url: string }[];
    assert.ok(urls.length > 20, `${urls.length} areas`);
    const seen = new Set<string>();
    for (const u of urls) {
      const r = await app.request('GET', u.url);
      assert.equal(r.status, 200, u.url);
      assert.equal(r.body.info.title, `Rondo: ${u.name}`);
      for (const [p, ms] of Object.entries(r.body.paths as Record<string, Record<string, unknown>>)) for (const m of Object.keys(ms)) seen.add(`${m} ${p}`);
    }
    const whole = Object.entries(doc.paths).flatMap(([p, ms]) => Object.keys(ms).map((m) => `${m} ${p}`));
    assert.deepEqual([...seen].sort(), whole.sort());
    const none = await app.request('GET', '/openapi/no-such-area');
    assert.equal(none.status, 404);
  });

  it('/docs serves only its own assets', async () => {
    assert.equal((await app.request('GET', '/docs/package.json')).status, 404);
    assert.equal((await app.request('GET', '/docs/..%2Fpackage.json')).status, 404);
    assert.equal((await app.request('GET', '/docs/index.html')).status, 404);
  });
});

import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { startTestApp, type TestApp } from '../helpers/app';
import { checkAnswer } from '../../src/http/route';
import { DataAnswer } from '../../src/http/schema';

type Op = { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> };

describe('Response schemas: every route declares what it answers', () => {
  let app: TestApp;
  let doc: { paths: Record<string, Record<string, Op>> };
  before(async () => {
    app = await startTestApp();
    doc = (await app.request('GET', '/openapi.json')).body;
  });
  after(async () => app.close());

  it('every operation of /openapi.json declares a success answer: a schema per media type, or none for a redirect or 204', () => {
    const missing: string[] = [];
    let ops = 0;
    for (const [p, byMethod] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(byMethod)) {
        ops++;
        const where = `${m.toUpperCase()} ${p}`;
        const ok = Object.entries(op.responses).filter(([code]) => /^[23]\d\d$/.test(code));
        if (!ok.length) missing.push(`${where}: no success response`);
        for (const [code, r] of ok) {
          const content = Object.entries(r.content ?? {});
          if (!content.length && !/^(204|3\d\d)$/.test(code)) missing.push(`${where} ${code}: no content`);
          for (const [type, c] of content) if (!c.schema || !Object.keys(c.schema).length) missing.push(`${where} ${code} ${type}: no schema`);
        }
      }
    }
    assert.ok(ops > 400, `only ${ops} operations`);
    assert.deepEqual(missing, []);
  });

  it('a JSON answer its declaration does not describe fails loudly under tests (500 naming the difference)', () => {
    const def = { method: 'get' as const, path: '/x', responses: { 200: DataAnswer(Type.Object({ name: Type.String() })) } };
    assert.equal(process.env.RONDO_CHECK_RESPONSES, '1');
    checkAnswer(def, { status: 200, body: { success: true, data: { name: 'Nova' } } });
    assert.throws(() => checkAnswer(def, { status: 200, body: { success: true, data: { name: 12 } } }), /GET \/x \(200\).*answer\.data\.name must be string/);
    assert.throws(() => checkAnswer(def, { status: 201, body: { success: true } }), /declares no response schema for status 201/);
    // error answers have their own shapes (docs/errors.md)
    checkAnswer(def, { status: 404, body: { success: false } });
  });
});

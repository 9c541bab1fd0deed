/**
 * Uploads stay bounded: a zip whose central directory points several entries at the same
 * data is refused (the archive limits stay as they were), and a refused oversized field
 * leaves memory where it was (busboy keeps at most the field limit, then the request ends).
 */
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile, waitChildren, seedRates } from './helpers';
import { zipBuffers, zipOverlapping } from './zip-writer';
import { zipLayoutProblem } from '../../src/modules/files/zip-guard';
import { UPLOAD_LIMITS } from '../../src/http/upload';

describe('uploads stay bounded', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let admin: string;
  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Bounded');
    await seedRates(app, a.tenantId);
    admin = a.users.admin!.token;
  });
  after(async () => app?.close());

  it('zipLayoutProblem: honest layouts pass; shared, overlapping and out-of-archive entries do not', () => {
    const e = (path: string, off: number, c: number) => ({ path, offsetToLocalFileHeader: off, compressedSize: c });
    assert.equal(zipLayoutProblem([e('a', 0, 100), e('b', 130 + 8, 50), e('c', 300, 0)], 400), null);
    assert.match(zipLayoutProblem([e('a', 0, 100), e('b', 0, 100)], 400)!, /"a" and "b" share the same data/);
    assert.match(zipLayoutProblem([e('a', 0, 100), e('b', 60, 100)], 400)!, /overlapping/);
    assert.match(zipLayoutProblem([e('a', 0, 100), e('b', 200, 500)], 400)!, /"b" points outside the archive/);
  });

  it('a zip whose entries all point at the same data is refused with a clear error; nothing is unpacked', async () => {
    const data = fixture('believe-english.csv');
    for (const [name, zip] of [
      ['same.zip', zipOverlapping('believe.csv', data, 50)],
      ['shifted.zip', zipOverlapping('believe.csv', data, 20, 40)],
    ] as const) {
      const r = await upload(app, admin, name, zip);
      assert.equal(r.status, 201, r.text);
      const f = await waitFile(app, admin, r.body.data.id);
      assert.equal(f.status, 'failed', name);
      assert.match(f.error, /Refused: the zip file is malformed: entries ".+" and ".+" share the same data \(overlapping entries\)/, name);
      assert.equal(f.children.length, 0, `${name}: no child`);
    }
    // an honest archive with the same statement twice under two names still unpacks
    const honest = zipBuffers([{ name: 'one.csv', data }, { name: 'two.csv', data }]);
    const h = await waitFile(app, admin, (await upload(app, admin, 'honest.zip', honest, { force: 'true' })).body.data.id);
    assert.equal(h.status, 'processed', h.error);
    const kids = await waitChildren(app, admin, h.id, 2);
    assert.equal(kids.length, 2);
  });

  it("a zip whose statements would pass the plan's storage fails with the limit named; nothing is unpacked", async () => {
    const t = await createTestTenant(app, 'Bounded storage', ['admin']);
    const data = fixture('believe-english.csv');
    const zip = zipBuffers([{ name: 'one.csv', data }, { name: 'two.csv', data }]);
    // room for the archive itself, not for what it unpacks to
    await app.svc.db.owner('plans').insert({ code: 'zipbound', name: 'Zip bound', sort: 9, features: app.svc.db.owner.raw(`'{}'::text[]`), limits: JSON.stringify({ storageBytes: zip.length + data.length }) });
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'zipbound' });
    const r = await upload(app, t.users.admin!.token, 'two.zip', zip);
    assert.equal(r.status, 201, r.text);
    const f = await waitFile(app, t.users.admin!.token, r.body.data.id);
    assert.equal(f.status, 'failed');
    assert.match(f.error, new RegExp(`Refused: unpacking the zip file would pass the plan's storage\\. Your plan \\(zipbound\\) allows ${zip.length + data.length} bytes of storage; ${zip.length} are used and this adds ${2 * data.length}\\.`));
    assert.equal(f.children.length, 0);
    assert.equal((await app.svc.db.owner('files').where({ tenant_id: t.tenantId })).length, 1, 'only the archive');
  });

  it('a refused oversized field is a 400 and memory returns to its level before it', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const settle = () => {
      for (let i = 0; i < 3; i++) gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const FIELD = 16 * 1024 * 1024; // 256 times the field limit
    assert.ok(FIELD > UPLOAD_LIMITS.fieldSize * 100);
    const send = async () => {
      const fd = new FormData();
      fd.append('note', 'x'.repeat(FIELD));
      fd.append('file', new Blob(['a,b\n1,2\n']), 's.csv');
      return app.request('POST', '/file/royalty', { token: admin, raw: fd });
    };
    const first = await send(); // warm up (code paths, pools)
    assert.equal(first.status, 400);
    const before = settle();
    for (let i = 0; i < 10; i++) {
      const r = await send();
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'FIELD_TOO_LARGE');
      assert.deepEqual(r.body.error.details, ['note']);
    }
    const after = settle();
    // 160 MiB of fields were sent; what stays is noise (well under one field)
    assert.ok(after - before < 8 * 1024 * 1024, `memory grew by ${((after - before) / 1048576).toFixed(1)} MiB`);
    const [{ n }] = await app.svc.db.owner('files').where({ tenant_id: a.tenantId, original_name: 's.csv' }).count({ n: '*' });
    assert.equal(Number(n), 0, 'nothing registered');
  });
});

/**
 * Statement ingestion with OBJECT_STORE=s3 through real HTTP, a real Postgres, the real
 * workers and a fake S3 server (SigV4 verified): multipart upload → processed with the same
 * totals as on the local disk; presigned upload-url → PUT → createroyalty → processed;
 * duplicates; deletion of the stored objects; a store that refuses or is unreachable fails
 * the request or the file with a clear error, not the process.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { startFakeS3, s3ConfigFor, type FakeS3 } from '../helpers/fake-s3';
import { clock } from '../../src/lib/clock';
import { fixture, upload, waitFile, waitChildren, seedRates } from './helpers';
import { zipBuffers } from './zip-writer';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const DK = 'DistroKid_1693900000000_NovaLune.tsv';

describe('statement ingestion on the S3 object store', function () {
  this.timeout(120_000);
  let fake: FakeS3;
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let admin: string;
  const obj = (key: string) => fake.objects.get(`rondo/${key}`);
  const keysOf = (fileId: string) => [...fake.objects.keys()].filter((k) => k.includes(fileId));

  before(async () => {
    fake = await startFakeS3();
    app = await startTestApp({ workers: true, config: { objectStore: 's3', s3: s3ConfigFor(fake) } });
    a = await createTestTenant(app, 'S3 A');
    b = await createTestTenant(app, 'S3 B');
    await seedRates(app, a.tenantId, b.tenantId);
    admin = a.users.admin!.token;
  });
  after(async () => {
    clock.reset();
    await app?.close();
    await fake?.close();
  });

  it('multipart POST /file/royalty streams to the bucket; processed with the same lines and totals as on disk', async () => {
    const cases: [string, Buffer, string, number, Record<string, string>][] = [
      [DK, fixture(DK), 'distrokid', 24, { USD: '7.570056' }],
      // gzip: expanded in place (a second object, the compressed one removed)
      ['YouTube_NovaLuneRecords_M_20230701_20230731_ADJ_asset_raw_v1-1.csv.gz', fixture('YouTube_NovaLuneRecords_M_20230701_20230731_ADJ_asset_raw_v1-1.csv.gz'), 'youtube-asset-raw', 10, { USD: '-0.05016' }],
      ['bom-header.csv', fixture('bom-header.csv'), 'orchard', 12, { GBP: '3.1722' }],
    ];
    for (const [name, data, source, lines, totals] of cases) {
      const r = await upload(app, admin, name, data);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.body.data.sha256, sha(data));
      const f = await waitFile(app, admin, r.body.data.id);
      assert.equal(f.status, 'processed', `${name}: ${f.error}`);
      assert.equal(f.source.key, source);
      assert.equal(f.counts.rowsIngested, lines, name);
      assert.deepEqual(f.totals, totals, name);
      const n = await app.svc.db.owner('royalty_lines').where({ file_id: f.id }).count({ n: '*' });
      assert.equal(Number(n[0]!.n), lines);
      const stored = await app.svc.db.owner('files').where({ id: f.id }).first('storage_key');
      const o = obj(stored.storage_key);
      assert.ok(o, `object ${stored.storage_key} in the bucket under the prefix`);
      assert.match(o.meta.sha256!, /^[0-9a-f]{64}$/);
      assert.equal(o.meta.sha256, sha(o.data), 'x-amz-meta-sha256 is the digest of the stored bytes');
      // a compressed upload is replaced by its decompressed form; a plain one is stored as sent
      assert.equal(obj(`t${a.tenantId}/files/${f.id}/original`) === undefined, name.endsWith('.gz'), `${name}: the original is kept only when it is not compressed`);
    }
    assert.deepEqual(fake.refused, [], 'every request the app made was correctly signed');
  });

  it('a zip: one child per statement, each stored in the bucket and processed', async () => {
    const zip = zipBuffers([{ name: 'x/tunecore.csv', data: fixture('tunecore-sales-report.csv') }, { name: 'x/two.csv', data: fixture('two-currencies.csv') }]);
    const r = await upload(app, admin, 'two.zip', zip);
    const kids = await waitChildren(app, admin, r.body.data.id, 2);
    const byName = Object.fromEntries(kids.map((k) => [k.fileName, k]));
    assert.deepEqual(byName['tunecore.csv'].totals, { EUR: '0.81098', USD: '1.7876' });
    assert.deepEqual(byName['two.csv'].totals, { EUR: '0.8888832', USD: '0.7901184' });
    for (const k of kids) assert.equal(obj(`t${a.tenantId}/files/${k.id}/original`)?.meta.sha256, k.sha256);
  });

  it('upload-url → PUT to the presigned S3 URL → createroyalty → processed; the legacy alias too', async () => {
    for (const [i, p] of ['/file/upload-url', '/file/getuUloadurl'].entries()) {
      const u = await app.request('POST', p, { token: admin, body: { fileName: 'soundcloud.csv' } });
      assert.equal(u.status, 201, u.text);
      const { uploadUrl, method, fileId, key, expiresAt } = u.body.data;
      assert.equal(method, 'PUT');
      assert.equal(key, `t${a.tenantId}/files/${fileId}/original`);
      const url = new URL(uploadUrl);
      assert.equal(url.origin, fake.endpoint, 'straight to the store, not through Rondo');
      assert.equal(url.searchParams.get('X-Amz-Expires'), '3600');
      assert.ok(url.searchParams.get('X-Amz-Signature'));
      assert.ok(Math.abs(new Date(expiresAt).getTime() - Date.now() - 3600_000) < 60_000);
      const data = Buffer.from(fixture('soundcloud-preamble.csv').toString() + '\n'.repeat(i + 3));
      const put = await fetch(uploadUrl, { method: 'PUT', body: data });
      assert.equal(put.status, 200, await put.text());
      const reg = await app.request('POST', '/file/createroyalty', { token: admin, body: { key, fileName: 'soundcloud-preamble.csv' } });
      assert.equal(reg.status, 201, reg.text);
      assert.equal(reg.body.data.id, fileId);
      assert.equal(reg.body.data.size, data.length);
      assert.equal(reg.body.data.sha256, sha(data), 'computed by streaming the upload once');
      assert.equal(obj(key)?.meta.sha256, sha(data));
      assert.equal(obj(`uploads/t${a.tenantId}/${fileId}`), undefined, 'the upload object was moved to the file key');
      const f = await waitFile(app, admin, fileId);
      assert.equal(f.status, 'processed', f.error);
      assert.equal(f.source.key, 'soundcloud');
      assert.deepEqual(f.totals, { USD: '0.40188' });
      // registering again: the same record, nothing new
      const again = await app.request('POST', '/file/createroyalty', { token: admin, body: { fileId, fileName: 'x.csv' } });
      assert.equal(again.status, 201);
      assert.equal(again.body.message, 'Already registered');
      // a second PUT to the URL cannot touch the registered bytes
      assert.equal((await fetch(uploadUrl, { method: 'PUT', body: 'tampered' })).status, 200);
      assert.ok(obj(key)!.data.equals(data));
    }
  });

  it('upload-url refusals: nothing uploaded, another workspace\'s key, an expired URL', async () => {
    const u = await app.request('POST', '/file/upload-url', { token: admin, body: {} });
    const missing = await app.request('POST', '/file/createroyalty', { token: admin, body: { key: u.body.data.key, fileName: 'x.csv' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'UPLOAD_MISSING');
    const cross = await app.request('POST', '/file/createroyalty', { token: b.users.admin!.token, body: { key: u.body.data.key, fileName: 'x.csv' } });
    assert.equal(cross.status, 400);
    assert.equal(cross.body.error.code, 'INVALID_UPLOAD_KEY');
    // user role cannot ask for one
    assert.equal((await app.request('POST', '/file/upload-url', { token: a.users.user!.token, body: {} })).status, 403);
    clock.advance(-2 * 3600_000);
    const old = await app.request('POST', '/file/upload-url', { token: admin, body: {} });
    clock.reset();
    assert.ok(new Date(old.body.data.expiresAt) < new Date());
    const late = await fetch(old.body.data.uploadUrl, { method: 'PUT', body: 'late' });
    assert.equal(late.status, 403);
    assert.match(await late.text(), /expired/);
  });

  it('duplicates on S3: the same bytes by multipart or by presigned URL are flagged duplicateOf', async () => {
    const data = fixture('semicolon-decimal-comma.csv');
    const first = await upload(app, admin, 'believe.csv', data);
    assert.equal((await waitFile(app, admin, first.body.data.id)).status, 'processed');
    const dup = await upload(app, admin, 'again.csv', data);
    assert.equal(dup.body.data.duplicateOf, first.body.data.id);
    assert.equal(dup.body.data.status, 'failed');
    const u = await app.request('POST', '/file/upload-url', { token: admin, body: {} });
    assert.equal((await fetch(u.body.data.uploadUrl, { method: 'PUT', body: data })).status, 200);
    const reg = await app.request('POST', '/file/createroyalty', { token: admin, body: { key: u.body.data.key, fileName: 'via-url.csv' } });
    assert.equal(reg.status, 201, reg.text);
    assert.equal(reg.body.data.duplicateOf, first.body.data.id);
    assert.equal(reg.body.message, 'Duplicate file: not ingested again');
    const n = await app.svc.db.owner('royalty_lines').whereIn('file_id', [dup.body.data.id, u.body.data.fileId]).count({ n: '*' });
    assert.equal(Number(n[0]!.n), 0);
  });

  it('DELETE /file/{id} removes the stored objects of the file and its children from the bucket', async () => {
    const zip = zipBuffers([{ name: 'r.tsv', data: fixture('ragged-row.tsv') }, { name: 'c.csv', data: fixture('orchard-legacy-2018M8.csv') }]);
    const r = await upload(app, admin, 'del.zip', zip, { force: 'true' });
    const kids = await waitChildren(app, admin, r.body.data.id, 2);
    const ids = [r.body.data.id, ...kids.map((k) => k.id)];
    for (const id of ids) assert.equal(keysOf(id).length, 1, id);
    const d = await app.request('DELETE', `/file/${r.body.data.id}`, { token: admin });
    assert.equal(d.status, 200, d.text);
    for (const id of ids) assert.deepEqual(keysOf(id), [], id);
  });

  it('an object that vanished or that the store will not serve: the file fails with the reason', async () => {
    // needs_confirmation parks the file after detection, so the object can be taken away first
    const r = await upload(app, admin, DK.replace('.tsv', '-1.tsv'), Buffer.concat([fixture(DK), Buffer.from('\n')]), { forceManualConfirmation: 'true' });
    const parked = await waitFile(app, admin, r.body.data.id);
    assert.equal(parked.status, 'needs_confirmation');
    const key = `rondo/t${a.tenantId}/files/${parked.id}/original`;
    const saved = fake.objects.get(key)!;
    fake.objects.delete(key);
    assert.equal((await app.request('POST', `/file/confirm-detection/${parked.id}`, { token: admin, body: { source: 'distrokid' } })).status, 200);
    const gone = await waitFile(app, admin, parked.id, ['processed', 'failed']);
    assert.equal(gone.status, 'failed');
    assert.equal(gone.error, 'The stored file is missing');
    // the object is back but the store refuses to serve it (wrong credentials for this key)
    fake.objects.set(key, saved);
    fake.deny.add(key);
    const refusedBefore = fake.refused.length;
    try {
      assert.equal((await app.request('POST', `/file/confirm-detection/${parked.id}`, { token: admin, body: { source: 'distrokid' } })).status, 200);
      const refused = await waitFile(app, admin, parked.id, ['processed', 'failed']);
      assert.equal(refused.status, 'failed');
      assert.match(refused.error, /^The stored file could not be read: Object store refused the credentials \(get "t\d+\/files\/[0-9a-f-]+\/original" in bucket "rondo-test": AccessDenied/);
    } finally {
      fake.deny.delete(key);
      fake.refused.splice(refusedBefore);
    }
    // and once the store serves it again, the file goes through
    await app.request('POST', `/file/confirm-detection/${parked.id}`, { token: admin, body: { source: 'distrokid' } });
    const ok = await waitFile(app, admin, parked.id, ['processed', 'failed']);
    assert.equal(ok.status, 'processed', ok.error);
    assert.deepEqual(ok.totals, { USD: '7.570056' });
  });

  it('catalogue media on S3: streamed to the bucket, audio metadata read from the object stream; delete removes it', async () => {
    // a tiny valid WAV: 0.5 s, 8 kHz, mono, 16-bit
    const rate = 8000, bytes = rate;
    const wav = Buffer.alloc(44 + bytes);
    wav.write('RIFF', 0); wav.writeUInt32LE(36 + bytes, 4); wav.write('WAVE', 8); wav.write('fmt ', 12);
    wav.writeUInt32LE(16, 16); wav.writeUInt16LE(1, 20); wav.writeUInt16LE(1, 22); wav.writeUInt32LE(rate, 24);
    wav.writeUInt32LE(rate * 2, 28); wav.writeUInt16LE(2, 32); wav.writeUInt16LE(16, 34); wav.write('data', 36); wav.writeUInt32LE(bytes, 40);
    const asset = (await app.request('POST', '/asset', { token: admin, body: { title: 'On S3', isrc: 'GB-AAA-26-00077' } })).body.data.id;
    const form = new FormData();
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'take (1).wav');
    const up = await app.request('POST', `/asset/${asset}/media`, { token: admin, raw: form });
    assert.equal(up.status, 201, up.text);
    assert.equal(up.body.data.metadata.duration, 0.5);
    assert.equal(up.body.data.metadata.sampleRate, '8000');
    assert.ok(obj(up.body.data.storageKey)?.data.equals(wav));
    assert.equal((await app.request('DELETE', `/asset/${asset}/media/${encodeURIComponent('take (1).wav')}`, { token: admin })).status, 200);
    assert.equal(obj(up.body.data.storageKey), undefined);
  });

  describe('a store that refuses the credentials or cannot be reached', () => {
    for (const [what, over, pattern] of [
      ['wrong secret', { secretAccessKey: 'wrong-secret' }, /Object store refused the credentials \(put "t\d+\/files\/[0-9a-f-]+\/original" in bucket "rondo-test": SignatureDoesNotMatch/],
      ['unreachable endpoint', { endpoint: 'http://127.0.0.1:9' }, /Object store is unreachable \(put .*ECONNREFUSED/],
    ] as const) {
      it(`${what}: uploads fail with 502 OBJECT_STORE_UNAVAILABLE and a clear message; nothing recorded; the app goes on`, async () => {
        const bad = await startTestApp({ workers: false, config: { objectStore: 's3', s3: s3ConfigFor(fake, over) } });
        try {
          const t = await createTestTenant(bad, 'S3 bad');
          const tok = t.users.admin!.token;
          // big enough to be a multipart upload that is cut short
          for (const data of [fixture(DK), Buffer.concat(Array(2000).fill(fixture(DK)))]) {
            const r = await upload(bad, tok, DK, data);
            assert.equal(r.status, 502, r.text);
            assert.equal(r.body.success, false);
            assert.equal(r.body.error.code, 'OBJECT_STORE_UNAVAILABLE');
            assert.match(r.body.error.message, pattern);
          }
          const u = await bad.request('POST', '/file/upload-url', { token: tok, body: {} });
          assert.equal(u.status, 201, 'signing needs no round trip');
          const reg = await bad.request('POST', '/file/createroyalty', { token: tok, body: { key: u.body.data.key, fileName: 'x.csv' } });
          assert.equal(reg.status, 502, reg.text);
          assert.equal(reg.body.error.code, 'OBJECT_STORE_UNAVAILABLE');
          const list = await bad.request('GET', '/file/', { token: tok });
          assert.equal(list.status, 200);
          assert.equal(list.body.pagination.total, 0);
        } finally {
          await bad.close();
        }
      });
    }
  });
});

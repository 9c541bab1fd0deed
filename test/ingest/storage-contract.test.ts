/**
 * The ObjectStore contract, written once and run against both stores: the local disk and
 * the S3 store talking to a fake S3 server (test/helpers/fake-s3.ts) over real HTTP with
 * SigV4. Then what only the S3 store does: prefix and metadata in the bucket, multipart and
 * the metadata copy, presigned PUTs (and their expiry), adopting an upload, and failures of
 * the store itself (wrong secret, unreachable endpoint) as clear errors.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LocalObjectStore, ObjectStoreError, isMissingObject, readHead, type ObjectStore } from '../../src/lib/storage';
import { S3ObjectStore } from '../../src/lib/s3-store';
import { clock } from '../../src/lib/clock';
import { startFakeS3, s3ConfigFor, type FakeS3 } from '../helpers/fake-s3';

const MiB = 1024 * 1024;
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
/** Deterministic bytes (not all zeros, so a misplaced part shows). */
function bytes(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 9)) & 255;
  return b;
}
/** A stream of `data` in chunks of 64 KiB (like a socket). */
const chunked = (data: Buffer) => Readable.from((function* () {
  for (let i = 0; i < data.length; i += 64 * 1024) yield data.subarray(i, i + 64 * 1024);
})());
async function readAll(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

interface Subject {
  store: ObjectStore;
  /** Multipart kicks in above this size on S3 (the local store has no such thing). */
  big: number;
  /** No half-written object or upload is left behind. */
  leftovers(): Promise<number>;
}

function contract(name: string, make: () => Promise<Subject>, done: () => Promise<void>) {
  describe(`ObjectStore contract: ${name}`, function () {
    this.timeout(60_000);
    let s: Subject;
    before(async () => (s = await make()));
    after(done);

    it('putStream counts and hashes; stat and getStream give the same bytes back', async () => {
      const data = bytes(200_000, 7);
      const r = await s.store.putStream('t1/files/a/original', chunked(data));
      assert.deepEqual(r, { size: data.length, sha256: sha(data) });
      const st = await s.store.stat('t1/files/a/original');
      assert.ok(st);
      assert.equal(st.key, 't1/files/a/original');
      assert.equal(st.size, data.length);
      assert.equal(st.sha256, sha(data));
      assert.ok(st.modifiedAt instanceof Date && Math.abs(st.modifiedAt.getTime() - Date.now()) < 3600_000);
      assert.ok((await readAll(await s.store.getStream('t1/files/a/original'))).equals(data));
    });

    it('a big object (several parts on S3) streams in and out intact, with inclusive ranges', async () => {
      const data = bytes(s.big * 2 + 12_345, 3);
      const r = await s.store.putStream('t1/files/big/original', chunked(data));
      assert.equal(r.size, data.length);
      assert.equal(r.sha256, sha(data));
      assert.equal((await s.store.stat('t1/files/big/original'))?.sha256, sha(data));
      assert.ok((await readAll(await s.store.getStream('t1/files/big/original'))).equals(data));
      for (const [start, end] of [[0, 9], [s.big - 3, s.big + 3], [data.length - 5, undefined], [undefined, 4], [100, 100]] as const) {
        const got = await readAll(await s.store.getStream('t1/files/big/original', { start, end }));
        assert.ok(got.equals(data.subarray(start ?? 0, end === undefined ? undefined : end + 1)), `range ${start}-${end}`);
      }
      assert.equal(await s.leftovers(), 0);
    });

    it('accepts an async iterable, an empty object, keys with spaces and parentheses; overwrites', async () => {
      async function* gen() {
        yield Buffer.from('hello ');
        yield Buffer.from('world');
      }
      assert.equal((await s.store.putStream('media/x/My Song (live).wav', gen())).sha256, sha(Buffer.from('hello world')));
      assert.equal((await readAll(await s.store.getStream('media/x/My Song (live).wav'))).toString(), 'hello world');
      const empty = await s.store.putStream('t1/files/empty/original', Readable.from([]));
      assert.deepEqual(empty, { size: 0, sha256: sha(Buffer.alloc(0)) });
      assert.equal((await s.store.stat('t1/files/empty/original'))?.size, 0);
      assert.equal((await readHead(s.store, 't1/files/empty/original', 8)).length, 0);
      await s.store.putStream('media/x/My Song (live).wav', Readable.from([Buffer.from('v2')]));
      assert.equal((await readAll(await s.store.getStream('media/x/My Song (live).wav'))).toString(), 'v2');
      assert.equal((await s.store.stat('media/x/My Song (live).wav'))?.sha256, sha(Buffer.from('v2')));
    });

    it('delete removes; absent objects: stat null, getStream a "missing" error, delete fine', async () => {
      await s.store.putStream('t1/files/gone/original', Readable.from([Buffer.from('bye')]));
      await s.store.delete('t1/files/gone/original');
      assert.equal(await s.store.stat('t1/files/gone/original'), null);
      await assert.rejects(s.store.getStream('t1/files/gone/original'), (e) => isMissingObject(e));
      await s.store.delete('t1/files/gone/original');
      await s.store.delete('t1/files/never/original');
      assert.equal(await s.store.stat('t1/files/never/original'), null);
    });

    it('refuses keys that climb out (.., //, leading /)', async () => {
      for (const k of ['../etc/passwd', 't1//x', '/abs', 't1/../../x']) {
        await assert.rejects(s.store.putStream(k, Readable.from([Buffer.from('x')])), /invalid object key/);
        await assert.rejects(s.store.stat(k), /invalid object key/);
      }
    });

    it('a source stream that fails mid-way: the same error, no object, no upload left behind', async () => {
      for (const size of [1000, s.big + 1000]) {
        const boom = new Error('source broke');
        const src = Readable.from((async function* () {
          yield bytes(size, 5);
          throw boom;
        })());
        await assert.rejects(s.store.putStream('t1/files/broken/original', src), (e) => e === boom);
        assert.equal(await s.store.stat('t1/files/broken/original'), null);
        assert.equal(await s.leftovers(), 0);
      }
    });
  });
}

// ------------------------------------------------------------------------------ local disk

let localDir = '';
contract(
  'local disk',
  async () => {
    localDir = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-store-'));
    const root = path.join(localDir, 'objects');
    return {
      store: new LocalObjectStore(root),
      big: 1 * MiB,
      async leftovers() {
        const all = await fs.readdir(root, { recursive: true }).catch(() => [] as string[]);
        return all.filter((f) => String(f).endsWith('.part')).length;
      },
    };
  },
  async () => {
    await fs.rm(localDir, { recursive: true, force: true });
  },
);

// ------------------------------------------------------------------------------ S3 (fake)

let fake: FakeS3;
let s3: S3ObjectStore;
contract(
  'S3 (fake S3 server, SigV4)',
  async () => {
    fake = await startFakeS3();
    // the smallest part S3 allows, so "big" stays small
    s3 = new S3ObjectStore(s3ConfigFor(fake), { partSize: 5 * MiB });
    return { store: s3, big: 5 * MiB, leftovers: async () => fake.uploads.size };
  },
  async () => {
    s3.close();
    await fake.close();
  },
);

describe('S3 object store: bucket layout, presigned uploads, failures', function () {
  this.timeout(60_000);
  let f: FakeS3;
  let store: S3ObjectStore;
  before(async () => {
    f = await startFakeS3();
    store = new S3ObjectStore(s3ConfigFor(f), { partSize: 5 * MiB, maxCopyObjectBytes: 6 * MiB, copyPartSize: 5 * MiB });
  });
  after(async () => {
    clock.reset();
    store.close();
    await f.close();
  });

  it('keys live under the prefix, with sha256 in x-amz-meta-sha256; small = one PutObject', async () => {
    f.log.length = 0;
    const data = Buffer.from('isrc,net\nUSRC17607839,0.01\n');
    await store.putStream('t9/files/s/original', Readable.from([data]));
    const o = f.objects.get('rondo/t9/files/s/original');
    assert.ok(o, [...f.objects.keys()].join(','));
    assert.equal(o.meta.sha256, sha(data));
    assert.deepEqual(f.log, ['PutObject rondo/t9/files/s/original']);
  });

  it('big = multipart upload, then the digest goes into the metadata by a server-side copy (UploadPartCopy above the CopyObject limit)', async () => {
    for (const [size, copyOp] of [[5 * MiB + 10, 'CopyObject'], [11 * MiB, 'UploadPartCopy']] as const) {
      f.log.length = 0;
      const data = bytes(size, size);
      await store.putStream('t9/files/m/original', chunked(data));
      const ops = f.log.map((l) => l.split(' ')[0]);
      assert.equal(ops[0], 'CreateMultipartUpload');
      assert.ok(ops.filter((o) => o === 'UploadPart').length >= 2, f.log.join('\n'));
      assert.ok(ops.includes('CompleteMultipartUpload'));
      assert.ok(ops.includes(copyOp), f.log.join('\n'));
      const o = f.objects.get('rondo/t9/files/m/original')!;
      assert.equal(o.meta.sha256, sha(data));
      assert.ok(o.data.equals(data));
      assert.equal(f.uploads.size, 0);
    }
  });

  it('presigned PUT: signed and expiring; adopt hashes it, moves it to its key with the digest, removes the upload', async () => {
    const url = new URL(await store.presignPut('uploads/t9/u1', 600));
    assert.equal(url.origin, f.endpoint);
    assert.equal(url.pathname, '/rondo-test/rondo/uploads/t9/u1');
    assert.equal(url.searchParams.get('X-Amz-Expires'), '600');
    assert.match(url.searchParams.get('X-Amz-Signature')!, /^[0-9a-f]{64}$/);
    const data = bytes(300_000, 9);
    assert.equal((await fetch(url, { method: 'PUT', body: data })).status, 200);
    // a tampered signature is refused
    const bad = new URL(url);
    bad.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    assert.equal((await fetch(bad, { method: 'PUT', body: 'evil' })).status, 403);
    const r = await store.adopt('uploads/t9/u1', 't9/files/u1/original', 10 * MiB);
    assert.deepEqual(r, { size: data.length, sha256: sha(data) });
    assert.equal(await store.stat('uploads/t9/u1'), null);
    assert.equal((await store.stat('t9/files/u1/original'))?.sha256, sha(data));
    assert.equal(await store.adopt('uploads/t9/u1', 't9/files/u1/original', 10 * MiB), null, 'nothing left to adopt');
  });

  it('an expired presigned URL is refused by the store; adopt refuses an upload over the size limit and removes it', async () => {
    clock.advance(-2 * 3600_000); // signed two hours ago, valid one hour
    const old = await store.presignPut('uploads/t9/u2', 3600);
    clock.reset();
    const res = await fetch(old, { method: 'PUT', body: 'late' });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /expired/);
    const url = await store.presignPut('uploads/t9/u3', 600);
    assert.equal((await fetch(url, { method: 'PUT', body: bytes(2000) })).status, 200);
    await assert.rejects(store.adopt('uploads/t9/u3', 't9/files/u3/original', 1000), (e) => e instanceof ObjectStoreError && e.code === 'FILE_TOO_LARGE' && e.status === 400);
    assert.equal(await store.stat('uploads/t9/u3'), null);
    assert.equal(await store.stat('t9/files/u3/original'), null);
  });

  it('a wrong secret: every operation fails with a clear 502 error (stat does not pretend "absent")', async () => {
    const wrong = new S3ObjectStore(s3ConfigFor(f, { secretAccessKey: 'not-the-secret' }));
    try {
      const check = (e: unknown) => e instanceof ObjectStoreError && e.status === 502 && e.code === 'OBJECT_STORE_UNAVAILABLE' && /refused the credentials/.test(e.message) && /rondo-test/.test(e.message);
      await assert.rejects(wrong.putStream('t9/files/w/original', Readable.from([Buffer.from('x')])), check);
      await assert.rejects(wrong.stat('t9/files/s/original'), check);
      await assert.rejects(wrong.getStream('t9/files/s/original'), check);
      await assert.rejects(wrong.delete('t9/files/s/original'), check);
      assert.ok(f.refused.some((r) => r.includes('SignatureDoesNotMatch')));
      assert.ok(f.objects.has('rondo/t9/files/s/original'), 'nothing was deleted');
    } finally {
      wrong.close();
    }
  });

  it('an unreachable endpoint: a clear 502 error, quickly (no hang)', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const down = new S3ObjectStore(s3ConfigFor(f, { endpoint: `http://127.0.0.1:${port}` }));
    try {
      const check = (e: unknown) => e instanceof ObjectStoreError && e.status === 502 && /unreachable/.test(e.message);
      await assert.rejects(down.stat('t9/files/s/original'), check);
      await assert.rejects(down.putStream('t9/files/x/original', chunked(bytes(6 * MiB))), check);
    } finally {
      down.close();
    }
  });
});

describe('object store configuration (OBJECT_STORE, S3_*)', () => {
  it('defaults to the local store; OBJECT_STORE=s3 reads and checks the S3 settings', async () => {
    const { loadConfig } = await import('../../src/config');
    const local = loadConfig({});
    assert.equal(local.objectStore, 'local');
    assert.equal(local.s3, null);
    assert.equal(local.uploadUrlTtlSeconds, 3600);
    const c = loadConfig({ OBJECT_STORE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000/', S3_PREFIX: 'prod', S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's', UPLOAD_URL_TTL_SECONDS: '600' });
    assert.deepEqual(c.s3, { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'b', prefix: 'prod/', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true });
    assert.equal(c.uploadUrlTtlSeconds, 600);
    // AWS itself: virtual-hosted style, the SDK's credential chain
    assert.deepEqual(loadConfig({ OBJECT_STORE: 's3', S3_BUCKET: 'b', S3_REGION: 'eu-west-3' }).s3, { endpoint: null, region: 'eu-west-3', bucket: 'b', prefix: '', accessKeyId: null, secretAccessKey: null, forcePathStyle: false });
    assert.throws(() => loadConfig({ OBJECT_STORE: 's3' }), /S3_BUCKET/);
    assert.throws(() => loadConfig({ OBJECT_STORE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' }), /go together/);
    assert.throws(() => loadConfig({ OBJECT_STORE: 'gcs' }), /OBJECT_STORE/);
    assert.throws(() => loadConfig({ UPLOAD_URL_TTL_SECONDS: '999999' }), /UPLOAD_URL_TTL_SECONDS/);
  });
});

/**
 * The reference service's statement upload flow, played as its clients play it against a live
 * server in the deployed shape: the API in this process, the workers in a process of their
 * own (the plain worker of test/helpers/stall-worker.ts), so progress reaches the API only
 * through the database.
 *
 *   Socket.io connect {auth: {token}} → POST /file/upload-url → PUT url →
 *   POST /file/confirm-upload-completion {fileId} → GET /file/detection/{sessionId} (polled) →
 *   POST /file/confirm-detection/{sessionId} {confirmed: true} → file:processing:* events,
 *   GET /file/processing/{jobId}
 *
 * The events reach the uploader only: another member of the same workspace and a member of
 * another workspace, connected all along, receive none of them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startWorkerProcess, stopWorkerProcess } from '../helpers/worker-process';
import { io, type Socket } from 'socket.io-client';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';

const DISTROKID = fs.readFileSync(path.resolve('test/fixtures/statements/DistroKid_1683000000000_NovaLune.tsv'));
const EVENTS = ['file:processing:started', 'file:processing:progress', 'file:processing:completed', 'file:processing:failed'];
const PAYLOAD_KEYS = ['error', 'fileId', 'fileName', 'fileStatus', 'message', 'metadata', 'progress', 'status'];
const METADATA_KEYS = ['accountingPeriod', 'processingTimeMs', 'rowsProcessed', 'salePeriod', 'source'];

interface Received {
  event: string;
  payload: any;
}

/** A connected reference client: every event it receives, and a wait for one of them. */
interface Client {
  socket: Socket;
  received: Received[];
  next(fileId: string, event: string): Promise<any>;
}

/** Polls `read` until `done` holds (bounded by the test's timeout). */
async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe("the reference service's upload flow with detection and Socket.io progress (API and workers apart)", function () {
  this.timeout(180_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let worker: ChildProcess;
  const clients: Socket[] = [];

  before(async () => {
    app = await startTestApp({ workers: false });
    a = await createTestTenant(app, 'Uploads A');
    b = await createTestTenant(app, 'Uploads B');
    worker = await startWorkerProcess(app);
  });

  after(async () => {
    for (const s of clients) s.disconnect();
    await stopWorkerProcess(worker);
    await app?.close();
  });

  /** Connects as a reference client does; rejects with the server's refusal. */
  function connect(token: unknown): Promise<Client> {
    const socket = io(app.url, { auth: token === undefined ? {} : { token }, transports: ['websocket'], reconnection: false, forceNew: true });
    clients.push(socket);
    const received: Received[] = [];
    const waiting: { fileId: string; event: string; resolve: (p: any) => void; reject: (e: Error) => void }[] = [];
    // the other end of a file, received while its awaited end is not: the wait fails at once
    const otherEnd = (event: string) => (event === 'file:processing:completed' ? 'file:processing:failed' : event === 'file:processing:failed' ? 'file:processing:completed' : null);
    socket.onAny((event: string, payload: any) => {
      received.push({ event, payload });
      for (const w of waiting.filter((x) => x.fileId === payload?.fileId && (x.event === event || otherEnd(x.event) === event))) {
        waiting.splice(waiting.indexOf(w), 1);
        if (w.event === event) w.resolve(payload);
        else w.reject(new Error(`${event} instead of ${w.event}: ${JSON.stringify(payload)}`));
      }
    });
    const next = (fileId: string, event: string) => {
      const seen = received.find((r) => r.payload?.fileId === fileId && r.event === event);
      return seen ? Promise.resolve(seen.payload) : new Promise<any>((resolve, reject) => waiting.push({ fileId, event, resolve, reject }));
    };
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve({ socket, received, next }));
      socket.once('connect_error', (err) => reject(err));
    });
  }

  /** The reference's steps up to the detection answer: upload URL, PUT, confirm-upload-completion, detection polled. */
  async function uploadAndDetect(token: string, fileName: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
    const u = await app.request('POST', '/file/upload-url', { token, body: { fileName } });
    assert.equal(u.status, 201, u.text);
    const { url, fileId } = u.body.data;
    assert.equal(url, u.body.data.uploadUrl);
    const put = await app.request('PUT', new URL(url).pathname, { raw: bytes });
    assert.equal(put.status, 200, put.text);
    const done = await app.request('POST', '/file/confirm-upload-completion', { token, body: { fileId, ...extra } });
    assert.equal(done.status, 201, done.text);
    assert.deepEqual([done.body.success, done.body.data.id, done.body.data.sessionId, done.body.data.fileName], [true, fileId, fileId, fileName]);
    // a second confirmation answers the same file (nothing registered twice)
    const again = await app.request('POST', '/file/confirm-upload-completion', { token, body: { fileId } });
    assert.deepEqual([again.status, again.body.message, again.body.data.id], [201, 'Already registered', fileId]);
    const detection = await poll(
      async () => {
        const r = await app.request('GET', `/file/detection/${fileId}`, { token });
        assert.equal(r.status, 200, r.text);
        return r.body.data;
      },
      (d) => d.state !== 'pending',
    );
    return { fileId, detection };
  }

  const ownEvents = (c: Client, fileId: string) => c.received.filter((r) => r.payload?.fileId === fileId);

  it('a socket needs a valid access token in auth.token', async () => {
    await assert.rejects(connect(undefined), /Unauthorized: an access token is required/);
    await assert.rejects(connect('not-a-token'), /Unauthorized/);
    await assert.rejects(connect(`${a.users.admin!.token.slice(0, -4)}AAAA`), /Unauthorized/);
    const ok = await connect(a.users.admin!.token);
    assert.equal(ok.socket.connected, true);
    ok.socket.disconnect();
  });

  it('upload, detection polled, {confirmed: true}, progress events to the uploader only, processing polled', async () => {
    const uploader = await connect(a.users.admin!.token);
    const colleague = await connect(a.users.owner!.token);
    const outsider = await connect(b.users.admin!.token);

    // 1. The uploader's statement; the workspace asks for its detection to be confirmed.
    const name = 'DistroKid_1683000000000_NovaLune.tsv';
    const { fileId, detection } = await uploadAndDetect(a.users.admin!.token, name, DISTROKID, { forceManualConfirmation: true });
    assert.deepEqual(
      [detection.sessionId, detection.fileId, detection.fileName, detection.state, detection.status, detection.source?.key, detection.jobId],
      [fileId, fileId, name, 'awaiting_confirmation', 'needs_confirmation', 'distrokid-2023', null],
    );
    assert.equal(detection.candidates[0].source, 'distrokid-2023');
    const confirmed = await app.request('POST', `/file/confirm-detection/${fileId}`, { token: a.users.admin!.token, body: { confirmed: true } });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.deepEqual([confirmed.body.message, confirmed.body.data.jobId, confirmed.body.data.source.key], ['Detection confirmed; ingest queued', fileId, 'distrokid-2023']);
    const completed = await uploader.next(fileId, 'file:processing:completed');

    const mine = ownEvents(uploader, fileId);
    assert.equal(mine[0]!.event, 'file:processing:started');
    assert.equal(mine.at(-1)!.event, 'file:processing:completed');
    assert.deepEqual(mine.slice(1, -1).map((e) => e.event).filter((e) => e !== 'file:processing:progress'), []);
    // progress never goes back; each progress event is a new tenth
    const progress = mine.map((e) => e.payload.progress as number);
    assert.deepEqual(progress, [...progress].sort((x, y) => x - y));
    const tenths = mine.filter((e) => e.event === 'file:processing:progress').map((e) => Math.floor(e.payload.progress / 10));
    assert.deepEqual(tenths, [...new Set(tenths)].sort((x, y) => x - y));
    for (const e of mine) {
      assert.deepEqual(Object.keys(e.payload).sort(), PAYLOAD_KEYS, e.event);
      assert.deepEqual(Object.keys(e.payload.metadata).sort(), METADATA_KEYS, e.event);
      assert.equal(e.payload.fileName, name);
    }

    const file = (await app.request('GET', `/file/${fileId}`, { token: a.users.admin!.token })).body.data;
    assert.equal(file.status, 'processed', file.error);
    assert.ok(file.counts.rowsIngested > 0);
    assert.deepEqual(
      { ...completed, metadata: { ...completed.metadata, processingTimeMs: 0 } },
      {
        fileId, fileName: name, status: 'completed', fileStatus: 'processed', progress: 100, message: 'Statement processed', error: null,
        metadata: { rowsProcessed: file.counts.rowsIngested, source: 'distrokid-2023', accountingPeriod: file.accountingPeriod, salePeriod: file.salePeriod, processingTimeMs: 0 },
      },
    );
    assert.ok(Number.isInteger(completed.metadata.processingTimeMs) && completed.metadata.processingTimeMs > 0);
    // the processing poll answers the same payload, and the detection now names the job
    const job = await app.request('GET', `/file/processing/${fileId}`, { token: a.users.admin!.token });
    assert.equal(job.status, 200, job.text);
    assert.deepEqual(job.body.data, { jobId: fileId, ...completed });
    const after = (await app.request('GET', `/file/detection/${fileId}`, { token: a.users.admin!.token })).body.data;
    assert.deepEqual([after.state, after.jobId], ['confirmed', fileId]);

    // 2. The outsider's statement in the other workspace (its events come after all of the uploader's).
    const other = await uploadAndDetect(b.users.admin!.token, 'DistroKid_1683000000001_NovaLune.tsv', Buffer.concat([DISTROKID, Buffer.from('\n')]));
    await outsider.next(other.fileId, 'file:processing:completed');

    // 3. The colleague's statement, read at once (a sure detection): {confirmed: true} answers it as it is.
    const theirs = await uploadAndDetect(a.users.owner!.token, 'DistroKid_1683000000002_NovaLune.tsv', Buffer.concat([DISTROKID, Buffer.from('\n\n')]));
    assert.equal(theirs.detection.state, 'confirmed');
    assert.equal(theirs.detection.jobId, theirs.fileId);
    const again = await app.request('POST', `/file/confirm-detection/${theirs.fileId}`, { token: a.users.owner!.token, body: { confirmed: true } });
    assert.deepEqual([again.status, again.body.message, again.body.data.jobId], [200, 'Already confirmed', theirs.fileId]);
    const theirsDone = await colleague.next(theirs.fileId, 'file:processing:completed');
    assert.equal(theirsDone.metadata.rowsProcessed, file.counts.rowsIngested); // read once, not twice

    // 4. The uploader's unreadable file: no source detected, then a source that cannot read it → failed.
    const bad = await uploadAndDetect(a.users.admin!.token, 'notes.csv', Buffer.from('hello there\nnothing to read\n'));
    assert.deepEqual([bad.detection.state, bad.detection.source], ['awaiting_confirmation', null]);
    const noSource = await app.request('POST', `/file/confirm-detection/${bad.fileId}`, { token: a.users.admin!.token, body: { confirmed: true } });
    assert.deepEqual([noSource.status, noSource.body.error.code], [400, 'NO_DETECTED_SOURCE']);
    const nothing = await app.request('POST', `/file/confirm-detection/${bad.fileId}`, { token: a.users.admin!.token, body: {} });
    assert.deepEqual([nothing.status, nothing.body.error.code], [400, 'SOURCE_REQUIRED']);
    const named = await app.request('POST', `/file/confirm-detection/${bad.fileId}`, { token: a.users.admin!.token, body: { source: 'distrokid-2023', confirmed: true } });
    assert.equal(named.status, 200, named.text);
    const failed = await uploader.next(bad.fileId, 'file:processing:failed');
    assert.deepEqual([failed.status, failed.fileStatus, failed.fileName], ['failed', 'failed', 'notes.csv']);
    assert.match(failed.error, /\S/);
    assert.deepEqual(ownEvents(uploader, bad.fileId).map((e) => e.event).filter((e) => e !== 'file:processing:started' && e !== 'file:processing:progress'), ['file:processing:failed']);
    const failedJob = (await app.request('GET', `/file/processing/${bad.fileId}`, { token: a.users.admin!.token })).body.data;
    assert.deepEqual(failedJob, { jobId: bad.fileId, ...failed });

    // Each client received the events of its own files only. (Each one's last file ended after
    // every other file it must not hear about: one socket's events arrive in the order sent.)
    assert.deepEqual([...new Set(uploader.received.map((r) => r.payload.fileId))].sort(), [fileId, bad.fileId].sort());
    assert.deepEqual([...new Set(outsider.received.map((r) => r.payload.fileId))], [other.fileId]);
    assert.deepEqual([...new Set(colleague.received.map((r) => r.payload.fileId))], [theirs.fileId]);
    for (const c of [uploader, outsider, colleague]) for (const r of c.received) assert.ok(EVENTS.includes(r.event), r.event);
  });

  it('the new routes are admin routes of the workspace: members are refused, other workspaces see nothing', async () => {
    const u = await app.request('POST', '/file/upload-url', { token: a.users.admin!.token, body: { fileName: 'x.tsv' } });
    const fileId = u.body.data.fileId;
    const put = await app.request('PUT', new URL(u.body.data.url).pathname, { raw: Buffer.concat([DISTROKID, Buffer.from('\n\n\n')]) });
    assert.equal(put.status, 200, put.text);
    for (const [m, p, body] of [
      ['POST', '/file/confirm-upload-completion', { fileId }],
      ['GET', `/file/detection/${fileId}`],
      ['POST', `/file/confirm-detection/${fileId}`, { confirmed: true }],
      ['GET', `/file/processing/${fileId}`],
    ] as [string, string, unknown][]) {
      assert.equal((await app.request(m, p, { token: a.users.user!.token, body })).status, 403, `${m} ${p} as a member`);
    }
    // another workspace cannot register this upload, nor read it once registered
    const cross = await app.request('POST', '/file/confirm-upload-completion', { token: b.users.admin!.token, body: { fileId } });
    assert.deepEqual([cross.status, cross.body.error.code], [400, 'UPLOAD_MISSING']);
    const mine = await app.request('POST', '/file/confirm-upload-completion', { token: a.users.admin!.token, body: { fileId } });
    assert.deepEqual([mine.status, mine.body.data.fileName], [201, 'x.tsv']);
    for (const p of [`/file/detection/${fileId}`, `/file/processing/${fileId}`]) {
      assert.equal((await app.request('GET', p, { token: b.users.admin!.token })).status, 404, p);
    }
    assert.equal((await app.request('POST', `/file/confirm-detection/${fileId}`, { token: b.users.admin!.token, body: { confirmed: true } })).status, 404);
  });
});

/**
 * receiveBuffer: the receiver the signed webhook reads its body with. A body that is too
 * large or that its client abandons is a ValidationError (400 in the route's shape), never a
 * stream error that would become a 500.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { receiveBuffer } from '../../../src/http/upload';
import { ValidationError } from '../../../src/lib/errors';

const code = (err: unknown) => (err instanceof ValidationError ? err.code : `not a ValidationError: ${String(err)}`);

describe('receiveBuffer (webhook bodies)', () => {
  it('returns the exact bytes of a complete body', async () => {
    const stream = new PassThrough();
    const got = receiveBuffer({ stream, headers: {} }, 100);
    stream.write('{"a":');
    stream.end(Buffer.from('1}'));
    assert.equal((await got).toString(), '{"a":1}');
  });

  it('refuses a body declared larger than the limit before reading it', async () => {
    const stream = new PassThrough();
    await assert.rejects(receiveBuffer({ stream, headers: { 'content-length': '101' } }, 100), (e) => code(e) === 'PAYLOAD_TOO_LARGE');
  });

  it('refuses a body that grows past the limit as it arrives', async () => {
    const stream = new PassThrough();
    const got = receiveBuffer({ stream, headers: {} }, 100);
    stream.write(Buffer.alloc(60));
    stream.write(Buffer.alloc(60));
    await assert.rejects(got, (e) => code(e) === 'PAYLOAD_TOO_LARGE');
    stream.end(Buffer.alloc(60)); // the rest is discarded without an error
  });

  it('a client that goes away mid-body is UPLOAD_ABORTED, whether the stream closes or errors', async () => {
    const closed = new PassThrough();
    const a = receiveBuffer({ stream: closed, headers: {} }, 100);
    closed.write('{"a":');
    closed.destroy();
    await assert.rejects(a, (e) => code(e) === 'UPLOAD_ABORTED');

    const failed = new PassThrough();
    const b = receiveBuffer({ stream: failed, headers: {} }, 100);
    failed.write('{"a":');
    failed.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    await assert.rejects(b, (e) => code(e) === 'UPLOAD_ABORTED');
  });
});

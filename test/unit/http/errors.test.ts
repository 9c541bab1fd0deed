/** The error middleware's last line of defence: Postgres data exceptions are the caller's input. */
import assert from 'node:assert/strict';
import type { Context } from 'koa';
import { errorMiddleware } from '../../../src/http/errors';

async function answer(err: unknown): Promise<{ status: number; body: any }> {
  const ctx = { state: { errorShape: 'status', requestId: 'r1' }, status: 404, body: undefined, set() {} } as unknown as Context;
  await errorMiddleware()(ctx, async () => {
    throw err;
  });
  return { status: ctx.status, body: ctx.body };
}
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'ERROR' });

describe('error middleware', () => {
  for (const [code, message] of [
    ['22003', 'numeric field overflow'],
    ['22008', 'date/time field value out of range: "0000-01-01"'],
    ['22P05', 'unsupported Unicode escape sequence'],
    ['22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
    ['22P02', 'invalid input syntax for type uuid: "x"'],
    ['54001', 'stack depth limit exceeded'],
  ]) {
    it(`Postgres ${code} is a 400 INVALID_VALUE`, async () => {
      assert.deepEqual(await answer(pgError(code!, message!)), { status: 400, body: { status: 'error', message: 'Invalid value', code: 'INVALID_VALUE', details: [message] } });
    });
  }
  it('an error that only looks like Postgres, or any other error, stays a 500', async () => {
    const fake = Object.assign(new Error('x'), { code: '22003' });
    assert.deepEqual(await answer(fake), { status: 500, body: { status: 'error', message: 'Internal server error', code: 'INTERNAL', details: ['requestId: r1'] } });
    assert.equal((await answer(new TypeError('boom'))).status, 500);
  });
});

/**
 * The process edge: an error that escapes a request (a stream error event nobody listens to, a
 * rejected promise nobody awaits) is logged with that request's id and the process keeps
 * running. Run in a child process, as the server runs, so the test runner's own handlers
 * do not stand in for ours.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const SCRIPT = `
import { EventEmitter } from 'node:events';
import { installProcessGuards, requestContext } from './src/lib/process-guard.ts';
const log = { error: (obj, msg) => console.log(JSON.stringify({ msg, requestId: obj.requestId ?? null, kind: obj.kind, err: String(obj.err?.message ?? obj.err) })) };
installProcessGuards(log);
requestContext.run({ requestId: 'req-stream' }, () => {
  setTimeout(() => new EventEmitter().emit('error', new Error('stream broke')), 5);
});
requestContext.run({ requestId: 'req-promise' }, () => {
  setTimeout(() => { Promise.reject(new Error('nobody awaited me')); }, 10);
});
setTimeout(() => { Promise.reject(new Error('outside any request')); }, 15);
setTimeout(() => console.log(JSON.stringify({ msg: 'still serving' })), 60);
`;

describe('process guards', () => {
  it('log escaped errors with the request id and keep the process running', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const code = await new Promise<number | null>((res) => child.on('exit', res));
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(code, 0);
    assert.deepEqual(lines, [
      { msg: 'uncaught exception (process keeps running)', requestId: 'req-stream', kind: 'uncaughtException', err: 'stream broke' },
      { msg: 'unhandled promise rejection (process keeps running)', requestId: 'req-promise', kind: 'unhandledRejection', err: 'nobody awaited me' },
      { msg: 'unhandled promise rejection (process keeps running)', requestId: null, kind: 'unhandledRejection', err: 'outside any request' },
      { msg: 'still serving' },
    ]);
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..', '..');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');

/** tsc over one probe file of the web app (its tsconfig), from a folder next to web/src: the compiler's errors, empty when it compiles. */
async function typeErrors(name: string, source: string): Promise<string> {
  const dir = path.join(root, 'web', `.probe-${name}-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  try {
    fs.writeFileSync(path.join(dir, 'probe.ts'), source);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['probe.ts'] }));
    try {
      await run(tsc, ['--noEmit', '-p', dir], { cwd: root });
      return '';
    } catch (e) {
      return String((e as { stdout?: string }).stdout ?? e);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('web app: the typed client refuses what the server does not have', function () {
  this.timeout(300_000);

  it('a call of an existing route reading an existing field compiles', async () => {
    const errors = await typeErrors('valid', `import { client, ok } from '../src/api';
export async function probe(): Promise<string> {
  const me = await ok(client.GET('/notifications/unread/count'));
  return String(me.data.count);
}
`);
    assert.equal(errors, '');
  });

  it('a call of a route the server does not have fails the type-check', async () => {
    const errors = await typeErrors('route', `import { client, ok } from '../src/api';
export async function probe(): Promise<unknown> {
  return ok(client.GET('/no-such-route', {}));
}
`);
    assert.match(errors, /probe\.ts\(3,.*'"\/no-such-route"'/);
  });

  it('reading a field the answer does not have fails the type-check', async () => {
    const errors = await typeErrors('field', `import { client, ok } from '../src/api';
export async function probe(): Promise<unknown> {
  const me = await ok(client.GET('/notifications/unread/count'));
  return me.data.noSuchField;
}
`);
    assert.match(errors, /probe\.ts\(4,.*Property 'noSuchField' does not exist/);
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..', '..');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');

/** The probe files of the web app, by name: one tsc run checks them all (each run loads the whole generated API types). */
const PROBES: Record<string, string> = {
  valid: `import { client, ok } from '../src/api';
export async function probe(): Promise<string> {
  const me = await ok(client.GET('/notifications/unread/count'));
  return String(me.data.count);
}
`,
  route: `import { client, ok } from '../src/api';
export async function probe(): Promise<unknown> {
  return ok(client.GET('/no-such-route', {}));
}
`,
  field: `import { client, ok } from '../src/api';
export async function probe(): Promise<unknown> {
  const me = await ok(client.GET('/notifications/unread/count'));
  return me.data.noSuchField;
}
`,
};

/**
 * tsc over the probe files (the web app's tsconfig), from a folder next to web/src: the
 * compiler's messages, each with the lines that continue it.
 */
async function compileProbes(): Promise<string[]> {
  const dir = path.join(root, 'web', `.probe-${process.pid}`);
  fs.mkdirSync(dir, { recursive: true });
  try {
    for (const [name, source] of Object.entries(PROBES)) fs.writeFileSync(path.join(dir, `probe-${name}.ts`), source);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', include: ['probe-*.ts'] }));
    let out = '';
    try {
      await run(tsc, ['--noEmit', '-p', dir], { cwd: root });
    } catch (e) {
      out = String((e as { stdout?: string }).stdout ?? e);
    }
    return out.split(/\n(?=\S)/).map((m) => m.trim()).filter(Boolean);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let compiled: Promise<string[]> | null = null;
/** The compiler's messages about one probe file. */
async function typeErrors(name: keyof typeof PROBES): Promise<string> {
  compiled ??= compileProbes();
  return (await compiled).filter((m) => m.includes(`probe-${name}.ts(`)).join('\n');
}

describe('web app: the typed client refuses what the server does not have', function () {
  this.timeout(300_000);

  it('a call of an existing route reading an existing field compiles', async () => {
    assert.equal(await typeErrors('valid'), '');
    // and the compiler said nothing but what the two failing probes earn (no error of the setup itself)
    compiled ??= compileProbes();
    assert.deepEqual((await compiled).filter((m) => !/probe-(route|field)\.ts\(/.test(m)), []);
  });

  it('a call of a route the server does not have fails the type-check', async () => {
    assert.match(await typeErrors('route'), /probe-route\.ts\(3,.*'"\/no-such-route"'/);
  });

  it('reading a field the answer does not have fails the type-check', async () => {
    assert.match(await typeErrors('field'), /probe-field\.ts\(4,.*Property 'noSuchField' does not exist/);
  });
});

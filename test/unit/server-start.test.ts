/**
 * What the API server loads at start (issue 37: its memory, docs/operations.md "API process
 * memory"): the packages src/server.ts reaches through static imports, read from esbuild's
 * import graph (the graph the precompiled dist/server.mjs is built from; `import type` is erased).
 * A library only a rare request needs is imported at its point of use, and the test tooling is
 * never imported by the server.
 */
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';

/** Each needed by one kind of rare request (a PDF, an XLSX export, a ZIP, an e-mail, an ERN message, a zip statement, a media file, a push). */
const ON_FIRST_USE = ['pdfkit', 'exceljs', 'archiver', 'nodemailer', 'xmlbuilder2', 'unzipper', 'music-metadata', 'web-push'];
const NEVER = ['playwright-core', 'mocha', 'fast-check', 'vite', 'typescript'];

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

async function serverImports(): Promise<{ atStart: Set<string>; later: Set<string> }> {
  const r = await esbuild.build({
    entryPoints: ['src/server.ts'], outfile: 'server.mjs', bundle: true, packages: 'external', platform: 'node', format: 'esm',
    write: false, metafile: true, logLevel: 'silent',
  });
  const atStart = new Set<string>();
  const later = new Set<string>();
  const seen = new Set<string>();
  const stack = ['src/server.ts'];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imp of r.metafile.inputs[file]?.imports ?? []) {
      if (imp.kind === 'dynamic-import') {
        if (imp.external) later.add(packageOf(imp.path));
        else stack.push(imp.path); // a module of ours imported on use: counted as loaded (conservative)
      } else if (imp.external) atStart.add(packageOf(imp.path));
      else stack.push(imp.path);
    }
  }
  assert.ok(seen.size > 100, `the graph was read (${seen.size} files)`);
  return { atStart, later };
}

describe('the API server at start (issue 37)', () => {
  let graph: Awaited<ReturnType<typeof serverImports>>;
  before(async () => {
    graph = await serverImports();
  });

  it('imports the libraries of rare requests only where they are used', () => {
    for (const p of ON_FIRST_USE) {
      assert.ok(!graph.atStart.has(p), `${p} is imported at start`);
      assert.ok(graph.later.has(p), `${p} is imported on use`);
    }
  });

  it('never imports the test tooling', () => {
    for (const p of NEVER) assert.ok(!graph.atStart.has(p) && !graph.later.has(p), `${p} is imported by the server`);
    assert.ok(graph.atStart.has('koa') && graph.atStart.has('knex'), 'the packages of every request are loaded at start');
  });
});

#!/usr/bin/env node
// Precompiles the server (src/server.ts and what it imports from src/, jobs/ and parsers/) into
// dist/server.mjs with esbuild, so `npm start` and `npm run start:prod` run plain JavaScript:
// an API process without tsx's loader is about 55 MB smaller (bench/RESULTS.md, "API process
// memory"). Packages stay in node_modules (imported, not bundled). The source map
// (dist/server.mjs.map, without the sources' text) keeps stack traces naming src/… files and
// lines under `node --enable-source-maps`. The tests, benches and the CLI still run the
// TypeScript through tsx.
// `--if-stale`: only when dist/server.mjs is missing or older than a source (or package.json).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `--out FILE`: elsewhere (the tests build their own, somewhere under the project's directory)
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'dist', 'server.mjs');
const SOURCES = ['src', 'jobs', 'parsers'];

/** The newest modification time of the server's sources. */
function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

if (process.argv.includes('--if-stale') && fs.existsSync(out)) {
  const sources = Math.max(fs.statSync(path.join(root, 'package.json')).mtimeMs, ...SOURCES.map((d) => newest(path.join(root, d))));
  if (fs.statSync(out).mtimeMs >= sources) process.exit(0);
}
// esbuild comes with tsx (and Vite), both dependencies; from tsx's own place when npm nested it there
const esbuild = await import('esbuild').catch(() => createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild'));
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['src/server.ts'],
  outfile: out,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
console.log(`server: built ${path.relative(root, out)}`);

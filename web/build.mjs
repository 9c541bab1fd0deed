#!/usr/bin/env node
// Builds the web app into web/dist with Vite. `--if-missing`: only when web/dist/index.html is absent
// (the production start uses it, so `npm ci --omit=dev && npm run start:prod` serves the app).
// `--if-stale`: also when a source of the app is newer than the build (npm start and the browser
// tests use it, so a pull that changed web/ never serves or tests an old build).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const built = path.join(here, 'dist', 'index.html');
/** The newest modification time of the app's sources (everything under web/ but the build). */
function newestSource(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'dist' || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}
const conditional = process.argv.includes('--if-missing') || process.argv.includes('--if-stale');
if (process.argv.includes('--if-missing') && fs.existsSync(built)) process.exit(0);
if (process.argv.includes('--if-stale') && fs.existsSync(built) && fs.statSync(built).mtimeMs >= newestSource(here)) process.exit(0);
let vite;
try {
  vite = await import('vite');
} catch {
  console.error('web: cannot build the web app: the "vite" package is not installed (run npm install). The API works without it; /app answers 503 until it is built.');
  process.exit(conditional ? 0 : 1);
}
await vite.build({ configFile: path.join(here, 'vite.config.ts') });
console.log('web: built web/dist');

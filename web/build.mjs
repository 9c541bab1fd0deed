#!/usr/bin/env node
// Builds the web app into web/dist with Vite. `--if-missing`: only when web/dist/index.html is absent
// (npm start uses it, so `npm install && npm start` and `npm ci --omit=dev && npm start` both serve the app).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
if (process.argv.includes('--if-missing') && fs.existsSync(path.join(here, 'dist', 'index.html'))) process.exit(0);
let vite;
try {
  vite = await import('vite');
} catch {
  console.error('web: cannot build the web app: the "vite" package is not installed (run npm install). The API works without it; /app answers 503 until it is built.');
  process.exit(process.argv.includes('--if-missing') ? 0 : 1);
}
await vite.build({ configFile: path.join(here, 'vite.config.ts') });
console.log('web: built web/dist');

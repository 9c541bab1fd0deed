/**
 * The project's root directory (the one holding package.json), found from a module's own URL:
 * the same whether the module runs from its TypeScript source (src/…, through tsx) or from
 * the precompiled bundle (dist/server.mjs, `npm run build:server`), whose directory differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(moduleUrl: string): string {
  const start = path.dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

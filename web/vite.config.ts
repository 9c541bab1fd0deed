import { defineConfig } from 'vite';

// Built into web/dist and served by Rondo itself at /app (src/modules/web/routes.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, assetsInlineLimit: 0, chunkSizeWarningLimit: 400 },
  server: { proxy: Object.fromEntries(['/auth', '/royalty', '/royalties', '/file', '/checklist', '/artist', '/asset', '/product', '/releases', '/split', '/splits', '/user', '/settings', '/currency', '/sources', '/pattern-creator', '/accounting', '/expense', '/payment', '/payment-request', '/app/config.json'].map((p) => [p, process.env.RONDO_URL || 'http://localhost:3000'])) },
});

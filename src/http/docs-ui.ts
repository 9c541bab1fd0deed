/**
 * GET /docs: Swagger UI (swagger-ui-dist, served from node_modules, no CDN) reading
 * /openapi.json. The page and its initializer are ours; the assets are the package's files,
 * served from a fixed list (no path from the request reaches the file system).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'application/javascript; charset=utf-8', '.png': 'image/png', '.map': 'application/json' };
const ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui.css.map',
  'swagger-ui-bundle.js',
  'swagger-ui-bundle.js.map',
  'swagger-ui-standalone-preset.js',
  'swagger-ui-standalone-preset.js.map',
  'favicon-16x16.png',
  'favicon-32x32.png',
]);

/**
 * The page opens one area of the API at a time (a document per tag, `/openapi/{area}`), chosen
 * from the top bar: Swagger UI takes tens of seconds to lay out the whole 300-route document,
 * and about a second for an area. The whole document stays at /openapi.json for tools.
 * validatorUrl null: the UI would otherwise send the document to an outside validator.
 */
function initScript(areas: { name: string; url: string }[]): string {
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(areas)},
    'urls.primaryName': ${JSON.stringify(areas.find((a) => a.url === '/openapi/auth')?.name ?? areas[0]?.name ?? '')},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    displayOperationId: false,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout'
  });
});
`;
}

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Rondo API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<noscript>This page needs JavaScript. The machine-readable document is at <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</noscript>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** One asset of the page by file name, or null when it is not one of them. */
export function docsAsset(name: string, areas: () => { name: string; url: string }[]): { type: string; body: string | fs.ReadStream } | null {
  if (name === 'init.js') return { type: TYPES['.js']!, body: initScript(areas()) };
  if (!ASSETS.has(name)) return null;
  return { type: TYPES[path.extname(name)]!, body: fs.createReadStream(path.join(dist, name)) };
}

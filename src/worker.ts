/**
 * `npm run worker`: pg-boss workers only, for scaling processing out across machines
 * that share the Postgres. With METRICS_PORT set it serves GET /metrics (same METRICS_TOKEN
 * rule as the API) and GET /health on that port. SIGTERM/SIGINT: running jobs get
 * SHUTDOWN_TIMEOUT_SECONDS to finish, then are failed and retried elsewhere.
 */
import http from 'node:http';
import { loadConfig } from './config';
import { boot } from './compose';
import { installProcessGuards } from './lib/process-guard';
import { metricsAllowed, METRICS_PATH } from './http/metrics';
import { drainServer, onShutdownSignal } from './lib/shutdown';

const cfg = loadConfig();
const rt = await boot(cfg, { workers: true, migrate: true });
installProcessGuards(rt.svc.log);
const { log, metrics } = rt.svc;

let server: http.Server | null = null;
if (cfg.metricsPort !== null) {
  server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (req.method === 'GET' && path === METRICS_PATH) {
      if (!metricsAllowed(cfg.metricsToken, req.headers.authorization)) {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' }).end('{"status":"error","message":"Unauthorized"}');
        return;
      }
      metrics.text().then(
        (m) => res.writeHead(200, { 'content-type': m.contentType, 'cache-control': 'no-store' }).end(m.body),
        (err) => {
          log.error({ err }, 'metrics failed');
          res.writeHead(500).end();
        },
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server!.listen(cfg.metricsPort!, cfg.host, resolve));
  log.info({ port: cfg.metricsPort }, 'worker metrics listening');
}
log.info('workers started');

onShutdownSignal(log, async () => {
  if (server) await drainServer(server, 1000, log);
  await rt.shutdown();
});

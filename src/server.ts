/**
 * `npm start` (development) and `npm run start:prod` / the container's command: the API and
 * the workers in one process (RUN_WORKERS=false: the API only), on an embedded Postgres under
 * DATA_DIR when DATABASE_URL is unset. SIGTERM/SIGINT shut it down gracefully (src/lib/shutdown.ts).
 */
import { loadConfig } from './config';
import { boot } from './compose';
import { createApp } from './app';
import { installProcessGuards } from './lib/process-guard';
import { drainServer, onShutdownSignal } from './lib/shutdown';
import { attachProgressSocket } from './modules/files/progress-socket';

const cfg = loadConfig();
const rt = await boot(cfg, { workers: cfg.runWorkers, migrate: true });
installProcessGuards(rt.svc.log);
const app = createApp(rt.svc);
const server = app.listen(cfg.port, cfg.host, () => {
  const url = cfg.publicUrl;
  const dataDir = cfg.databaseUrl ? '' : `DATA_DIR=${cfg.dataDir} `;
  console.log(`\nRondo is running.\n  Web app:        ${url}/app\n  API reference:  ${url}/docs  (OpenAPI: ${url}/openapi.json)`);
  console.log(`Database: ${cfg.databaseUrl ? 'DATABASE_URL' : `embedded Postgres under ${cfg.dataDir}`}; workers: ${cfg.runWorkers ? 'on' : 'off'}; billing: ${cfg.billing ? 'on (plans and limits apply)' : 'off (every workspace has every feature)'}`);
  console.log(`\nTo sign in, create a workspace first (in another terminal):`);
  console.log(`  ${dataDir}npm run rondo -- tenant:create --name "My Label" --owner-email you@example.com --password 'choose-a-password'`);
  console.log(`  (or: ${dataDir}npm run seed:demo — demo users, password "rondo-demo-pass")`);
  console.log(`then sign in at ${url}/app with that e-mail and password.\n`);
});

// The reference clients' progress events (Socket.io, path /socket.io) on the same server.
const progressSocket = attachProgressSocket(server, rt.svc);

if (cfg.production && !cfg.metricsToken) rt.svc.log.warn('METRICS_TOKEN is unset: GET /metrics is open to anyone who reaches this port (docs/operations.md)');

onShutdownSignal(rt.svc.log, async () => {
  await progressSocket.close();
  await drainServer(server, cfg.shutdownTimeoutSeconds * 1000, rt.svc.log);
  await rt.shutdown();
});

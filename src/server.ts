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

const cfg = loadConfig();
const rt = await boot(cfg, { workers: cfg.runWorkers, migrate: true });
installProcessGuards(rt.svc.log);
const app = createApp(rt.svc);
const server = app.listen(cfg.port, cfg.host, () => {
  const url = cfg.publicUrl;
  console.log(`\nRondo is running at ${url}  (API docs: ${url}/docs, OpenAPI: ${url}/openapi.json)`);
  console.log(`Database: ${cfg.databaseUrl ? 'DATABASE_URL' : `embedded Postgres under ${cfg.dataDir}`}; workers: ${cfg.runWorkers ? 'on' : 'off'}`);
  console.log(`\nTo sign in, create a workspace first (in another terminal):`);
  console.log(`  npm run rondo -- tenant:create --name "My Label" --owner-email you@example.com --password 'choose-a-password'`);
  console.log(`  (or: npm run seed:demo — demo users, password "rondo-demo-pass")`);
  console.log(`then:  curl -s -X POST ${url}/auth/login -H 'content-type: application/json' -d '{"email":"you@example.com","password":"choose-a-password"}'\n`);
});

if (cfg.production && !cfg.metricsToken) rt.svc.log.warn('METRICS_TOKEN is unset: GET /metrics is open to anyone who reaches this port (docs/operations.md)');

onShutdownSignal(rt.svc.log, async () => {
  await drainServer(server, cfg.shutdownTimeoutSeconds * 1000, rt.svc.log);
  await rt.shutdown();
});

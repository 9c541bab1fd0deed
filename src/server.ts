/**
 * `npm start`: the API and the workers in one process, on an embedded Postgres under
 * DATA_DIR when DATABASE_URL is unset.
 */
import { loadConfig } from './config';
import { boot } from './compose';
import { createApp } from './app';

const cfg = loadConfig();
const rt = await boot(cfg, { workers: cfg.runWorkers, migrate: true });
const app = createApp(rt.svc, { trustProxy: process.env.TRUST_PROXY === 'true' });
const server = app.listen(cfg.port, cfg.host, () => {
  const url = cfg.publicUrl;
  console.log(`\nRondo is running at ${url}  (API docs: ${url}/docs, OpenAPI: ${url}/openapi.json)`);
  console.log(`Database: ${cfg.databaseUrl ? 'DATABASE_URL' : `embedded Postgres under ${cfg.dataDir}`}; workers: ${cfg.runWorkers ? 'on' : 'off'}`);
  console.log(`\nTo sign in, create a workspace first (in another terminal):`);
  console.log(`  npm run rondo -- tenant:create --name "My Label" --owner-email you@example.com --password 'choose-a-password'`);
  console.log(`  (or: npm run seed:demo — demo users, password "rondo-demo-pass")`);
  console.log(`then:  curl -s -X POST ${url}/auth/login -H 'content-type: application/json' -d '{"email":"you@example.com","password":"choose-a-password"}'\n`);
});

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  rt.svc.log.info({ signal }, 'shutting down');
  server.close();
  await rt.shutdown();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

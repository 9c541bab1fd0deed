/**
 * `npm run worker`: pg-boss workers only, for scaling processing out across machines
 * that share the Postgres.
 */
import { loadConfig } from './config';
import { boot } from './compose';

const cfg = loadConfig();
const rt = await boot(cfg, { workers: true, migrate: true });
rt.svc.log.info('workers started');
const stop = async () => {
  await rt.shutdown();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

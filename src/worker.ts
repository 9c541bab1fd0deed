/**
 * `npm run worker`: pg-boss workers only, for scaling processing out across machines
 * that share the Postgres.
 */
import { loadConfig } from './config';
import { boot } from './services';
import { installProcessGuards } from './lib/process-guard';

const cfg = loadConfig();
const rt = await boot(cfg, { workers: true, migrate: true });
installProcessGuards(rt.svc.log);
rt.svc.log.info('workers started');
const stop = async () => {
  await rt.shutdown();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

/**
 * The composition root. Builds everything a process needs from the config: database
 * (embedded when DATABASE_URL is unset), migrations, secrets, queue, mailer, auth; registers
 * the cross-module hooks (registerHooks, the one place they are wired) and, in processes that
 * run them, the job workers. The API, the workers, the CLI and the tests all start through
 * here. Nothing in src/modules, src/pipeline or jobs/ imports this file.
 */
import path from 'node:path';
import type { Config } from './config';
import { connectDb, migrateLatest, type Db } from './db';
import { startEmbeddedPostgres, type EmbeddedHandle } from './db/embedded';
import { createLogger, type Logger } from './lib/logger';
import { NodeTxtResolver } from './lib/dns';
import { FileMailer, SmtpMailer, type Mailer } from './lib/mailer';
import { HttpSmsGateway, NoSmsGateway } from './lib/sms';
import { loadKeys } from './keys';
import { setBilling } from './domain/features';
import { Metrics } from './metrics';
import { AuthService } from './modules/auth/service';
import { TokenSigner } from './modules/auth/tokens';
import { Queue } from '../jobs/queue';
import { registerWorkers } from '../jobs';
import type { AppServices, Runtime as BaseRuntime } from './services';
import { FILE_DELETE_HOOKS } from './modules/files/hooks';
import { postAllocationHooks, removeFilesRoyalties } from './modules/royalty/pipeline';
import { closeAnalyticsEngine } from './modules/royalty/analytics-engine';
import { postRoyaltiesForFile } from './modules/money/ledger';
import { syncFileExpenses } from './modules/money/file-expenses';

export type { AppServices } from './services';
/** The services a booted process holds: the ports filled with the auth module's own classes. */
export type BootedServices = AppServices & { auth: AuthService; signer: TokenSigner };
export type Runtime = BaseRuntime<BootedServices>;

/**
 * Cross-module hooks, wired here and nowhere else (never by an import's side effect):
 * - deleting a file removes what the royalty engine derived from it (earnings, rollups);
 * - after a file's earnings change, money makes the file's expenses from its expense rows, then
 *   posts the ledger difference.
 * Idempotent: every process calls it once at boot.
 */
export function registerHooks(): void {
  if (!FILE_DELETE_HOOKS.includes(removeFilesRoyalties)) FILE_DELETE_HOOKS.push(removeFilesRoyalties);
  if (!postAllocationHooks.includes(syncFileExpenses)) postAllocationHooks.push(syncFileExpenses);
  if (!postAllocationHooks.includes(postRoyaltiesForFile)) postAllocationHooks.push(postRoyaltiesForFile);
}



/** Resolve the owner URL: DATABASE_URL, or the embedded cluster (started or shared). */
export async function resolveDatabase(cfg: Config, log: Logger, opts: { fast?: boolean } = {}): Promise<{ url: string; embedded: EmbeddedHandle | null }> {
  if (cfg.databaseUrl) return { url: cfg.databaseUrl, embedded: null };
  const embedded = await startEmbeddedPostgres({ dataDir: cfg.dataDir, fast: opts.fast, log: (m) => log.debug({ pg: m }) });
  const base = new URL(embedded.url);
  // The cluster's default database is `postgres`; Rondo keeps its data in `rondo`.
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: embedded.url });
  await c.connect();
  const exists = await c.query(`SELECT 1 FROM pg_database WHERE datname = 'rondo'`);
  if (!exists.rowCount) await c.query('CREATE DATABASE rondo');
  await c.end();
  base.pathname = '/rondo';
  return { url: base.toString(), embedded };
}

export async function grantQueueToApp(db: Db): Promise<void> {
  // Jobs are enqueued inside tenant transactions, which run as the application role.
  await db.owner.raw(`GRANT USAGE ON SCHEMA pgboss TO rondo_app`);
  await db.owner.raw(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO rondo_app`);
  await db.owner.raw(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgboss TO rondo_app`);
  await db.owner.raw(`ALTER DEFAULT PRIVILEGES IN SCHEMA pgboss GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO rondo_app`);
}

export interface BootOptions {
  /** Run pg-boss workers in this process. */
  workers: boolean;
  /** Start the queue at all (the CLI needs only the database). */
  queue?: boolean;
  migrate?: boolean;
  /** An already-resolved database URL (tests: one database per test file). */
  databaseUrl?: string;
  fastEmbedded?: boolean;
  log?: Logger;
}

export async function boot(cfg: Config, opts: BootOptions): Promise<Runtime> {
  registerHooks();
  setBilling(cfg.billing);
  const log = opts.log ?? createLogger(cfg.logLevel);
  let embedded: EmbeddedHandle | null = null;
  let url = opts.databaseUrl;
  if (!url) ({ url, embedded } = await resolveDatabase(cfg, log, { fast: opts.fastEmbedded }));
  const db = connectDb(url);
  try {
    if (opts.migrate !== false) {
      const applied = await migrateLatest(db.owner);
      if (applied.length) log.info({ applied }, 'migrations applied');
    }
    const keys = await loadKeys(cfg, db, log);
    const signer = new TokenSigner(keys.jwt.keys);
    const queue = new Queue(url, cfg.queuePollSeconds);
    const mailer: Mailer = cfg.smtpUrl ? new SmtpMailer(cfg.smtpUrl, cfg.mailFrom) : new FileMailer(path.join(cfg.dataDir, 'mail'), cfg.mailFrom);
    const svc: BootedServices = { cfg, log, db, signer, auth: new AuthService(db.owner, signer, cfg), mailer, queue, secrets: keys.box, metrics: new Metrics(db.owner), dns: new NodeTxtResolver(), sms: cfg.smsGateway ? new HttpSmsGateway(cfg.smsGateway.url, cfg.smsGateway.key, cfg.partnerTimeoutMs) : new NoSmsGateway() };
    queue.jobHook = svc.metrics.jobHook;
    queue.onReclaimed = (jobs) => log.warn({ jobs }, 'jobs whose worker stopped were handed back to the queue');
    const useQueue = opts.queue !== false;
    let stopping = false;
    if (useQueue) {
      // 57P01 after shutdown began: the cluster stopping under a pooled connection pg-boss had not closed yet.
      queue.boss.on('error', (err) => {
        if (stopping && (err as { code?: string }).code === '57P01') return log.debug({ err }, 'queue connection closed by shutdown');
        log.error({ err }, 'queue error');
      });
      await queue.start();
      await grantQueueToApp(db);
      if (opts.workers) await registerWorkers(svc, queue);
    }
    return {
      svc,
      async shutdown() {
        stopping = true;
        await closeAnalyticsEngine(svc);
        if (useQueue) await queue.stop(cfg.shutdownTimeoutSeconds * 1000).catch((err) => log.error({ err }, 'queue stop failed'));
        await db.close();
        if (embedded) await embedded.stop();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    if (embedded) await embedded.stop().catch(() => undefined);
    throw err;
  }
}

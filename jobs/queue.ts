/**
 * pg-boss in the same Postgres (schema `pgboss`). Jobs are sent inside the writer's
 * transaction when one is given, so a file row and its first job commit together.
 *
 * Wake-up: pg-boss workers poll (QUEUE_POLL_SECONDS). Each send also does
 * `pg_notify('rondo_jobs', <queue>)` — inside the sender's transaction, so it is delivered
 * at commit, exactly when the job becomes visible — and every process that runs workers
 * LISTENs and wakes its workers of that queue at once. A file's five steps no longer wait
 * for a poll each (measured: 1.7 s of waits per file at a 0.5 s poll). Polling stays the
 * fallback: a lost notification or a dropped listener only costs latency.
 */
import PgBoss from 'pg-boss';
import pg from 'pg';
import { rawConnection } from '../src/db';
import { PgListener } from '../src/db/listen';
import { JOB_OPTIONS, queueOptions, type JobName, type JobPayloads, type JobQueue, type SendOptions } from '../src/pipeline/registry';
import { JobLeases, type ReclaimedJob } from './leases';

export type { SendOptions };

const CHANNEL = 'rondo_jobs';

export class Queue implements JobQueue {
  readonly boss: PgBoss;
  /** pg-boss worker ids per queue (the ones this process runs). */
  private readonly workers = new Map<string, string[]>();
  /** One LISTEN connection per process that runs workers: a job sent wakes its queue's workers at once. */
  private readonly wakeups: PgListener;
  private stopping_ = false;
  /** Every handler run of this process still under way (stop() waits for them). */
  private readonly running = new Set<Promise<void>>();
  /** Aborted when stop() gives up waiting: handlers pass it to their own I/O (webhook requests). */
  private readonly shutdown = new AbortController();
  /** Wraps every job run of this process (metrics: src/metrics.ts). */
  jobHook: ((queue: string, run: () => Promise<void>) => Promise<void>) | null = null;
  /** Told which jobs of dead workers this process handed back to the queue (logs). */
  onReclaimed: ((jobs: ReclaimedJob[]) => void) | null = null;
  /** The leases of this process's running jobs and the sweep for abandoned ones (jobs/leases.ts). */
  readonly leases: JobLeases;

  constructor(private readonly connectionString: string, private readonly pollSeconds: number) {
    this.boss = new PgBoss({ connectionString, schema: 'pgboss', max: 4, supervise: true, monitorStateIntervalSeconds: 60 });
    this.wakeups = new PgListener(
      connectionString,
      CHANNEL,
      (queue) => {
        for (const id of this.workers.get(queue) ?? []) this.boss.notifyWorker(id);
      },
      (err) => this.boss.emit('error', Object.assign(err, { message: `job wake-up listener: ${err.message} (polling continues)` })),
    );
    this.leases = new JobLeases(connectionString, this.boss, CHANNEL, {
      error: (err) => this.boss.emit('error', err),
      reclaimed: (jobs) => this.onReclaimed?.(jobs),
    });
  }

  async start(): Promise<void> {
    await this.boss.start();
    for (const name of Object.keys(JOB_OPTIONS) as JobName[]) {
      await this.boss.createQueue(`${name}.dead`, { name: `${name}.dead` });
      await this.boss.createQueue(name, { name, ...queueOptions(name), deadLetter: `${name}.dead` });
    }
  }

  /** True once stop() began: a handler must not schedule work for this process (its chain restarts at the next start). */
  get stopping(): boolean {
    return this.stopping_;
  }

  /** Aborted when a stop stops waiting for the running handlers. */
  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  async send<N extends JobName>(name: N, data: JobPayloads[N], opts: SendOptions = {}): Promise<string | null> {
    const options: PgBoss.SendOptions & { db?: PgBoss.Db } = {};
    if (opts.singletonKey) options.singletonKey = opts.singletonKey;
    if (opts.startAfter !== undefined) options.startAfter = opts.startAfter as never;
    if (opts.trx) {
      const conn = await rawConnection(opts.trx);
      options.db = { executeSql: (text: string, values?: unknown[]) => conn.query(text, values as unknown[]) as never };
    }
    const id = await this.boss.send(name, data as object, options);
    // Wake the workers of this queue (delivered at commit when sent inside a transaction).
    if (id && opts.startAfter === undefined) {
      const notify = `SELECT pg_notify('${CHANNEL}', $1)`;
      if (options.db) await options.db.executeSql(notify, [name]); // part of the caller's transaction
      else {
        // the job is committed already: a failed wake-up must not make send() look failed (polling picks it up)
        await this.boss.getDb().executeSql(notify, [name]).catch((err: Error) => this.boss.emit('error', Object.assign(err, { message: `job wake-up: ${err.message} (polling continues)` })));
      }
    }
    return id;
  }

  /**
   * Runs `handler` per job; the job carries its metadata (retryCount, retryLimit: a handler can
   * tell its last attempt). Each run holds the job's lease, and a process that runs workers
   * sweeps for jobs whose worker died (jobs/leases.ts).
   */
  async work<N extends JobName>(name: N, handler: (data: JobPayloads[N], job: PgBoss.JobWithMetadata<JobPayloads[N]>) => Promise<void>, opts: { concurrency?: number } = {}): Promise<void> {
    await this.wakeups.start().catch(() => undefined); // without it the workers still poll
    this.leases.start();
    for (let i = 0; i < (opts.concurrency ?? 1); i++) {
      const id = await this.boss.work<JobPayloads[N]>(name, { batchSize: 1, pollingIntervalSeconds: this.pollSeconds, includeMetadata: true }, (jobs) => {
        const run = (async () => {
          for (const job of jobs) {
            await this.leases.hold(job.id);
            try {
              if (this.jobHook) await this.jobHook(name, () => handler(job.data, job));
              else await handler(job.data, job);
            } finally {
              this.leases.release(job.id);
            }
          }
        })();
        const tracked = run.catch(() => undefined).finally(() => this.running.delete(tracked));
        this.running.add(tracked);
        return run;
      });
      const ids = this.workers.get(name) ?? [];
      ids.push(id);
      this.workers.set(name, ids);
    }
  }

  async waiting(name: JobName, singletonKey: string): Promise<boolean> {
    const r = (await this.boss.getDb().executeSql(
      `SELECT 1 FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state IN ('created', 'retry') LIMIT 1`,
      [name, singletonKey],
    )) as { rows: unknown[] };
    return r.rows.length > 0;
  }

  async ping(): Promise<boolean> {
    const n = await this.boss.getQueueSize(Object.keys(JOB_OPTIONS)[0] ?? 'noop');
    return Number.isInteger(n);
  }

  /**
   * Stops taking jobs, then waits for the handlers under way: they get `timeoutMs` in all; for
   * its last part (a fifth, at most 5 s) `signal` is aborted, so handlers doing outbound I/O
   * (webhook requests) give up and return. Only then does pg-boss stop (a job still running is
   * failed, and retried by another worker) and close its pool: a handler does not outlive the
   * queue, run on against pools that are closing, or leave its timers behind.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopping_ = true;
    await this.wakeups.close();
    for (const name of this.workers.keys()) await this.boss.offWork(name).catch(() => undefined);
    const grace = Math.min(ABORT_GRACE_MS, Math.floor(timeoutMs / 5));
    if (!(await this.settled(timeoutMs - grace))) {
      this.shutdown.abort(new Error('the job queue is stopping'));
      await this.settled(grace);
    }
    await this.fetchesDone(Math.max(1000, grace));
    // pg-boss waits only for a job a worker fetched after the wait above (none, almost always)
    await this.boss.stop({ graceful: true, wait: true, timeout: Math.max(1000, grace) });
    await this.leases.stop(); // after pg-boss recorded every outcome: no finished job looks abandoned
  }

  /**
   * Waits (at most `ms`) until no query of pg-boss's pool is under way or waiting for a
   * connection: the stopped workers' last fetches. pg-pool's end() never answers a query still
   * waiting for a connection, so a worker caught there would never stop, and pg-boss's loop
   * that waits for it would poll every second for ever (the open Timeouts after a test run).
   */
  private async fetchesDone(ms: number): Promise<void> {
    const pool = (this.boss.getDb() as { pool?: pg.Pool }).pool;
    const deadline = Date.now() + ms;
    while (pool && (pool.waitingCount > 0 || pool.idleCount < pool.totalCount) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Whether every handler run (also one a worker fetched while being stopped) settled within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.running.size) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(left, 250))));
      try {
        await Promise.race([Promise.all([...this.running]), late]);
      } finally {
        clearTimeout(timer);
      }
    }
    return true;
  }
}

/** The most of a stop's time that aborted handlers get to return. */
const ABORT_GRACE_MS = 5000;

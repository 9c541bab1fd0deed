/**
 * Job leases: a job whose worker died resumes within a minute, whatever the job.
 *
 * pg-boss (v10) knows a job only as `active` until its `expireInSeconds` pass (up to an hour
 * here), so a worker killed mid-job (kill -9, out of memory, machine lost) used to leave the
 * job waiting that long. Here, while a handler runs, its process holds a session-level
 * advisory lock keyed by the job id on one connection of its own (the lease). A process dies
 * → Postgres ends its connections → its leases go. Every process that runs workers sweeps at
 * start and every `sweepSeconds`: an `active` job older than `graceSeconds` (the moment
 * between pg-boss's fetch and the lease) with no lease is failed through pg-boss (so its retry
 * limit and dead-letter queue apply, a crash counting as an attempt) and, when a retry is left,
 * made due at once and its workers woken (the queue's NOTIFY channel).
 *
 * - The lease connection has server-side TCP keepalives (about 25 s), so a machine that
 *   vanishes without closing its sockets loses its leases too.
 * - A lease is given back a few seconds after its handler settled, once pg-boss has recorded
 *   the outcome: a finished job never looks abandoned.
 * - A lease connection that drops is reopened and the leases of the jobs still running are
 *   taken again; a sweep that runs in that moment may start a second run of such a job, which
 *   every job tolerates (each is idempotent: docs/architecture.md#recovery).
 * - One sweep at a time across processes (a transaction-level advisory lock); the rows it
 *   fails are locked (`FOR UPDATE … SKIP LOCKED`), so pg-boss's own completion of a job cannot
 *   cross it.
 */
import type PgBoss from 'pg-boss';
import pg from 'pg';

/** Advisory-lock namespaces (the two-key form): one for job leases, one for the sweep. */
const LEASE_NS = 0x726e646a;
const SWEEP_NS = LEASE_NS + 1;
/** A job's lease key: 31 bits of its id (a collision only makes a dead job wait for pg-boss's expiry). */
const keyOf = (idSql: string) => `(('x' || left(replace(${idSql}::text, '-', ''), 8))::bit(32)::int & 2147483647)`;
const LOCK_SQL = `SELECT pg_try_advisory_lock(${LEASE_NS}, ${keyOf('$1::uuid')})`;
const UNLOCK_SQL = `SELECT pg_advisory_unlock(${LEASE_NS}, ${keyOf('$1::uuid')})`;
const ABANDONED_SQL = `
  SELECT j.name, j.id FROM pgboss.job j
   WHERE j.state = 'active' AND j.started_on < now() - make_interval(secs => $1)
     AND NOT EXISTS (
       SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid = ${LEASE_NS}::bigint::oid AND l.objid = ${keyOf('j.id')}::bigint::oid)
   ORDER BY j.started_on
     FOR UPDATE OF j SKIP LOCKED`;

/** The lease timing (tests may shorten it). */
export const LEASE_TIMING = {
  /** How often each process with workers looks for abandoned jobs. */
  sweepSeconds: 10,
  /** How old an `active` job must be before a missing lease counts (covers fetch → lease). */
  graceSeconds: 15,
  /** How long after its handler settles a lease is kept (pg-boss records the outcome meanwhile). */
  releaseDelayMs: 5000,
};

export interface ReclaimedJob {
  name: string;
  id: string;
}

export class JobLeases {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  /** Job id → how many runs of it this process holds a lease for (a lock is re-entrant per session). */
  private readonly held = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Every use of the lease connection, one after another (a sweep's transaction is not interleaved). */
  private chain: Promise<unknown> = Promise.resolve();
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly connectionString: string,
    private readonly boss: PgBoss,
    /** The NOTIFY channel whose payload (a queue name) wakes that queue's workers in every process. */
    private readonly wakeChannel: string,
    /** Where errors and the reclaimed jobs are reported. */
    private readonly hooks: { error: (err: Error) => void; reclaimed: (jobs: ReclaimedJob[]) => void },
  ) {}

  private serial<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const run = this.chain.then(async () => fn(await this.connection()));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.stopped) return Promise.reject(new Error('the job queue is stopping'));
    this.connecting ??= (async () => {
      const c = new pg.Client({
        connectionString: this.connectionString,
        application_name: 'rondo job leases',
        keepAlive: true,
        // the server notices a client machine that vanished (no FIN) within about 25 s
        options: '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3',
      });
      const lost = (err?: Error) => {
        if (this.client !== c) return;
        this.client = null;
        c.end().catch(() => undefined);
        if (!this.stopped && err) this.hooks.error(Object.assign(err, { message: `job lease connection: ${err.message} (reopened at the next use)` }));
      };
      c.on('error', lost);
      c.on('end', () => lost());
      await c.connect();
      for (const id of this.held.keys()) await c.query(LOCK_SQL, [id]); // the leases of jobs still running here
      this.client = c;
      return c;
    })().finally(() => (this.connecting = null));
    return this.connecting;
  }

  /** Takes the lease of a job this process starts; throws when it cannot (the job then fails and is retried). */
  async hold(jobId: string): Promise<void> {
    this.held.set(jobId, (this.held.get(jobId) ?? 0) + 1);
    try {
      await this.serial((c) => c.query(LOCK_SQL, [jobId]));
    } catch (err) {
      this.drop(jobId);
      throw err;
    }
  }

  /** Gives the lease back once pg-boss has recorded the handler's outcome. */
  release(jobId: string): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.drop(jobId) || this.stopped) return;
      this.serial((c) => c.query(UNLOCK_SQL, [jobId])).catch(() => undefined);
    }, LEASE_TIMING.releaseDelayMs);
    t.unref();
    this.timers.add(t);
  }

  /** One run fewer; true when it was the last. */
  private drop(jobId: string): boolean {
    const n = (this.held.get(jobId) ?? 1) - 1;
    if (n > 0) this.held.set(jobId, n);
    else this.held.delete(jobId);
    return n <= 0;
  }

  /** Sweeps now and then every sweepSeconds, until stop(). */
  start(): void {
    if (this.sweeper || this.stopped) return;
    const tick = () => void this.sweep().catch((err: Error) => this.hooks.error(Object.assign(err, { message: `job lease sweep: ${err.message}` })));
    tick();
    this.sweeper = setInterval(tick, LEASE_TIMING.sweepSeconds * 1000);
    this.sweeper.unref();
  }

  /** Fails every abandoned job through pg-boss and makes its retry due now. Returns what it reclaimed. */
  sweep(): Promise<ReclaimedJob[]> {
    return this.serial(async (c) => {
      if (this.stopped) return [];
      await c.query('BEGIN');
      try {
        const turn = await c.query(`SELECT pg_try_advisory_xact_lock(${SWEEP_NS}, 0) AS mine`);
        const jobs: ReclaimedJob[] = turn.rows[0].mine ? (await c.query(ABANDONED_SQL, [LEASE_TIMING.graceSeconds])).rows : [];
        const db = { executeSql: (text: string, values?: unknown[]) => c.query(text, values as unknown[]) as never };
        // one by one: pg-boss takes a reason only with a single id
        for (const j of jobs) await this.boss.fail(j.name, j.id, { message: 'the worker running this job stopped (its lease ended)' }, { db });
        if (jobs.length) {
          await c.query(`UPDATE pgboss.job SET start_after = now() WHERE id = ANY($1::uuid[]) AND state = 'retry'`, [jobs.map((j) => j.id)]);
          // delivered at commit, when the retries are visible
          for (const name of new Set(jobs.map((j) => j.name))) await c.query('SELECT pg_notify($1, $2)', [this.wakeChannel, name]);
        }
        await c.query('COMMIT');
        if (jobs.length) this.hooks.reclaimed(jobs);
        return jobs;
      } catch (err) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /** Stops sweeping and ends the lease connection (every lease of this process ends with it). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.chain;
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }
}

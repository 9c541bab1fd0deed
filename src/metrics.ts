/**
 * Prometheus metrics (GET /metrics on the API, METRICS_PORT on a worker-only process).
 * One registry per runtime (tests build several in one process).
 *
 *   rondo_http_request_duration_seconds{method,route,status}  route = the router's path template
 *                                                             (`/user/:id`), never the raw URL
 *   rondo_queue_jobs{queue,state}                             pg-boss jobs waiting (created, retry) or
 *                                                             running (active), counted at scrape
 *   rondo_job_duration_seconds{queue,outcome}                 every job run, by pipeline step
 *   rondo_files_finished_total{status}                        statement files reaching processed / failed
 *   rondo_lines_ingested_total                                statement lines stored; rate() = lines/s
 *   rondo_ingest_last_lines_per_second                        the last ingested file's lines / ingest seconds
 *   rondo_process_*, rondo_nodejs_*                           prom-client's process metrics (CPU, memory, event loop)
 *
 * Queue depth is the same for every process (one Postgres): aggregate it with max(), not sum().
 */
import client from 'prom-client';
import type { Knex } from './db';
import type { StepRecord } from './pipeline/run-step';

const PREFIX = 'rondo_';
const TERMINAL = new Set(['processed', 'failed']);

/**
 * Process metrics (CPU, memory, event loop, GC) are per process, not per runtime: collected
 * once into prom-client's global registry and merged into every scrape.
 */
let processMetricsOn = false;
function processMetrics(): client.Registry {
  if (!processMetricsOn) {
    client.collectDefaultMetrics({ prefix: PREFIX });
    processMetricsOn = true;
  }
  return client.register;
}

export class Metrics {
  readonly registry = new client.Registry();
  readonly httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  readonly jobDuration: client.Histogram<'queue' | 'outcome'>;
  readonly filesFinished: client.Counter<'status'>;
  readonly linesIngested: client.Counter;
  readonly lastLinesPerSecond: client.Gauge;

  private readonly scraped: client.Registry;

  constructor(private readonly owner: Knex) {
    const registers = [this.registry];
    this.httpDuration = new client.Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'HTTP request latency by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.jobDuration = new client.Histogram({
      name: `${PREFIX}job_duration_seconds`,
      help: 'Job run time by queue (pipeline step) and outcome (completed, failed)',
      labelNames: ['queue', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    this.filesFinished = new client.Counter({
      name: `${PREFIX}files_finished_total`,
      help: 'Statement files that reached a final status (processed or failed) in this process',
      labelNames: ['status'],
      registers,
    });
    for (const status of TERMINAL) this.filesFinished.inc({ status }, 0);
    this.linesIngested = new client.Counter({
      name: `${PREFIX}lines_ingested_total`,
      help: 'Statement lines stored by this process (rate() gives lines per second)',
      registers,
    });
    this.lastLinesPerSecond = new client.Gauge({
      name: `${PREFIX}ingest_last_lines_per_second`,
      help: 'Lines per second of the last file this process ingested',
      registers,
    });
    const metrics = this;
    new client.Gauge({
      name: `${PREFIX}queue_jobs`,
      help: 'pg-boss jobs by queue and state: created and retry are waiting, active are running (all processes)',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        // The database unreachable: no queue series this scrape, the rest of /metrics still answers.
        const rows = await metrics.queueDepth().catch(() => []);
        for (const r of rows) this.set({ queue: r.queue, state: r.state }, r.count);
      },
    });
    // After every metric above exists: merge() takes the metrics registered at the time.
    this.scraped = client.Registry.merge([this.registry, processMetrics()]);
  }

  /** Every queue × waiting/running state, zeros included (a series that exists can alert on its value). */
  async queueDepth(): Promise<Array<{ queue: string; state: string; count: number }>> {
    const res = await this.owner.raw(
      `SELECT q.name AS queue, s.state, count(j.id)::int AS count
         FROM pgboss.queue q
         CROSS JOIN (VALUES ('created'), ('retry'), ('active')) AS s(state)
         LEFT JOIN pgboss.job j ON j.name = q.name AND j.state::text = s.state
        GROUP BY q.name, s.state`,
    );
    return res.rows;
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  /** Wraps every job run (Queue.jobHook): its duration by queue. */
  readonly jobHook = async (queue: string, run: () => Promise<void>): Promise<void> => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      await run();
    } catch (err) {
      this.jobDuration.observe({ queue, outcome: 'failed' }, seconds());
      throw err;
    }
    this.jobDuration.observe({ queue, outcome: 'completed' }, seconds());
  };

  /**
   * A step's run that moved its file (the pipeline runner reports it once its transaction
   * committed: src/pipeline/run-step.ts): a file that finished, the lines an ingest stored.
   */
  readonly stepRecorded = (r: StepRecord): void => {
    if (TERMINAL.has(r.status)) this.filesFinished.inc({ status: r.status });
    if (r.linesStored > 0) {
      this.linesIngested.inc(r.linesStored);
      if (r.seconds > 0) this.lastLinesPerSecond.set(r.linesStored / r.seconds);
    }
  };

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.scraped.contentType, body: await this.scraped.metrics() };
  }
}

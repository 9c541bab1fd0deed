/**
 * pg-boss in the same Postgres (schema `pgboss`). Jobs are sent inside the writer's
 * transaction when one is given, so a file row and its first job commit together.
 */
import PgBoss from 'pg-boss';
import { rawConnection, type Trx } from '../src/db';
import type { JobName, JobPayloads } from './index';
import { JOB_OPTIONS } from './index';

export interface SendOptions {
  trx?: Trx;
  singletonKey?: string;
  startAfter?: number | string | Date;
}

export class Queue {
  readonly boss: PgBoss;
  constructor(connectionString: string, private readonly pollSeconds: number) {
    this.boss = new PgBoss({ connectionString, schema: 'pgboss', max: 4, supervise: true, monitorStateIntervalSeconds: 60 });
  }

  async start(): Promise<void> {
    await this.boss.start();
    for (const [name, opts] of Object.entries(JOB_OPTIONS)) {
      await this.boss.createQueue(`${name}.dead`, { name: `${name}.dead` });
      await this.boss.createQueue(name, { name, ...opts, deadLetter: `${name}.dead` });
    }
  }

  async send<N extends JobName>(name: N, data: JobPayloads[N], opts: SendOptions = {}): Promise<string | null> {
    const options: PgBoss.SendOptions & { db?: PgBoss.Db } = {};
    if (opts.singletonKey) options.singletonKey = opts.singletonKey;
    if (opts.startAfter !== undefined) options.startAfter = opts.startAfter as never;
    if (opts.trx) {
      const conn = await rawConnection(opts.trx);
      options.db = { executeSql: (text: string, values?: unknown[]) => conn.query(text, values as unknown[]) as never };
    }
    return this.boss.send(name, data as object, options);
  }

  async work<N extends JobName>(name: N, handler: (data: JobPayloads[N], job: PgBoss.Job<JobPayloads[N]>) => Promise<void>, opts: { concurrency?: number } = {}): Promise<void> {
    for (let i = 0; i < (opts.concurrency ?? 1); i++) {
      await this.boss.work<JobPayloads[N]>(name, { batchSize: 1, pollingIntervalSeconds: this.pollSeconds }, async (jobs) => {
        for (const job of jobs) await handler(job.data, job);
      });
    }
  }

  async ping(): Promise<boolean> {
    const n = await this.boss.getQueueSize(Object.keys(JOB_OPTIONS)[0] ?? 'noop');
    return Number.isInteger(n);
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
  }
}

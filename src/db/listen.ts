/**
 * A LISTEN connection of its own to one Postgres channel, connected again `retryMs` after a
 * drop (a connection killed, Postgres restarted). Each notification's payload goes to
 * `onNotify`; a failed or lost connection to `onError`. Whoever listens polls as well: a
 * notification sent while the connection was down is never delivered.
 *
 * Used by the job queue's wake-up (jobs/queue.ts), the allocation's change marks
 * (jobs/royalty.ts) and the analytics replica (royalty/engine/replica.ts).
 */
import pg from 'pg';

export class PgListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotify: (payload: string) => void,
    private readonly onError: (err: Error) => void,
    private readonly retryMs = 5000,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  }

  /** Connects and listens (once; again after a drop); rejects when this attempt fails (another follows in `retryMs`). */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.connecting) return this.connecting;
    // keepAlive: a silently dropped connection is noticed
    const client = new pg.Client({ connectionString: this.url, keepAlive: true });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.connecting = null;
      client.end().catch(() => undefined);
      if (this.closed) return;
      if (err) this.onError(err);
      this.retry = setTimeout(() => void this.start().catch(() => undefined), this.retryMs);
      this.retry.unref();
    };
    client.on('notification', (msg) => this.onNotify(msg.payload ?? ''));
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    this.connecting = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN ${this.channel}`);
      } catch (err) {
        lost(err as Error);
        throw err;
      }
    })();
    return this.connecting;
  }

  /** Stops listening for good. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    this.connecting = null;
    if (c) await c.end().catch(() => undefined);
  }
}

/**
 * The analytics replica: an embedded DuckDB file holding, per workspace, the columns every
 * /royalty/* breakdown sums (docs/engine.md, "The analytics engine"). Postgres stays the
 * source of truth; the replica follows it.
 *
 * - Layout: one schema per workspace, `t<tenantId>`, with `lines` (the allocated lines of its
 *   processed files, each with its file's accounting period as the rollups hold it),
 *   `share_sets` (immutable rows, copied once) and its sums (layout.ts, sums.ts). A query
 *   names only its workspace's schema. `main.replica_tenants` records the Postgres version
 *   each workspace was applied at, and whether it is held exactly (`exact`; else Postgres
 *   answers it).
 * - Following: on each NOTIFY of a new version, and every pollMs, the versions table of
 *   Postgres (analytics_versions, bumped in the transaction of every change of a file's
 *   rollups) is read; a workspace whose version moved has its changed files
 *   (analytics_changes) re-read in ONE Postgres REPEATABLE READ snapshot that also reads the
 *   version, and applied in ONE DuckDB transaction that records it: a reader sees the
 *   workspace at one version or the next, never in between. Checkpoints when idle.
 * - Opened lazily (the first analytics request of the process), closed with the process.
 */
import { DuckDBConnection, DuckDBInstance, listValue, type DuckDBValue } from '@duckdb/node-api';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import pgCopy from 'pg-copy-streams';
import { rawConnection, withTenant, type Db, type Trx } from '../../../db';
import { PgListener } from '../../../db/listen';
import type { Logger } from '../../../lib/logger';
import { REPLICA_LINE_COLUMNS, SHARE_SET_COLUMNS, readCsv } from './layout';
import { keepSums } from './sums';

export interface ReplicaOptions {
  /** The replica's file. */
  path: string;
  /** DuckDB memory_limit (e.g. 100MB) and threads. */
  memory: string;
  threads: number;
  /** Reads run at once (the rest wait their turn, first come first served); 1 when unset. */
  reads?: number;
  /** How often Postgres' versions are read, milliseconds. */
  pollMs?: number;
  /** How long a request waits for the replica to reach its snapshot's version before Postgres answers it. */
  waitMs: number;
  /**
   * A change of more lines than this (the changed files' old lines and new ones) builds the
   * workspace's sums again from its lines rather than changing them (SUMS_REBUILD_LINES).
   */
  sumsRebuildLines?: number;
  /** How long a workspace whose apply failed is left to Postgres before it is built again, milliseconds (30 s). */
  retryMs?: number;
  /**
   * The Postgres SELECTs of a workspace's rows (of the files named, or all; ids checked as
   * uuids, written into the SQL: COPY takes no parameters), in the columns'
   * order: REPLICA_LINE_COLUMNS and SHARE_SET_COLUMNS. The lines sorted by
   * REPLICA_LINE_ORDER (they are read one file at a time and written as they come).
   */
  linesSql: (tenantId: number, files: string[] | null) => string;
  shareSetsSql: (tenantId: number, files: string[] | null) => string;
  /** The ids of the files whose lines linesSql(tenantId, null) reads. */
  filesSql: (tenantId: number) => string;
}

/** The replica's format: a file of another format is built again (as one of another database). */
const FORMAT = 8;
/** DuckDB checkpoints in a commit only past this much log (follow() checkpoints when idle). */
const CHECKPOINT_THRESHOLD = '256MB';
/**
 * A change of more lines than this builds the sums again from the lines: as fast past about
 * a million, in memory that does not grow with the change (docs/engine.md, "A large change").
 */
export const SUMS_REBUILD_LINES = 1_000_000;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A workspace's state in the replica. */
interface Applied {
  version: number;
  exact: boolean;
}

/** Grouped sums of one breakdown, every value a string (decimals exact, as DuckDB prints them). */
export type GroupedRows = Record<string, string | null>[];

export class AnalyticsReplica {
  private instance: DuckDBInstance | null = null;
  private writer: DuckDBConnection | null = null;
  private opening: Promise<boolean> | null = null;
  private readonly applied = new Map<number, Applied>();
  /**
   * Workspaces whose last apply failed: the failures in a row, and the time (ms) before which
   * they are not tried again (retryMs, doubled for each failure before, at most 10 minutes: a
   * whole build reads every line). The next try builds them again whole (whatever failed,
   * that path holds the least in memory).
   */
  private readonly failed = new Map<number, { failures: number; until: number }>();
  private closed = false;
  /** Whether an apply committed since the last checkpoint (follow() checkpoints when idle). */
  private unsaved = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** A change heard of while a pass ran: the next pass starts at once. */
  private nudged = false;
  /** The connection that hears Postgres' NOTIFY of a new version. */
  private listener: PgListener | null = null;
  private readonly waiters = new Set<() => void>();
  private readonly reads = new Set<Promise<unknown>>();
  /** Reads running (at most `maxReads`), and those waiting for a turn, first come first served. */
  private readsRunning = 0;
  private readonly readWaiting: (() => void)[] = [];
  private readonly maxReads: number;
  /** The reads queued or running, by workspace, applied version, SQL and values: an identical one joins them. */
  private readonly inFlight = new Map<string, Promise<GroupedRows>>();
  private readonly pollMs: number;
  /**
   * Requests the replica answered, those Postgres answered instead (behind, not exact, failed),
   * reads that took the rows of an identical read already queued or running, changes whose
   * sums were built again (sumsRebuildLines), workspaces built again after a failed apply.
   */
  readonly stats = { answered: 0, postgres: 0, shared: 0, sumsBuilt: 0, rebuilt: 0 };
  /** Set once the first pass over every workspace is done (tests, benches). */
  firstPass: Promise<void>;
  private firstPassDone!: () => void;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly opts: ReplicaOptions,
  ) {
    this.pollMs = opts.pollMs ?? 300;
    this.maxReads = Math.max(1, opts.reads ?? 1);
    this.firstPass = new Promise((r) => (this.firstPassDone = r));
  }

  /** Opens the file (once) and starts following Postgres; false when the replica cannot be used (Postgres answers). */
  open(): Promise<boolean> {
    this.opening ??= this.doOpen().catch((err) => {
      this.log.warn({ err, path: this.opts.path }, 'analytics replica not opened: Postgres answers analytics');
      return false;
    });
    return this.opening;
  }

  private async doOpen(): Promise<boolean> {
    if (this.closed) return false;
    await fs.mkdir(path.dirname(this.opts.path), { recursive: true });
    // The file is brought up to date by a checkpoint when idle (follow()), not in each apply;
    // CHECKPOINT_THRESHOLD bounds the log in between. DuckDB's allocator gives freed memory
    // back past 16 MB, not 128 MB, and a thread of its own returns the rest (docs/engine.md,
    // "Size and memory": API nodes' peaks 336–360 MB against 371–429 MB).
    const instance = await DuckDBInstance.create(this.opts.path, {
      memory_limit: this.opts.memory, threads: String(this.opts.threads), checkpoint_threshold: CHECKPOINT_THRESHOLD,
      allocator_flush_threshold: '16MB', allocator_bulk_deallocation_flush_threshold: '16MB', allocator_background_threads: 'true',
    });
    this.instance = instance;
    const w = await instance.connect();
    this.writer = w;
    await w.run(`CREATE TABLE IF NOT EXISTS main.replica_identity (id VARCHAR NOT NULL)`);
    const { rows } = await this.db.owner.raw(`SELECT id::text FROM analytics_identity LIMIT 1`);
    const identity = `${String(rows[0]?.id ?? '')}/format ${FORMAT}`;
    const mine = (await w.runAndReadAll(`SELECT id FROM main.replica_identity`)).getRowsJson()[0]?.[0];
    if (mine !== identity) {
      // Built from another database or in another format (or new): every workspace is built again from scratch.
      const schemas = (await w.runAndReadAll(`SELECT schema_name FROM information_schema.schemata WHERE catalog_name = current_database() AND regexp_matches(schema_name, '^t[0-9]+$')`)).getRowsJson();
      await w.run('BEGIN TRANSACTION');
      for (const [s] of schemas) await w.run(`DROP SCHEMA ${String(s)} CASCADE`);
      await w.run(`DROP TABLE IF EXISTS main.replica_tenants`);
      await w.run(`DELETE FROM main.replica_identity`);
      await w.run(`INSERT INTO main.replica_identity VALUES (?)`, [identity]);
      await w.run('COMMIT');
      if (mine) this.log.info({ path: this.opts.path }, 'analytics replica of another database: built again');
    }
    // Per workspace: the version applied, whether it answers exactly, and its lines' units (Σ |quantity|: REPLICA_UNITS_LIMIT).
    await w.run(`CREATE TABLE IF NOT EXISTS main.replica_tenants (tenant_id INTEGER PRIMARY KEY, version BIGINT NOT NULL, exact BOOLEAN NOT NULL, units DECIMAL(38,6))`);
    for (const [t, v, exact] of (await w.runAndReadAll(`SELECT tenant_id, version, exact FROM main.replica_tenants`)).getRowsJson()) {
      this.applied.set(Number(t), { version: Number(v), exact: Boolean(exact) });
    }
    if (this.closed) return false;
    await this.listen();
    this.loop = this.follow();
    return true;
  }

  /**
   * Hears of each new version as its transaction commits (NOTIFY rondo_analytics_changed,
   * the workspace's id) and starts a pass then, rather than at the next poll. Polling stays:
   * a notification sent while the connection was down (it connects again) is caught by the
   * next pass.
   */
  private async listen(): Promise<void> {
    this.listener = new PgListener(
      this.db.url,
      'rondo_analytics_changed',
      () => {
        this.nudged = true;
        this.wake?.();
      },
      (err) => this.log.warn({ err }, 'analytics replica: the change listener failed (polling goes on; it connects again)'),
    );
    await this.listener.start().catch(() => undefined);
  }

  /** The version of a workspace the replica holds (0: none yet), and whether it answers exactly. */
  state(tenantId: number): Applied | undefined {
    return this.applied.get(tenantId);
  }

  /**
   * True when the replica holds the workspace at `version` or later and answers it exactly,
   * waiting at most `waitMs` for the follower to get there.
   */
  async ready(tenantId: number, version: number, waitMs = this.opts.waitMs): Promise<boolean> {
    if (!(await this.open())) return false;
    const ok = () => {
      const a = this.applied.get(tenantId);
      return version === 0 || (!!a && a.version >= version);
    };
    // A workspace whose last apply failed is Postgres' until it is tried again: no wait.
    if (!ok() && (this.failed.get(tenantId)?.until ?? 0) > Date.now()) return false;
    if (!ok()) {
      this.wake?.();
      const deadline = Date.now() + waitMs;
      while (!ok() && !this.closed && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, Math.max(1, deadline - Date.now()));
          this.waiters.add(done);
        });
      }
      if (!ok()) return false;
    }
    return version === 0 || this.applied.get(tenantId)!.exact;
  }

  /**
   * Runs a read (SQL over `t<tenantId>` only) on a connection of its own; every value as DuckDB
   * prints it. The same read (same SQL, same values) of the same workspace at the same applied
   * version, asked while one is queued or running, takes that one's rows (the same figures).
   */
  async query(tenantId: number, sql: string, values: unknown[]): Promise<GroupedRows> {
    if (!this.instance || this.closed) throw new Error('analytics replica closed');
    const key = `${tenantId}\u0000${this.applied.get(tenantId)?.version ?? 0}\u0000${sql}\u0000${JSON.stringify(values)}`;
    const same = this.inFlight.get(key);
    if (same) {
      this.stats.shared++;
      return same;
    }
    // At most `reads` at a time (2 by default), sharing the engine's threads: more side by side
    // on the same cores finish no sooner in all, and each holds its own hash tables (8 at once
    // took an API process to about 800 MB resident). Two at once keep both cores busy while
    // one read is between its parallel phases (bench/RESULTS.md, "Shared reads, two at a time").
    const run = (async () => {
      await this.readSlot();
      try {
        if (this.closed) throw new Error('analytics replica closed');
        const c = await this.instance!.connect();
        try {
          const bound = values.map((v) => (Array.isArray(v) ? listValue(v.map(String)) : (v as DuckDBValue)));
          const r = await c.runAndReadAll(sql, bound);
          return r.getRowObjectsJson() as GroupedRows;
        } finally {
          c.closeSync();
        }
      } finally {
        this.releaseReadSlot();
      }
    })();
    this.inFlight.set(key, run);
    this.reads.add(run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(key);
      this.reads.delete(run);
    }
  }

  private async readSlot(): Promise<void> {
    if (this.readsRunning < this.maxReads) {
      this.readsRunning++;
      return;
    }
    await new Promise<void>((resolve) => this.readWaiting.push(resolve));
  }

  /** The slot passes to the first read waiting, if any. */
  private releaseReadSlot(): void {
    const next = this.readWaiting.shift();
    if (next) next();
    else this.readsRunning--;
  }

  /** Logs a warning in the replica's log. */
  warn(o: object, msg: string): void {
    this.log.warn(o, msg);
  }

  /** Whether the workspace has data in the replica (its schema exists). */
  has(tenantId: number): boolean {
    return this.applied.has(tenantId);
  }

  private async follow(): Promise<void> {
    let first = true;
    while (!this.closed) {
      this.nudged = false;
      let applied = false;
      try {
        applied = await this.pass();
      } catch (err) {
        if (!this.closed) this.log.warn({ err }, 'analytics replica: reading Postgres versions failed');
      }
      // Idle (a pass with nothing to apply) after a commit: the file is brought up to date from
      // the log. Reads go on meanwhile (DuckDB checkpoints beside running reads).
      if (!applied && this.unsaved && !this.closed) {
        try {
          await this.writer!.run('CHECKPOINT');
          this.unsaved = false;
        } catch (err) {
          if (!this.closed) this.log.warn({ err }, 'analytics replica: checkpoint failed (tried again when next idle)');
        }
      }
      if (first) {
        first = false;
        this.firstPassDone();
      }
      if (this.closed) break;
      if (this.nudged) continue; // a change committed during the pass
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.wake = null;
          resolve();
        }, this.pollMs);
        timer.unref?.();
        this.wake = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
  }

  /** One pass: every workspace whose Postgres version differs from the replica's is applied; whether any was (or was tried). */
  private async pass(): Promise<boolean> {
    const { rows } = await this.db.owner.raw(`SELECT tenant_id, version FROM analytics_versions ORDER BY tenant_id`);
    let applied = false;
    for (const r of rows as { tenant_id: number; version: string }[]) {
      if (this.closed) return applied;
      const t = Number(r.tenant_id);
      const a = this.applied.get(t);
      if (a && a.version === Number(r.version)) continue;
      if ((this.failed.get(t)?.until ?? 0) > Date.now()) continue;
      applied = true;
      try {
        await this.applyTenant(t);
        this.failed.delete(t);
      } catch (err) {
        if (this.closed) return applied;
        const failures = (this.failed.get(t)?.failures ?? 0) + 1;
        const retryMs = Math.min((this.opts.retryMs ?? 30_000) * 2 ** (failures - 1), 600_000);
        this.failed.set(t, { failures, until: Date.now() + retryMs });
        this.log.warn({ err, tenantId: t }, `analytics replica: a workspace was not applied (Postgres answers it; built again in ${Math.round(retryMs / 1000)} s)`);
      }
      for (const w of [...this.waiters]) w();
    }
    return applied;
  }

  /**
   * Brings one workspace to Postgres' current version: its changed files (or, when new to the
   * replica or behind a restored database, all) read in one snapshot with the version, then
   * applied in one DuckDB transaction with it.
   */
  private async applyTenant(tenantId: number): Promise<void> {
    const before = this.applied.get(tenantId);
    const dir = `${this.opts.path}.tmp`;
    await fs.mkdir(dir, { recursive: true });
    const stamp = crypto.randomBytes(6).toString('hex');
    const linesCsv = path.join(dir, `t${tenantId}-${stamp}-lines.csv`);
    const setsCsv = path.join(dir, `t${tenantId}-${stamp}-sets.csv`);
    // Each phase's milliseconds (the debug log): Postgres' copy, the lines, the sums, the commit.
    let mark = performance.now();
    const lap = () => Math.round(-mark + (mark = performance.now()));
    const ms: Record<string, number> = {};
    try {
      const read = await withTenant(this.db.app, tenantId, async (trx) => {
        const { rows } = await trx.raw(`SELECT version FROM analytics_versions WHERE tenant_id = ?`, [tenantId]);
        const version = Number(rows[0]?.version ?? 0);
        // A replica ahead of Postgres (a restored database) is built again.
        let files: string[] | null = null;
        // After a failed apply, the workspace is built again whole.
        const rebuild = this.failed.has(tenantId);
        if (before && before.version <= version && !rebuild) {
          if (before.version === version) return { version, files: [] as string[], skip: true, rebuild, newLines: 0 };
          const changed = await trx.raw(`SELECT DISTINCT file_id::text AS id FROM analytics_changes WHERE tenant_id = ? AND version > ? AND version <= ?`, [tenantId, before.version, version]);
          files = changed.rows.map((c: { id: string }) => c.id);
        }
        // One file at a time, each in the lines' order (REPLICA_LINE_ORDER, sorted by Postgres,
        // spilling as it needs): DuckDB writes them as they come and never sorts a workspace.
        const each: string[] = files ?? (await trx.raw(this.opts.filesSql(tenantId))).rows.map((r: { id: string }) => String(r.id));
        if (each.some((f) => !UUID_RE.test(f))) throw new Error('unexpected file id');
        await fs.writeFile(linesCsv, '');
        let newLines = 0;
        for (const f of each) newLines += await copyOut(trx, this.opts.linesSql(tenantId, [f]), linesCsv, true);
        await copyOut(trx, this.opts.shareSetsSql(tenantId, files), setsCsv);
        return { version, files, skip: false, rebuild, newLines };
      }, { snapshot: true });
      if (read.skip || this.closed) return;
      ms.postgres = lap();
      const w = this.writer!;
      const s = `t${tenantId}`;
      await w.run('BEGIN TRANSACTION');
      try {
        const files = read.files?.length ? listValue(read.files) : null;
        // A change of more lines than sumsRebuildLines: the sums are built again from the lines.
        let build = false;
        if (read.files === null) {
          await w.run(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
          await w.run(`CREATE SCHEMA ${s}`);
          await w.run(`CREATE TABLE ${s}.lines (${REPLICA_LINE_COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')})`);
          await w.run(`CREATE TABLE ${s}.share_sets (${SHARE_SET_COLUMNS.map(([c, t]) => `${c} ${t} NOT NULL`).join(', ')})`);
          await w.run(`INSERT INTO ${s}.lines SELECT * FROM ${readCsv(linesCsv, REPLICA_LINE_COLUMNS)}`);
          ms.lines = lap();
        } else if (files) {
          // The changed files' old lines (kept aside) leave the lines and the sums; their new
          // lines enter the lines from the CSV, then the sums from there (new_lines: the
          // changed files' rows, at the table's end: their row groups' zone maps name them).
          const old = Number((await w.runAndReadAll(`SELECT count(*) FROM ${s}.lines WHERE file_id = ANY(?::UUID[])`, [files])).getRowsJson()[0]?.[0] ?? 0);
          const limit = this.opts.sumsRebuildLines ?? SUMS_REBUILD_LINES;
          build = old + read.newLines > limit;
          if (!build) await w.run(`CREATE OR REPLACE TEMP TABLE old_lines AS SELECT * FROM ${s}.lines WHERE file_id = ANY(?::UUID[])`, [files]);
          // Many lines leaving: the lines written again without them (a transaction's deletes
          // are held in memory: 6.2M lines deleted did not fit in 100 MB).
          if (old > limit) await w.run(`CREATE OR REPLACE TABLE ${s}.lines AS SELECT * FROM ${s}.lines WHERE NOT (file_id = ANY(?::UUID[]))`, [files]);
          else await w.run(`DELETE FROM ${s}.lines WHERE file_id = ANY(?::UUID[])`, [files]);
          await w.run(`INSERT INTO ${s}.lines SELECT * FROM ${readCsv(linesCsv, REPLICA_LINE_COLUMNS)}`);
          if (!build) await w.run(`CREATE OR REPLACE TEMP VIEW new_lines AS SELECT * FROM ${s}.lines WHERE file_id IN (${read.files!.map((f) => `'${f}'::UUID`).join(', ')})`);
          ms.lines = lap();
        }
        const { exact, units, merged, ms: sumsMs } = await keepSums(w, tenantId, read.files === null || build ? 'all' : files ? 'files' : 'none');
        ms.sums = lap();
        if (files && !build) {
          await w.run(`DROP TABLE old_lines`);
          await w.run(`DROP VIEW new_lines`);
        }
        await w.run(
          `INSERT INTO ${s}.share_sets SELECT DISTINCT n.* FROM ${readCsv(setsCsv, SHARE_SET_COLUMNS)} n
            WHERE NOT EXISTS (SELECT 1 FROM ${s}.share_sets o WHERE o.share_set_id = n.share_set_id AND o.tenant_user_id = n.tenant_user_id)`,
        );
        await w.run(`INSERT OR REPLACE INTO main.replica_tenants VALUES (?, ?, ?, ?::DECIMAL(38,6))`, [tenantId, read.version, exact, units]);
        await w.run('COMMIT');
        ms.commit = lap();
        this.applied.set(tenantId, { version: read.version, exact });
        this.unsaved = true;
        if (build) this.stats.sumsBuilt++;
        if (read.rebuild) this.stats.rebuilt++;
        this.log.debug({ tenantId, version: read.version, files: read.files?.length ?? 'all', newLines: read.newLines, sumsBuilt: build, ms, merged, sums: sumsMs }, 'analytics replica: workspace applied');
      } catch (err) {
        await w.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } finally {
      await fs.rm(linesCsv, { force: true });
      await fs.rm(setsCsv, { force: true });
    }
  }

  /** Stops following, waits for reads and the apply under way, and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    for (const w of [...this.waiters]) w();
    await this.opening?.catch(() => undefined);
    await this.loop?.catch(() => undefined);
    await Promise.allSettled([...this.reads]);
    await this.listener?.close();
    this.listener = null;
    this.writer?.closeSync();
    this.instance?.closeSync();
    this.writer = null;
    this.instance = null;
    await fs.rm(`${this.opts.path}.tmp`, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** COPY (sql) TO a CSV file (NULL as \N), on the transaction's own connection (its snapshot); the rows copied. */
async function copyOut(trx: Trx, sql: string, file: string, append = false): Promise<number> {
  const conn = await rawConnection(trx);
  const src = conn.query(pgCopy.to(`COPY (${sql}) TO STDOUT WITH (FORMAT csv, NULL '\\N')`));
  await pipeline(src, createWriteStream(file, { flags: append ? 'a' : 'w' }));
  return Number(src.rowCount ?? 0);
}

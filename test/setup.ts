/**
 * Mocha's global fixtures and root hooks: one Postgres for the whole run (embedded under
 * .test-data/, or DATABASE_URL), one migrated template database; every test file clones its
 * own database from it (CREATE DATABASE … TEMPLATE), so files never see each other's rows,
 * and files can run in parallel worker processes (`npm test` runs two).
 */
import async_hooks from 'node:async_hooks';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedHandle } from '../src/db/embedded';
import { connectDb, migrateLatest } from '../src/db';
import { Queue } from '../jobs/queue';
import { setBilling } from '../src/domain/features';
import { grantQueueToApp } from '../src/compose';
import { setServerUrl, TEMPLATE_DB } from './helpers/db';
import { ensureWebBuilt, WEB_BUILT_ENV } from './web/browser';

// Every JSON answer of every route is checked against the schema the route declares (checkAnswer, src/http/route.ts).
process.env.RONDO_CHECK_RESPONSES ??= '1';

let embedded: EmbeddedHandle | null = null;

/**
 * TEST_TRACE_HANDLES=1: where each timer, socket and immediate still alive was created, so the
 * watchdog below can name the code behind what it finds (costly: off by default).
 */
const created = new Map<number, { what: string; res: WeakRef<object> }>();
if (process.env.TEST_TRACE_HANDLES) {
  async_hooks
    .createHook({
      init(id, type, _trigger, res) {
        if (type === 'Timeout' || type === 'TCPWRAP' || type === 'Immediate') created.set(id, { what: `${type}${new Error().stack!.split('\n').slice(2, 14).join('\n')}`, res: new WeakRef(res) });
      },
      destroy(id) {
        created.delete(id);
      },
    })
    .enable();
}

/** The creation stacks of what still holds the loop (unref'd timers left out), counted. */
function tracedHandles(): string {
  const groups = new Map<string, number>();
  for (const c of created.values()) {
    const r = c.res.deref() as { hasRef?: () => boolean } | undefined;
    if (!r || (typeof r.hasRef === 'function' && !r.hasRef())) continue;
    groups.set(c.what, (groups.get(c.what) ?? 0) + 1);
  }
  return [...groups].map(([what, n]) => `--- ${n} × ${what}`).join('\n');
}

/** The Postgres server the run's files clone their databases on (set by the global setup, read in every worker). */
const SERVER_ENV = 'RONDO_TEST_SERVER_URL';

/**
 * Once per run, in mocha's main process (also with --parallel, before any worker starts):
 * Postgres, the migrated template, and the web app built (browser tests in two workers must
 * not build it at once).
 */
export async function mochaGlobalSetup(this: Mocha.Context) {
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: '.test-data', fast: true });
    serverUrl = embedded.url;
  }
  process.env[SERVER_ENV] = serverUrl;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  // Leftovers of an interrupted run.
  const stale = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'rondo_t_%' OR datname = $1`, [TEMPLATE_DB]);
  for (const r of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${TEMPLATE_DB}`;
  const db = connectDb(url.toString());
  await migrateLatest(db.owner);
  // pg-boss's schema and queues live in the template too, so clones start ready.
  const q = new Queue(url.toString(), 1);
  await q.start();
  await grantQueueToApp(db);
  await q.stop();
  await db.close();
  if (process.env.RONDO_TEST_BUILD_WEB !== '0') {
    ensureWebBuilt();
    // the workers inherit it: each browser test file then skips its own staleness check (a process and a walk of web/)
    process.env[WEB_BUILT_ENV] = '1';
  }
}

export async function mochaGlobalTeardown() {
  if (embedded) await embedded.stop();
  // A test that leaves a pool, a queue or a server open would keep the run alive for
  // ever (CI's limit is 90 minutes): name what is left and fail instead. (With --parallel,
  // mocha ends its workers itself; this guards a run in one process.)
  // getActiveResourcesInfo() names timers too (a ref'd timer holds the loop without being a handle).
  setTimeout(() => {
    const left = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    console.error(`\nThe test run did not exit: ${left.length} open resource(s): ${left.join(', ')}`);
    if (process.env.TEST_TRACE_HANDLES) console.error(tracedHandles());
    else console.error('Run again with TEST_TRACE_HANDLES=1 to see where each was created.');
    console.error('A test file left a pool, a pg-boss instance, a server or a timer open (close it in after()).');
    // mocha (exit: false) sets the exit code to the failure count on 'exit': this must win.
    process.on('exit', () => {
      process.exitCode = 1;
    });
    process.exit(1);
    // 60 s: a pg-boss stop or a child process still winding down on a loaded machine is not a leak; a run kept alive for ever is.
  }, 60_000).unref();
}

/** Before each file (in its worker with --parallel): where the server is, and billing on. */
export const mochaHooks = {
  beforeAll() {
    // the suite tests plans and limits as an install with billing on applies them (test/helpers/app.ts too)
    setBilling(true);
    const serverUrl = process.env[SERVER_ENV];
    if (!serverUrl) throw new Error('the global setup of test/setup.ts did not run (use the mocha config)');
    setServerUrl(serverUrl);
  },
};

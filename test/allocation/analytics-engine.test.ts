/**
 * Issue 37, the analytics engine (docs/engine.md, "The analytics engine"): the DuckDB replica
 * answers the /royalty/* breakdowns through the real HTTP stack exactly as the SQL sums of the
 * lines, at once after a statement is processed, deleted or allocated again (no window where a
 * file counts twice or half), with the workers in the API process and in a process of their
 * own; the first request after a load (admin and a payee on every recording) is answered by the
 * replica; a workspace reaches nothing of another's, whatever ids it sends; a workspace the
 * replica cannot hold exactly (a wide quantity, a trillion units) is Postgres'; a replica
 * hears of each change as it commits (NOTIFY), not at its next poll; a large change builds its
 * sums again from the lines, and a failed apply builds the workspace again whole.
 *
 * The replica's wait for its version (ANALYTICS_REPLICA_WAIT_MS) is a minute here, so that
 * "answered by the replica" does not depend on the machine's speed.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startWorkerProcess, stopWorkerProcess } from '../helpers/worker-process';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, loadStatement, setShares, tx, waitForFile, waitForReallocation, type LineIn } from './helpers';
import { royaltyAnalytics } from '../../src/modules/royalty/analytics';
import { analyticsEngineOf, replicaFilesSql, replicaLinesSql, replicaShareSetsSql } from '../../src/modules/royalty/analytics-engine';
import { AnalyticsReplica, REPLICA_SUMS, sumsCheckSql, type ReplicaOptions } from '../../src/modules/royalty/engine';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { withTenant } from '../../src/db';

const WAIT = { analyticsReplicaWaitMs: 60_000 };

interface Fixture {
  t: TestTenant;
  assets: string[];
  isrcs: string[];
  artist: string;
  split: string;
}

/** A workspace with three recordings (every tenth line of its statements names none of them), every one paying its `user` 40 % (a payee on the whole catalogue). */
async function workspace(app: TestApp, name: string): Promise<Fixture> {
  const t = await createTestTenant(app, name);
  const artist = await createArtist(app, t.tenantId, `${name} Artist`);
  const assets: string[] = [];
  const isrcs = [0, 1, 2].map((i) => `QZ${name.slice(0, 3).toUpperCase()}24${String(i + 1).padStart(5, "0")}`);
  for (const [i, isrc] of isrcs.entries()) assets.push(await createAsset(app, t.tenantId, { title: `${name} Song ${i}`, isrc, artistId: artist }));
  const split = await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [t.users.user!.tenantUserId]: '40', [t.users.owner!.tenantUserId]: '60' } });
  return { t, assets, isrcs, artist, split };
}

function lines(f: Fixture, n: number, seed: number): LineIn[] {
  const out: LineIn[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      isrc: i % 10 === 9 ? 'QZZZZ2499999' : f.isrcs[i % 3],
      saleMonth: `2024-0${1 + (i % 3)}-01`,
      dsp: ['Spotify', 'Deezer', 'Apple Music'][(i + seed) % 3],
      country: ['US', 'DE', 'FR', 'GB'][(i * 7 + seed) % 4],
      saleType: i % 5 === 0 ? 'download' : 'stream',
      quantity: String(1 + ((i * 13 + seed) % 97)),
      net: `${(i * 37 + seed) % 1000}.${String((i * 7919 + seed) % 1_000_000_000_000_000).padStart(15, '0')}`,
      currency: 'USD',
    });
  }
  return out;
}

type Sums = Map<string, { revenue: string; quantity: string; lines: number }>;

/** The SQL sums of the lines by `key` (a line column): a workspace's (payee null) or a payee's share of them. */
async function sqlBy(app: TestApp, tenantId: number, key: 'dsp' | 'asset_id', payee: string | null, saleType?: string): Promise<Sums> {
  const { rows } = await tx(app, tenantId, (trx) =>
    trx.raw(
      `SELECT l.${key}::text AS k, trim_scale(sum(l.base_amount${payee ? ' * s.share * 0.01' : ''}))::text AS revenue, trim_scale(sum(l.quantity))::text AS quantity, count(*)::int AS lines
         FROM royalty_lines l JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.status = 'processed'
         ${payee ? 'JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id AND s.tenant_user_id = ?' : ''}
        WHERE l.base_amount IS NOT NULL${saleType ? ' AND l.sale_type = ?' : ''} GROUP BY l.${key}`,
      [...(payee ? [payee] : []), ...(saleType ? [saleType] : [])],
    ),
  );
  return new Map(rows.map((r: { k: string | null; revenue: string; quantity: string; lines: number }) => [String(r.k), { revenue: r.revenue, quantity: r.quantity, lines: r.lines }]));
}

/** GET `route` (by store or by recording) as the same map. */
async function httpBy(app: TestApp, token: string, route: '/royalty/dsp' | '/royalty/asset', saleType?: string): Promise<Sums> {
  const res = await app.request('GET', `${route}?size=1000${saleType ? `&saleType=${saleType}` : ''}`, { token });
  assert.equal(res.status, 200, res.text);
  const key = route === '/royalty/dsp' ? 'dsp' : 'assetId';
  return new Map(res.body.data.rows.map((r: Record<string, any>) => [String(r[key]), { revenue: r.revenue, quantity: r.quantity, lines: r.lines }]));
}

/**
 * Reads at once over HTTP, checked against the SQL sums: the admin by recording and a payee
 * on every recording by store, unfiltered (the replica's sums) and under a sale type (its
 * lines) (questions the replica answers; Postgres keeps the workspace's
 * totals and statement dimensions, which its small rollups answer), both by the replica.
 */
async function checkAtOnce(app: TestApp, f: Fixture, what: string): Promise<void> {
  const replica = analyticsEngineOf(app.svc)!;
  const before = { ...replica.stats };
  // Unfiltered: the replica's sums; under a sale type: its lines.
  for (const saleType of [undefined, 'stream']) {
    const admin = await httpBy(app, f.t.users.admin!.token, '/royalty/asset', saleType);
    const payee = await httpBy(app, f.t.users.user!.token, '/royalty/dsp', saleType);
    assert.deepEqual(admin, await sqlBy(app, f.t.tenantId, 'asset_id', null, saleType), `${what}: admin ${saleType ?? ''}`);
    assert.deepEqual(payee, await sqlBy(app, f.t.tenantId, 'dsp', f.t.users.user!.tenantUserId, saleType), `${what}: payee ${saleType ?? ''}`);
  }
  assert.deepEqual(replica.stats, { ...before, answered: before.answered + 4 }, `${what}: answered by the replica`);
}

describe('the analytics engine: the DuckDB replica (workers in the API process)', function () {
  this.timeout(170_000);
  let app: TestApp;
  let a: Fixture;
  let b: Fixture;

  before(async () => {
    app = await startTestApp({ workers: true, config: WAIT });
    a = await workspace(app, 'Alpha');
    b = await workspace(app, 'Bravo');
  });
  after(async () => app?.close());

  it('answers the first request after a load (admin and a payee on every recording) from the replica, exactly as the lines sum', async () => {
    // No analytics request before: the replica opens and builds on this one.
    await loadStatement(app, a.t.tenantId, { lines: lines(a, 240, 1) });
    await checkAtOnce(app, a, 'first request');
  });

  it('a statement processed, deleted and allocated again is counted once at once, never twice or half', async () => {
    const second = await loadStatement(app, a.t.tenantId, { lines: lines(a, 180, 2) });
    await checkAtOnce(app, a, 'processed');
    const third = await loadStatement(app, a.t.tenantId, { lines: lines(a, 90, 3) });
    await checkAtOnce(app, a, 'another processed');
    const del = await app.request('DELETE', `/file/${second}`, { token: a.t.users.admin!.token });
    assert.equal(del.status, 200, del.text);
    await checkAtOnce(app, a, 'deleted');
    // Re-allocated after a split change (the lines move to other share sets), then one file allocated again.
    await setShares(app, a.t.tenantId, a.split, { [a.t.users.user!.tenantUserId]: '45.5', [a.t.users.owner!.tenantUserId]: '54.5' });
    await waitForReallocation(app, a.t.tenantId);
    await checkAtOnce(app, a, 're-allocated');
    const again = await app.request('POST', `/royalty/files/${third}/allocate`, { token: a.t.users.admin!.token });
    assert.equal(again.status, 200, again.text);
    await waitForFile(app, a.t.tenantId, third);
    await checkAtOnce(app, a, 'allocated again');
  });

  it("a workspace reaches nothing of another's: B's admin and payees with A's file, artist and recording ids, and A's payee in B", async () => {
    await loadStatement(app, b.t.tenantId, { lines: lines(b, 60, 4) });
    const { rows: aFiles } = await app.svc.db.owner.raw(`SELECT id::text FROM files WHERE tenant_id = ? AND status = 'processed'`, [a.t.tenantId]);
    assert.ok(aFiles.length > 0);
    for (const token of [b.t.users.admin!.token, b.t.users.user!.token]) {
      for (const qs of [`?table_name=${aFiles.map((r: { id: string }) => r.id).join(',')}`, `?artists=${a.artist}`, `?artist=${a.artist}`, `?asset=${a.assets[0]}`]) {
        const res = await app.request('GET', `/royalty/${qs}`, { token });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.rows, [], qs);
        assert.deepEqual(res.body.data.total, { revenue: '0', quantity: '0', lines: 0 }, qs);
      }
    }
    // A's payee (and A's owner) read in B's workspace, straight through the replica: nothing.
    const replica = analyticsEngineOf(app.svc)!;
    for (const payee of [a.t.users.user!.tenantUserId, a.t.users.owner!.tenantUserId]) {
      const r = await withTenant(app.svc.db.app, b.t.tenantId, (trx) => royaltyAnalytics(trx, b.t.tenantId, payee, 'dsp', {}, { engine: replica }), { snapshot: true });
      assert.equal(r.source, 'duckdb:sums × share sets');
      assert.deepEqual(r.rows, []);
    }
    // B's own figures are B's alone.
    await checkAtOnce(app, b, "B's own");
  });

  it('the same read asked again while it runs is run once and its rows shared; another workspace, payee or question runs its own', async () => {
    const replica = analyticsEngineOf(app.svc)!;
    const byDsp = (t: number) => `SELECT dsp, CAST(sum(revenue) AS VARCHAR) AS revenue, CAST(count(*) AS VARCHAR) AS lines FROM t${t}.lines GROUP BY dsp ORDER BY dsp`;
    const mine = (t: number) => `SELECT CAST(count(*) AS VARCHAR) AS n FROM t${t}.share_sets WHERE tenant_user_id = ?::UUID`;
    const alone = {
      a: await replica.query(a.t.tenantId, byDsp(a.t.tenantId), []),
      b: await replica.query(b.t.tenantId, byDsp(b.t.tenantId), []),
      user: await replica.query(a.t.tenantId, mine(a.t.tenantId), [a.t.users.user!.tenantUserId]),
      owner: await replica.query(a.t.tenantId, mine(a.t.tenantId), [a.t.users.owner!.tenantUserId]),
    };
    assert.ok(alone.a.length > 0 && alone.b.length > 0);
    assert.notDeepEqual(alone.a, alone.b);
    const before = { ...replica.stats };
    // Asked in the same tick: five of A's, two of B's, three for one payee and one for another.
    const [as, bs, users, owner] = await Promise.all([
      Promise.all(Array.from({ length: 5 }, () => replica.query(a.t.tenantId, byDsp(a.t.tenantId), []))),
      Promise.all(Array.from({ length: 2 }, () => replica.query(b.t.tenantId, byDsp(b.t.tenantId), []))),
      Promise.all(Array.from({ length: 3 }, () => replica.query(a.t.tenantId, mine(a.t.tenantId), [a.t.users.user!.tenantUserId]))),
      replica.query(a.t.tenantId, mine(a.t.tenantId), [a.t.users.owner!.tenantUserId]),
    ]);
    for (const r of as) assert.deepEqual(r, alone.a);
    for (const r of bs) assert.deepEqual(r, alone.b);
    for (const r of users) assert.deepEqual(r, alone.user);
    assert.deepEqual(owner, alone.owner);
    // 4 of A's, 1 of B's and 2 of the payee's took the rows of the first of theirs.
    assert.equal(replica.stats.shared - before.shared, 4 + 1 + 2);
    // Once done, the same read runs again.
    await replica.query(a.t.tenantId, byDsp(a.t.tenantId), []);
    assert.equal(replica.stats.shared - before.shared, 7);
  });
});

describe('the analytics engine: what the replica cannot hold exactly', function () {
  this.timeout(120_000);
  let app: TestApp;
  after(async () => app?.close());

  before(async () => {
    app = await startTestApp({ workers: true, config: WAIT });
  });

  it('a workspace with a quantity of 7 decimals is answered by Postgres, exactly, never rounded', async () => {
    const f = await workspace(app, 'Charlie');
    const ls = lines(f, 40, 7);
    ls[3] = { ...ls[3]!, quantity: '2.1234567' };
    await loadStatement(app, f.t.tenantId, { lines: ls });
    const replica = analyticsEngineOf(app.svc)!;
    const before = { ...replica.stats };
    const payee = await httpBy(app, f.t.users.user!.token, '/royalty/dsp');
    assert.deepEqual(payee, await sqlBy(app, f.t.tenantId, 'dsp', f.t.users.user!.tenantUserId));
    assert.ok([...payee.values()].some((r) => r.quantity.endsWith('.1234567')), 'the quantity keeps its 7 decimals');
    assert.deepEqual(replica.stats, { ...before, postgres: before.postgres + 1 });
    assert.equal(replica.state(f.t.tenantId)?.exact, false);
  });

  it('a workspace whose quantities add up to a trillion units is answered by Postgres, and by the replica again once they do not', async () => {
    const f = await workspace(app, 'Delta');
    const replica = analyticsEngineOf(app.svc)!;
    await loadStatement(app, f.t.tenantId, { lines: lines(f, 30, 8) });
    await checkAtOnce(app, f, 'before');
    // Two lines of 600 billion units each: each fits a line, together past what a sums row holds.
    const big = lines(f, 20, 9);
    big[0] = { ...big[0]!, quantity: '600000000000' };
    big[1] = { ...big[1]!, quantity: '600000000000.5' };
    const file = await loadStatement(app, f.t.tenantId, { lines: big });
    const before = { ...replica.stats };
    const admin = await httpBy(app, f.t.users.admin!.token, '/royalty/asset');
    assert.deepEqual(admin, await sqlBy(app, f.t.tenantId, 'asset_id', null));
    assert.ok([...admin.values()].some((r) => /^600000000\d{3}\.5$/.test(r.quantity)), `the units are summed whole: ${JSON.stringify([...admin.values()])}`);
    assert.deepEqual(replica.stats, { ...before, postgres: before.postgres + 1 });
    assert.equal(replica.state(f.t.tenantId)?.exact, false);
    const del = await app.request('DELETE', `/file/${file}`, { token: f.t.users.admin!.token });
    assert.equal(del.status, 200, del.text);
    await checkAtOnce(app, f, 'the big file deleted: the replica answers again, its sums built again');
    assert.equal(replica.state(f.t.tenantId)?.exact, true);
  });
});

describe('the analytics engine: API and workers in separate processes', function () {
  this.timeout(170_000);
  let app: TestApp;
  let worker: ChildProcess;
  let a: Fixture;

  before(async () => {
    app = await startTestApp({ workers: false, config: WAIT });
    a = await workspace(app, 'Apart');
    worker = await startWorkerProcess(app);
  });
  after(async () => {
    await stopWorkerProcess(worker);
    await app?.close();
  });

  it('a file processed and deleted by the worker process is in the API process\'s answers at once, exactly', async () => {
    const first = await loadStatement(app, a.t.tenantId, { lines: lines(a, 150, 5) });
    await checkAtOnce(app, a, 'processed by the worker process');
    await loadStatement(app, a.t.tenantId, { lines: lines(a, 120, 6) });
    await checkAtOnce(app, a, 'a second file');
    const del = await app.request('DELETE', `/file/${first}`, { token: a.t.users.admin!.token });
    assert.equal(del.status, 200, del.text);
    await checkAtOnce(app, a, 'deleted');
  });
});

describe('the analytics engine: a replica of its own (its NOTIFY, a large change, a failed apply)', function () {
  this.timeout(120_000);
  let app: TestApp;
  const replicas: AnalyticsReplica[] = [];
  const dirs: string[] = [];
  before(async () => {
    app = await startTestApp({ workers: true, config: WAIT });
  });
  after(async () => {
    for (const r of replicas) await r.close();
    await app?.close();
    for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  });
  /** A replica beside the app's, in a directory of its own, with `opts` over the defaults. */
  async function ownReplica(opts: Partial<ReplicaOptions>): Promise<AnalyticsReplica> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-replica-'));
    dirs.push(dir);
    const r = new AnalyticsReplica(app.svc.db, app.svc.log, {
      path: path.join(dir, 'replica.duckdb'), memory: '100MB', threads: 1, waitMs: 0,
      linesSql: replicaLinesSql, shareSetsSql: replicaShareSetsSql, filesSql: replicaFilesSql, ...opts,
    });
    replicas.push(r);
    assert.equal(await r.open(), true);
    await r.firstPass;
    return r;
  }

  it('applies a statement at once after its commit, polling only every 10 minutes (NOTIFY rondo_analytics_changed)', async () => {
    const f = await workspace(app, 'Foxtrot');
    await loadStatement(app, f.t.tenantId, { lines: lines(f, 40, 11) });
    const replica = await ownReplica({ pollMs: 600_000 });
    const version = async () => Number((await app.svc.db.owner.raw(`SELECT version FROM analytics_versions WHERE tenant_id = ?`, [f.t.tenantId])).rows[0].version);
    const first = await version();
    assert.equal(replica.state(f.t.tenantId)?.version, first);
    await loadStatement(app, f.t.tenantId, { lines: lines(f, 30, 12) });
    const next = await version();
    assert.ok(next > first);
    // The next poll is 10 minutes away and nothing asks the replica (a request waiting for it
    // would wake it): only the notification brings it there.
    const until = Date.now() + 15_000;
    while (replica.state(f.t.tenantId)?.version !== next && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    assert.equal(replica.state(f.t.tenantId)?.version, next);
  });

  /** Each sums table of the workspace against the sums of its lines in the replica: rows extra or missing (0 each when equal). */
  async function sumsOff(r: AnalyticsReplica, tenantId: number): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const x of REPLICA_SUMS) {
      const [row] = await r.query(tenantId, sumsCheckSql(`t${tenantId}`, x), []);
      out[x.table] = Number(row!.extra) + Number(row!.missing);
    }
    return out;
  }
  const none = Object.fromEntries(REPLICA_SUMS.map((x) => [x.table, 0]));
  const version = async (tenantId: number) => Number((await app.svc.db.owner.raw(`SELECT version FROM analytics_versions WHERE tenant_id = ?`, [tenantId])).rows[0].version);
  /** Waits until the replica holds the workspace at its current version (polled every 50 ms here). */
  async function caughtUp(r: AnalyticsReplica, tenantId: number): Promise<void> {
    const v = await version(tenantId);
    const until = Date.now() + 30_000;
    while (r.state(tenantId)?.version !== v && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
    assert.equal(r.state(tenantId)?.version, v);
  }

  it('a change of more lines than sumsRebuildLines builds the sums again from the lines (more leaving: the lines written again without them); one of fewer changes them; a failed apply builds the workspace again whole', async () => {
    const f = await workspace(app, 'Golf');
    await loadStatement(app, f.t.tenantId, { lines: lines(f, 40, 13) });
    // Share sets are read once per apply: with `files` for a change, null for a whole build. The
    // change after `fail` is set fails there (as a change could fail anywhere).
    let fail = false;
    const shareSetsRead: (string[] | null)[] = [];
    const replica = await ownReplica({
      pollMs: 50, retryMs: 200, sumsRebuildLines: 50,
      shareSetsSql: (t, files) => {
        shareSetsRead.push(files);
        if (files && fail) {
          fail = false;
          return 'SELECT no_such_column FROM royalty_share_sets';
        }
        return replicaShareSetsSql(t, files);
      },
    });
    assert.deepEqual(await sumsOff(replica, f.t.tenantId), none, 'built');

    // 30 lines in: fewer than 50 changed, the sums are changed.
    await loadStatement(app, f.t.tenantId, { lines: lines(f, 30, 14) });
    await caughtUp(replica, f.t.tenantId);
    assert.equal(replica.stats.sumsBuilt, 0);
    assert.deepEqual(await sumsOff(replica, f.t.tenantId), none, 'a change of 30 lines');

    // 60 lines in: more than 50, the sums are built again from the lines.
    const big = await loadStatement(app, f.t.tenantId, { lines: lines(f, 60, 15) });
    await caughtUp(replica, f.t.tenantId);
    assert.equal(replica.stats.sumsBuilt, 1);
    assert.deepEqual(await sumsOff(replica, f.t.tenantId), none, 'a change of 60 lines');

    // Its 60 lines deleted: more than 50 leave, the lines are written again without them and the sums built again.
    const linesOf = async (file: string) => Number((await replica.query(f.t.tenantId, `SELECT count(*) AS n FROM t${f.t.tenantId}.lines WHERE file_id = ?::UUID`, [file]))[0]!.n);
    assert.equal(await linesOf(big), 60);
    const del = await app.request('DELETE', `/file/${big}`, { token: f.t.users.admin!.token });
    assert.equal(del.status, 200, del.text);
    await caughtUp(replica, f.t.tenantId);
    assert.equal(replica.stats.sumsBuilt, 2);
    assert.equal(await linesOf(big), 0);
    assert.deepEqual(await sumsOff(replica, f.t.tenantId), none, 'a file of 60 lines deleted');

    // The next change fails to apply; the workspace is then built again whole and holds every line.
    fail = true;
    const before = shareSetsRead.length;
    const last = await loadStatement(app, f.t.tenantId, { lines: lines(f, 20, 16) });
    await caughtUp(replica, f.t.tenantId);
    assert.ok(shareSetsRead.slice(before).some((x) => x !== null), 'the change was tried');
    assert.equal(shareSetsRead.at(-1), null, 'then built whole');
    assert.equal(replica.stats.rebuilt, 1);
    assert.equal(await linesOf(last), 20);
    assert.deepEqual(await sumsOff(replica, f.t.tenantId), none, 'built again after the failure');
  });
});

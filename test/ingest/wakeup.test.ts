/**
 * Job wake-up (jobs/queue.ts): each step's job is announced by pg_notify at commit and the
 * workers are woken at once. With a 60 s polling interval a file's five steps (decompress,
 * detect, ingest, allocate, aggregate) would take minutes by polling; woken, seconds. Also:
 * the listener comes back after its connection is killed.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile } from './helpers';

describe('job wake-up by LISTEN/NOTIFY', () => {
  let app: TestApp;
  let a: TestTenant;
  before(async () => {
    app = await startTestApp({ workers: true, config: { queuePollSeconds: 60 } });
    a = await createTestTenant(app, 'Wake');
  });
  after(async () => app?.close());

  const processOne = async (name: string) => {
    const t0 = Date.now();
    // force: the same bytes each time (not a duplicate to skip)
    const up = await upload(app, a.users.admin!.token, name, fixture('DistroKid_1683000000000_NovaLune.tsv'), { force: 'true' });
    assert.equal(up.status, 201, up.text);
    // 30 s: well under one 60 s poll, let alone five
    const f = await waitFile(app, a.users.admin!.token, up.body.data.id, ['processed', 'failed', 'needs_confirmation'], 30_000);
    assert.equal(f.status, 'processed', `${f.status} ${f.error ?? ''}`);
    return Date.now() - t0;
  };

  it('a file goes through its five steps without waiting for a poll', async () => {
    const ms = await processOne('DistroKid_1683000000000_Wake1.tsv');
    assert.ok(ms < 30_000);
  });

  it('the listener reconnects after its connection is killed', async () => {
    const { rows } = await app.svc.db.owner.raw(`SELECT pid, pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN rondo_jobs'`);
    assert.ok(rows.length >= 1, 'a LISTEN connection exists');
    // The killed backend can linger in pg_stat_activity for a moment: only a LISTEN of
    // another backend is the new listener. It comes back within ~5 s; then files are woken again.
    const killed = rows.map((r: { pid: number }) => r.pid);
    const deadline = Date.now() + 15_000;
    for (;;) {
      // a LISTEN of another backend that has completed (while it runs, a notification may still be missed)
      const { rows: l } = await app.svc.db.owner.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN rondo_jobs' AND state = 'idle' AND pid <> ALL(?::int[])`, [killed]);
      if (l[0].n >= 1) break;
      assert.ok(Date.now() <= deadline, 'the listener did not reconnect');
      await new Promise((r) => setTimeout(r, 200));
    }
    await processOne('DistroKid_1683000000000_Wake2.tsv');
  });
});

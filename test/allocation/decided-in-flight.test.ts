/**
 * The allocation takes the ingest's decisions as they are only when nothing an allocation
 * decision reads changed since the ingest's snapshot (src/modules/royalty/decided.ts); a
 * change committed while the ingest ran or before the allocation started makes it check
 * every key, with the right result. Through the real pipeline: upload → ingest → allocate.
 * "Between ingest and allocation" is made exact by holding the workspace's allocation lock:
 * the ingest commits, the allocation waits, the change commits, the lock is released.
 */
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile } from '../ingest/helpers';
import { stepTestHooks } from '../../src/pipeline/run-step';
import { createArtist, createAsset, createSplit, setShares, tx, waitFor, waitForReallocation } from './helpers';

const ISRC = { a: 'QZDEC2600001', b: 'QZDEC2600002', c: 'QZDEC2600003', d: 'QZDEC2600004', e: 'QZDEC2600005', f: 'QZDEC2600006' };
const HEADER = ['Reporting Date', 'Sale Month', 'Store', 'Artist', 'Title', 'ISRC', 'UPC', 'Quantity', 'Team Percentage', 'Song/Album', 'Country of Sale', 'Songwriter Royalties Withheld', 'Earnings (USD)'];

/** A DistroKid statement of March 2024 sales (USD); `tag` makes its bytes unique (no duplicate upload). */
function statement(tag: string, lines: { isrc: string; title: string; net: string }[]): string {
  const rows = lines.map((l) => ['2024-04-02', '2024-03', 'Spotify', 'Dee Cided', l.title, l.isrc, '', '1', '100', 'Song', 'US', '0', l.net].join('\t'));
  return [HEADER.join('\t'), ...rows, ['2024-04-02', '2024-03', 'Deezer', 'Dee Cided', `Tag ${tag}`, '', '', '1', '100', 'Song', 'US', '0', '0.01'].join('\t')].join('\n') + '\n';
}

describe("allocation: the ingest's decisions are taken only when nothing changed since", function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;
  let admin: string;
  let split: string;
  const assets: Record<string, string> = {};
  const sql = (q: string, b: unknown[] = []) => tx(app, t.tenantId, (trx) => trx.raw(q, b as never[]));

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Decided');
    admin = t.users.admin!.token;
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ base_currency: 'EUR' });
    const rate = await app.request('PUT', '/currency/rates', { token: admin, body: { rates: [{ currency: 'USD', month: '2024-03', rate: '0.9' }] } });
    assert.equal(rate.status, 200, rate.text);
    const artist = await createArtist(app, t.tenantId, 'Dee Cided');
    for (const k of ['a', 'b'] as const) assets[k] = await createAsset(app, t.tenantId, { title: `Song ${k}`, isrc: ISRC[k], artistId: artist, displayArtist: 'Dee Cided' });
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    split = await createSplit(app, t.tenantId, { target: 'asset', id: assets.a!, shares: { [u]: '25', [o]: '75' } });
    await createSplit(app, t.tenantId, { target: 'asset', id: assets.b!, shares: { [u]: '50', [o]: '50' } });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => {
    delete stepTestHooks.beforeCommit;
    await app?.close();
  });

  /** Uploads; `between` runs once the ingest committed and before the allocation starts. */
  async function run(text: string, between?: () => Promise<unknown>): Promise<Record<string, any>> {
    const lock = await app.svc.db.owner.transaction();
    let id = '';
    try {
      await lock.raw(`SELECT pg_advisory_xact_lock(hashtext('rondo.allocation'), ?)`, [t.tenantId]);
      const up = await upload(app, admin, `DistroKid_1700000000000_${Math.random().toString(36).slice(2)}.tsv`, text);
      assert.equal(up.status, 201, up.text);
      id = up.body.data.id;
      await waitFor(`the ingest of ${id}`, async () => {
        const f = await app.svc.db.owner('files').where({ id }).first('status', 'error_message');
        if (['failed', 'needs_confirmation'].includes(f.status)) throw new Error(`${f.status}: ${f.error_message}`);
        return f.status === 'allocating';
      });
      if (between) await between();
    } finally {
      await lock.rollback();
    }
    const f = await waitFile(app, admin, id, ['processed', 'failed'], 60_000);
    assert.equal(f.status, 'processed', JSON.stringify(f));
    return app.svc.db.owner('files').where({ id }).first();
  }

  const lines = (fileId: string) =>
    sql(`SELECT line_no, asset_id, match_status, base_amount::text AS base, share_set_id FROM royalty_lines WHERE file_id = ? ORDER BY line_no`, [fileId]).then((r) => r.rows);
  /** Each payee's current earnings from the file. */
  async function payees(fileId: string): Promise<Record<string, string>> {
    const { rows } = await sql(`SELECT tenant_user_id AS p, sum(amount)::text AS s FROM royalty_earnings WHERE file_id = ? AND superseded_at IS NULL GROUP BY 1`, [fileId]);
    return Object.fromEntries(rows.map((r: { p: string; s: string }) => [r.p, new Decimal(r.s).toFixed(12)]));
  }
  const eur = (usd: string, rate = '0.9') => new Decimal(usd).times(rate).toFixed(12);

  it('an untouched upload is allocated as the ingest decided it, as a full check would', async () => {
    const f = await run(statement('untouched', [{ isrc: ISRC.a, title: 'Song a', net: '10' }, { isrc: ISRC.a, title: 'Song a', net: '2' }, { isrc: ISRC.b, title: 'Song b', net: '4' }]));
    assert.equal(f.allocation_path, 'in_flight');
    assert.deepEqual(f.decided_in_flight, { lines: 4, matched: 3, paid: 3, partial: 4 });
    assert.ok(f.allocated_at);
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    const expected = { [u]: new Decimal(eur('12')).times('0.25').plus(new Decimal(eur('4')).times('0.5')).toFixed(12), [o]: new Decimal(eur('12')).times('0.75').plus(new Decimal(eur('4')).times('0.5')).toFixed(12) };
    assert.deepEqual(await payees(f.id), expected);
    // A forced re-run checks every key and finds nothing to change.
    const before = await lines(f.id);
    const again = await app.request('POST', `/royalty/files/${f.id}/allocate`, { token: admin });
    assert.equal(again.status, 200, again.text);
    await waitFor('re-run', async () => (await app.svc.db.owner('files').where({ id: f.id }).first('allocation_path', 'status')).allocation_path === 'checked');
    await waitFile(app, admin, f.id, ['processed']);
    assert.deepEqual(await lines(f.id), before);
    assert.equal((await sql(`SELECT count(*)::int AS n FROM royalty_allocation_history WHERE file_id = ?`, [f.id])).rows[0].n, 0);
  });

  it("a split's shares changed between ingest and allocation: checked, the new shares pay", async () => {
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    const f = await run(statement('shares', [{ isrc: ISRC.a, title: 'Song a', net: '8' }]), () => setShares(app, t.tenantId, split, { [u]: '60', [o]: '40' }));
    assert.equal(f.allocation_path, 'checked');
    assert.deepEqual(await payees(f.id), { [u]: new Decimal(eur('8')).times('0.6').toFixed(12), [o]: new Decimal(eur('8')).times('0.4').toFixed(12) });
    await waitForReallocation(app, t.tenantId);
  });

  it('a change committed while the ingest runs (after its snapshot): checked', async () => {
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    let hit = 0;
    stepTestHooks.beforeCommit = async (step) => {
      if (step !== 'file.ingest') return;
      hit++;
      await setShares(app, t.tenantId, split, { [u]: '30', [o]: '70' });
    };
    try {
      const f = await run(statement('during', [{ isrc: ISRC.a, title: 'Song a', net: '5' }]));
      assert.equal(hit, 1);
      assert.equal(f.allocation_path, 'checked');
      assert.deepEqual(await payees(f.id), { [u]: new Decimal(eur('5')).times('0.3').toFixed(12), [o]: new Decimal(eur('5')).times('0.7').toFixed(12) });
    } finally {
      delete stepTestHooks.beforeCommit;
    }
    await waitForReallocation(app, t.tenantId);
  });

  it('a change committed while the allocation runs (after its reads) is re-allocated once the allocation commits', async () => {
    let hit = 0;
    stepTestHooks.beforeCommit = async (step) => {
      if (step !== 'royalty.allocate') return;
      hit++;
      await tx(app, t.tenantId, (trx) =>
        trx('matching_rules').insert({ tenant_id: t.tenantId, kind: 'asset', isrc: ISRC.f, asset_id: assets.b }),
      );
    };
    let f: Record<string, any>;
    try {
      f = await run(statement('allocating', [{ isrc: ISRC.f, title: 'Song f', net: '4' }]));
    } finally {
      delete stepTestHooks.beforeCommit;
    }
    assert.equal(hit, 1);
    assert.equal(f.allocation_path, 'in_flight');
    await waitForReallocation(app, t.tenantId);
    const [l] = await lines(f.id);
    assert.deepEqual([l.asset_id, l.match_status], [assets.b, 'rule']);
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    assert.deepEqual(await payees(f.id), { [u]: new Decimal(eur('4')).times('0.5').toFixed(12), [o]: new Decimal(eur('4')).times('0.5').toFixed(12) });
  });

  it('a recording added that matches an unmatched line: checked, the line matched', async () => {
    let added = '';
    const f = await run(statement('recording', [{ isrc: ISRC.c, title: 'Song c', net: '3' }]), async () => {
      added = await createAsset(app, t.tenantId, { title: 'Song c', isrc: ISRC.c });
    });
    assert.equal(f.allocation_path, 'checked');
    const [l] = await lines(f.id);
    assert.deepEqual([l.asset_id, l.match_status], [added, 'isrc']);
    await waitForReallocation(app, t.tenantId);
  });

  it('a matching rule added: checked, the rule matches', async () => {
    const f = await run(statement('rule', [{ isrc: ISRC.d, title: 'Other d', net: '6' }]), async () => {
      const r = await app.request('POST', '/royalty/matching-rules', { token: admin, body: { kind: 'asset', isrc: ISRC.d, assetId: assets.b } });
      assert.equal(r.status, 201, r.text);
    });
    assert.equal(f.allocation_path, 'checked');
    const [l] = await lines(f.id);
    assert.deepEqual([l.asset_id, l.match_status, l.share_set_id !== null], [assets.b, 'rule', true]);
    await waitForReallocation(app, t.tenantId);
  });

  it('a currency rate changed: checked, converted at the new rate', async () => {
    const f = await run(statement('rate', [{ isrc: ISRC.b, title: 'Song b', net: '7' }]), async () => {
      const r = await app.request('PUT', '/currency/rates', { token: admin, body: { rates: [{ currency: 'USD', month: '2024-03', rate: '0.8' }] } });
      assert.equal(r.status, 200, r.text);
    });
    assert.equal(f.allocation_path, 'checked');
    const [l] = await lines(f.id);
    assert.equal(new Decimal(l.base).toFixed(), new Decimal(eur('7', '0.8')).toFixed());
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    assert.deepEqual(await payees(f.id), { [u]: new Decimal(eur('7', '0.8')).times('0.5').toFixed(12), [o]: new Decimal(eur('7', '0.8')).times('0.5').toFixed(12) });
  });

  it('autoCreateCatalogue turned on: checked, the recording created from the statement', async () => {
    const f = await run(statement('auto', [{ isrc: ISRC.e, title: 'Song e', net: '1' }]), async () => {
      const r = await app.request('PUT', '/settings/workspace', { token: admin, body: { autoCreateCatalogue: true } });
      assert.equal(r.status, 200, r.text);
    });
    assert.equal(f.allocation_path, 'checked');
    // (its match_status: 'auto', or 'isrc' once the re-allocation the new recording wakes has run)
    const [l] = await lines(f.id);
    const made = await sql(`SELECT id FROM assets WHERE isrc = ?`, [ISRC.e]);
    assert.deepEqual([l.asset_id], made.rows.map((r: { id: string }) => r.id));
    const off = await app.request('PUT', '/settings/workspace', { token: admin, body: { autoCreateCatalogue: false } });
    assert.equal(off.status, 200, off.text);
    await waitForReallocation(app, t.tenantId);
  });

  it('an untouched upload after those changes takes the decisions again; a snapshot older than the pruned changes is checked', async () => {
    const f = await run(statement('again', [{ isrc: ISRC.a, title: 'Song a', net: '9' }]));
    assert.equal(f.allocation_path, 'in_flight');
    // The changes no unallocated file's snapshot misses were pruned by the allocations.
    const { rows } = await sql(`SELECT count(*)::int AS n FROM allocation_changes WHERE NOT pg_visible_in_snapshot(xid, ?::pg_snapshot)`, [f.ingest_snapshot]);
    assert.equal(rows[0].n, 0);
    await app.svc.db.owner('allocation_change_floor').where({ tenant_id: t.tenantId }).update({ below: app.svc.db.owner.raw(`(pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 1000000)::text::xid8`) });
    const g = await run(statement('floor', [{ isrc: ISRC.a, title: 'Song a', net: '9' }]));
    assert.equal(g.allocation_path, 'checked');
  });
});

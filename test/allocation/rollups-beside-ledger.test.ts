/**
 * The rollup shapes of a file the allocation did not rewrite are built beside its ledger
 * postings, on a second connection (src/modules/royalty/pipeline.ts): the file ends with
 * `rollups_built`, the aggregate step builds nothing, and its rows are exactly what the
 * aggregate step would have written. A file whose lines the allocation checked is aggregated
 * by the aggregate step. An allocation that fails after the shapes committed is retried and
 * leaves each shape's rows once, not twice. Through the real pipeline: upload → ingest →
 * allocate → aggregate.
 */
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile } from '../ingest/helpers';
import { stepTestHooks } from '../../src/pipeline/run-step';
import { aggregateFile } from '../../src/modules/royalty/aggregate';
import { SHAPES, shapeColumns } from '../../src/modules/royalty/shapes';
import { createArtist, createAsset, createSplit, setShares, tx, waitFor, waitForReallocation } from './helpers';

const ISRC = ['QZBSL2600001', 'QZBSL2600002'];
const HEADER = ['Reporting Date', 'Sale Month', 'Store', 'Artist', 'Title', 'ISRC', 'UPC', 'Quantity', 'Team Percentage', 'Song/Album', 'Country of Sale', 'Songwriter Royalties Withheld', 'Earnings (USD)'];

/** A DistroKid statement of two sale months (unique bytes per `tag`); one line without a recording. */
function statement(tag: string): string {
  const rows: string[] = [];
  for (let i = 0; i < 12; i++) {
    rows.push(['2024-04-02', i % 3 ? '2024-03' : '2024-02', ['Spotify', 'Deezer'][i % 2], 'Bee Side', `Song ${i % 2}`, ISRC[i % 2], '', String(i + 1), '100', 'Song', ['US', 'DE', 'FR'][i % 3], '0', `${i}.${String(i * 7).padStart(2, '0')}`].join('\t'));
  }
  rows.push(['2024-04-02', '2024-03', 'Tidal', 'Bee Side', `Unknown ${tag}`, 'QZZZZ2699999', '', '1', '100', 'Song', 'GB', '0', '0.33'].join('\t'));
  return [HEADER.join('\t'), ...rows].join('\n') + '\n';
}

describe('rollups built beside the ledger', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let admin: string;
  let split = '';

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Beside');
    admin = t.users.admin!.token;
    const artist = await createArtist(app, t.tenantId, 'Bee Side');
    const assets = [];
    for (const [i, isrc] of ISRC.entries()) assets.push(await createAsset(app, t.tenantId, { title: `Song ${i}`, isrc, artistId: artist, displayArtist: 'Bee Side' }));
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    split = await createSplit(app, t.tenantId, { target: 'asset', id: assets[0]!, shares: { [u]: '33.333333', [o]: '66.666667' } });
    await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [u]: '10', [o]: '90' } });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => {
    delete stepTestHooks.beforeCommit;
    await app?.close();
  });

  /** Every shape's rows of the file, sorted (as text). */
  async function shapeRows(fileId: string): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const s of SHAPES) {
      const cols = shapeColumns(s).map((c) => `coalesce(${c}::text, '∅')`).join(` || '|' || `);
      const { rows } = await tx(app, t.tenantId, (trx) => trx.raw(`SELECT ${cols} AS r FROM ${s.table} WHERE file_id = ? ORDER BY 1`, [fileId]));
      out[s.table] = rows.map((r: { r: string }) => r.r);
    }
    return out;
  }

  /** What the aggregate step writes for the file, read in a transaction that is rolled back. */
  async function rebuilt(fileId: string): Promise<Record<string, string[]>> {
    const trx = await app.svc.db.owner.transaction();
    try {
      await trx.raw(`SELECT set_config('app.tenant_id', ?, true)`, [String(t.tenantId)]);
      await aggregateFile(trx, t.tenantId, fileId);
      const out: Record<string, string[]> = {};
      for (const s of SHAPES) {
        const cols = shapeColumns(s).map((c) => `coalesce(${c}::text, '∅')`).join(` || '|' || `);
        const { rows } = await trx.raw(`SELECT ${cols} AS r FROM ${s.table} WHERE file_id = ? ORDER BY 1`, [fileId]);
        out[s.table] = rows.map((r: { r: string }) => r.r);
      }
      return out;
    } finally {
      await trx.rollback();
    }
  }

  /** Every line's amount (USD, the workspace's base currency): 12 matched lines and one unknown. */
  const TOTAL = Array.from({ length: 12 }, (_, i) => `${i}.${String(i * 7).padStart(2, '0')}`).reduce((a, b) => a.plus(b), new Decimal('0.33'));

  /** The figures the file's `royalty.file.processed` event carries. */
  async function processedEvent(fileId: string): Promise<Record<string, unknown>> {
    const { rows } = await tx(app, t.tenantId, (trx) => trx.raw(`SELECT payload FROM outbound_events WHERE type = 'royalty.file.processed' AND payload->>'fileId' = ?`, [fileId]));
    assert.equal(rows.length, 1);
    const { lines, matched, total, currency } = rows[0].payload;
    return { lines, matched, total: new Decimal(total).toFixed(), currency };
  }

  async function uploadAndWait(tag: string): Promise<Record<string, any>> {
    const up = await upload(app, admin, `DistroKid_1700000000000_${tag}.tsv`, statement(tag));
    assert.equal(up.status, 201, up.text);
    const f = await waitFile(app, admin, up.body.data.id, ['processed', 'failed'], 60_000);
    assert.equal(f.status, 'processed', JSON.stringify(f));
    return app.svc.db.owner('files').where({ id: f.id }).first();
  }

  it('taken as the ingest decided it: the shapes are built with the ledger, equal to what the aggregate step writes', async () => {
    const f = await uploadAndWait('beside');
    assert.equal(f.allocation_path, 'in_flight');
    assert.equal(f.rollups_built, true);
    const rows = await shapeRows(f.id);
    assert.equal(rows.royalty_roll_catalogue!.length, 5); // 2 recordings × 2 months + the unknown line
    assert.deepEqual(rows, await rebuilt(f.id));
    // its figures from the file's counts and its rollup rows, as a count of its lines gives them
    assert.deepEqual(await processedEvent(f.id), { lines: 13, matched: 12, total: TOTAL.toFixed(), currency: 'USD' });
    const ledger = await tx(app, t.tenantId, (trx) => trx.raw(`SELECT count(*)::int AS n FROM ledger_entries WHERE source_id = ?`, [f.id]));
    assert.ok(ledger.rows[0].n > 0);
  });

  it("checked (a split changed between the ingest and the allocation): the allocation builds them after the ledger", async () => {
    const [u, o] = [t.users.user!.tenantUserId, t.users.owner!.tenantUserId];
    const lock = await app.svc.db.owner.transaction();
    let id = '';
    try {
      await lock.raw(`SELECT pg_advisory_xact_lock(hashtext('rondo.allocation'), ?)`, [t.tenantId]);
      const up = await upload(app, admin, 'DistroKid_1700000000000_checked.tsv', statement('checked'));
      assert.equal(up.status, 201, up.text);
      id = up.body.data.id;
      await waitFor('the ingest', async () => (await app.svc.db.owner('files').where({ id }).first('status')).status === 'allocating');
      await setShares(app, t.tenantId, split, { [u]: '50', [o]: '50' });
    } finally {
      await lock.rollback();
    }
    await waitFile(app, admin, id, ['processed'], 60_000);
    const f = await app.svc.db.owner('files').where({ id }).first();
    assert.equal(f.allocation_path, 'checked');
    assert.equal(f.rollups_built, false);
    assert.deepEqual(await shapeRows(id), await rebuilt(id));
    assert.deepEqual(await processedEvent(id), { lines: 13, matched: 12, total: TOTAL.toFixed(), currency: 'USD' });
    await waitForReallocation(app, t.tenantId);
  });

  it('an allocation failing after its shapes committed is retried: every shape row once', async () => {
    let failures = 0;
    stepTestHooks.beforeCommit = async (step) => {
      if (step !== 'royalty.allocate' || failures > 0) return;
      failures++;
      throw new Error('injected: the allocation fails after its shapes committed');
    };
    let f: Record<string, any>;
    try {
      f = await uploadAndWait('retried');
    } finally {
      delete stepTestHooks.beforeCommit;
    }
    assert.equal(failures, 1);
    assert.equal(f.rollups_built, true);
    const rows = await shapeRows(f.id);
    assert.equal(rows.royalty_roll_catalogue!.length, 5);
    assert.deepEqual(rows, await rebuilt(f.id));
  });
});

/**
 * End to end through the real pipeline: upload → decompress → detect → ingest → allocate →
 * aggregate → /royalty/*; a missing exchange rate fails the file (readable on GET /file/{id});
 * DELETE /file/{id} takes the file out of the analytics.
 */
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile } from '../ingest/helpers';
import { createArtist, createAsset, createSplit, tx, waitForReallocation } from './helpers';

describe('upload → analytics (end to end)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'E2E');
    const artist = await createArtist(app, t.tenantId, 'Nova Lune', [t.users.user!.tenantUserId]);
    const asset = await createAsset(app, t.tenantId, { title: 'Midnight Tides', isrc: 'QZES81912345', artistId: artist, displayArtist: 'Nova Lune' });
    await createSplit(app, t.tenantId, { target: 'asset', id: asset, shares: { [t.users.user!.tenantUserId]: '25', [t.users.owner!.tenantUserId]: '75' } });
    await waitForReallocation(app, t.tenantId);
  });
  after(async () => app?.close());

  it('a DistroKid statement is matched, allocated and shows in every breakdown; DELETE removes it', async () => {
    const up = await upload(app, t.users.admin!.token, 'DistroKid_1683000000000_NovaLune.tsv', fixture('DistroKid_1683000000000_NovaLune.tsv'));
    assert.equal(up.status, 201, up.text);
    const id: string = up.body.data.id;
    const f = await waitFile(app, t.users.admin!.token, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', JSON.stringify(f));
    const { rows } = await tx(app, t.tenantId, (trx) =>
      trx.raw(`SELECT sum(base_amount)::text AS s, count(*)::int AS n, count(*) FILTER (WHERE asset_id IS NOT NULL)::int AS m FROM royalty_lines WHERE file_id = ?`, [id]),
    );
    assert.ok(rows[0].m > 0, 'some lines matched Midnight Tides');
    const tot = await app.request('GET', '/royalty/', { token: t.users.admin!.token });
    assert.equal(tot.body.data.total.lines, rows[0].n);
    assert.ok(new Decimal(tot.body.data.total.revenue).eq(rows[0].s));
    const byFile = await app.request('GET', `/royalty/dsp?file=${id}`, { token: t.users.admin!.token });
    assert.ok(new Decimal(byFile.body.data.total.revenue).eq(rows[0].s));
    const mine = await app.request('GET', '/royalty/asset', { token: t.users.user!.token });
    assert.equal(mine.body.data.rows.length, 1);
    const n = await app.request('GET', '/notifications', { token: t.users.admin!.token });
    assert.equal(n.status, 200, n.text);
    assert.ok(JSON.stringify(n.body).includes(id), n.text);

    const del = await app.request('DELETE', `/file/${id}`, { token: t.users.admin!.token });
    assert.equal(del.status, 200, del.text);
    const after = await app.request('GET', '/royalty/', { token: t.users.admin!.token });
    assert.deepEqual(after.body.data.rows, []);
    const afterMine = await app.request('GET', '/royalty/', { token: t.users.user!.token });
    assert.deepEqual(afterMine.body.data.rows, []);
    assert.equal((await tx(app, t.tenantId, (trx) => trx('royalty_earnings').where({ file_id: id }))).length, 0);
  });

  it('a statement in a currency without a rate fails with the currency and month on GET /file/{id}', async () => {
    const up = await upload(app, t.users.admin!.token, 'tunecore-sales-report.csv', fixture('tunecore-sales-report.csv'));
    const id = up.body.data?.id ?? up.body.data?.files?.[0]?.id ?? up.body.id;
    const f = await waitFile(app, t.users.admin!.token, id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(f.status, 'failed', JSON.stringify(f));
    assert.match(f.error, /No exchange rate to USD for EUR 2023-07/);
    assert.doesNotMatch(f.error, /\b(GET|POST|PUT) \//, 'the message names no API route');
    assert.deepEqual(f.missingRates, [{ currency: 'EUR', month: '2023-07' }]);
    // still there when the file is read again later (a reload of the page)
    const listed = (await app.request('GET', '/file/?topLevel=true', { token: t.users.admin!.token })).body.data.find((x: any) => x.id === id);
    assert.deepEqual(listed.missingRates, [{ currency: 'EUR', month: '2023-07' }]);
  });
});

/**
 * Issue 31, case 8: amounts are stored exactly as the statement wrote them (15 decimals here;
 * at least 20 kept), so the file's own total, the sum of its stored lines and the analytics
 * total agree exactly.
 */
import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { seedRates, upload, waitFile } from './helpers';

describe('statement ingestion: amounts kept exactly as written', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Exact amounts');
    await seedRates(app, a.tenantId);
  });
  after(async () => app?.close());

  it('a statement with 13–15 decimal amounts: file total = Σ stored lines = analytics total, to the last digit', async () => {
    const amounts = ['41.123456789012345', '30.000000000000017', '32.90722401325075', '0.000000000000001', '-0.0000000000001'];
    const header = 'Reporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSong/Album\tCountry of Sale\tSongwriter Royalties Withheld\tEarnings (USD)';
    const rows = amounts.map((x, i) => `2023-05-02\t2023-03\tSpotify\tNova Lune\tExact ${i}\tQZES8191${String(2300 + i)}\t859712345677\t1\t100\tSong\tUS\t0\t${x}`);
    const total = amounts.reduce((s, x) => s.plus(x), new Decimal(0)).toFixed();
    assert.equal(total, '104.030680802263013'); // more digits than 12 places can hold

    const r = await upload(app, a.users.admin!.token, 'DistroKid_1700000000000_Exact.tsv', [header, ...rows].join('\n') + '\n');
    assert.equal(r.status, 201, r.text);
    const f = await waitFile(app, a.users.admin!.token, r.body.data.id, ['processed', 'failed', 'needs_confirmation'], 60_000);
    assert.equal(f.status, 'processed', JSON.stringify(f));
    assert.equal(f.totals.USD, total);

    const db = await app.svc.db.owner.raw(`SELECT sum(net)::text AS net, sum(base_amount)::text AS base, array_agg(net::text ORDER BY line_no) AS nets FROM royalty_lines WHERE file_id = ?`, [f.id]);
    assert.deepEqual(db.rows[0].nets.map((x: string) => new Decimal(x).toFixed()), amounts.map((x) => new Decimal(x).toFixed()));
    assert.equal(new Decimal(db.rows[0].net).toFixed(), total);
    assert.equal(new Decimal(db.rows[0].base).toFixed(), total);

    const analytics = await app.request('GET', '/royalty/', { token: a.users.admin!.token });
    assert.equal(analytics.status, 200, analytics.text);
    assert.equal(new Decimal(analytics.body.data.total.revenue).toFixed(), total);
  });
});

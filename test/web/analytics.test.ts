/**
 * Analytics in headless Chromium: the month chart shows the empty months between sales; the
 * CSV and XLSX downloads are the server's whole breakdown (600 recordings, beyond the 500 rows the
 * page shows), the CSV adding up to the API's total; the filters fit a 375 px screen.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import Decimal from 'decimal.js';
import type { Page } from 'playwright-core';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { waitForReallocation } from '../allocation/helpers';
import { upload, waitFile } from '../ingest/helpers';
import { browserSuite, checkPage, checkPhone } from './ops';

const HEADER = 'Reporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSong/Album\tCountry of Sale\tSongwriter Royalties Withheld\tEarnings (USD)';
const RECORDINGS = 600;
// sales in January and April 2026: February and March are empty months
const STATEMENT = [
  HEADER,
  ...Array.from({ length: RECORDINGS }, (_, i) =>
    `2026-05-02\t${i % 2 ? '2026-04' : '2026-01'}\tSpotify\tNova Lune\tSketch ${i + 1}\tUSWEB27${String(i).padStart(5, '0')}\t\t1\t100\tSong\tUS\t0\t0.${String(i + 1).padStart(3, '0')}000000000`),
].join('\n') + '\n';
const FILE = 'DistroKid_1777680000000_Nova_Lune_complete_catalogue_statement_for_the_whole_spring_season.tsv';

describe('web app: analytics in headless Chromium', function () {
  this.timeout(240_000);
  const w = browserSuite('analytics tests', async (app) => {
    const t = await createTestTenant(app, 'Web Analytics');
    const admin = t.users.admin!.token;
    assert.equal((await app.request('PUT', '/settings/workspace', { token: admin, body: { autoCreateCatalogue: true } })).status, 200);
    const f = await waitFile(app, admin, (await upload(app, admin, FILE, STATEMENT)).body.data.id, ['processed', 'failed'], 60_000);
    assert.equal(f.status, 'processed', f.error);
    await waitForReallocation(app, t.tenantId);
    return t;
  });
  let app: TestApp;
  let t: TestTenant;
  let page: Page;
  let admin: string;
  before(async () => {
    ({ app, t, page } = w);
    admin = t.users.admin!.token;
    await page.goto(`${app.url}/app/analytics`);
  });

  it('shows the empty months between sales in the month chart and table', async () => {
    const api = (await app.request('GET', '/royalty/month', { token: admin })).body.data;
    assert.deepEqual(api.rows.map((r: any) => r.month), ['2026-01', '2026-04'], 'the API has the months with sales');
    await page.locator('[data-testid=chart-total][data-by=month]').waitFor();
    const labels = await page.locator('.chart .chart-label').allTextContents();
    assert.deepEqual(labels, ['2026-01', '2026-02', '2026-03', '2026-04']);
    const table = page.getByRole('region', { name: 'Revenue by month' });
    assert.deepEqual(await table.locator('tbody td[data-label="Month"]').allInnerTexts(), ['January 2026', 'February 2026', 'March 2026', 'April 2026']);
    assert.equal(await table.locator('tbody tr', { hasText: 'February 2026' }).locator('td[data-label^="Revenue"]').innerText(), '0.00');
    await checkPage(page, 'analytics-months');
  });

  it('downloads the whole breakdown as CSV and XLSX from the server, beyond the rows shown', async () => {
    await page.getByRole('button', { name: 'Recording', exact: true }).click();
    await page.locator('[data-testid=chart-total][data-by=asset]').waitFor();
    const shown = await page.getByRole('region', { name: 'Revenue by asset' }).locator('tbody tr').count();
    assert.equal(shown, 500, 'the page shows 500 rows');
    await page.getByText('“Download CSV” and “Download XLSX” have every row.', { exact: false }).waitFor();
    const [csvDl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    assert.equal(csvDl.suggestedFilename(), 'royalty-asset.csv');
    const csv = (await fs.readFile((await csvDl.path())!, 'utf8')).split(/\r?\n/).filter(Boolean);
    const head = csv[0].split(',');
    assert.deepEqual(head.slice(-4), ['revenue', 'quantity', 'lines', 'currency']);
    assert.equal(csv.length - 1, RECORDINGS, 'every recording');
    const total = (await app.request('GET', '/royalty/asset', { token: admin })).body.data.total.revenue;
    const rev = head.indexOf('revenue');
    const sum = csv.slice(1).reduce((s, l) => s.plus(l.split(',')[rev]), new Decimal(0));
    assert.ok(sum.eq(total), `CSV sum ${sum} = API total ${total}`);
    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download XLSX' }).click()]);
    assert.equal(xlsx.suggestedFilename(), 'royalty-asset.xlsx');
    assert.equal((await fs.readFile((await xlsx.path())!)).subarray(0, 2).toString(), 'PK', 'an XLSX (zip) file');
  });

  it('fits its filters on a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, app, t.users.admin!, '/analytics', '[data-testid=chart-total]', 'analytics');
    assert.deepEqual(w.blocked, []);
  });
});

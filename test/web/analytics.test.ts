/**
 * Analytics in headless Chromium: the month chart shows the empty months between sales; the
 * CSV and XLSX downloads are the server's whole breakdown (600 recordings, 50 on a page of the
 * table), the CSV adding up to the API's total; the Chart.js canvases are drawn and named by
 * their figures; a table sorts by a column and pages, both done by the server (the order is the
 * API's over all 600 rows); the previous period's figures are the API's for the previous range;
 * axe passes and the filters fit a 375 px screen.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import Decimal from 'decimal.js';
import type { Locator, Page } from 'playwright-core';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { waitForReallocation } from '../allocation/helpers';
import { upload, waitFile } from '../ingest/helpers';
import { ARTIFACTS } from './browser';
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

/** A decimal string as the page shows it: two places, half up. */
const cents = (s: string) => new Decimal(s).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);

/** Whether the canvas has anything drawn on it (some pixel not transparent). */
async function drawn(canvas: Locator): Promise<boolean> {
  // The chart library is fetched the first time a chart is drawn: the canvas is looked at
  // until it has a painted pixel, for at most 10 s.
  return canvas.evaluate(async (el) => {
    const c = el as unknown as { width: number; height: number; getContext(k: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    for (let waited = 0; ; waited += 100) {
      let painted = false;
      if (c.width && c.height) {
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 3; i < px.length && !painted; i += 4) painted = px[i]! > 0;
      }
      if (painted) return true;
      if (waited >= 10_000) return false;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}

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
    const months = page.locator('canvas[data-testid=chart-months]');
    const label = (await months.getAttribute('aria-label'))!;
    assert.deepEqual([...label.matchAll(/(\w+ 2026) /g)].map((m) => m[1]), ['January 2026', 'February 2026', 'March 2026', 'April 2026'], label);
    assert.match(label, /February 2026 0\.00; March 2026 0\.00/);
    assert.ok(await drawn(months), 'the month series is drawn');
    const table = page.getByRole('region', { name: 'Revenue by month' });
    assert.deepEqual(await table.locator('tbody td[data-label="Month"]').allInnerTexts(), ['January 2026', 'February 2026', 'March 2026', 'April 2026']);
    assert.equal(await table.locator('tbody tr', { hasText: 'February 2026' }).locator('td[data-label^="Revenue"]').innerText(), '0.00');
    await checkPage(page, 'analytics-months');
  });

  it('downloads the whole breakdown as CSV and XLSX from the server, beyond the rows shown', async () => {
    await page.getByRole('button', { name: 'Recording', exact: true }).click();
    await page.locator('[data-testid=chart-total][data-by=asset]').waitFor();
    const shown = await page.getByRole('region', { name: 'Revenue by recording' }).locator('tbody tr').count();
    assert.equal(shown, 50, 'a page of the table shows 50 rows');
    await page.getByRole('navigation', { name: 'Pages of Revenue by recording' }).getByText('Page 1 of 12 · 600 rows').waitFor();
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

  it('draws the top recordings and the shares by store, each canvas named by its figures', async () => {
    const top = (await app.request('GET', '/royalty/asset?size=10', { token: admin })).body.data.rows;
    const bars = page.locator('canvas[data-testid=chart-top]');
    const label = (await bars.getAttribute('aria-label'))!;
    assert.ok(label.startsWith('Top 10 by recording in USD: '), label);
    assert.deepEqual(label.slice('Top 10 by recording in USD: '.length).split('; ').map((x) => x.replace(/\.$/, '')),
      top.map((r: any) => `${r.asset} ${cents(r.revenue)}`));
    assert.deepEqual(top.map((r: any) => r.asset).slice(0, 2), ['Sketch 600', 'Sketch 599']);
    assert.ok(await drawn(bars), 'the top-10 bars are drawn');
    const stores = page.locator('canvas[data-testid=chart-stores]');
    assert.equal(await stores.getAttribute('aria-label'), 'Shares of revenue by store: Spotify 100.0 %.');
    assert.ok(await drawn(stores), 'the store shares are drawn');
    assert.ok(await drawn(page.locator('canvas[data-testid=chart-months]')), 'the month series is drawn for any breakdown');
  });

  it('sorts a table column and pages through the rows on the server (the order of all 600 rows, not of a page)', async () => {
    const table = page.getByRole('region', { name: 'Revenue by recording' });
    const names = () => table.locator('tbody td[data-label="Recording"]').allInnerTexts();
    const apiNames = async (q: string) => (await app.request('GET', `/royalty/asset?${q}`, { token: admin })).body.data.rows.map((r: any) => r.asset);
    assert.deepEqual((await names()).slice(0, 3), ['Sketch 600', 'Sketch 599', 'Sketch 598'], 'largest revenue first');
    await table.getByRole('button', { name: /^Revenue \(USD\)/ }).click();
    await table.locator('th[aria-sort=ascending]', { hasText: 'Revenue' }).waitFor();
    await table.locator('tbody tr').first().filter({ hasText: 'Sketch 1' }).waitFor();
    // the smallest of all 600 (a client-side sort of the first rows fetched would start elsewhere)
    assert.deepEqual((await names()).slice(0, 3), ['Sketch 1', 'Sketch 2', 'Sketch 3']);
    assert.deepEqual((await names()).slice(0, 3), await apiNames('sort=revenue&order=asc&size=3'));
    await table.getByRole('button', { name: /^Quantity/ }).click();
    await table.locator('th[aria-sort=descending]', { hasText: 'Quantity' }).waitFor();
    await table.getByRole('button', { name: /^Recording/ }).click();
    await table.locator('th[aria-sort=ascending]', { hasText: 'Recording' }).waitFor();
    const asc = await apiNames('sort=name&order=asc&size=3');
    await table.locator('tbody tr').first().filter({ hasText: asc[0] }).waitFor();
    assert.deepEqual((await names()).slice(0, 3), asc);
    await table.getByRole('button', { name: /^Recording/ }).click();
    await table.locator('th[aria-sort=descending]', { hasText: 'Recording' }).waitFor();
    const desc = await apiNames('sort=name&order=desc&size=50&page=2');
    assert.notDeepEqual(desc.slice(0, 1), asc.slice(0, 1));
    await page.getByRole('navigation', { name: 'Pages of Revenue by recording' }).getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 12 · 600 rows').waitFor();
    await table.locator('tbody tr').first().filter({ hasText: desc[0] }).waitFor();
    assert.deepEqual(await names(), desc, 'the second page is the API\'s second page in that order');
  });

  it('shows the previous period beside the current one, as the API answers for the previous range', async () => {
    await page.getByLabel('From (YYYY-MM)').fill('2026-03');
    await page.getByLabel('To (YYYY-MM)').fill('2026-04');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('button', { name: 'Month', exact: true }).click();
    const prev = (await app.request('GET', '/royalty/?start=2026-01&end=2026-02', { token: admin })).body.data.total;
    const now = (await app.request('GET', '/royalty/?start=2026-03&end=2026-04', { token: admin })).body.data.total;
    assert.ok(Number(prev.revenue) > 0 && Number(now.revenue) > 0, 'both periods have royalties');
    await page.locator(`[data-testid=chart-total][data-by=month][data-value="${now.revenue}"]`).waitFor();
    assert.equal(await page.getByTestId('previous-total').getAttribute('data-value'), prev.revenue);
    await page.getByText('Previous period (January 2026 to February 2026)').waitFor();
    const table = page.getByRole('region', { name: 'Revenue by month' });
    assert.deepEqual(await table.locator('tbody td[data-label="Month"]').allInnerTexts(), ['March 2026', 'April 2026']);
    const janApi = (await app.request('GET', '/royalty/month?start=2026-01&end=2026-01', { token: admin })).body.data.rows[0].revenue;
    // March's previous month is January (the same place in the previous range)
    assert.equal(await table.locator('tbody tr', { hasText: 'March 2026' }).locator('td[data-label="Previous (USD)"]').innerText(), cents(janApi));
    const label = (await page.locator('canvas[data-testid=chart-months]').getAttribute('aria-label'))!;
    assert.match(label, new RegExp(`Previous period: January 2026 ${cents(janApi)}; February 2026 0\\.00\\.$`), label);
    await checkPage(page, 'analytics-charts');
    // the small picture in docs/web.md (docs/img/web/analytics.png)
    await page.locator('section.card', { has: page.locator('canvas[data-testid=chart-months]') }).screenshot({ path: path.join(ARTIFACTS, 'docs-analytics.png') });
  });

  it('fits its filters on a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, app, t.users.admin!, '/analytics', '[data-testid=chart-total]', 'analytics');
    assert.deepEqual(w.blocked, []);
  });
});

/**
 * Unmatched lines and suggestions in headless Chromium, each effect read back through the API:
 * the groups paged on the server (30 unknown recordings: two pages), a group matched to an
 * existing recording found by search (a saved rule; its lines then carry the recording),
 * suggestions accepted in bulk, a recording created for a group.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createProduct, createSplit, waitFor, waitForReallocation } from '../allocation/helpers';
import { upload, waitFile } from '../ingest/helpers';
import { ARTIFACTS } from './browser';
import { browserSuite, checkPage, checkPhone } from './ops';

const HEADER = 'Reporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSong/Album\tCountry of Sale\tSongwriter Royalties Withheld\tEarnings (USD)';
const line = (title: string, isrc: string, amount: string, upc = '', kind = 'Song') => `2026-03-02\t2026-01\tSpotify\tNova Lune\t${title}\t${isrc}\t${upc}\t10\t100\t${kind}\tUS\t0\t${amount}`;
const FILLER = Array.from({ length: 30 }, (_, i) => line(`Sketch ${String(i + 1).padStart(2, '0')}`, `USWEB26009${String(i).padStart(2, '0')}`, '0.010000000000'));
const STATEMENT = [
  HEADER,
  line('Midnight Drive', 'USWEB2600101', '5.000000000000'),
  // an unknown ISRC under another title: matched by hand to Midnight Drive
  line('MD (Radio Edit)', 'USWEB2600199', '9.000000000000'),
  line('MD (Radio Edit)', 'USWEB2600199', '8.000000000000'),
  // no ISRC, titles close to the catalogue's: suggestions
  line('Midnight Drive (Remastered)', '', '7.000000000000'),
  line('Paper Moon (Remastered)', '', '6.000000000000'),
  // nothing like it in the catalogue: a new recording
  line('Brand New Tune', 'USWEB2600177', '4.000000000000'),
  // an album sale under an unknown UPC: matched by hand to the product Night Album
  line('Night Album (Deluxe)', '', '3.000000000000', '0012345678905', 'Album'),
  ...FILLER,
].join('\n') + '\n';

describe('web app: unmatched lines and suggestions in headless Chromium', function () {
  this.timeout(240_000);
  const w = browserSuite('matching tests', async (app) => {
    const t = await createTestTenant(app, 'Web Matching');
    const admin = t.users.admin!.token;
    const artist = await createArtist(app, t.tenantId, 'Nova Lune', [t.users.user!.tenantUserId]);
    await createAsset(app, t.tenantId, { title: 'Midnight Drive', isrc: 'USWEB2600101', artistId: artist, displayArtist: 'Nova Lune' });
    await createAsset(app, t.tenantId, { title: 'Paper Moon', isrc: 'USWEB2600102', artistId: artist, displayArtist: 'Nova Lune' });
    await createProduct(app, t.tenantId, { title: 'Night Album', upc: '0036000291452', artistId: artist });
    await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [t.users.user!.tenantUserId]: '100' } });
    await waitForReallocation(app, t.tenantId);
    const f = await waitFile(app, admin, (await upload(app, admin, 'DistroKid_1772400000000_NovaLune.tsv', STATEMENT)).body.data.id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    await waitForReallocation(app, t.tenantId);
    return t;
  });
  let app: TestApp;
  let t: TestTenant;
  let page: Page;
  let admin: string;
  let midnight: string;
  before(async () => {
    ({ app, t, page } = w);
    admin = t.users.admin!.token;
    midnight = (await app.request('GET', '/asset?search=Midnight%20Drive', { token: admin })).body.data.find((r: any) => r.isrc === 'USWEB2600101').id;
  });

  const unmatched = () => page.getByRole('region', { name: /^Statement lines matching no recording/ });
  const groups = async (p: number) => (await app.request('GET', `/checklist/royaltyassets?page=${p}&size=25`, { token: admin })).body;

  it('lists the unmatched lines by group with their counts and amounts, paged on the server', async () => {
    const first = await groups(1);
    assert.ok(first.pagination.total > 25, `more groups than a page: ${first.pagination.total}`);
    await unmatched().locator('tbody tr', { hasText: 'USWEB2600199' }).waitFor();
    const row = unmatched().locator('tbody tr', { hasText: 'USWEB2600199' });
    assert.equal(await row.locator('td[data-label="Lines"]').innerText(), '2');
    assert.equal((await row.locator('td[data-label="Amount"]').innerText()).replace(/\s/g, ' '), 'USD 17.00');
    assert.equal(await unmatched().locator('tbody tr').count(), 25);
    await page.getByRole('navigation', { name: 'Unmatched lines pages' }).getByText('Page 1 of 2').waitFor();
    await page.getByRole('navigation', { name: 'Unmatched lines pages' }).getByRole('button', { name: 'Next' }).click();
    await page.getByRole('navigation', { name: 'Unmatched lines pages' }).getByText('Page 2 of 2').waitFor();
    const second = await groups(2);
    await unmatched().locator('tbody tr', { hasText: second.data[0].isrc ?? second.data[0].title }).waitFor();
    assert.equal(await unmatched().locator('tbody tr').count(), second.data.length);
    await page.getByRole('navigation', { name: 'Unmatched lines pages' }).getByRole('button', { name: 'Previous' }).click();
    await checkPage(page, 'matching-unmatched');
    // the small pictures of docs/web.md (docs/img/web/)
    await unmatched().locator('tbody tr').first().waitFor();
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Unmatched lines' }) });
    await section.evaluate((el) => el.scrollIntoView());
    const box = (await section.boundingBox())!;
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-unmatched.png'), clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 520) } });
  });

  it('matches a group to an existing recording found by search, as a saved rule', async () => {
    await page.getByRole('button', { name: 'Match MD (Radio Edit) to a recording' }).click();
    const dialog = page.getByRole('dialog', { name: 'Match “MD (Radio Edit)” to a recording' });
    await dialog.waitFor();
    await dialog.getByLabel('Find a recording by title, artist or ISRC').fill('Midnight');
    await dialog.getByRole('button', { name: 'Match to Midnight Drive (USWEB2600101)' }).waitFor();
    await dialog.screenshot({ path: path.join(ARTIFACTS, 'docs-match-dialog.png') });
    await dialog.getByRole('button', { name: 'Match to Midnight Drive (USWEB2600101)' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('The lines of “MD (Radio Edit)” are being matched to “Midnight Drive”.', { exact: false }).waitFor();
    const rules = (await app.request('GET', '/royalty/matching-rules', { token: admin })).body.data;
    assert.ok(rules.some((r: any) => r.isrc === 'USWEB2600199' && r.assetId === midnight), JSON.stringify(rules));
    await waitForReallocation(app, t.tenantId);
    const placed = await waitFor('the group re-matched', async () => {
      const rows = await app.svc.db.owner('royalty_lines').where({ tenant_id: t.tenantId, isrc: 'USWEB2600199' }).select('asset_id');
      return rows.length === 2 && rows.every((r) => r.asset_id === midnight) ? rows : null;
    });
    assert.equal(placed.length, 2);
    assert.ok(!(await groups(1)).data.some((g: any) => g.isrc === 'USWEB2600199'), 'no longer unmatched');
  });

  it('matches a release group to an existing product by its UPC', async () => {
    const products = (await app.request('GET', '/checklist/royaltyproducts?size=100', { token: admin })).body.data;
    assert.ok(products.some((g: any) => g.upc === '0012345678905'), JSON.stringify(products));
    const night = (await app.request('GET', '/product?search=Night', { token: admin })).body.data.find((p: any) => p.upc === '0036000291452');
    await page.getByRole('button', { name: /^Match .* to a product$/ }).first().waitFor();
    const row = page.getByRole('region', { name: /^Statement lines matching no product/ }).locator('tbody tr', { hasText: '0012345678905' });
    await row.getByRole('button', { name: /to a product$/ }).click();
    const dialog = page.getByRole('dialog', { name: /to a product$/ });
    await dialog.waitFor();
    await dialog.getByLabel('Find a product by title, artist or UPC').fill('Night');
    await dialog.getByRole('button', { name: 'Match to Night Album (0036000291452)' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('Later statements with the same UPC will be too.', { exact: false }).waitFor();
    const rules = (await app.request('GET', '/royalty/matching-rules', { token: admin })).body.data;
    assert.ok(rules.some((r: any) => r.upc === '0012345678905' && r.productId === night.id), JSON.stringify(rules));
    await waitForReallocation(app, t.tenantId);
    await waitFor('the release group matched', async () => {
      const rows = await app.svc.db.owner('royalty_lines').where({ tenant_id: t.tenantId, upc: '0012345678905' }).select('product_id');
      return rows.length === 1 && rows[0].product_id === night.id;
    });
  });

  it('accepts the suggestions in bulk', async () => {
    const open = (await app.request('GET', '/royalty/matches/suggestions?size=50', { token: admin })).body.data;
    assert.ok(open.length >= 2, `suggestions waiting: ${open.length}`);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Match suggestions' }) });
    await section.locator('tbody tr').nth(open.length - 1).waitFor();
    await section.getByLabel('Select all on this page').check();
    await section.getByRole('button', { name: `Accept selected (${open.length})` }).click();
    await section.getByText(`${open.length} suggestions accepted; their lines are being re-matched.`).waitFor();
    const accepted = (await app.request('GET', '/royalty/matches/suggestions?status=accepted&size=50', { token: admin })).body.data;
    assert.deepEqual(accepted.map((s: any) => s.id).sort(), open.map((s: any) => s.id).sort());
    assert.equal((await app.request('GET', '/royalty/matches/suggestions?size=50', { token: admin })).body.data.length, 0);
  });

  it('creates the recording when none exists', async () => {
    await page.getByRole('button', { name: 'Create recording Brand New Tune' }).click();
    await page.getByText('Recording “Brand New Tune” created; its lines are being matched.').waitFor();
    const found = (await app.request('GET', '/asset?search=Brand%20New%20Tune', { token: admin })).body.data;
    assert.deepEqual(found.map((r: any) => [r.title, r.isrc]), [['Brand New Tune', 'USWEB2600177']]);
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, app, t.users.admin!, '/statements', 'h2', 'matching');
    assert.deepEqual(w.blocked, []);
  });
});

/**
 * The catalogue and splits pages in headless Chromium, each effect read back through the API:
 * recordings searched, sorted and paged on the server; a recording created, edited, deleted, two
 * deleted at once; the CSV export and a CSV import; an artist's default split with a date and
 * territories for a payee who does not sign in; a product split changed; its history.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createProduct } from '../allocation/helpers';
import { ARTIFACTS, sidewaysOverflow } from './browser';
import { browserSuite, checkPage, checkPhone } from './ops';

describe('web app: catalogue and splits in headless Chromium', function () {
  this.timeout(240_000);
  const ids: Record<string, string> = {};
  const w = browserSuite('catalogue tests', async (app) => {
    const t = await createTestTenant(app, 'Web Catalogue');
    const admin = t.users.admin!.token;
    ids.artist = await createArtist(app, t.tenantId, 'Nova Lune');
    for (let i = 1; i <= 30; i++) {
      const n = String(i).padStart(2, '0');
      ids[`song${n}`] = await createAsset(app, t.tenantId, { title: `Song ${n}`, isrc: `USWEB260${String(1000 + i)}`, artistId: ids.artist, displayArtist: 'Nova Lune' });
    }
    ids.product = await createProduct(app, t.tenantId, { title: 'Night Album', upc: '0036000291452', artistId: ids.artist });
    const quiet = await app.request('POST', '/user/', { token: admin, body: { email: 'quinn@payees.test', role: 'user', firstName: 'Quinn', lastName: 'Quiet', invite: false } });
    assert.equal(quiet.status, 201, quiet.text);
    assert.equal(quiet.body.data.status, 'not_invited');
    ids.quiet = quiet.body.data.id;
    const split = await app.request('POST', '/split/', { token: admin, body: { product: ids.product, split: [{ user: t.users.user!.tenantUserId, share: 50 }, { user: ids.quiet, share: 50 }] } });
    assert.equal(split.status, 201, split.text);
    ids.productSplit = split.body.data.id;
    return t;
  });
  let app: TestApp;
  let t: TestTenant;
  let page: Page;
  let admin: string;
  before(() => {
    ({ app, t, page } = w);
    admin = t.users.admin!.token;
  });
  /** A small picture of one part of the page, for docs/web.md (docs/img/web/). */
  const shot = (part: Locator, name: string) => part.screenshot({ path: path.join(ARTIFACTS, `docs-${name}.png`) });
  const get = (route: string) => app.request('GET', route, { token: admin });
  const rows = () => page.getByRole('table', { name: 'Recordings', exact: true }).locator('tbody tr');
  const pager = () => page.getByRole('navigation', { name: 'Recordings pages' });

  it('searches, sorts and pages the recordings on the server, with the total', async () => {
    await page.goto(`${app.url}/app/catalogue`);
    await page.getByRole('button', { name: 'Recordings', exact: true }).click();
    await pager().getByText('Page 1 of 2 · 30 recordings').waitFor();
    assert.equal(await rows().count(), 25);
    await page.getByLabel('Search recordings').fill('Song 1');
    await pager().getByText('Page 1 of 1 · 10 recordings').waitFor();
    assert.equal(await rows().count(), 10);
    await page.getByLabel('Search recordings').fill('');
    await pager().getByText('Page 1 of 2 · 30 recordings').waitFor();
    await page.getByLabel('Sort by').selectOption({ label: 'Title Z–A' });
    await rows().first().filter({ hasText: 'Song 30' }).waitFor();
    await pager().getByRole('button', { name: 'Next' }).click();
    await pager().getByText('Page 2 of 2 · 30 recordings').waitFor();
    const api = await get('/asset?sort=title&order=desc&page=2&size=25');
    assert.deepEqual(api.body.data.map((r: any) => r.title), ['Song 05', 'Song 04', 'Song 03', 'Song 02', 'Song 01']);
    await rows().first().filter({ hasText: 'Song 05' }).waitFor();
    assert.deepEqual((await rows().locator('td[data-label="Title"]').allInnerTexts()), api.body.data.map((r: any) => r.title));
    await checkPage(page, 'catalogue-recordings');
    await shot(page.locator('section.card').first(), 'catalogue-recordings');
  });

  it('creates, edits and deletes a recording (after a confirmation)', async () => {
    await page.getByRole('button', { name: 'New recording' }).click();
    const dialog = page.getByRole('dialog', { name: 'New recording' });
    await dialog.getByLabel('Title (needed)').fill('Fresh Tune');
    await dialog.getByLabel('ISRC').fill('us-web-26-00999');
    await dialog.getByLabel('Type').selectOption('Audio');
    await checkPage(page, 'catalogue-new');
    assert.deepEqual(await sidewaysOverflow(page), [], 'the form at 375 px');
    await dialog.getByRole('button', { name: 'Add recording' }).click();
    await page.getByText('Fresh Tune added to the recordings.').waitFor();
    const made = (await get('/asset?isrc=USWEB2600999')).body.data;
    assert.deepEqual(made.map((r: any) => [r.title, r.isrc, r.type]), [['Fresh Tune', 'USWEB2600999', 'Audio']]);
    const id = made[0].id;

    await page.getByLabel('Search recordings').fill('Fresh');
    await page.getByRole('button', { name: 'Edit Fresh Tune' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit recording: Fresh Tune' });
    await edit.getByLabel('Title (needed)').fill('Fresh Tune (Radio Edit)');
    await edit.getByLabel('Version').fill('Radio Edit');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Fresh Tune (Radio Edit) saved.').waitFor();
    const edited = (await get(`/asset/${id}`)).body.data;
    assert.deepEqual([edited.title, edited.version, edited.isrc], ['Fresh Tune (Radio Edit)', 'Radio Edit', 'USWEB2600999']);

    await page.getByRole('button', { name: 'Delete Fresh Tune (Radio Edit)' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete recording' });
    await confirm.getByText('This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await get(`/asset/${id}`)).status, 200, 'cancelling deletes nothing');
    await page.getByRole('button', { name: 'Delete Fresh Tune (Radio Edit)' }).click();
    await confirm.getByRole('button', { name: 'Delete Fresh Tune (Radio Edit)' }).click();
    await page.getByText('Fresh Tune (Radio Edit) deleted.').waitFor();
    assert.equal((await get(`/asset/${id}`)).status, 404);
  });

  it('deletes the selected recordings at once', async () => {
    await page.getByLabel('Search recordings').fill('Song 0');
    await pager().getByText('Page 1 of 1 · 9 recordings').waitFor();
    await page.getByLabel('Select Song 01').check();
    await page.getByLabel('Select Song 02').check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    await page.getByRole('dialog', { name: 'Delete 2 recordings' }).getByRole('button', { name: 'Delete 2 recordings' }).click();
    await page.getByText('2 recordings deleted.').waitFor();
    assert.deepEqual([(await get(`/asset/${ids.song01}`)).status, (await get(`/asset/${ids.song02}`)).status, (await get(`/asset/${ids.song03}`)).status], [404, 404, 200]);
    await pager().getByText('Page 1 of 1 · 7 recordings').waitFor();
  });

  it('downloads the recordings as CSV from the server', async () => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = await fs.readFile((await dl.path())!, 'utf8');
    const api = await app.request('POST', '/asset/download/csv', { token: admin, body: {} });
    assert.equal(api.status, 200);
    assert.equal(csv, api.text);
    assert.match(csv, /Song 03/);
    assert.doesNotMatch(csv, /Song 01/);
    assert.equal(dl.suggestedFilename().endsWith('.csv'), true);
  });

  it('imports recordings from a CSV file: read, previewed, then added', async () => {
    await page.getByLabel('Search recordings').fill('');
    await page.getByText('Import from a CSV file').click();
    const file = 'title,isrc,artists\nImported One,GBWEB2600001,Nova Lune\nSong 03 (Remastered),USWEB2601003,Nova Lune\n';
    await page.getByLabel('CSV file').setInputFiles({ name: 'recordings.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await page.getByRole('button', { name: 'Read the file' }).click();
    await page.getByTestId('import-preview').getByText('2 rows read: 1 new, 1 with changes, 0 already as in the file.').waitFor();
    assert.equal((await get('/asset?isrc=GBWEB2600001')).body.data.length, 0, 'reading the file writes nothing');
    await checkPage(page, 'catalogue-import');
    await shot(page.locator('details.import'), 'catalogue-import');
    await page.getByRole('button', { name: 'Add to the catalogue' }).click();
    await page.getByText('2 imported.').waitFor();
    assert.deepEqual((await get('/asset?isrc=GBWEB2600001')).body.data.map((r: any) => r.title), ['Imported One']);
    assert.equal((await get(`/asset/${ids.song03}`)).body.data.title, 'Song 03 (Remastered)');
  });

  it('sets an artist’s default split for a payee who does not sign in, with a date and territories', async () => {
    await page.goto(`${app.url}/app/splits`);
    await page.getByRole('group', { name: 'Splits of', exact: true }).getByRole('button', { name: 'Artists' }).click();
    await page.getByRole('button', { name: 'Edit split: Nova Lune' }).click();
    await page.getByText('No default split: its recordings and products need splits of their own.').waitFor();
    await page.getByLabel('Sales it pays').selectOption({ label: 'Streams' });
    await page.getByLabel('First sale date').fill('2026-01-01');
    await page.getByLabel('Territories').fill('fr, de');
    await page.getByLabel('Find payee 1').fill('quinn');
    await page.getByLabel(/^Payee 1/).locator('option', { hasText: 'Quinn Quiet (does not sign in)' }).waitFor({ state: 'attached' });
    await page.getByLabel(/^Payee 1/).selectOption({ label: 'Quinn Quiet (does not sign in)' });
    await page.getByLabel('Share 1 (%)').fill('70');
    await page.getByRole('button', { name: 'Add a payee' }).click();
    await page.getByLabel('Find payee 2').fill(t.users.user!.email);
    await page.getByLabel(/^Payee 2/).locator('option', { hasText: t.users.user!.email }).waitFor({ state: 'attached' });
    await page.getByLabel(/^Payee 2/).selectOption({ label: t.users.user!.email });
    await page.getByLabel('Share 2 (%)').fill('30');
    await page.getByRole('button', { name: 'Save split' }).click();
    await page.getByText('Default split saved').waitFor();
    const splits = (await get(`/split/?artist=${ids.artist}`)).body.data;
    assert.equal(splits.length, 1);
    assert.deepEqual([splits[0].target, splits[0].type, splits[0].conditions.validFrom, splits[0].conditions.validTo, [...splits[0].conditions.territories].sort()], ['artist', 'stream', '2026-01-01', null, ['DE', 'FR']]);
    assert.deepEqual(splits[0].split.map((s: any) => [s.user, s.share]).sort(), [[ids.quiet, 70], [t.users.user!.tenantUserId, 30]].sort());
    await page.getByRole('table', { name: 'Splits of Nova Lune', exact: true }).locator('tbody tr', { hasText: 'Streams' }).waitFor();
    await checkPage(page, 'splits-artist');
    await shot(page.locator('section[aria-labelledby="h-split-of"]'), 'splits-artist');
  });

  it('changes a product split and shows its history', async () => {
    await page.getByRole('group', { name: 'Splits of', exact: true }).getByRole('button', { name: 'Products' }).click();
    await page.getByRole('button', { name: 'Edit split: Night Album' }).click();
    const order: string[] = (await get(`/split/${ids.productSplit}`)).body.data.split.map((x: any) => x.user);
    await page.getByRole('button', { name: /^Change the split for every sale/ }).click();
    await page.getByRole('group', { name: 'Change the split for every sale' }).waitFor();
    await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('input')].filter((i: { value: string }) => i.value === '50').length === 2);
    assert.deepEqual(await sidewaysOverflow(page), [], 'the split editor and its history at 375 px');
    await page.getByLabel('Share 1 (%)').fill('25');
    await page.getByLabel('Share 2 (%)').fill('75');
    await page.getByRole('button', { name: 'Save split' }).click();
    await page.getByText('Split saved: its royalties are re-allocated.').waitFor();
    const s = (await get(`/split/${ids.productSplit}`)).body.data;
    assert.deepEqual(Object.fromEntries(s.split.map((x: any) => [x.user, x.share])), { [order[0]!]: 25, [order[1]!]: 75 });

    const history = page.getByRole('table', { name: 'Share changes, newest first' });
    const api = (await get(`/split/history?product=${ids.product}`)).body;
    assert.equal(api.pagination.total, 4, 'two shares added, two changed');
    await history.locator('tbody tr').nth(3).waitFor();
    assert.equal(await history.locator('tbody tr').count(), 4);
    const changed = history.locator('tbody tr', { hasText: 'Quinn Quiet' }).filter({ hasText: 'changed' });
    assert.deepEqual([await changed.locator('td[data-label="Share before"]').innerText(), await changed.locator('td[data-label="Share after"]').innerText()], ['50 %', order[0] === ids.quiet ? '25 %' : '75 %']);
    await checkPage(page, 'splits-product-history');
    await shot(page.locator('section[aria-labelledby="h-split-history"]'), 'splits-history');
  });

  it('fits a 375 px phone and passes axe there', async () => {
    await checkPhone(w.browser, app, t.users.admin!, '/catalogue', 'table', 'catalogue');
    await checkPhone(w.browser, app, t.users.admin!, '/splits', 'table', 'splits');
    assert.deepEqual(w.blocked, []);
  });
});

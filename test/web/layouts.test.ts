/**
 * Teaching a layout in the browser (/app/layouts), each job played in headless Chromium and its
 * effect read back through the API: a statement of a layout Rondo does not know waits for
 * confirmation; from the Statements page its layout is proposed as a form, one field is changed
 * (the currency), the preview shows every field, the totals and the file's own total; saved, the
 * waiting file is read with it to the right totals. A built-in layout is viewed read-only and
 * derived into the workspace's own, which is then switched off and on again. A layout is proposed
 * from a sample chosen on the page and saved; a later file of that layout is read with it. A
 * Windows-1252 sample gets that encoding proposed and previewed right; the statement period
 * taken from its file name is shown, saved, and used for a later file.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { seedRates, upload, waitFile } from '../ingest/helpers';
import path from 'node:path';
import iconv from 'iconv-lite';
import { ARTIFACTS, sidewaysOverflow } from './browser';
import { browserSuite, checkPage, checkPhone } from './ops';

/** A made-up distributor's monthly report: gross, fee and payout; no currency anywhere (it is in pounds); a total row. */
/** Another distributor's report, chosen as a sample on the layouts page. */
const TIDEWATER = [
  'Period,Song,Main Artist,ISRC,Platform,Country,Plays,Amount Due',
  '2024-03,Low Orbit,Nova Lune,USRC17607839,Spotify,GB,900,3.10',
  '2024-03,Paper Suns,Nova Lune,USRC17607840,Tidal,NO,120,0.95',
  '',
].join('\n');

const HARBOUR = [
  'Sales Month,Track Name,Performer,ISRC Code,Shop,Territory,Units,Gross Revenue,Distribution Fee,Payout',
  '2024-02,Low Orbit,Nova Lune,USRC17607839,Spotify,GB,1200,5.00,0.75,4.25',
  '2024-02,Paper Suns,Nova Lune,USRC17607840,Deezer,FR,300,1.60,0.24,1.36',
  '2024-02,Glass Tide,Nova Lune,USRC17607841,Apple Music,DE,40,2.20,0.33,1.87',
  'Total,,,,,,1540,8.80,1.32,7.48',
  '',
].join('\n');

describe('web app: teaching a statement layout in headless Chromium', function () {
  this.timeout(240_000);
  const w = browserSuite('statement layout tests', async (app) => {
    const t = await createTestTenant(app, 'Web Layouts');
    await seedRates(app, t.tenantId);
    return t;
  });
  let app: TestApp;
  let t: TestTenant;
  let page: Page;
  let token: string;
  let fileId: string;
  const name = 'harbour-lights-report.csv';
  before(() => {
    ({ app, t, page } = w);
    token = t.users.admin!.token;
  });

  it('proposes the layout of a waiting file as a form; one field changed, saved, the file is read to the right totals', async () => {
    fileId = (await upload(app, token, name, HARBOUR)).body.data.id;
    assert.equal((await waitFile(app, token, fileId)).status, 'needs_confirmation');

    await page.goto(`${app.url}/app/statements`);
    await page.locator(`tr[data-file="${name}"] + tr.detail`).getByRole('link', { name: 'teach Rondo its layout' }).click();
    await page.waitForURL(/\/app\/layouts\?file=/);
    const editor = page.getByRole('region', { name: 'Your layout' });
    await editor.waitFor();
    // the draft as a form: each column's role, the net amount column, the currency and where it came from
    assert.equal(await editor.getByLabel('Role of Payout').inputValue(), 'net');
    assert.equal(await editor.getByLabel('Role of ISRC Code').inputValue(), 'isrc');
    assert.equal(await editor.getByLabel('Net amount column (what the sender owes)').inputValue(), 'Payout');
    assert.equal(await editor.getByLabel('Delimiter').inputValue(), ',');
    assert.match(await editor.getByTestId('currency-source').innerText(), /a guess: your workspace's currency/);
    assert.match(await editor.getByTestId('draft-warnings').innerText(), /currency/i);
    const money = await editor.getByRole('table', { name: 'Money columns: gross or net of fees' }).innerText();
    assert.match(money, /Gross Revenue\s+Gross: before the sender's fees/);
    // and why, in words: the sample's own arithmetic
    assert.match(money, /"Gross Revenue" − "Distribution Fee" = "Payout" on every sample row: it is before the fee/);
    // the draft's own preview: every field of the lines, in the workspace's currency
    const preview = editor.getByTestId('preview');
    await preview.getByRole('table', { name: /lines as they would be stored/ }).waitFor();
    const head = await preview.getByRole('table', { name: /lines as they would be stored/ }).locator('thead').innerText();
    for (const col of ['Title', 'Artist', 'ISRC', 'Store', 'Country', 'Quantity', 'Net amount', 'Currency', 'Sale month']) assert.match(head, new RegExp(col), `${col} shown`);

    // one field changed: the statement is in pounds
    await editor.getByLabel('Currency code').fill('GBP');
    await editor.getByRole('button', { name: 'Check on the sample' }).click();
    const totals = preview.getByRole('table', { name: 'Totals per currency' });
    await totals.getByText('British Pound (GBP)').waitFor();
    assert.match(await totals.innerText(), /British Pound \(GBP\)\s+7\.48\s+7\.48\s+0\.00/);
    assert.match(await preview.getByRole('table', { name: /lines as they would be stored/ }).innerText(), /Low Orbit\s+Nova Lune\s+USRC17607839/);
    assert.doesNotMatch(await page.locator('main').innerText(), /\b(GET|POST|PUT) \//, 'no route on the page');

    await editor.getByRole('button', { name: 'Dry run' }).click();
    assert.match(await editor.getByTestId('dry-run-result').innerText(), /This layout recognises the file best/);
    await checkPage(page, 'layouts-draft');
    // small pictures for docs/web.md
    await editor.getByRole('region', { name: "Each column's role" }).screenshot({ path: path.join(ARTIFACTS, 'layouts-columns.png') });
    await preview.screenshot({ path: path.join(ARTIFACTS, 'layouts-preview.png') });
    assert.deepEqual(await sidewaysOverflow(page), [], 'nothing sticks out at 375 px');

    await editor.getByRole('button', { name: `Save and read ${name} again` }).click();
    const result = editor.getByTestId('reread-result');
    await result.waitFor({ timeout: 120_000 });
    assert.match(await result.innerText(), /processed, 3 lines; totals 7\.48 GBP/);
    await checkPage(page, 'layouts-saved');

    const f = await waitFile(app, token, fileId, ['processed']);
    assert.deepEqual(f.totals, { GBP: '7.48' });
    assert.equal(f.counts.rowsIngested, 3);
    const own = (await app.request('GET', '/sources', { token })).body.data.filter((s: any) => s.source.scope === 'tenant');
    assert.equal(own.length, 1);
    assert.equal(own[0].source.id, f.source.id, 'the file was read with the saved layout');
    const def = (await app.request('GET', `/sources/${own[0].id}`, { token })).body.data.pattern;
    assert.deepEqual(def.columns.currency, { const: 'GBP' });
    assert.deepEqual(def.columns.net, { from: 'Payout' });
  });

  it('shows a built-in layout read-only in the same form, derives the workspace\'s own from it and switches it off', async () => {
    const builtin = (await app.request('GET', '/file/sources', { token })).body.data.find((s: any) => s.builtin);
    await page.goto(`${app.url}/app/layouts`);
    await page.getByText(/^Built-in layouts \(\d+\)$/).click();
    await page.getByRole('button', { name: `View ${builtin.name}` }).first().click();
    const view = page.getByRole('region', { name: 'Built-in layout', exact: true }); // exact: the table "Built-in layouts" is a region too
    await view.waitFor();
    assert.equal(await view.getByLabel('Short name (key)').inputValue(), builtin.key);
    assert.equal(await view.getByLabel('Name', { exact: true }).isDisabled(), true, 'read-only');
    assert.match(await view.getByRole('table', { name: 'How each line field is read' }).innerText(), /Net amount \(what is owed\)/);
    await checkPage(page, 'layouts-builtin');
    await view.getByRole('button', { name: 'Use as a starting point' }).click();
    const editor = page.getByRole('region', { name: 'Your layout' });
    await editor.waitFor();
    // the form turns editable once the derived draft is in place (it may render a moment before)
    await editor.getByLabel('Name', { exact: true }).and(page.locator(':enabled')).waitFor();
    assert.equal(await editor.getByLabel('Name', { exact: true }).isDisabled(), false);
    await editor.getByRole('button', { name: 'Save as your layout' }).click();
    await editor.getByText(/is saved as your workspace's layout/).waitFor();
    const derived = (await app.request('GET', '/sources', { token })).body.data.find((s: any) => s.source.key === builtin.key);
    assert.equal(derived.source.scope, 'tenant');
    assert.equal(derived.name, `${builtin.name} (this workspace)`);

    const sources = page.getByRole('region', { name: "Your workspace's layouts" });
    await sources.getByRole('button', { name: `Deactivate ${derived.name}` }).click();
    // exact: a role name matches as a case-insensitive substring, and "Deactivate …" holds "activate …"
    await sources.getByRole('button', { name: `Activate ${derived.name}`, exact: true }).waitFor();
    assert.equal((await app.request('GET', `/sources/${derived.id}`, { token })).body.data.active, false);
    await sources.getByRole('button', { name: `Activate ${derived.name}`, exact: true }).click();
    await sources.getByRole('button', { name: `Deactivate ${derived.name}` }).waitFor();
    assert.equal((await app.request('GET', `/sources/${derived.id}`, { token })).body.data.active, true);
  });

  it('proposes a layout from a sample statement chosen on the page; saved, a later file of that layout is read with it', async () => {
    await page.goto(`${app.url}/app/layouts`);
    await page.getByLabel('Sample statement').setInputFiles({ name: 'tidewater-march.csv', mimeType: 'text/csv', buffer: Buffer.from(TIDEWATER) });
    await page.getByRole('button', { name: 'Propose a layout', exact: true }).click();
    const editor = page.getByRole('region', { name: 'Your layout' });
    await editor.waitFor();
    assert.equal(await editor.getByLabel('Net amount column (what the sender owes)').inputValue(), 'Amount Due');
    assert.deepEqual([await editor.getByLabel('Delimiter').inputValue(), await editor.getByLabel('Header row').inputValue(), await editor.getByLabel('Dates').inputValue(), await editor.getByLabel('Role of Period').inputValue()], [',', 'row', 'month', 'saleMonth']);
    await editor.getByLabel('Currency code').fill('EUR');
    await editor.getByLabel('Name', { exact: true }).fill('Tidewater monthly');
    await editor.getByRole('button', { name: 'Check on the sample' }).click();
    await editor.getByTestId('preview').getByRole('table', { name: 'Totals per currency' }).getByText('Euro (EUR)').waitFor();
    await editor.getByRole('button', { name: 'Save as your layout' }).click();
    await editor.getByText(/^Tidewater monthly is saved as your workspace's layout/).waitFor();
    const saved = (await app.request('GET', '/sources', { token })).body.data.find((s: any) => s.name === 'Tidewater monthly');
    assert.equal(saved.source.scope, 'tenant');
    assert.equal(saved.active, true);

    const id = (await upload(app, token, 'tidewater-april.csv', TIDEWATER)).body.data.id;
    const f = await waitFile(app, token, id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.source.id, saved.source.id, 'read with the layout saved from the page');
    assert.deepEqual(f.totals, { EUR: '4.05' });
  });

  it('a sample in Windows-1252 gets that encoding proposed, its preview shows ’ and é right; the statement period taken from the file name is shown and saved', async () => {
    const sample = (month: string) => iconv.encode([
      'Month,Title,Artist,ISRC,Store,Country,Units,Net,Currency',
      `${month},Don’t Look Back,Café Noir,USRC17607850,Spotify,FR,500,2.50,EUR`,
      `${month},Night Café,Café Noir,USRC17607851,Deezer,BE,200,1.10,EUR`,
      '',
    ].join('\r\n'), 'win1252');
    assert.equal(sample('2024-01').includes(Buffer.from('’')), false, 'not UTF-8: ’ is the one byte 0x92');
    await page.goto(`${app.url}/app/layouts`);
    await page.getByLabel('Sample statement').setInputFiles({ name: 'northlight_202403.csv', mimeType: 'text/csv', buffer: sample('2024-01') });
    await page.getByRole('button', { name: 'Propose a layout', exact: true }).click();
    const editor = page.getByRole('region', { name: 'Your layout' });
    await editor.waitFor();
    // the encoding proposed from the sample, and the preview read with it
    assert.equal(await editor.getByLabel('Encoding').inputValue(), 'windows-1252');
    await editor.getByText('The sample reads as Western (Windows-1252).').waitFor();
    const preview = editor.getByTestId('preview');
    const lines = preview.getByRole('table', { name: /lines as they would be stored/ });
    await lines.waitFor();
    assert.match(await lines.innerText(), /Don’t Look Back\s+Café Noir/);
    // without a period pattern, the period is the lines' sale months
    assert.equal(await preview.getByTestId('statement-period').innerText(), 'Statement period: 2024-01-01 to 2024-01-31, the first and last sale months of the lines.');

    // another encoding chosen reads the sample otherwise; Windows-1252 chosen again reads it right
    await editor.getByLabel('Encoding').selectOption({ label: 'UTF-8' });
    await editor.getByRole('button', { name: 'Check on the sample' }).click();
    await lines.getByText('Don’t Look Back').waitFor({ state: 'detached' });
    assert.doesNotMatch(await lines.innerText(), /Café/);
    await editor.getByLabel('Encoding').selectOption({ label: 'Western (Windows-1252)' });
    // the period from the file name
    await editor.getByLabel('Statement period from the file name (optional)').fill('_(?<start>\\d{6})\\.csv$');
    await editor.getByRole('button', { name: 'Check on the sample' }).click();
    await lines.getByText('Don’t Look Back').waitFor();
    assert.equal(await preview.getByTestId('statement-period').innerText(), 'Statement period: 2024-03-01 to 2024-03-31, taken from the file name (northlight_202403.csv).');
    await editor.getByLabel('Name', { exact: true }).fill('Northlight monthly');
    await editor.getByRole('button', { name: 'Save as your layout' }).click();
    await editor.getByText(/^Northlight monthly is saved as your workspace's layout/).waitFor();

    // saved with both, read back through the API
    const saved = (await app.request('GET', '/sources', { token })).body.data.find((s: any) => s.name === 'Northlight monthly');
    const def = (await app.request('GET', `/sources/${saved.id}`, { token })).body.data.pattern;
    assert.equal(def.format.encoding, 'windows-1252');
    assert.deepEqual(def.period, { fileName: '_(?<start>\\d{6})\\.csv$' });
    // and used: a later file of that layout gets its period from its name, its titles read right
    const id = (await upload(app, token, 'northlight_202404.csv', sample('2024-02'))).body.data.id;
    const f = await waitFile(app, token, id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.source.id, saved.source.id);
    assert.deepEqual(f.salePeriod, { start: '2024-04-01', end: '2024-04-30' });
    assert.deepEqual(f.totals, { EUR: '3.6' });
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, app, t.users.admin!, '/layouts', 'h1', 'layouts');
    assert.deepEqual(w.blocked, []);
  });
});

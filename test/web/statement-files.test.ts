/**
 * The statement files in headless Chromium, each job played and its effect read back through the
 * API: a file that failed for missing exchange rates takes them in place and runs again; an
 * archive is a group of its statements; a detection is confirmed only where one is needed (with
 * the workspace's own taught layout); a file is run again; an upload is deleted after confirmation.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import type { Page } from 'playwright-core';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, seedRates, upload, waitFile, waitChildren } from '../ingest/helpers';
import { zipBuffers } from '../ingest/zip-writer';
import { browserSuite, checkPage, checkPhone } from './ops';

const ACME = [
  'Month,Song,ISRC,Store,Amount,Currency',
  '2024-01,Low Orbit,USRC17607839,Spotify,10.00,USD',
  '2024-01,Paper Suns,USRC17607840,Apple Music,3.33,USD',
  '',
].join('\n');
const ACME_PATTERN = {
  key: 'acme-layout', name: 'Acme monthly', aggregator: 'Acme', layout: 'table',
  detect: { headers: ['Month', 'Song', 'Amount', 'Store'] },
  format: { delimiter: ',', encoding: 'auto' },
  columns: { saleMonth: { from: 'Month' }, trackTitle: { from: 'Song' }, isrc: { from: 'ISRC' }, dsp: { from: 'Store' }, net: { from: 'Amount' }, currency: { from: 'Currency' } },
};

describe('web app: statement files in headless Chromium', function () {
  this.timeout(240_000);
  const w = browserSuite('statement file tests', (app) => createTestTenant(app, 'Web Files'));
  let app: TestApp;
  let t: TestTenant;
  let page: Page;
  let token: string;
  before(() => {
    ({ app, t, page } = w);
    token = t.users.admin!.token;
  });

  const row = (name: string) => page.locator(`tr[data-file="${name}"]`);
  const refresh = () => page.getByRole('button', { name: 'Refresh' }).click();

  it('shows the exchange rates a failed file lacks, in words, takes them in place and runs the file again', async () => {
    const name = 'tunecore-sales-report.csv';
    const id = (await upload(app, token, name, fixture(name))).body.data.id;
    const failed = await waitFile(app, token, id, ['processed', 'failed']);
    assert.equal(failed.status, 'failed');
    assert.ok(failed.missingRates.length > 0, JSON.stringify(failed));
    assert.ok(failed.missingRates.every((r: any) => r.currency === 'EUR' && /^\d{4}-\d{2}$/.test(r.month)), JSON.stringify(failed.missingRates));
    assert.doesNotMatch(failed.error, /\b(PUT|POST) \//, 'the error names no route');

    await page.reload();
    const form = page.getByRole('form', { name: `Exchange rates missing for ${name}` });
    await form.waitFor();
    const text = await form.innerText();
    assert.match(text, /1 Euro \(EUR\) in July 2023 =/);
    assert.doesNotMatch(await page.locator('main').innerText(), /\/currency|\/royalty|POST|PUT /, 'no route on the page');
    await checkPage(page, 'files-missing-rates');
    const inputs = form.locator('input');
    assert.equal(await inputs.count(), failed.missingRates.length);
    for (let i = 0; i < failed.missingRates.length; i++) await inputs.nth(i).fill('1.08');
    await form.getByRole('button', { name: 'Save the rates and run the file again' }).click();
    await page.getByText(`Rates saved; ${name} is running again.`).waitFor();

    const rates = (await app.request('GET', '/currency/rates?currency=EUR', { token })).body.data.rates;
    for (const m of failed.missingRates) assert.ok(rates.some((r: any) => r.month === m.month && Number(r.rate) === 1.08), `rate of EUR ${m.month} saved`);
    const done = await waitFile(app, token, id, ['processed']);
    assert.equal(done.missingRates, null);
    assert.equal(done.error, null);
    const lines = await app.svc.db.owner('royalty_lines').where({ file_id: id }).whereNotNull('base_amount').count({ n: '*' });
    assert.equal(Number(lines[0].n), done.counts.rowsIngested, 'every line converted to the base currency');
    // the page follows the re-run: the form goes, the file reads processed
    await row(name).locator('.badge', { hasText: 'processed' }).waitFor();
    assert.equal(await form.count(), 0);
  });

  it('shows an archive as a group of its statements, not as a file of its own', async () => {
    await seedRates(app, t.tenantId);
    const zip = zipBuffers([
      { name: 'believe-english.csv', data: fixture('believe-english.csv') },
      { name: 'yt.csv.gz', data: zlib.gzipSync(fixture('YouTube_NovaLuneRecords_M_20230701_20230731_asset_raw_v1-1.csv')) },
    ]);
    // uploaded in the page: its statements appear under its progress bar as they are read
    await page.setInputFiles('input[type=file]', { name: 'bundle.zip', mimeType: 'application/zip', buffer: zip });
    const progress = page.getByRole('list', { name: 'Statements in bundle.zip' });
    await progress.locator('.status[data-status=processed]').nth(1).waitFor({ timeout: 60_000 });
    assert.deepEqual((await progress.locator('.name').allInnerTexts()).sort(), ['believe-english.csv', 'yt.csv.gz']);
    const id = (await app.request('GET', '/file/?topLevel=true&size=100', { token })).body.data.find((f: any) => f.fileName === 'bundle.zip').id;
    const members = await waitChildren(app, token, id, 2);
    await refresh();
    const head = row('bundle.zip');
    await head.getByText('Archive of 2 statements').waitFor();
    assert.equal(await head.count(), 1);
    assert.equal(await head.getByText('not detected').count(), 0, 'the archive gets no detection of its own');
    for (const m of members) {
      const r = page.locator(`tr.member[data-file="${m.fileName}"]`);
      await r.waitFor();
      assert.equal(await r.locator('.badge').innerText(), m.status.replace(/_/g, ' '));
    }
    await checkPage(page, 'files-archive');
  });

  it('offers "Confirm detection" only on a held file, with the workspace\'s taught layout', async () => {
    const saved = await app.request('POST', '/sources', { token, body: { pattern: ACME_PATTERN } });
    assert.equal(saved.status, 201, saved.text);
    const name = 'acme_202401.csv';
    const id = (await upload(app, token, name, ACME, { forceManualConfirmation: 'true' })).body.data.id;
    assert.equal((await waitFile(app, token, id)).status, 'needs_confirmation');
    await refresh();
    const confirm = page.getByRole('button', { name: `Confirm detection: ${name}` });
    await confirm.waitFor();
    assert.equal(await page.getByRole('button', { name: /^Confirm detection:/ }).count(), 1, 'only the held file offers it');
    await confirm.click();
    const dialog = page.getByRole('dialog', { name: `Confirm the detection of ${name}` });
    await dialog.waitFor();
    const group = dialog.locator('optgroup[label="Your workspace\'s layouts"] option');
    await group.first().waitFor({ state: 'attached' }); // the dialog reads the layouts when it opens
    assert.deepEqual(await group.allInnerTexts(), ['Acme monthly']);
    await dialog.getByLabel('Source').selectOption({ label: 'Acme monthly' });
    await checkPage(page, 'files-confirm-taught');
    await dialog.getByRole('button', { name: 'Confirm and process' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const f = await waitFile(app, token, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.source.key, 'acme-layout');
    assert.deepEqual(f.totals, { USD: '13.33' });
  });

  it('runs a processed file again: its lines are read again in place', async () => {
    const name = 'acme_202401.csv';
    const before = (await app.request('GET', '/file/?topLevel=true&size=100', { token })).body.data.find((f: any) => f.fileName === name);
    await refresh();
    await page.getByRole('button', { name: `Run again: ${name}` }).click();
    await page.getByText(`${name} is being read again; its lines are replaced, not copied.`).waitFor();
    const f = await waitFile(app, token, before.id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.notEqual(f.processedAt, before.processedAt, 'processed again');
    assert.deepEqual(f.totals, before.totals);
    const lines = await app.svc.db.owner('royalty_lines').where({ file_id: before.id }).count({ n: '*' });
    assert.equal(Number(lines[0].n), 2, 'the same two lines, not copies');
  });

  it('deletes an upload only after confirmation', async () => {
    const name = 'DistroKid_1683000000000_NovaLune.tsv';
    const id = (await upload(app, token, name, fixture(name))).body.data.id;
    await waitFile(app, token, id, ['processed', 'failed']);
    await refresh();
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
    await dialog.waitFor();
    await checkPage(page, 'files-delete-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await app.request('GET', `/file/${id}`, { token })).status, 200, 'cancel keeps the file');
    await page.getByRole('button', { name: `Delete ${name}` }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`${name} was deleted.`).waitFor();
    assert.equal((await app.request('GET', `/file/${id}`, { token })).status, 404);
    // the list reloads after the notice: wait for the row to go (a list that never reloads fails here)
    await row(name).first().waitFor({ state: 'detached' });
    assert.equal(await row(name).count(), 0);
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, app, t.users.admin!, '/statements', 'tr[data-file="bundle.zip"]', 'files');
    assert.deepEqual(w.blocked, []);
  });
});

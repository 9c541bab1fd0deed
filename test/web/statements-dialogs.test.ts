/**
 * The statements page's dialogs in headless Chromium: confirming a detection, the rejected
 * lines of a file, reading a duplicate's original again (in place, never a second copy), and
 * using a duplicate upload instead of the earlier one (the earlier one's lines removed).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, seedRates, upload, waitFile } from '../ingest/helpers';
import { ARTIFACTS, enforceCsp, ensureWebBuilt, findChromium, launch, screenshot, seriousViolations } from './browser';

describe('web app: statement dialogs in headless Chromium', function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let token: string;
  const blocked: string[] = [];

  before(async function () {
    const chromium = findChromium();
    if (!chromium) {
      console.log('    web dialog tests skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI installs it');
      this.skip();
    }
    ensureWebBuilt();
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Web Dialogs');
    await seedRates(app, t.tenantId);
    token = t.users.admin!.token;
    browser = await launch(chromium!);
    ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await enforceCsp(ctx, blocked);
    page = await ctx.newPage();
    await page.goto(`${app.url}/app/signin`);
    await page.fill('input[type=email]', t.users.admin!.email);
    await page.fill('input[type=password]', t.users.admin!.password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/app\/statements$/);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  async function check(name: string) {
    await screenshot(page, name);
    assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
  }

  async function lineCount(fileId: string): Promise<number> {
    const [{ n }] = await app.svc.db.owner('royalty_lines').where({ file_id: fileId }).count({ n: '*' });
    return Number(n);
  }

  it('confirms a held file\'s detection in the dialog and the file is processed', async () => {
    const name = 'tunecore-sales-report.csv';
    const up = await upload(app, token, name, fixture(name), { forceManualConfirmation: 'true' });
    const id = up.body.data.id;
    assert.equal((await waitFile(app, token, id)).status, 'needs_confirmation');
    await page.reload();
    await page.getByRole('button', { name: `Confirm detection: ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Confirm the detection of ${name}` });
    await dialog.waitFor();
    await dialog.locator('option[value="tunecore"]').waitFor({ state: 'attached' }); // the dialog reads the sources when it opens
    assert.equal(await dialog.getByLabel('Source').inputValue(), 'tunecore', 'the detected source is proposed');
    await check('statements-confirm-dialog');
    await dialog.getByRole('button', { name: 'Confirm and process' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const f = await waitFile(app, token, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.locator('tr', { hasText: name }).locator('.badge', { hasText: 'processed' }).waitFor();
  });

  it('shows a file\'s rejected lines in the errors dialog', async () => {
    const name = 'ragged-row.tsv';
    const f = await waitFile(app, token, (await upload(app, token, name, fixture(name))).body.data.id, ['processed', 'failed']);
    assert.ok(f.counts.rowsFailed > 0, JSON.stringify(f.counts));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: `Rejected lines of ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Rejected lines of ${name}` });
    await dialog.waitFor();
    // the line whose earnings read "abc", among the others the file rejected
    await dialog.locator('tbody tr', { hasText: 'abc' }).waitFor();
    assert.equal(await dialog.locator('tbody tr').count(), f.counts.rowsFailed);
    await check('statements-errors-dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('offers to read a duplicate\'s original again, which replaces its lines in place', async () => {
    const name = 'believe-english.csv';
    const first = await waitFile(app, token, (await upload(app, token, name, fixture(name))).body.data.id, ['processed', 'failed']);
    assert.equal(first.status, 'processed', first.error);
    const dup = await upload(app, token, 'believe-english (copy).csv', fixture(name));
    assert.equal(dup.body.data.duplicateOf, first.id);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const again = page.getByRole('button', { name: 'Read the original again: believe-english (copy).csv' });
    await again.waitFor();
    assert.equal(await page.getByRole('button', { name: 'Confirm detection: believe-english (copy).csv' }).count(), 0, 'a duplicate is not confirmed itself');
    await again.click();
    await page.getByText('The original of believe-english (copy).csv is being read again; its lines will be replaced, not copied.').waitFor();
    await check('statements-duplicate');
    const f = await waitFile(app, token, first.id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.deepEqual(f.totals, first.totals);
    assert.deepEqual([await lineCount(first.id), await lineCount(dup.body.data.id)], [10, 0]);
    assert.deepEqual(blocked, []);
  });

  it('uses a duplicate upload instead of the earlier one, after a confirmation: the new upload is read, the earlier one emptied', async () => {
    const name = 'believe-english.csv';
    const first = (await app.request('GET', '/file/?size=100', { token })).body.data.find((f: any) => f.fileName === name && !f.duplicateOf);
    assert.ok(first, 'the upload of the previous case');
    const dup = await upload(app, token, 'believe-english (corrected).csv', fixture(name));
    assert.equal(dup.body.data.duplicateOf, first.id);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const choice = page.locator('.problem', { has: page.getByRole('button', { name: 'Use this upload instead: believe-english (corrected).csv' }) });
    await choice.screenshot({ path: path.join(ARTIFACTS, 'docs-statements-duplicate.png') }); // docs/web.md's picture
    await page.getByRole('button', { name: 'Use this upload instead: believe-english (corrected).csv' }).click();
    const dialog = page.getByRole('dialog', { name: 'Use believe-english (corrected).csv instead of the earlier upload?' });
    await dialog.getByText('the earlier upload of the same content is emptied').waitFor();
    await check('statements-duplicate-use-this');
    await dialog.getByRole('button', { name: 'Use this upload' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('believe-english (corrected).csv is being read; it replaces the earlier upload.').waitFor();
    const f = await waitFile(app, token, dup.body.data.id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.deepEqual(f.totals, first.totals);
    const earlier = (await app.request('GET', `/file/${first.id}`, { token })).body.data;
    assert.equal(earlier.duplicateOf, dup.body.data.id);
    assert.deepEqual([await lineCount(first.id), await lineCount(dup.body.data.id)], [0, 10]);
    const again = await app.request('POST', `/file/replace-original/${dup.body.data.id}`, { token, body: {} });
    assert.equal(again.status, 400, 'the file itself is no duplicate');
    assert.deepEqual(blocked, []);
  });
});

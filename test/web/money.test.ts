/**
 * The money jobs in headless Chromium, each effect read back through the API: every figure with
 * its currency, an expense in the workspace's base currency, a network failure in words; an
 * accounting period closed (what that refuses, in words) and reopened; a statement run previewed
 * with each payee's PDF, issued after confirmation, sent by e-mail as its own step, downloaded
 * as one ZIP, then the period closed for good; a payment
 * recorded; an approved payout marked paid. Axe and a 375 px check on the page.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import unzipper from 'unzipper';
import Decimal from 'decimal.js';
import type { Page } from 'playwright-core';
import { createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, waitFor, waitForReallocation } from '../allocation/helpers';
import { mailsTo } from '../helpers/mail';
import { upload, waitFile } from '../ingest/helpers';
import { ARTIFACTS } from './browser';
import { browserSuite, checkPage, checkPhone } from './ops';

const HEADER = 'Reporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSong/Album\tCountry of Sale\tSongwriter Royalties Withheld\tEarnings (USD)';
const STATEMENT = [
  HEADER,
  '2026-03-02\t2026-01\tSpotify\tNova Lune\tMidnight Drive\tUSWEB2600101\t\t100\t100\tSong\tUS\t0\t12.500000000000',
  '2026-03-02\t2026-02\tDeezer\tNova Lune\tMidnight Drive\tUSWEB2600101\t\t10\t100\tSong\tFR\t0\t7.500000000000',
].join('\n') + '\n';
const PERIOD = '2026-03';

describe('web app: money in headless Chromium', function () {
  this.timeout(240_000);
  const w = browserSuite('money tests', async (app) => {
    const t = await createTestTenant(app, 'Web Money');
    const admin = t.users.admin!.token;
    const payee = t.users.user!.tenantUserId;
    // a euro workspace whose statements pay in US dollars
    const set = await app.request('PUT', '/settings/workspace', { token: admin, body: { baseCurrency: 'EUR' } });
    assert.equal(set.status, 200, set.text);
    const rates = await app.request('PUT', '/currency/rates', { token: admin, body: { rates: [{ currency: 'USD', month: '2026-01', rate: '0.9' }, { currency: 'USD', month: '2026-02', rate: '0.9' }] } });
    assert.equal(rates.status, 200, rates.text);
    const artist = await createArtist(app, t.tenantId, 'Nova Lune', [payee]);
    await createAsset(app, t.tenantId, { title: 'Midnight Drive', isrc: 'USWEB2600101', artistId: artist, displayArtist: 'Nova Lune' });
    await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [payee]: '60', [t.users.admin!.tenantUserId]: '40' } });
    await waitForReallocation(app, t.tenantId);
    const f = await waitFile(app, admin, (await upload(app, admin, 'DistroKid_1772400000000_NovaLune.tsv', STATEMENT)).body.data.id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.accountingPeriod.slice(0, 7), PERIOD);
    return t;
  });
  let app: TestApp;
  let t: TestTenant;
  let page: Page;
  let admin: string;
  let payee: string;
  let payeeName: string;
  before(async () => {
    ({ app, t, page } = w);
    admin = t.users.admin!.token;
    payee = t.users.user!.tenantUserId;
    const me = (await app.request('GET', '/user/?size=200', { token: admin })).body.data.find((m: any) => m.id === payee);
    payeeName = [me.firstName, me.lastName].filter(Boolean).join(' ') || me.email;
    await page.getByRole('link', { name: 'Money' }).click();
    await page.getByRole('heading', { name: 'Periods and statements' }).waitFor();
  });

  it('shows the currency on every balance figure and adds an expense in the base currency', async () => {
    const row = page.locator('tr', { hasText: payeeName }).filter({ has: page.locator('td[data-label="Earnings"]') });
    await row.first().waitFor();
    const stats = (await app.request('GET', `/accounting/${payee}/stats`, { token: admin })).body.data;
    assert.equal(stats.currency, 'EUR');
    for (const col of ['Earnings', 'Recouped', 'Paid', 'Due']) {
      const text = await row.first().locator(`td[data-label="${col}"]`).innerText();
      assert.match(text, /^EUR\s[\d,.]+$/, `${col} shows its currency: ${text}`);
    }
    assert.equal(await row.first().locator('td[data-label="Earnings"]').innerText().then((s) => s.replace(/\s/g, ' ')), `EUR ${Number(stats.earnings).toFixed(2)}`);

    const form = page.getByRole('form', { name: 'Add an expense' });
    assert.equal(await form.getByLabel('Currency').inputValue(), 'EUR', 'the base currency is the default');
    await form.getByLabel('Payee').selectOption(payee);
    await form.getByLabel('Title').fill('Mastering');
    await form.getByLabel('Amount').fill('2.50');
    // the connection drops: the person reads what happened, not "Failed to fetch"
    await page.route('**/expense/', (r) => (r.request().method() === 'POST' ? r.abort('internetdisconnected') : r.continue()));
    await form.getByRole('button', { name: 'Add expense' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Rondo could not be reached. Check your connection and try again.' });
    await alert.waitFor();
    assert.equal(await page.getByText('Failed to fetch').count(), 0);
    await page.unroute('**/expense/');
    await form.getByRole('button', { name: 'Add expense' }).click();
    await page.getByText('Expense added.').waitFor();
    const list = (await app.request('GET', `/expense/?user=${payee}`, { token: admin })).body.data;
    assert.deepEqual(list.map((e: any) => [e.title, e.currency]), [['Mastering', 'EUR']]);
    assert.ok(new Decimal(list[0].amount).eq('2.50'), list[0].amount);
  });

  it('closes a period (saying what that refuses), reopens it, previews, downloads a PDF, issues the run, sends it by e-mail and downloads it as one ZIP', async () => {
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Periods and statements' }) });
    await section.getByLabel('Accounting period').selectOption(PERIOD);
    await section.getByTestId('period-state').filter({ hasText: 'March 2026' }).waitFor();
    await section.getByRole('button', { name: `Close ${PERIOD}` }).click();
    await section.getByText('March 2026 is closed.').waitFor();
    assert.equal((await app.request('GET', `/accounting/periods/${PERIOD}`, { token: admin })).body.data.closed, true);
    await section.getByText('A closed period takes no new statement run and no issue.').waitFor();
    await section.getByRole('button', { name: 'Preview statements' }).click();
    await section.getByRole('alert').filter({ hasText: `Period ${PERIOD} is closed` }).waitFor();
    assert.equal((await app.request('GET', '/statements', { token: admin })).body.data.length, 0);

    await section.getByRole('button', { name: `Reopen ${PERIOD}` }).click();
    await section.getByText('March 2026 is open again.').waitFor();
    assert.equal((await app.request('GET', `/accounting/periods/${PERIOD}`, { token: admin })).body.data.closed, false);

    await section.getByRole('button', { name: 'Preview statements' }).click();
    const draft = section.getByRole('region', { name: 'Draft statements of March 2026' });
    await draft.locator('tbody tr', { hasText: payeeName }).waitFor();
    const [pdf] = await Promise.all([page.waitForEvent('download'), draft.getByRole('button', { name: `PDF of the statement of ${payeeName}` }).click()]);
    assert.match(pdf.suggestedFilename(), /^statement-2026-03-draft\.pdf$/);
    assert.equal((await fs.readFile((await pdf.path())!)).subarray(0, 5).toString(), '%PDF-');
    const rows = await draft.locator('tbody tr').count();
    await checkPage(page, 'money-run-preview');

    await section.getByRole('button', { name: 'Issue statements' }).click();
    const dialog = page.getByRole('dialog', { name: 'Issue the statements of March 2026?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Issue statements' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await section.getByText(`${rows} statements of March 2026 issued. Send them to the payees by e-mail when you are ready.`).waitFor();
    const issued = section.getByRole('region', { name: 'Issued statements of March 2026' });
    await issued.locator('tbody tr', { hasText: payeeName }).waitFor();
    const api = (await app.request('GET', `/statements?period=${PERIOD}`, { token: admin })).body.data;
    assert.equal(api.length, rows);
    assert.ok(api.every((s: any) => Number.isInteger(s.number)), 'each statement numbered');
    const mine = api.find((s: any) => s.user === payee);
    // issuing tells nobody: sending is its own step
    const told = async () => (await app.request('GET', '/notifications?type=statement.issued', { token: t.users.user!.token })).body.data.notifications;
    assert.deepEqual(await told(), []);
    await section.getByTestId('run-sent').filter({ hasText: 'Not sent yet' }).waitFor();
    await section.getByRole('button', { name: 'Send by e-mail: the statements issued of March 2026' }).click();
    const sendDialog = page.getByRole('dialog', { name: 'Send the statements of March 2026?' });
    await sendDialog.getByText(`Each of the ${rows} payees is told by e-mail that their statement is ready`).waitFor();
    await sendDialog.getByRole('button', { name: 'Send by e-mail' }).click();
    await sendDialog.waitFor({ state: 'hidden' });
    await section.getByText(`${rows} ${rows === 1 ? 'payee was' : 'payees were'} sent their statement of March 2026.`).waitFor();
    await section.getByTestId('run-sent').filter({ hasText: /^Sent / }).waitFor();
    await section.getByRole('button', { name: 'Send by e-mail again: the statements issued of March 2026' }).waitFor();
    assert.ok(Date.parse((await app.request('GET', `/statements/runs/${mine.runId}`, { token: admin })).body.data.sentAt) > 0, 'the run records when it was sent');
    assert.deepEqual((await told()).map((n: any) => n.resourceId), [mine.id]);
    // the payee is e-mailed that their statement is ready
    const mail = await waitFor('the statement e-mail', async () => (await mailsTo(app.dataDir, t.users.user!.email)).find((m) => /statement/i.test(m.split('\n')[0])));
    assert.match(mail, new RegExp(`${mine.number}`));
    // every statement of the run in one archive, from the server
    const [zip] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download all (ZIP): the statements issued of March 2026' }).click()]);
    assert.equal(zip.suggestedFilename(), `statements-${PERIOD}.zip`);
    const entries = (await unzipper.Open.buffer(await fs.readFile((await zip.path())!))).files.map((f) => f.path).sort();
    assert.deepEqual(entries, api.flatMap((s: any) => ['csv', 'pdf'].map((x) => entries.find((e) => e.startsWith(`statement-${PERIOD}-${s.number}-`) && e.endsWith(`.${x}`)))).sort());
    assert.equal(entries.length, 2 * rows);
    await checkPage(page, 'money-run-sent');
    await section.screenshot({ path: path.join(ARTIFACTS, 'docs-money-run-sent.png') }); // docs/web.md's picture
    const [csv] = await Promise.all([page.waitForEvent('download'), issued.getByRole('button', { name: `CSV of the statement of ${payeeName}` }).click()]);
    assert.equal(csv.suggestedFilename(), `statement-${PERIOD}-${mine.number}.csv`);

    // closed now for good: reopening is refused, in words
    await section.getByRole('button', { name: `Close ${PERIOD}` }).click();
    await section.getByText('It stays closed: its statements are issued').waitFor();
    await section.getByRole('button', { name: `Reopen ${PERIOD}` }).click();
    await section.getByRole('alert').filter({ hasText: `Period ${PERIOD} has issued statements and stays closed` }).waitFor();
    assert.equal((await app.request('GET', `/accounting/periods/${PERIOD}`, { token: admin })).body.data.closed, true);
    await checkPage(page, 'money-period-closed');
  });

  it('records a payment made outside Rondo', async () => {
    const form = page.getByRole('form', { name: 'Record a payment' });
    await form.getByLabel('Payee').selectOption(payee);
    await form.getByLabel('Title').fill('Bank transfer');
    await form.getByLabel('Amount').fill('3.00');
    assert.equal(await form.getByLabel('Currency').inputValue(), 'EUR');
    await form.getByLabel('Paid on').fill('2026-04-02');
    await form.getByRole('button', { name: 'Record payment' }).click();
    await page.getByText(`to ${payeeName} recorded.`, { exact: false }).waitFor();
    const pays = (await app.request('GET', `/payment/?user=${payee}`, { token: admin })).body.data;
    assert.equal(pays.length, 1);
    assert.deepEqual([pays[0].title, pays[0].currency, pays[0].status, pays[0].transactionDate.slice(0, 10)], ['Bank transfer', 'EUR', 'completed', '2026-04-02']);
    assert.ok(new Decimal(pays[0].amount).eq('3'), pays[0].amount);
    const paid = page.locator('tr', { hasText: payeeName }).locator('td[data-label="Paid"]').first();
    await paid.filter({ hasText: '3.00' }).waitFor();
  });

  it('pages the expenses on the server, 20 a page (every list of the page does)', async () => {
    for (let i = 0; i < 24; i++) {
      const r = await app.request('POST', '/expense/', { token: admin, body: { user: payee, title: `Promo ${i + 1}`, amount: '1.00', currency: 'EUR' } });
      assert.equal(r.status, 201, r.text);
    }
    const total = (await app.request('GET', '/expense/?size=1', { token: admin })).body.pagination.total;
    assert.ok(total > 20, String(total));
    await page.reload();
    const nav = page.getByRole('navigation', { name: 'Expenses pages' });
    await nav.getByText(`Page 1 of ${Math.ceil(total / 20)} · ${total} expenses`).waitFor();
    const table = page.getByRole('region', { name: 'Expenses', exact: true });
    // The pager can show before the rows are drawn: wait for a 20th row, then check there is no 21st.
    await table.locator('tbody tr').nth(19).waitFor();
    assert.equal(await table.locator('tbody tr').count(), 20);
    const second = (await app.request('GET', '/expense/?page=2&size=20', { token: admin })).body.data;
    await nav.getByRole('button', { name: 'Next' }).click();
    await nav.getByText(`Page 2 of ${Math.ceil(total / 20)}`).waitFor();
    await table.locator('tbody tr', { hasText: second[0].title }).first().waitFor();
    assert.equal(await table.locator('tbody tr').count(), second.length);
  });

  it('approves a payment request, then marks its payout paid', async () => {
    const req = await app.request('POST', '/payment-request/', { token: t.users.user!.token, body: { amount: '1.00', memo: 'April payout' } });
    assert.equal(req.status, 201, req.text);
    await page.reload();
    await page.getByRole('button', { name: `Approve the request of ${payeeName}` }).click();
    await page.getByText('Request approved: a payment was created.').waitFor();
    await page.getByRole('button', { name: `Mark paid: the payout to ${payeeName}` }).click();
    await page.getByText(`The payout to ${payeeName} is marked paid.`).waitFor();
    const r = (await app.request('GET', `/payment-request/${req.body.data.id}`, { token: admin })).body.data;
    assert.equal(r.status, 'paid');
    const p = (await app.request('GET', `/payment/${r.paymentId}`, { token: admin })).body.data;
    assert.equal(p.status, 'completed');
    await checkPage(page, 'money');
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, app, t.users.admin!, '/money', 'section h2', 'money');
    assert.deepEqual(w.blocked, []);
  });
});

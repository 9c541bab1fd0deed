import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createSplit, waitForReallocation } from '../allocation/helpers';
import { mailsTo } from '../helpers/mail';
import { enforceCsp, ensureWebBuilt, findChromium, launch, screenshot, seriousViolations, sidewaysOverflow } from './browser';

const ISRC1 = 'USWEB2600001';
const ISRC2 = 'USWEB2600002';
const HEADER = 'Reporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSong/Album\tCountry of Sale\tSongwriter Royalties Withheld\tEarnings (USD)';
const STATEMENT = [
  HEADER,
  `2026-03-02\t2026-01\tSpotify\tNova Lune\tMidnight Drive\t${ISRC1}\t\t100\t100\tSong\tUS\t0\t12.500000000000`,
  `2026-03-02\t2026-01\tApple Music\tNova Lune\tMidnight Drive\t${ISRC1}\t\t40\t100\tSong\tGB\t0\t7.250000000000`,
  `2026-03-02\t2026-02\tDeezer\tNova Lune\tPaper Moon\t${ISRC2}\t\t10\t100\tSong\tFR\t0\t2.000000000000`,
  `2026-03-02\t2026-02\tDeezer\tNova Lune\tMidnight Drive (Remastered)\t\t\t30\t100\tSong\tFR\t0\t3.100000000000`,
].join('\n') + '\n';

describe('web app in headless Chromium', function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  let tmp: string;
  let asset1: string;
  const blockedByCsp: string[] = [];

  before(async function () {
    const chromium = findChromium();
    if (!chromium) {
      console.log('    web app tests skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI installs it');
      this.skip();
    }
    ensureWebBuilt();
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Web Label');
    const user = t.users.user!.tenantUserId;
    const adminId = t.users.admin!.tenantUserId;
    const artist = await createArtist(app, t.tenantId, 'Nova Lune', [user]);
    asset1 = await createAsset(app, t.tenantId, { title: 'Midnight Drive', isrc: ISRC1, artistId: artist, displayArtist: 'Nova Lune' });
    await createAsset(app, t.tenantId, { title: 'Paper Moon', isrc: ISRC2, artistId: artist, displayArtist: 'Nova Lune' });
    await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [user]: '60', [adminId]: '40' } });
    await waitForReallocation(app, t.tenantId);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-web-'));
    browser = await launch(chromium!);
    admin = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await enforceCsp(admin, blockedByCsp);
    page = await admin.newPage();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  async function check(p: Page, name: string) {
    await screenshot(p, name);
    assert.deepEqual(await seriousViolations(p), [], `axe on ${name}`);
  }

  it('redirects / to the app and shows the sign-in form when signed out', async () => {
    await page.goto(`${app.url}/`);
    await page.waitForURL(/\/app\/signin$/);
    await page.locator('input[type=email]').waitFor();
    assert.equal(await page.locator('input[type=email]').count(), 1);
    assert.equal(await page.locator('input[type=password]').count(), 1);
    await check(page, 'signin');
    assert.deepEqual(await sidewaysOverflow(page), [], 'signin: no sideways scrolling at 375 px');
    for (const p of ['forgot-password', 'reset-password', 'set-password?token=x', 'login-link']) {
      await page.goto(`${app.url}/app/${p}`);
      await page.locator('h1').waitFor();
      await check(page, p.replace(/\?.*/, ''));
      assert.deepEqual(await sidewaysOverflow(page), [], `${p}: no sideways scrolling at 375 px`);
    }
  });

  it('refuses a wrong password, then signs in and offers the workspace switcher and sign-out', async () => {
    await page.goto(`${app.url}/app/signin`);
    await page.fill('input[type=email]', t.users.owner!.email);
    await page.fill('input[type=password]', 'not the password');
    await page.click('button[type=submit]');
    await page.getByRole('alert').waitFor();
    await page.fill('input[type=password]', t.users.owner!.password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/app\/statements$/);
    assert.equal(await page.getByLabel('Workspace').inputValue(), t.workspaceId);
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 1);
    // keyboard: the first Tab reaches the skip link, which moves focus to the page's content
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.id), 'main');
  });

  it('starts up in one round trip: who is signed in, their workspaces and the branding are asked together', async () => {
    // each of the three is held until all three have been asked: asked one after another, the
    // second never comes while the first is held
    const START = ['/user', '/auth', '/settings/branding'];
    const held: { path: string; route: Route }[] = [];
    let allAsked!: () => void;
    const asked = new Promise<void>((r) => { allAsked = r; });
    const hold = (route: Route) => {
      held.push({ path: new URL(route.request().url()).pathname, route });
      if (held.length === START.length) allAsked();
    };
    const isStart = (u: URL) => u.origin === app.url && START.includes(u.pathname);
    await page.route(isStart, hold);
    try {
      await page.goto(`${app.url}/app/statements`); // the next test goes on from the statements page
      await Promise.race([asked, page.waitForTimeout(20_000)]);
      assert.deepEqual(held.map((h) => h.path).sort(), [...START].sort(), 'the three start-up calls are all under way at once');
    } finally {
      for (const h of held) await h.route.continue();
      await page.unroute(isStart, hold);
    }
    await page.getByRole('heading', { name: 'Statements', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Workspace').inputValue(), t.workspaceId);
  });

  it('uploads a statement and follows its progress to 100 %', async () => {
    const file = path.join(tmp, 'DistroKid_1772400000000_NovaLune.tsv');
    await fs.writeFile(file, STATEMENT);
    assert.equal(await page.locator('input[type=file]').getAttribute('multiple'), '');
    await page.setInputFiles('input[type=file]', file);
    const bar = page.locator('.uploads progress');
    await bar.waitFor();
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.uploads progress')?.value === 100, null, { timeout: 60_000 });
    await page.locator('.uploads .status[data-status=processed]').waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.uploads .status').innerText(), '100 % · processed');
    assert.equal(await bar.evaluate((el: any) => el.value), 100);
    const row = page.locator('tr', { hasText: 'DistroKid_1772400000000_NovaLune.tsv' });
    await row.getByText('processed').waitFor();
    const cells = await row.locator('td').allInnerTexts();
    assert.ok(cells.includes('4'), `line counts shown: ${cells.join(' | ')}`);
    await check(page, 'statements');
  });

  it('accepts a match suggestion for the unmatched line', async () => {
    await waitForReallocation(app, t.tenantId);
    await page.reload();
    const accept = page.getByRole('button', { name: 'Accept Midnight Drive for Midnight Drive (Remastered)' });
    await accept.waitFor();
    await accept.click();
    await page.getByText('Accepted: “Midnight Drive (Remastered)” is now Midnight Drive').waitFor();
    const accepted = await app.request('GET', '/royalty/matches/suggestions?status=accepted', { token: t.users.admin!.token });
    assert.equal(accepted.status, 200);
    assert.deepEqual(accepted.body.data.map((s: any) => [s.statement.title, s.candidate.assetId]), [['Midnight Drive (Remastered)', asset1]]);
    await waitForReallocation(app, t.tenantId);
  });

  it("shows analytics whose totals equal the API's, and downloads them as CSV", async () => {
    const api = await app.request('GET', '/royalty/', { token: t.users.owner!.token });
    assert.equal(api.status, 200);
    assert.equal(api.body.data.total.revenue, '24.85');
    await page.goto(`${app.url}/app/analytics`);
    for (const [tab, key] of [['Month', 'month'], ['Store', 'dsp'], ['Country', 'country'], ['Artist', 'artist'], ['Product', 'product'], ['Recording', 'asset']]) {
      await page.getByRole('button', { name: tab, exact: true }).click();
      const total = page.locator(`[data-testid=chart-total][data-by=${key}]`);
      await total.waitFor();
      assert.equal(await total.getAttribute('data-value'), api.body.data.total.revenue, tab);
    }
    await page.getByRole('button', { name: 'Store', exact: true }).click();
    await page.locator('tbody tr', { hasText: 'Deezer' }).waitFor();
    await check(page, 'analytics');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = await fs.readFile((await dl.path())!, 'utf8');
    // the server's export of the whole breakdown (docs/exports.md)
    assert.equal(csv.split('\r\n')[0], 'dsp,revenue,quantity,lines,currency');
    assert.match(csv, /^Spotify,12\.5,100,1,USD\r$/m);
  });

  it('refuses a split whose shares do not add up to 100', async () => {
    await page.goto(`${app.url}/app/splits`);
    await page.getByRole('button', { name: 'Edit split: Midnight Drive' }).click();
    await page.getByText('inherited from the artist').waitFor();
    // the form is filled from the inherited split just after it shows (60 / 40): edit it then
    await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('input')].some((i: { value: string }) => i.value === '40'));
    await page.getByLabel('Share 1 (%)').fill('50');
    await page.getByRole('button', { name: 'Save split' }).click();
    await page.getByText('The shares add up to 90 %, not 100 %').waitFor();
    const own = await app.request('GET', `/split/?asset=${asset1}`, { token: t.users.admin!.token });
    assert.equal(own.status, 200);
    assert.deepEqual(own.body.data.filter((s: any) => s.asset === asset1), []);
    await check(page, 'splits');
  });

  it('downloads a payee statement as PDF from the money page', async () => {
    await page.goto(`${app.url}/app/money`);
    const pdfButton = page.getByRole('button', { name: /statement of .* as PDF/ }).first();
    await pdfButton.waitFor();
    const [dl] = await Promise.all([page.waitForEvent('download'), pdfButton.click()]);
    const pdf = await fs.readFile((await dl.path())!);
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    await check(page, 'money');
  });

  it('shows the catalogue and the admin pages', async () => {
    await page.goto(`${app.url}/app/catalogue`);
    await page.getByRole('button', { name: 'Recordings', exact: true }).click();
    await page.getByLabel('Search recordings').fill('paper');
    await page.locator('tbody tr', { hasText: 'Paper Moon' }).waitFor();
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table tbody tr').length === 1);
    await check(page, 'catalogue');
    await page.goto(`${app.url}/app/admin`);
    await page.getByRole('heading', { name: 'Statement layouts' }).waitFor();
    await check(page, 'admin');
    assert.deepEqual(await sidewaysOverflow(page), [], 'admin: no sideways scrolling at 375 px');
    // from admin to the statement layouts: a workspace admin dry-runs a sample through the workspace's own route
    await page.getByRole('link', { name: 'Open statement layouts' }).click();
    await page.waitForURL(/\/app\/layouts$/);
    await page.getByLabel('Sample statement').setInputFiles(path.join(tmp, 'DistroKid_1772400000000_NovaLune.tsv'));
    const [dry] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/dry-run')), page.getByRole('button', { name: 'Which layout reads it?' }).click()]);
    assert.deepEqual([new URL(dry.url()).pathname, dry.status()], ['/sources/dry-run', 200]);
    assert.match(await page.getByTestId('dry-run-summary').innerText(), /^Read with distrokid-2023: 4 rows, 4 ingested, 0 failed/);
    await check(page, 'layouts-dry-run');
  });

  it('fits a phone-sized screen', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await phone.newPage();
    await p.goto(`${app.url}/app/signin`);
    await p.fill('input[type=email]', t.users.admin!.email);
    await p.fill('input[type=password]', t.users.admin!.password);
    await p.click('button[type=submit]');
    await p.waitForURL(/\/app\/statements$/);
    await p.locator('tr', { hasText: 'processed' }).first().waitFor();
    assert.ok(await p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth + 1), 'no sideways scrolling of the page');
    await screenshot(p, 'statements-phone');
    await phone.close();
  });

  it('signs a payee in through an e-mailed sign-in link and shows only their share', async () => {
    const payee = t.users.user!;
    const sent = await app.request('POST', '/auth/loginlink', { body: { email: payee.email } });
    assert.equal(sent.status, 200);
    const mail = (await mailsTo(app.dataDir, payee.email)).at(-1)!;
    const link = new URL(/Sign in: (\S+)/.exec(mail)![1]);
    assert.equal(link.pathname, '/app/login-link');
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    await enforceCsp(ctx, blockedByCsp);
    const p = await ctx.newPage();
    await p.goto(`${app.url}${link.pathname}${link.search}`);
    await p.waitForURL(/\/app\/me$/);
    const stats = await app.request('GET', `/accounting/${payee.tenantUserId}/stats`, { token: payee.token });
    assert.equal(stats.status, 200);
    const shown = p.locator('[data-testid=my-earnings]');
    await shown.waitFor();
    assert.equal(await shown.getAttribute('data-value'), stats.body.data.earnings);
    assert.equal(Number(stats.body.data.earnings).toFixed(2), '14.91'); // 60 % of 24.85
    const nav = await p.getByRole('navigation', { name: 'Main' }).innerText();
    assert.deepEqual(nav.split('\n').map((s) => s.trim()).filter(Boolean), ['My earnings', 'API keys']); // a payee's pages: their own view and their personal keys
    await p.goto(`${app.url}/app/money`);
    await p.waitForURL(/\/app\/me$/);
    await check(p, 'payee');
    await p.getByLabel('Amount').fill('5');
    await p.getByLabel('Memo').fill('studio time');
    await p.getByRole('button', { name: 'Request a payment' }).click();
    await p.getByText('Request sent to the label.').waitFor();
    await p.locator('tr', { hasText: 'studio time' }).getByText('pending').waitFor();
    const asked = (await app.request('GET', '/payment-request/', { token: payee.token })).body.data;
    assert.deepEqual(asked.map((r: any) => [r.memo, r.status, Number(r.amount)]), [['studio time', 'pending', 5]], 'the request reached the label');
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.waitForURL(/\/app\/signin$/);
    await ctx.close();
  });

  it('approves the payee\'s payment request from the money page, which creates the payment', async () => {
    await page.goto(`${app.url}/app/money`);
    await page.getByRole('button', { name: `Approve the request of ${t.users.user!.email}` }).click();
    await page.getByText('Request approved: a payment was created.').waitFor();
    await page.locator('tr', { hasText: 'studio time' }).getByText('approved').waitFor();
    await page.getByRole('region', { name: 'Payments', exact: true }).last().locator('tr', { hasText: 'USD 5.00' }).waitFor();
    const payments = await app.request('GET', '/payment/', { token: t.users.admin!.token });
    assert.equal(payments.status, 200);
    assert.deepEqual(payments.body.data.map((x: any) => [x.user, x.amount]), [[t.users.user!.tenantUserId, '5']]);
  });

  it("invites from the people page; the invitation and reset e-mails' links open working pages", async () => {
    await page.goto(`${app.url}/app/people`);
    await page.getByLabel('E-mail', { exact: true }).fill('new.payee@weblabel.test');
    await page.getByRole('radio', { name: /^Payee/ }).check();
    await page.getByRole('button', { name: 'Send the invitation', exact: true }).click();
    await page.getByText('Invitation sent to new.payee@weblabel.test.').waitFor();
    const linkIn = async (to: string) => new URL(/https?:\/\/\S+\/app\/\S+/.exec((await mailsTo(app.dataDir, to)).at(-1)!)![0]);
    const ctx = await browser.newContext();
    await enforceCsp(ctx, blockedByCsp);
    const p = await ctx.newPage();
    const invite = await linkIn('new.payee@weblabel.test');
    assert.equal(invite.pathname, '/app/set-password');
    await p.goto(`${app.url}${invite.pathname}${invite.search}`);
    await p.locator('input[type=password]').first().fill('a brand new password');
    await p.getByLabel('Password again').fill('a brand new password');
    await p.getByRole('button', { name: 'Set password' }).click();
    await p.waitForURL(/\/app\/me$/); // signed in, in the workspace that invited them
    await check(p, 'set-password-done');
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.waitForURL(/\/app\/signin$/);

    const guest = t.users.guest!;
    assert.equal((await app.request('POST', '/auth/forgotpassword', { body: { email: guest.email } })).status, 200);
    const reset = await linkIn(guest.email);
    assert.equal(reset.pathname, '/app/reset-password');
    await p.goto(`${app.url}${reset.pathname}${reset.search}`);
    assert.equal(await p.getByLabel('E-mail').inputValue(), guest.email);
    await p.getByLabel('New password').fill('another new password');
    await p.getByRole('button', { name: 'Change password' }).click();
    await p.getByText('Your password has been changed.').waitFor();
    const login = await app.request('POST', '/auth/login', { body: { email: guest.email, password: 'another new password' } });
    assert.equal(login.status, 200);
    await ctx.close();
  });

  it("shows the workspace's logo and primary colour in the header when its plan applies branding", async () => {
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'pro' });
    const token = t.users.admin!.token;
    assert.equal((await app.request('PUT', '/settings/branding', { token, body: { primaryColor: '#ffcc00' } })).status, 200);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    assert.equal((await app.request('PUT', '/settings/branding/logo', { token, raw: png, headers: { 'content-type': 'image/png' } })).status, 200);
    await page.goto(`${app.url}/app/statements`);
    const logo = page.getByTestId('brand-logo');
    await logo.waitFor();
    assert.equal(await logo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), 1, 'the image loaded');
    const colours = await page.locator('header.top').evaluate((h) => {
      const cs = (globalThis as any).getComputedStyle(h);
      return [cs.backgroundColor, cs.color];
    });
    assert.deepEqual(colours, ['rgb(255, 204, 0)', 'rgb(18, 26, 58)'], 'a light primary colour gets dark text');
    await check(page, 'branded-header');
  });

  it('works under a strict content security policy (nothing was blocked)', () => {
    assert.deepEqual(blockedByCsp, []);
  });
});

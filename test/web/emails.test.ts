import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import zlib from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailPartsTo, type ParsedMail } from '../helpers/mail';
import { createArtist, createAsset, createSplit, waitFor, waitForReallocation } from '../allocation/helpers';
import { allocateFile } from '../money/helpers';
import { upload, waitFile } from '../ingest/helpers';
import { withTenant } from '../../src/db';
import { notify } from '../../src/modules/notifications/service';
import { enforceCsp, ensureWebBuilt, findChromium, launch, screenshot, seriousViolations, sidewaysOverflow } from './browser';

const STATEMENT = [
  'Reporting Date\tSale Month\tStore\tArtist\tTitle\tISRC\tUPC\tQuantity\tTeam Percentage\tSong/Album\tCountry of Sale\tSongwriter Royalties Withheld\tEarnings (USD)',
  '2026-03-02\t2026-01\tSpotify\tNova Lune\tMidnight Drive\tUSML12600001\t\t100\t100\tSong\tUS\t0\t12.500000000000',
].join('\n') + '\n';

/**
 * Every kind of e-mail Rondo writes to a person, read from DATA_DIR/mail as a mail reader would:
 * plain words, the same web app link in the text and (clickable) HTML part, never an API route;
 * the link followed in Chromium completes what the e-mail is about.
 */
describe('e-mails for people: each link opens a web app page that completes its action', function () {
  this.timeout(240_000);
  let app: TestApp;
  let t: TestTenant;
  let other: TestTenant;
  let browser: Browser;
  let recording: string;
  const contexts: BrowserContext[] = [];
  const blockedByCsp: string[] = [];

  before(async function () {
    const chromium = findChromium();
    if (!chromium) {
      console.log('    e-mail link tests skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI installs it');
      this.skip();
    }
    ensureWebBuilt();
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Mail Label');
    other = await createTestTenant(app, 'Other Label');
    // the payee is paid 60 % of a recording, so their own breakdowns have figures once a statement is read
    const artist = await createArtist(app, t.tenantId, 'Nova Lune', [t.users.user!.tenantUserId]);
    await createAsset(app, t.tenantId, { title: 'Midnight Drive', isrc: 'USML12600001', artistId: artist, displayArtist: 'Nova Lune' });
    recording = await createAsset(app, t.tenantId, { title: 'Quiet Harbour', isrc: 'USML12600002', artistId: artist, displayArtist: 'Nova Lune' });
    await createSplit(app, t.tenantId, { target: 'artist', id: artist, shares: { [t.users.user!.tenantUserId]: '60', [t.users.admin!.tenantUserId]: '40' } });
    browser = await launch(chromium!);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  async function fresh(width = 1280): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
    await enforceCsp(ctx, blockedByCsp);
    contexts.push(ctx);
    const p = await ctx.newPage();
    p.on('dialog', (d) => void d.accept());
    return p;
  }
  async function check(p: Page, name: string) {
    await screenshot(p, name);
    assert.deepEqual(await seriousViolations(p), [], `axe on ${name}`);
    assert.deepEqual(await sidewaysOverflow(p), [], `${name}: no sideways scrolling at 375 px`);
  }
  async function signIn(p: Page, email: string, password: string) {
    await p.fill('input[type=email]', email);
    await p.fill('input[type=password]', password);
    await p.click('button[type=submit]');
  }

  /** The newest mail to `to` whose subject matches, once it is written. */
  const mailTo = (to: string, subject: RegExp, after = 0) =>
    waitFor(`mail to ${to}: ${subject}`, async () => (await mailPartsTo(app.dataDir, to)).slice(after).reverse().find((m) => subject.test(m.subject)));
  const mailCount = async (to: string) => (await mailPartsTo(app.dataDir, to)).length;

  /** The mail speaks to a person and links (in both parts, the HTML one clickable) to one web app page. */
  function linkOf(m: ParsedMail, page: string): string {
    for (const part of [m.text, m.html]) {
      assert.doesNotMatch(part, /\b(GET|POST|PUT|PATCH|DELETE) \//, `${m.subject}: names no API route`);
      assert.doesNotMatch(part, /Bearer/i, `${m.subject}: no token talk`);
    }
    const inText = [...m.text.matchAll(/https?:\/\/\S+/g)].map((x) => x[0]);
    assert.equal(inText.length, 1, `${m.subject}: one link in the text part: ${inText.join(' ')}`);
    const link = new URL(inText[0]!);
    assert.equal(link.pathname, page, `${m.subject}: links to ${page}`);
    const hrefs = [...m.html.matchAll(/<a href="([^"]+)"/g)].map((x) => x[1]!.replace(/&amp;/g, '&'));
    assert.deepEqual(hrefs, [inText[0]], `${m.subject}: the HTML part's link is clickable and the same`);
    return `${app.url}${link.pathname}${link.search}`;
  }

  it('an invitation: the link sets a first password, signs the person in and lands in the workspace that invited them', async () => {
    const admin = await fresh();
    await admin.goto(`${app.url}/app/people`);
    await admin.waitForURL(/\/app\/signin\?next=/);
    await signIn(admin, t.users.admin!.email, t.users.admin!.password);
    await admin.waitForURL(/\/app\/people$/);
    await admin.getByLabel('E-mail', { exact: true }).fill('ivy.new@maillabel.test');
    await admin.getByLabel('First name (optional)').fill('Ivy');
    await admin.getByRole('radio', { name: /^Payee/ }).check();
    await admin.getByRole('button', { name: 'Send the invitation', exact: true }).click();
    await admin.getByText('Invitation sent to ivy.new@maillabel.test.').waitFor();
    await admin.locator('tr', { hasText: 'ivy.new@maillabel.test' }).waitFor();
    await check(admin, 'people');

    // the admins' copy: a notification in words whose link opens the people page with the invitation
    const copy = await mailTo(t.users.admin!.email, /^ivy\.new@maillabel\.test was invited to Mail Label/);
    assert.match(copy.text, /^Invited as a payee; the invitation is valid for 7 days\.\n\nSee it in Rondo:/);
    await admin.goto(linkOf(copy, '/app/people'));
    await admin.locator('section', { has: admin.getByRole('heading', { name: 'Invitations waiting' }) }).locator('tr', { hasText: 'ivy.new@maillabel.test' }).waitFor();

    const mail = await mailTo('ivy.new@maillabel.test', /invited to Mail Label/);
    assert.match(mail.text, /^Hello Ivy,\n\nMail Label \d+ invited you to join them on Rondo/);
    assert.match(mail.text, /join them on Rondo as a payee: you see your own earnings and statements\. Open this link and choose a password to accept it; you are then signed in/);
    const p = await fresh();
    await p.goto(linkOf(mail, '/app/set-password'));
    await check(p, 'email-set-password');
    await p.locator('input[type=password]').first().fill('ivy picks a password');
    await p.getByLabel('Password again').fill('ivy picks a password');
    await p.getByRole('button', { name: 'Set password' }).click();
    await p.waitForURL(/\/app\/me$/);
    assert.equal(await p.getByLabel('Workspace').inputValue(), t.workspaceId);
    await p.getByRole('heading', { name: 'My earnings', level: 1 }).waitFor();
    const members = await app.request('GET', '/user/?search=ivy.new', { token: t.users.admin!.token });
    assert.deepEqual(members.body.data.map((m: any) => [m.email, m.role, m.status]), [['ivy.new@maillabel.test', 'user', 'active']]);
    assert.equal((await app.request('POST', '/auth/login', { body: { email: 'ivy.new@maillabel.test', password: 'ivy picks a password' } })).status, 200);
  });

  it('an invitation to someone with an account: accepting signs them in to the inviting workspace', async () => {
    const existing = other.users.owner!;
    assert.equal((await app.request('POST', '/user/', { token: t.users.admin!.token, body: { email: existing.email, role: 'admin' } })).status, 201);
    const mail = await mailTo(existing.email, /invited to Mail Label/);
    assert.match(mail.text, /You already have a Rondo account: open this link to accept/);
    const p = await fresh();
    await p.goto(linkOf(mail, '/app/accept-invitation'));
    await check(p, 'email-accept-invitation');
    await p.getByRole('button', { name: 'Accept the invitation' }).click();
    await p.waitForURL(/\/app\/statements$/);
    assert.equal(await p.getByLabel('Workspace').inputValue(), t.workspaceId);
    const m = await app.request('GET', `/user/?search=${encodeURIComponent(existing.email)}`, { token: t.users.admin!.token });
    assert.deepEqual(m.body.data.map((x: any) => [x.role, x.status]), [['admin', 'active']]);
  });

  it('people: an invitation sent again has a new link (the old one is refused in plain words); a cancelled one stops working', async () => {
    const admin = await fresh();
    await admin.goto(`${app.url}/app/signin`);
    await signIn(admin, t.users.owner!.email, t.users.owner!.password);
    await admin.waitForURL(/\/app\/statements$/);
    await admin.goto(`${app.url}/app/people`);
    for (const email of ['rex@maillabel.test', 'cal@maillabel.test']) {
      await admin.getByLabel('E-mail', { exact: true }).fill(email);
      await admin.getByRole('button', { name: 'Send the invitation', exact: true }).click();
      await admin.getByText(`Invitation sent to ${email}.`).waitFor();
    }
    const first = await mailTo('rex@maillabel.test', /invited/);
    const before = await mailCount('rex@maillabel.test');
    await admin.getByRole('button', { name: 'Send again the invitation of rex@maillabel.test' }).click();
    await admin.getByText('The invitation was sent to rex@maillabel.test again').waitFor();
    const second = await mailTo('rex@maillabel.test', /invited/, before);
    assert.notEqual(linkOf(second, '/app/set-password'), linkOf(first, '/app/set-password'));

    // the role of an invitation changes before it is accepted; the membership stays the same one
    const rexBefore = (await app.request('GET', '/user/?search=rex@', { token: t.users.admin!.token })).body.data[0];
    await admin.getByLabel('Role of rex@maillabel.test').selectOption('admin');
    await admin.getByText('rex@maillabel.test is now admin.').waitFor();

    const cal = await mailTo('cal@maillabel.test', /invited/);
    await admin.getByRole('button', { name: 'Cancel the invitation of cal@maillabel.test' }).click();
    await admin.getByText('The invitation of cal@maillabel.test was cancelled.').waitFor();
    const listed = await app.request('GET', '/user/?search=maillabel.test&size=200', { token: t.users.admin!.token });
    const byEmail = new Map(listed.body.data.map((m: any) => [m.email, m]));
    assert.equal(byEmail.has('cal@maillabel.test'), false);
    assert.deepEqual([(byEmail.get('rex@maillabel.test') as any).id, (byEmail.get('rex@maillabel.test') as any).role], [rexBefore.id, 'admin']);

    const p = await fresh();
    for (const old of [linkOf(first, '/app/set-password'), linkOf(cal, '/app/set-password')]) {
      await p.goto(old);
      await p.locator('input[type=password]').first().fill('some new password');
      await p.getByLabel('Password again').fill('some new password');
      await p.getByRole('button', { name: 'Set password' }).click();
      await p.getByText('This link has already been used or has expired. Ask for a new one.').waitFor();
    }
    await check(p, 'email-link-used');
    await p.goto(linkOf(second, '/app/set-password'));
    await p.locator('input[type=password]').first().fill('rex has a password');
    await p.getByLabel('Password again').fill('rex has a password');
    await p.getByRole('button', { name: 'Set password' }).click();
    await p.waitForURL(/\/app\/statements$/);
    const rex = (await app.request('GET', '/user/?search=rex@', { token: t.users.admin!.token })).body.data[0];
    assert.deepEqual([rex.id, rex.role, rex.status], [rexBefore.id, 'admin', 'active']);
  });

  it('a password reset: the link opens the page that sets the new password', async () => {
    const guest = t.users.guest!;
    const p = await fresh();
    await p.goto(`${app.url}/app/forgot-password`);
    await p.getByLabel('E-mail').fill(guest.email);
    await p.getByRole('button', { name: 'Send' }).click();
    await p.getByText('If the address is registered').waitFor();
    const mail = await mailTo(guest.email, /Reset your Rondo password/);
    assert.match(mail.text, /^Hello,\n\nsomeone asked to reset the password of your Rondo account/);
    await p.goto(linkOf(mail, '/app/reset-password'));
    assert.equal(await p.getByLabel('E-mail').inputValue(), guest.email);
    await p.getByLabel('New password').fill('the guest resets it');
    await p.getByRole('button', { name: 'Change password' }).click();
    await p.getByText('Your password has been changed.').waitFor();
    await check(p, 'email-reset-password');
    assert.equal((await app.request('POST', '/auth/login', { body: { email: guest.email, password: 'the guest resets it' } })).status, 200);
  });

  it('a sign-in link: following it signs the person in', async () => {
    const payee = t.users.user!;
    const p = await fresh();
    await p.goto(`${app.url}/app/login-link`);
    await p.getByLabel('E-mail').fill(payee.email);
    await p.getByRole('button', { name: 'Send the link' }).click();
    await p.getByText('a sign-in link is on its way').waitFor();
    const mail = await mailTo(payee.email, /sign-in link/);
    await p.goto(linkOf(mail, '/app/login-link'));
    await p.waitForURL(/\/app\/me$/);
    await p.getByTestId('my-earnings').waitFor();
    await check(p, 'email-login-link');
  });

  it('statement ready, and payment: the links open the payee page, which downloads the statement and shows the payment', async () => {
    const payee = t.users.user!;
    await allocateFile(app, t.tenantId, crypto.randomUUID(), [{ payee: payee.tenantUserId, amount: '12.5', period: '2026-10' }]);
    const run = await app.request('POST', '/statements/runs', { token: t.users.admin!.token, body: { period: '2026-10', payees: [payee.tenantUserId] } });
    assert.equal(run.status, 201, run.text);
    const issued = await app.request('POST', `/statements/runs/${run.body.data.id}/issue`, { token: t.users.admin!.token });
    assert.equal(issued.status, 200, issued.text);
    assert.equal((await app.request('POST', `/statements/runs/${run.body.data.id}/send`, { token: t.users.admin!.token })).status, 200);
    const st = issued.body.data.statements[0];
    const mail = await mailTo(payee.email, /statement for 2026-10/);
    const link = linkOf(mail, '/app/me');
    assert.equal(new URL(link).searchParams.get('statement'), st.id);

    // not signed in: sign in first, then the e-mail's page
    const p = await fresh();
    await p.goto(link);
    await p.waitForURL(/\/app\/signin\?next=/);
    await signIn(p, payee.email, payee.password);
    await p.waitForURL((u) => u.pathname === '/app/me' && u.searchParams.get('statement') === st.id);
    await p.getByTestId('linked-statement').waitFor();
    const [dl] = await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: `Statement ${st.number} as PDF` }).click()]);
    const pdf = await fs.readFile((await dl.path())!);
    const stored = await fetch(`${app.url}/statements/${st.id}/pdf`, { headers: { authorization: `Bearer ${payee.token}` } });
    assert.deepEqual(pdf, Buffer.from(await stored.arrayBuffer()));
    const [csvDl] = await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: `Statement ${st.number} as CSV` }).click()]);
    const csv = await fs.readFile((await csvDl.path())!);
    const storedCsv = await fetch(`${app.url}/statements/${st.id}/csv`, { headers: { authorization: `Bearer ${payee.token}` } });
    assert.equal(storedCsv.status, 200);
    assert.deepEqual(csv, Buffer.from(await storedCsv.arrayBuffer()), 'the CSV is the stored one');
    await check(p, 'email-statement-ready');

    const created = await app.request('POST', '/payment/', { token: t.users.admin!.token, body: { user: payee.tenantUserId, currency: 'USD', amount: '4.50', status: 'pending' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data?.id ?? created.body.id;
    assert.equal((await app.request('PUT', `/payment/${id}`, { token: t.users.admin!.token, body: { status: 'completed' } })).status, 200);
    const paid = await mailTo(payee.email, /Payment completed: 4\.50 USD/);
    await p.goto(linkOf(paid, '/app/me'));
    const stats = await app.request('GET', `/accounting/${payee.tenantUserId}/stats`, { token: payee.token });
    await p.waitForFunction((v) => (globalThis as any).document.querySelector('[data-testid=my-payments]')?.dataset.value === v, stats.body.data.payments);
    assert.equal(Number(stats.body.data.payments), 4.5);
  });

  it('file processed and file failed: the links open the statements page with the file', async () => {
    const admin = t.users.admin!;
    const ok = await upload(app, admin.token, 'DistroKid_1772400000000_Mail.tsv', STATEMENT);
    const bad = await upload(app, admin.token, 'broken.csv.gz', zlib.gzipSync(STATEMENT).subarray(0, 30)); // cut short: it cannot be unpacked
    assert.equal((await waitFile(app, admin.token, ok.body.data.id)).status, 'processed');
    assert.equal((await waitFile(app, admin.token, bad.body.data.id)).status, 'failed');
    const p = await fresh();
    await p.goto(`${app.url}/app/signin`);
    await signIn(p, admin.email, admin.password);
    await p.waitForURL(/\/app\/statements$/);
    for (const [subject, file, status] of [[/Statement processed: DistroKid/, ok.body.data.id, 'processed'], [/Statement failed: broken\.csv\.gz/, bad.body.data.id, 'failed']] as const) {
      const mail = await mailTo(admin.email, subject);
      const link = linkOf(mail, '/app/statements');
      assert.equal(new URL(link).searchParams.get('file'), file);
      await p.goto(link);
      const name = status === 'processed' ? 'DistroKid_1772400000000_Mail.tsv' : 'broken.csv.gz';
      await p.locator('tr', { hasText: name }).getByText(status).first().waitFor();
    }
    await check(p, 'email-file-links');
  });

  it('any other notification (a release reviewed): the link opens the notification centre with it marked', async () => {
    const payee = t.users.user!;
    const id = await withTenant(app.svc.db.app, t.tenantId, (trx) => notify(trx, {
      tenantId: t.tenantId, tenantUserId: payee.tenantUserId, type: 'release.reviewed', title: 'Release "Night Drive" approved', content: 'Looks good',
      resourceType: 'release', resourceId: crypto.randomUUID(), actionUrl: '/releases/x', metadata: { title: 'Night Drive', status: 'approved', message: 'Looks good' },
    }));
    const mail = await mailTo(payee.email, /^Release "Night Drive": approved$/);
    assert.match(mail.text, /^Your release "Night Drive" is now approved\.\n\nLooks good/);
    const link = linkOf(mail, '/app/notifications');
    assert.equal(new URL(link).searchParams.get('id'), id);
    const p = await fresh();
    await p.goto(link);
    await p.waitForURL(/\/app\/signin\?next=/);
    await signIn(p, payee.email, payee.password);
    await p.waitForURL((u) => u.pathname === '/app/notifications' && u.searchParams.get('id') === id);
    const marked = p.locator('li.note.focus');
    await marked.getByText('Release "Night Drive" approved').waitFor();
    await marked.getByRole('button', { name: 'Mark read: Release "Night Drive" approved' }).click();
    await marked.getByText('Read', { exact: true }).waitFor();
    const read = (await app.request('GET', '/notifications?pageSize=50', { token: payee.token })).body.data.notifications.find((n: any) => n.id === id);
    assert.equal(read.isRead, true);
  });

  it('the notification centre counts the unread, marks read and keeps per-channel choices', async () => {
    const payee = t.users.user!;
    const p = await fresh();
    await p.goto(`${app.url}/app/notifications`);
    await p.waitForURL(/\/app\/signin\?next=/);
    await signIn(p, payee.email, payee.password);
    await p.waitForURL(/\/app\/notifications$/);
    const unread = (await app.request('GET', '/notifications/unread/count', { token: payee.token })).body.data.count;
    assert.ok(unread >= 2, `the statement and the payment are unread (${unread})`);
    assert.equal(await p.getByTestId('unread-count').innerText(), String(unread));
    await p.getByRole('button', { name: /^Mark read: Statement issued/ }).click();
    await p.waitForFunction((n) => (globalThis as any).document.querySelector('[data-testid=unread-count]')?.textContent === String(n), unread - 1);
    assert.equal((await app.request('GET', '/notifications/unread/count', { token: payee.token })).body.data.count, unread - 1);
    await p.getByLabel('A payment to me was completed: E-mail').uncheck();
    await p.getByLabel('Text message', { exact: true }).check();
    await p.getByLabel('Mobile number for text messages').fill('+4512345678');
    await p.getByRole('button', { name: 'Save my choices' }).click();
    await p.getByText('Your choices are saved.').waitFor();
    const prefs = (await app.request('GET', '/notifications/preferences', { token: payee.token })).body.data;
    assert.equal(prefs.types['payment.completed'].email, false);
    assert.equal(prefs.channels.sms, true);
    assert.equal(prefs.smsNumber, '+4512345678');
    await check(p, 'notifications');
    await p.getByRole('button', { name: 'Mark all read' }).click();
    await p.getByText('Every notification is marked read.').waitFor();
    assert.equal((await app.request('GET', '/notifications/unread/count', { token: payee.token })).body.data.count, 0);
    await p.getByTestId('unread-count').waitFor({ state: 'detached' }); // the header's count follows
  });

  it('the payee portal shows their own earnings by month, recording, store and country, as the API answers them', async () => {
    const payee = t.users.user!;
    await waitForReallocation(app, t.tenantId);
    const p = await fresh();
    await p.goto(`${app.url}/app/me`);
    await signIn(p, payee.email, payee.password);
    await p.waitForURL(/\/app\/me$/);
    for (const [tab, key, path] of [['By month', 'month', '/royalty/month'], ['By recording', 'asset', '/royalty/asset'], ['By store', 'dsp', '/royalty/dsp'], ['By country', 'country', '/royalty/country']]) {
      const api = await app.request('GET', path!, { token: payee.token });
      assert.equal(api.status, 200);
      await p.getByRole('button', { name: tab, exact: true }).click();
      const total = p.locator(`[data-testid=earnings-total][data-by=${key}]`);
      await total.waitFor();
      assert.equal(await total.getAttribute('data-value'), api.body.data.total.revenue, tab);
      assert.equal(Number(api.body.data.total.revenue), 7.5, `${tab}: 60 % of the 12.50 line`);
      // the chart: one bar per row the API answers, each with its figure
      const bars = p.locator('section', { has: p.getByRole('heading', { name: 'My earnings', level: 2 }) }).locator('ul.bars > li');
      assert.ok(api.body.data.rows.length >= 1, tab);
      assert.equal(await bars.count(), Math.min(24, api.body.data.rows.length), `${tab}: one bar per row`);
      assert.match(await bars.first().innerText(), /\b7\.50\b/, `${tab}: the bar's figure`);
    }
    await p.getByRole('region', { name: 'My earnings by country' }).locator('tbody tr', { hasText: 'US' }).waitFor();
    // nothing on the page names the payee's own e-mail in a "Payee" column
    assert.equal(await p.getByRole('columnheader', { name: 'Payee' }).count(), 0);
    await check(p, 'payee-portal');
  });

  it('a payee who does not sign in: added with payment details, named in a split, sent their statement, invited later without losing anything', async () => {
    const admin = await fresh();
    await admin.goto(`${app.url}/app/people`);
    await signIn(admin, t.users.owner!.email, t.users.owner!.password);
    await admin.waitForURL(/\/app\/people$/);
    await admin.getByLabel('Payee first name').fill('Mo');
    await admin.getByLabel('Payee last name (optional)').fill('Listed');
    await admin.getByLabel('E-mail for statements').fill('mo@maillabel.test');
    await admin.getByLabel('How they are paid').selectOption('bank_transfer');
    await admin.getByLabel('Account holder').fill('Mo Listed');
    await admin.getByLabel('IBAN or account number').fill('DE89370400440532013000');
    await admin.getByRole('button', { name: 'Add the payee' }).click();
    await admin.getByText('Mo Listed was added.').waitFor();
    await admin.locator('tr', { hasText: 'mo@maillabel.test' }).getByText('Bank transfer').waitFor();
    await check(admin, 'people-payee-without-login');
    const mo = (await app.request('GET', '/user/?search=mo@maillabel', { token: t.users.admin!.token })).body.data[0];
    assert.deepEqual([mo.firstName, mo.lastName, mo.role, mo.status], ['Mo', 'Listed', 'user', 'not_invited']);
    assert.equal(await mailCount('mo@maillabel.test'), 0, 'nothing e-mailed: not invited');
    const settings = (await app.request('GET', '/payment-setting', { token: t.users.admin!.token })).body.data.filter((x: any) => x.user === mo.id);
    assert.deepEqual(settings.map((x: any) => [x.method, x.details.iban]), [['bank_transfer', '…3000']]);

    // named in a split from the split editor
    await admin.goto(`${app.url}/app/splits`);
    await admin.getByRole('button', { name: 'Edit split: Quiet Harbour' }).click();
    await admin.getByText('inherited from the artist').waitFor();
    await admin.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('input')].some((i: { value: string }) => i.value === '40'));
    await admin.getByRole('button', { name: 'Remove payee 2' }).click();
    await admin.getByLabel('Find payee 1').fill('Mo');
    await admin.getByLabel(/^Payee 1/).locator('option', { hasText: 'Mo Listed (does not sign in)' }).waitFor({ state: 'attached' });
    await admin.getByLabel(/^Payee 1/).selectOption({ label: 'Mo Listed (does not sign in)' });
    await admin.getByLabel('Share 1 (%)').fill('100');
    await admin.getByRole('button', { name: 'Save split' }).click();
    await admin.getByText(/^Split saved/).waitFor();
    const split = (await app.request('GET', `/split/?asset=${recording}`, { token: t.users.admin!.token })).body.data.find((x: any) => x.asset === recording);
    assert.deepEqual(split.split.map((x: any) => [x.user, Number(x.share)]), [[mo.id, 100]]);

    // their statement goes to the e-mail given
    await allocateFile(app, t.tenantId, crypto.randomUUID(), [{ payee: mo.id, amount: '3.2', period: '2026-11' }]);
    const run = await app.request('POST', '/statements/runs', { token: t.users.admin!.token, body: { period: '2026-11', payees: [mo.id] } });
    assert.equal(run.status, 201, run.text);
    assert.equal((await app.request('POST', `/statements/runs/${run.body.data.id}/issue`, { token: t.users.admin!.token })).status, 200);
    assert.equal((await app.request('POST', `/statements/runs/${run.body.data.id}/send`, { token: t.users.admin!.token })).status, 200);
    const st = await mailTo('mo@maillabel.test', /statement for 2026-11/);
    assert.match(st.text, /^Hello Mo Listed,/);

    // invited later: the same membership, its split, payment details and statement stay
    await admin.goto(`${app.url}/app/people`);
    await admin.getByRole('button', { name: 'Invite to sign in: mo@maillabel.test' }).click();
    await admin.getByText('mo@maillabel.test was invited to sign in.').waitFor();
    await admin.locator('tr', { hasText: 'mo@maillabel.test' }).getByRole('button', { name: 'Send again the invitation of mo@maillabel.test' }).waitFor();
    const invite = await mailTo('mo@maillabel.test', /invited to Mail Label/);
    const p = await fresh();
    await p.goto(linkOf(invite, '/app/set-password'));
    await p.locator('input[type=password]').first().fill('mo finally signs in');
    await p.getByLabel('Password again').fill('mo finally signs in');
    await p.getByRole('button', { name: 'Set password' }).click();
    await p.waitForURL(/\/app\/me$/);
    await p.locator('tr', { hasText: '2026-11' }).getByRole('button', { name: /as PDF$/ }).waitFor();
    const after = (await app.request('GET', '/user/?search=mo@maillabel', { token: t.users.admin!.token })).body.data[0];
    assert.deepEqual([after.id, after.status], [mo.id, 'active']);
    const still = (await app.request('GET', `/split/?asset=${recording}`, { token: t.users.admin!.token })).body.data.find((x: any) => x.asset === recording);
    assert.deepEqual(still.split.map((x: any) => x.user), [mo.id]);
    assert.equal((await app.request('GET', '/payment-setting', { token: t.users.admin!.token })).body.data.filter((x: any) => x.user === mo.id).length, 1);
  });

  it('works under a strict content security policy (nothing was blocked)', () => {
    assert.deepEqual(blockedByCsp, []);
  });
});

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { PDFParse } from 'pdf-parse';
import { waitFor } from '../allocation/helpers';
import { mailPartsTo } from '../helpers/mail';
import { withTenant } from '../../src/db';
import { emitEvent } from '../../src/modules/webhooks/events';
import { FakeTxtResolver } from '../../src/lib/dns';
import { ARTIFACTS, enforceCsp, ensureWebBuilt, findChromium, launch, screenshot, seriousViolations, sidewaysOverflow } from './browser';

interface Received { headers: http.IncomingHttpHeaders; body: string }

/** A 1×1 PNG: the logo chosen in the branding form. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** Workspace settings in the browser: branding with its preview, webhooks with the secret shown once, e-mail sender. */
describe('web app: workspace settings', function () {
  this.timeout(180_000);
  let app: TestApp;
  let t: TestTenant;
  let browser: Browser;
  let page: Page;
  let server: http.Server;
  let hookUrl: string;
  const got: Received[] = [];
  const blockedByCsp: string[] = [];
  const dns = new FakeTxtResolver();

  before(async function () {
    const chromium = findChromium();
    if (!chromium) {
      console.log('    settings page tests skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI installs it');
      this.skip();
    }
    ensureWebBuilt();
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/down') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('down');
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    app = await startTestApp({ workers: true, config: { webhooks: { timeoutMs: 5000, retryScale: 0.01, ratePerMinute: 1000, disableAfterSeconds: 86400, sweepSeconds: 0.2 } } });
    app.svc.dns = dns; // DNS answers the test publishes
    t = await createTestTenant(app, 'Settings Label');
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'pro' }); // branding and webhooks are plan features
    browser = await launch(chromium!);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await enforceCsp(ctx, blockedByCsp);
    page = await ctx.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${app.url}/app/settings`);
    await page.fill('input[type=email]', t.users.admin!.email);
    await page.fill('input[type=password]', t.users.admin!.password);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/app\/settings$/);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  async function check(name: string) {
    await screenshot(page, name);
    assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
    assert.deepEqual(await sidewaysOverflow(page), [], `${name}: no sideways scrolling at 375 px`);
  }

  it('branding: the preview follows the form before saving; saving stores it', async () => {
    await page.getByLabel('Sender name of e-mails and statements').fill('Harbour Records');
    await page.getByLabel('Main colour').fill('#aa3300');
    const mail = page.frameLocator('iframe[title="Preview of a statement e-mail"]');
    await mail.getByText('— Harbour Records').waitFor();
    assert.equal(await mail.locator('a').first().getAttribute('style'), 'color:#aa3300');
    assert.equal(await page.getByTestId('brand-preview').evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor), 'rgb(170, 51, 0)');
    // the statement PDF drawn by the server with the unsaved name, shown in the page (same-origin frame)
    const framed = await waitFor('the PDF preview with the typed sender name', async () => {
      const src = await page.getByTestId('statement-pdf-preview').getAttribute('src');
      if (!src) return null;
      const r = await fetch(`${app.url}${src}`);
      const text = (await new PDFParse({ data: Buffer.from(await r.arrayBuffer()) }).getText()).text;
      return /Harbour Records/.test(text) ? { type: r.headers.get('content-type'), text } : null;
    });
    assert.equal(framed.type, 'application/pdf');
    assert.match(framed.text, /PREVIEW - sample figures/);
    assert.equal(await page.frameLocator('iframe[title="Preview of a statement PDF"]').locator('body').count(), 1, 'the frame loaded (the strict policy allows it)');
    await page.getByLabel('Logo (PNG or JPEG)').setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('button', { name: 'Save branding' }).click();
    await page.getByText('Branding saved.').waitFor();
    const b = (await app.request('GET', '/settings/branding', { token: t.users.admin!.token })).body.data;
    assert.deepEqual([b.primaryColor, b.senderName, b.active], ['#aa3300', 'Harbour Records', true]);
    // the logo chosen on the page is the workspace's logo, served as it was sent
    assert.equal(b.logo.type, 'image/png');
    const served = await fetch(`${app.url}${b.logo.url}`);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
    await page.getByRole('img', { name: 'Current logo' }).waitFor();
  });

  it('webhooks: the secret is shown once and signs the deliveries; a delivery is retried from its row', async () => {
    await page.getByLabel('Address (https://…)').fill(hookUrl);
    await page.getByLabel('Everything').uncheck();
    await page.getByLabel('Payments').check();
    await page.getByLabel('How your server checks it is Rondo').selectOption({ label: 'A bearer token as well' });
    await page.getByLabel('Bearer token your server expects').fill('harbour-hook-token');
    await page.getByLabel('Extra headers (optional)').fill('X-Label-Key: hl-4411\nX-Env: test');
    await page.getByRole('button', { name: 'Add the webhook' }).click();
    const shown = page.getByTestId('webhook-secret');
    await shown.waitFor();
    const secret = await shown.locator('code').innerText();
    const eps = (await app.request('GET', '/webhooks', { token: t.users.admin!.token })).body.data;
    assert.deepEqual(eps.map((e: any) => [e.url, e.events, e.isEnabled]), [[hookUrl, ['payment.*'], true]]);
    assert.equal(JSON.stringify(eps).includes(secret), false, 'the API does not show the secret again');
    assert.deepEqual([eps[0].authType, eps[0].headerNames], ['bearer', ['X-Label-Key', 'X-Env']]);
    assert.doesNotMatch(JSON.stringify(eps), /harbour-hook-token|hl-4411/, 'the token and header values are not shown again');
    await page.locator('tr', { hasText: hookUrl }).getByText('a bearer token, header X-Label-Key, header X-Env').waitFor();
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await shown.count(), 0);

    await page.getByRole('button', { name: `Deliveries to ${hookUrl}` }).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('A test event is on its way.').waitFor();
    const first = await waitFor('the test event', async () => got[0]);
    const [, ts, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(first.headers['rondo-signature']))!;
    assert.equal(v1, crypto.createHmac('sha256', secret).update(`${ts}.${first.body}`).digest('hex'), 'signed with the secret shown');
    assert.equal(JSON.parse(first.body).type, 'webhook.test');
    assert.deepEqual([first.headers.authorization, first.headers['x-label-key'], first.headers['x-env']], ['Bearer harbour-hook-token', 'hl-4411', 'test'], 'sent with the authentication and headers given');
    await waitFor('the delivery recorded', async () => (await app.request('GET', `/webhooks/${eps[0].id}/deliveries`, { token: t.users.admin!.token })).body.data.find((d: any) => d.status === 'success'));
    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.locator('tr', { hasText: 'webhook.test' });
    await row.getByText('success', { exact: true }).waitFor();
    await row.getByRole('button', { name: /^Attempts of webhook\.test/ }).click();
    await page.getByRole('region', { name: 'Attempts of webhook.test' }).getByText('delivered').waitFor();
    await row.getByRole('button', { name: /^Retry webhook\.test/ }).click();
    await page.getByText('Sent again.').waitFor();
    await waitFor('the retried delivery', async () => got.length >= 2);
    assert.equal(JSON.parse(got[1]!.body).id, JSON.parse(first.body).id, 'the same event again');
    // the picture in docs/web.md (docs/img/web/settings-webhooks.png)
    await page.locator('section', { has: page.getByRole('heading', { name: 'Webhooks', exact: true }) }).screenshot({ path: path.join(ARTIFACTS, 'docs-settings-webhooks.png') });
    await check('settings-webhooks');
  });

  it("webhooks: a webhook's authentication and extra headers are changed, then removed, on the page; what is stored is never shown back", async () => {
    const id = (await app.request('GET', '/webhooks', { token: t.users.admin!.token })).body.data.find((e: any) => e.url === hookUrl).id;
    const stored = async () => (await app.request('GET', `/webhooks/${id}`, { token: t.users.admin!.token })).body.data;
    /** The next test event the receiver gets, sent from the deliveries of the webhook. */
    const testEvent = async () => {
      const before = got.length;
      await page.getByRole('button', { name: `Deliveries to ${hookUrl}` }).click();
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByText('A test event is on its way.').waitFor();
      return (await waitFor('the test event', async () => got.slice(before).find((g) => JSON.parse(g.body).type === 'webhook.test')))!.headers;
    };
    const change = async () => {
      await page.getByRole('button', { name: `Change ${hookUrl}`, exact: true }).click();
      const form = page.getByRole('form', { name: `Change the webhook to ${hookUrl}` });
      await form.waitFor();
      return form;
    };

    // 1. the bearer token is replaced by a user name and password; the headers are kept
    let form = await change();
    assert.equal(await form.getByTestId('webhook-auth-set').innerText(), 'A bearer token is set. It is not shown again: keep it, replace it or remove it.');
    assert.equal(await form.getByLabel('How your server checks it is Rondo').inputValue(), 'keep');
    assert.equal(await form.getByRole('option', { name: 'Keep the bearer token that is set' }).count(), 1);
    assert.equal(await form.getByLabel('Extra headers set').inputValue(), 'keep');
    assert.equal(await form.getByRole('option', { name: 'Keep X-Label-Key, X-Env' }).count(), 1);
    assert.equal(await form.getByLabel('Address (https://…)').inputValue(), hookUrl);
    assert.equal(await form.getByLabel('Payments').isChecked(), true);
    assert.doesNotMatch(await page.content(), /harbour-hook-token|hl-4411/, 'the stored token and header values are not in the page');
    await form.locator('fieldset').first().evaluate((el) => { (el as any).style.display = 'none'; }); // the event ticks left out of the picture
    await form.screenshot({ path: path.join(ARTIFACTS, 'docs-settings-webhook-change.png') }); // docs/web.md's picture
    await form.locator('fieldset').first().evaluate((el) => { (el as any).style.display = ''; });
    await form.getByLabel('How your server checks it is Rondo').selectOption({ label: 'A user name and password as well' });
    await form.getByLabel('User name', { exact: true }).fill('harbour');
    await form.getByLabel('Password', { exact: true }).fill('pa55 word');
    await form.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText(`The webhook to ${hookUrl} is saved.`).waitFor();
    await form.waitFor({ state: 'detached' });
    let ep = await stored();
    assert.deepEqual([ep.authType, ep.headerNames, ep.events], ['basic', ['X-Label-Key', 'X-Env'], ['payment.*']]);
    await page.locator('tr', { hasText: hookUrl }).getByText('a user name and password, header X-Label-Key, header X-Env').waitFor();
    let sent = await testEvent();
    assert.deepEqual([sent.authorization, sent['x-label-key'], sent['x-env']], [`Basic ${Buffer.from('harbour:pa55 word').toString('base64')}`, 'hl-4411', 'test'], 'the new user name and password, the headers kept');

    // 2. the user name and password are kept; the headers replaced by one
    form = await change();
    assert.equal(await form.getByTestId('webhook-auth-set').innerText(), 'A user name and password is set. It is not shown again: keep it, replace it or remove it.');
    assert.equal(await form.getByLabel('User name', { exact: true }).count(), 0, 'the stored user name is not shown');
    await form.getByLabel('Extra headers set').selectOption({ label: 'Replace them with the ones typed below' });
    await form.getByLabel('New extra headers').fill('X-Env: staging');
    await form.getByRole('button', { name: 'Save the changes' }).click();
    await form.waitFor({ state: 'detached' });
    ep = await stored();
    assert.deepEqual([ep.authType, ep.headerNames], ['basic', ['X-Env']]);
    sent = await testEvent();
    assert.deepEqual([sent.authorization, sent['x-label-key'], sent['x-env']], [`Basic ${Buffer.from('harbour:pa55 word').toString('base64')}`, undefined, 'staging'], 'the password kept, the headers replaced');

    // 3. both removed: the signature alone
    form = await change();
    await form.getByLabel('How your server checks it is Rondo').selectOption({ label: 'Only the signature (remove the one that is set)' });
    await form.getByLabel('Extra headers set').selectOption({ label: 'Remove them' });
    await form.getByRole('button', { name: 'Save the changes' }).click();
    await form.waitFor({ state: 'detached' });
    ep = await stored();
    assert.deepEqual([ep.authType, ep.headerNames], [null, []]);
    await page.locator('tr', { hasText: hookUrl }).getByRole('cell', { name: '—', exact: true }).waitFor();
    sent = await testEvent();
    assert.deepEqual([sent.authorization, sent['x-env']], [undefined, undefined], 'sent with the signature alone');
    assert.match(String(sent['rondo-signature']), /^t=\d+,v1=[0-9a-f]+$/);
    // the form now offers to add them again, with nothing to keep
    form = await change();
    assert.equal(await form.getByTestId('webhook-auth-set').count(), 0);
    assert.equal(await form.getByLabel('How your server checks it is Rondo').inputValue(), 'none');
    assert.equal(await form.getByLabel('Extra headers (optional)').inputValue(), '');
    await check('settings-webhook-change');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Add a webhook' }).waitFor();
  });

  it('a webhook turned off after a day of failures: the admins\' e-mail links to this page, where it is turned on again', async () => {
    const downUrl = hookUrl.replace(/\/hook$/, '/down');
    const made = await app.request('POST', '/webhooks', { token: t.users.admin!.token, body: { url: downUrl, events: ['release.*'] } });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id;
    await app.svc.db.owner('webhook_endpoints').where({ id }).update({ failing_since: new Date(Date.now() - 25 * 3600 * 1000) });
    await withTenant(app.svc.db.app, t.tenantId, (trx) => emitEvent(trx, t.tenantId, 'release.reviewed', { releaseId: 'r-down' }));
    const mail = await waitFor('the e-mail', async () => (await mailPartsTo(app.dataDir, t.users.admin!.email)).find((m) => m.subject === `Rondo: webhook endpoint disabled (${downUrl})`));
    assert.doesNotMatch(mail.text, /\b(GET|POST|PUT|PATCH|DELETE) \//, 'no API route');
    const links = [...mail.text.matchAll(/https?:\/\/\S+/g)].map((x) => x[0]).filter((u) => u !== downUrl);
    assert.equal(links.length, 1, links.join(' '));
    assert.equal(new URL(links[0]!).pathname, '/app/settings');
    assert.deepEqual([...mail.html.matchAll(/<a href="([^"]+)"/g)].map((x) => x[1]).filter((u) => u !== downUrl), links, 'the same link, clickable in the HTML part');
    await page.goto(`${app.url}/app/settings${new URL(links[0]!).search}`);
    const row = page.locator('tr', { hasText: downUrl });
    await row.getByText(/^paused: every delivery failed/).waitFor();
    await row.getByRole('button', { name: `Turn on ${downUrl}` }).click();
    await row.getByText('on', { exact: true }).waitFor();
    const ep = (await app.request('GET', `/webhooks/${id}`, { token: t.users.admin!.token })).body.data;
    assert.deepEqual([ep.isEnabled, ep.failingSince], [true, null]);
  });

  it('e-mail sender: the name and reply-to address are saved', async () => {
    await page.getByLabel(/^Sender name/).first().waitFor();
    await page.locator('section', { hasText: 'Who e-mails come from' }).getByLabel(/^Sender name/).fill('Harbour Royalties');
    await page.getByLabel('Replies go to (e-mail)').fill('help@harbour.example');
    await page.locator('section', { hasText: 'Who e-mails come from' }).getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: the next e-mails use it.').waitFor();
    const s = (await app.request('GET', '/settings/email', { token: t.users.admin!.token })).body.data;
    assert.deepEqual([s.fromName, s.replyTo], ['Harbour Royalties', 'help@harbour.example']);
    await check('settings');
  });

  it("e-mail sender: the workspace's own mail server is saved, its password never shown, and dropped after confirmation", async () => {
    const form = page.getByRole('form', { name: 'Your own mail server (optional)' });
    await form.getByLabel('Mail server (SMTP host)').fill('127.0.0.1');
    await form.getByLabel(/^Port/).fill('2525');
    await form.getByLabel('User name (optional)').fill('rondo');
    await form.getByLabel(/^Password/).fill('smtp secret 1');
    await form.getByRole('button', { name: 'Use this mail server' }).click();
    await page.getByText('Saved: e-mails now leave through this mail server.').waitFor();
    const s = (await app.request('GET', '/settings/email', { token: t.users.admin!.token })).body.data;
    assert.deepEqual(s.smtp, { host: '127.0.0.1', port: 2525, secure: false, username: 'rondo', passwordSet: true });
    await form.getByText('E-mails leave through 127.0.0.1:2525, with the saved password.').waitFor();
    assert.equal(await form.getByLabel(/^Password/).inputValue(), '', 'the password is not shown again');
    await check('settings-smtp');
    await form.getByRole('button', { name: 'Stop using it…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Stop using it', exact: true }).click();
    await form.getByText("E-mails leave through Rondo's mail server.", { exact: false }).waitFor();
    assert.equal((await app.request('GET', '/settings/email', { token: t.users.admin!.token })).body.data.smtp, null);
  });

  it('e-mail domains: the DNS records to publish are shown; a check finds them and the domain is verified; it can be removed', async () => {
    const DOMAIN = 'mail.harbour.example';
    const section = page.getByRole('region', { name: 'E-mail domains', exact: true });
    await section.getByLabel(/^Domain/).fill(DOMAIN);
    await section.getByRole('button', { name: 'Add the domain' }).click();
    await page.getByText('Domain added: publish its records below, then check them.').waitFor();
    const records = page.getByRole('table', { name: `DNS records to publish for ${DOMAIN}` });
    await records.locator('tbody tr').nth(2).waitFor();
    const [d] = (await app.request('GET', '/email-domains', { token: t.users.admin!.token })).body.data;
    assert.equal(d.domain, DOMAIN);
    const dkim = d.records.find((r: { purpose: string }) => r.purpose === 'dkim');
    assert.equal(await records.locator('tr', { hasText: 'DKIM' }).locator('td[data-label="Value"]').innerText(), dkim.value, 'the whole DKIM key is shown');
    await section.getByRole('button', { name: 'Check the records' }).click();
    await page.getByText(`${DOMAIN}: not every record was found yet.`, { exact: false }).waitFor();
    await section.getByText('ownership not found, signing key not found', { exact: false }).waitFor();
    for (const r of d.records as { name: string; value: string }[]) dns.set(r.name, [r.value]);
    await section.getByRole('button', { name: 'Check the records' }).click();
    await page.getByText(`${DOMAIN} is verified.`).waitFor();
    await section.getByRole('heading', { name: `${DOMAIN}: verified` }).waitFor();
    assert.equal((await app.request('GET', `/email-domains/${d.id}`, { token: t.users.admin!.token })).body.data.status, 'verified');
    // a sender address on the domain is taken; one on a domain the workspace has not added is refused in words
    const sender = page.getByRole('region', { name: 'Who e-mails come from' });
    await sender.getByLabel(/^Sender address/).fill('royalties@elsewhere.example');
    await sender.getByRole('button', { name: 'Save', exact: true }).click();
    await sender.getByText('The sender address must be on one of the e-mail domains of this workspace.', { exact: false }).waitFor();
    await sender.getByLabel(/^Sender address/).fill(`royalties@${DOMAIN}`);
    await sender.getByRole('button', { name: 'Save', exact: true }).click();
    await sender.getByText('Saved: the next e-mails use it.').waitFor();
    assert.equal((await app.request('GET', '/settings/email', { token: t.users.admin!.token })).body.data.fromEmail, `royalties@${DOMAIN}`);
    await check('settings-email-domains');
    await section.screenshot({ path: path.join(ARTIFACTS, 'docs-settings-email-domains.png') }); // docs/web.md's picture
    await section.getByRole('button', { name: 'Remove…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove', exact: true }).click();
    await records.waitFor({ state: 'detached' });
    assert.deepEqual((await app.request('GET', '/email-domains', { token: t.users.admin!.token })).body.data, []);
    assert.equal((await app.request('GET', '/settings/email', { token: t.users.admin!.token })).body.data.fromEmail, null, 'the sender address on it is cleared');
  });

  it('works under a strict content security policy (nothing was blocked)', () => {
    assert.deepEqual(blockedByCsp, []);
  });
});

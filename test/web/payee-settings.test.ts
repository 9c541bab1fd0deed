import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestTenant, type TestTenant } from '../helpers/app';
import { upsertMembership } from '../../src/modules/users/service';
import { ARTIFACTS } from './browser';
import { asPerson, browserSuite, checkPage, checkPhone } from './ops';

type Json = Record<string, any>;

/** The payee's own page: how they are paid (their payment settings), and a person in two workspaces switching between them. */
describe('web app: a payee’s payment settings, and switching workspaces', function () {
  this.timeout(180_000);
  let second: TestTenant;
  const w = browserSuite('payee settings page tests', async (app) => {
    const t = await createTestTenant(app, 'Payee Label');
    // the payee of the first workspace is an admin of a second one
    second = await createTestTenant(app, 'Second Label', ['owner']);
    const user = await app.svc.db.owner('users').whereRaw('lower(email) = lower(?)', [t.users.user!.email]).first('id');
    await upsertMembership(app.svc.db.owner, second.tenantId, user.id, 'admin');
    return t;
  });

  it('a payee adds how they are paid (shown masked afterwards), picks the one used by default, and removes one', async () => {
    const { app, t } = w;
    await asPerson(w, t.users.user!, /\/app\/me$/, async (page) => {
      const s = page.locator('section', { has: page.getByRole('heading', { name: 'How I am paid' }) });
      await s.getByText('None yet: add how you want to be paid.').waitFor();
      await s.getByRole('combobox', { name: /^Method/ }).selectOption({ label: 'Bank transfer' });
      await s.getByLabel('Account holder').fill('Ivy Payee');
      await s.getByLabel('IBAN or account number').fill('DE89370400440532013000');
      await s.getByRole('button', { name: 'Save this way to be paid' }).click();
      await s.getByRole('cell', { name: /IBAN or account number …3000/ }).waitFor();
      assert.equal(await s.getByText('DE89370400440532013000').count(), 0, 'the whole number is never shown again');

      await s.getByRole('combobox', { name: /^Method/ }).selectOption({ label: 'PayPal' });
      await s.getByLabel('PayPal e-mail').fill('ivy.payee@example.com');
      await s.getByLabel('A name for it (optional)').fill('PayPal account');
      await s.getByLabel('Use it by default').uncheck();
      await s.getByRole('button', { name: 'Save this way to be paid' }).click();
      await s.getByRole('button', { name: 'Use by default: PayPal' }).click();
      await s.getByText('PayPal is used by default now.').waitFor();
      await s.screenshot({ path: path.join(ARTIFACTS, 'docs-payee-payment-settings.png') });
      await checkPage(page, 'payee-payment-settings');

      const mine = (await app.request('GET', '/payment-setting', { token: t.users.user!.token })).body.data as Json[];
      const byMethod = Object.fromEntries(mine.map((x) => [x.method, x]));
      assert.deepEqual(Object.keys(byMethod).sort(), ['bank_transfer', 'paypal']);
      assert.equal(byMethod.paypal.isDefault, true);
      assert.equal(byMethod.bank_transfer.isDefault, false);
      assert.equal(byMethod.paypal.label, 'PayPal account');
      assert.ok(mine.every((x) => x.user === t.users.user!.tenantUserId), 'their own');
      const admin = (await app.request('GET', `/payment-setting?user=${t.users.user!.tenantUserId}`, { token: t.users.admin!.token })).body.data as Json[];
      assert.equal(admin.length, 2, 'the label sees how to pay them');

      await s.getByRole('button', { name: 'Remove Bank transfer' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
      await s.getByRole('cell', { name: /IBAN/ }).waitFor({ state: 'detached' });
      const left = (await app.request('GET', '/payment-setting', { token: t.users.user!.token })).body.data as Json[];
      assert.deepEqual(left.map((x) => x.method), ['paypal']);
    });
  });

  it('a person in two workspaces switches between them: each with its own role and pages', async () => {
    const { app, t } = w;
    await asPerson(w, t.users.user!, /\/app\/me$/, async (page) => { // workspaces are offered in the order they were made: this one first
      const switcher = page.locator('header').getByRole('combobox', { name: /^Workspace/ });
      const names = await switcher.locator('option').allInnerTexts();
      assert.equal(names.length, 2, names.join(', '));
      // into the second workspace, as its admin: the admin pages, its own members
      await switcher.selectOption(second.workspaceId);
      await page.waitForURL(/\/app\/statements$/);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).click();
      await page.getByRole('cell', { name: second.users.owner!.email }).first().waitFor();
      assert.equal(await page.getByText(t.users.admin!.email).count(), 0, "the first workspace's people are not there");
      assert.equal(await switcher.inputValue(), second.workspaceId);
      await page.locator('header').screenshot({ path: path.join(ARTIFACTS, 'docs-switch-workspaces.png') }); // docs/web.md's picture
      // the page's own access token is now the second workspace's, with the role there
      const access = async () => (await page.evaluate(() => (globalThis as any).sessionStorage.getItem('rondo.access'))) as string;
      const there = (await app.request('GET', '/user', { token: await access() })).body.data;
      assert.deepEqual([there.workspace.workspaceId, there.role], [second.workspaceId, 'admin']);
      // and back: a payee again, on their own page
      await switcher.selectOption(t.workspaceId);
      await page.waitForURL(/\/app\/me$/);
      await page.getByRole('heading', { name: 'How I am paid' }).waitFor();
      assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'People' }).count(), 0);
      const back = (await app.request('GET', '/user', { token: await access() })).body.data;
      assert.deepEqual([back.workspace.workspaceId, back.role, back.id], [t.workspaceId, 'user', t.users.user!.tenantUserId]);
      await checkPage(page, 'payee-switched-back');
    });
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, w.app, w.t.users.user!, '/me', 'text=How I am paid', 'payee-settings');
    assert.deepEqual(w.blocked, []);
  });
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestTenant } from '../helpers/app';
import { ARTIFACTS } from './browser';
import { asPerson, browserSuite, checkPage, checkPhone } from './ops';

/** API keys in the browser: an admin's workspace keys, a member's personal keys; shown once, working, revoked. */
describe('web app: API keys', function () {
  this.timeout(180_000);
  const w = browserSuite('API keys page tests', (app) => createTestTenant(app, 'Keys Label'));

  it('an admin makes a workspace key, copies it from the page, it works, and “Revoke…” stops it', async () => {
    const { app, t, page } = w;
    await page.goto(`${app.url}/app/keys`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Workspace keys' }) });
    await section.getByLabel('Name of the new workspace key').fill('Accounting export');
    await section.getByRole('button', { name: 'Make a workspace key' }).click();
    const key = (await page.getByTestId('new-workspace-key-value').innerText()).trim();
    assert.match(key, /^RWAK_/);
    const members = await app.request('GET', '/user/', { token: key });
    assert.equal(members.status, 200, 'the key shown calls the API with admin rights');
    const row = section.getByRole('row', { name: /Accounting export/ });
    await row.waitFor();
    assert.ok(!(await section.getByRole('table').innerText()).includes(key), 'the list shows only the start of the key');
    await section.screenshot({ path: path.join(ARTIFACTS, 'docs-keys.png') });
    await checkPage(page, 'keys-made');

    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByTestId('new-workspace-key').count(), 0, 'gone once copied');
    await row.getByRole('button', { name: 'Revoke Accounting export' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await section.getByText('No key yet.').waitFor();
    assert.equal((await app.request('GET', '/user/', { token: key })).status, 401, 'revoked: refused');
    const left = await app.request('GET', '/settings/api-keys', { token: t.users.admin!.token });
    assert.deepEqual(left.body.data, []);
  });

  it('a payee makes a personal key that acts as them, sees no workspace keys, and revokes it', async () => {
    const { app, t } = w;
    await asPerson(w, t.users.user!, /\/app\/me$/, async (page) => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'My personal keys' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Workspace keys' }).count(), 0, 'a payee has no workspace keys');
      await page.getByLabel('Name of the new personal key').fill('My spreadsheet');
      await page.getByRole('button', { name: 'Make a personal key' }).click();
      const key = (await page.getByTestId('new-personal-key-value').innerText()).trim();
      assert.match(key, /^RUAK_/);
      const me = await app.request('GET', '/user', { token: key });
      assert.equal(me.body.data.id, t.users.user!.tenantUserId, 'the key acts as the payee');
      await checkPage(page, 'keys-personal');
      await page.getByRole('button', { name: 'Revoke My spreadsheet' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('No key yet.').waitFor();
      assert.equal((await app.request('GET', '/user', { token: key })).status, 401);
    });
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, w.app, w.t.users.admin!, '/keys', 'text=My personal keys', 'keys');
    assert.deepEqual(w.blocked, []);
  });
});

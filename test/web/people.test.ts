import assert from 'node:assert/strict';
import { createTestTenant } from '../helpers/app';
import { browserSuite, checkPage } from './ops';

type Json = Record<string, any>;

/** People: a member's role changed and a member removed from the page, checked through the API. */
describe('web app: members’ roles and removal', function () {
  this.timeout(180_000);
  const w = browserSuite('people page tests', (app) => createTestTenant(app, 'People Label'));

  it('an admin changes a member’s role, then removes another member, who can no longer get in', async () => {
    const { app, page, t } = w;
    const admin = t.users.admin!.token;
    const member = async (id: string) => ((await app.request('GET', '/user/?size=200', { token: admin })).body.data as Json[]).find((m) => m.id === id);
    page.on('dialog', (d) => void d.accept()); // “Remove … from the workspace?”
    await page.goto(`${app.url}/app/people`);
    const guest = t.users.guest!;
    await page.getByLabel(`Role of ${guest.email}`).selectOption('user');
    await page.getByText(`${guest.email} is now`).waitFor();
    assert.equal((await member(guest.tenantUserId))?.role, 'user');

    const user = t.users.user!;
    await page.getByRole('button', { name: `Remove ${user.email}` }).click();
    await page.getByText(`${user.email} was removed from the workspace.`).waitFor();
    await page.getByRole('button', { name: `Remove ${user.email}` }).waitFor({ state: 'detached' }); // gone from the list once it is read again
    assert.equal(await member(user.tenantUserId), undefined, 'no longer a member');
    const refused = await app.request('GET', '/user', { token: user.token });
    assert.equal(refused.status, 401, 'their session no longer gets in');
    assert.equal(refused.body.error.code, 'NOT_A_MEMBER');
    await checkPage(page, 'people-members');
  });
});

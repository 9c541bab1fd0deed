import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { createTestTenant, signIn as apiSignIn, type TestTenant } from '../helpers/app';
import { ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';
import { setBilling } from '../../src/domain/features';
import { ARTIFACTS, enforceCsp, screenshot, sidewaysOverflow } from './browser';
import { browserSuite, checkPage, checkPhone, signIn } from './ops';

const ROOT = { email: 'root@operator.test', password: 'super secret pass' };

/** The operator page: super-admins find a workspace, see its plan and usage, and erase a person. */
describe('web app: operator pages (super-admins)', function () {
  this.timeout(240_000);
  const w = browserSuite('operator page tests', async (app) => {
    const t = await createTestTenant(app, 'Harbour Records');
    // a super-admin who is only a plain member of the workspace: the page follows the flag, not the role
    const g = await ensureGlobalUser(app.svc.db.owner, { email: ROOT.email, passwordHash: await app.svc.auth.hashPassword(ROOT.password), superAdmin: true });
    await upsertMembership(app.svc.db.owner, t.tenantId, g.id, 'user');
    return t;
  });
  let other: TestTenant;
  let ctx: BrowserContext;
  let page: Page;
  let rootToken: string;
  const shot = (part: Locator, name: string) => part.screenshot({ path: path.join(ARTIFACTS, `docs-${name}.png`) });

  before(async () => {
    other = await createTestTenant(w.app, 'Lighthouse Sounds', ['owner', 'user']);
    // money paid to the person: the erasure keeps it (anonymised) and says why
    await w.app.svc.db.owner('ledger_entries').insert({ tenant_id: other.tenantId, tenant_user_id: other.users.user!.tenantUserId, kind: 'royalty', amount: '7.25', currency: 'USD', accounting_period: '2026-10-01', source_type: 'file', source_id: crypto.randomUUID() });
    rootToken = (await apiSignIn(w.app, ROOT.email, ROOT.password, w.t.workspaceId)).token;
    ctx = await w.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await enforceCsp(ctx, w.blocked);
    page = await ctx.newPage();
    await signIn(page, w.app, ROOT, /\/app\/me$/);
  });
  after(() => ctx?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await screenshot(page, `operator-failed-${this.currentTest.title.slice(0, 20).replace(/\W+/g, '-')}`);
  });

  it('a normal admin has no Operator link, the page sends them home, and the API refuses them', async () => {
    const admin = w.page;
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Statements' }).waitFor();
    assert.equal(await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operator' }).count(), 0);
    await admin.goto(`${w.app.url}/app/operator`);
    await admin.waitForURL(/\/app\/statements$/);
    assert.equal(await admin.getByRole('heading', { name: 'Operator' }).count(), 0);
    const r = await w.app.request('GET', '/godmin/tenants', { token: w.t.users.admin!.token });
    assert.equal(r.status, 403);
    assert.equal(r.body.error.code, 'SUPER_ADMIN_REQUIRED');
  });

  it('finds a workspace and shows its plan and usage; with billing off it says the plan changes nothing', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operator' }).click();
    await page.waitForURL(/\/app\/operator$/);
    await page.getByRole('navigation', { name: 'Workspaces pages' }).getByText('Page 1 of 1 · 2 workspaces').waitFor();
    await page.getByLabel('Search workspaces (name, custom domain or number)').fill('Lighthouse');
    await page.getByRole('navigation', { name: 'Workspaces pages' }).getByText('Page 1 of 1 · 1 workspace').waitFor();
    const row = page.getByRole('table', { name: 'Workspaces' }).locator('tbody tr');
    assert.equal(await row.count(), 1);
    assert.equal(await row.locator('td[data-label="Members"]').innerText(), '2');
    await checkPage(page, 'operator-workspaces');
    await page.getByRole('button', { name: 'Open Lighthouse Sounds' }).click();
    // the test install applies plans (billing on)
    await page.getByTestId('billing-state').getByText('Plans and limits apply on this installation', { exact: false }).waitFor();
    const usage = page.getByRole('table', { name: "Usage against the plan's limits" });
    assert.equal(await usage.locator('tr', { hasText: 'Members' }).locator('td[data-label="Used"]').innerText(), '2');
    assert.equal(await usage.locator('tr', { hasText: 'Members' }).locator('td[data-label="Limit"]').innerText(), '25');

    setBilling(false); // a self-hosted install: the same workspace, opened again
    try {
      assert.equal((await w.app.request('GET', `/godmin/tenants/${other.tenantId}/subscription`, { token: rootToken })).body.data.billing, false);
      await page.getByRole('button', { name: '← All workspaces' }).click();
      await page.getByRole('button', { name: 'Open Lighthouse Sounds' }).click();
      await page.getByTestId('billing-state').getByText('Plans and limits are turned off on this installation', { exact: false }).waitFor();
      assert.match(await page.getByTestId('billing-state').innerText(), /change nothing until billing is turned on/);
    } finally {
      setBilling(true);
    }
    await page.getByRole('button', { name: '← All workspaces' }).click();
    await page.getByRole('button', { name: 'Open Lighthouse Sounds' }).click();
    await page.getByTestId('billing-state').getByText('Plans and limits apply on this installation', { exact: false }).waitFor();
  });

  it('changes the plan and suspends then reactivates the workspace', async () => {
    await page.getByRole('combobox', { name: /^Plan/ }).selectOption('pro');
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.getByText('Saved: plan pro', { exact: false }).waitFor();
    assert.equal((await w.app.request('GET', `/godmin/tenants/${other.tenantId}/subscription`, { token: rootToken })).body.data.plan, 'pro');

    await page.getByLabel('Reason (kept in the audit log)').fill('unpaid invoice');
    await page.getByRole('button', { name: 'Suspend…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Suspend', exact: true }).click();
    await page.getByText('The workspace is suspended', { exact: false }).waitFor();
    const suspended = await w.app.request('GET', '/user', { token: other.users.owner!.token });
    assert.equal(suspended.status, 403);
    assert.equal(suspended.body.error.code, 'WORKSPACE_INACTIVE');
    await page.getByRole('button', { name: 'Reactivate' }).click();
    await page.getByText('The workspace is open again.').waitFor();
    assert.equal((await w.app.request('GET', '/user', { token: other.users.owner!.token })).status, 200);
    const audit = (await w.app.request('GET', `/godmin/audit?tenantId=${other.tenantId}&action=tenant.suspend`, { token: rootToken })).body.data.items;
    assert.equal(audit.length, 1);
    assert.equal(audit[0].details.reason, 'unpaid invoice');
  });

  it('previews the erasure of a member (what goes, what stays and why), executes it after confirmation and follows the job', async () => {
    const person = other.users.user!;
    const userId = (await w.app.request('GET', `/godmin/users?q=${encodeURIComponent(person.email)}`, { token: rootToken })).body.data.items[0].id as string;
    const members = page.getByRole('table', { name: 'Members' });
    await members.locator('td[data-label="E-mail"]', { hasText: person.email }).waitFor();
    await page.getByRole('button', { name: `Erase ${person.email}…` }).click();
    const plan = page.getByTestId('erasure-plan');
    const erased = plan.getByRole('table', { name: 'What is erased' });
    await erased.locator('tr', { hasText: 'tenant users' }).waitFor();
    assert.equal(await erased.locator('tr', { hasText: 'sessions' }).locator('td[data-label="What happens"]').innerText(), 'deleted');
    const kept = plan.getByRole('table', { name: 'What is kept, and why' }).locator('tr', { hasText: 'ledger entries' });
    assert.equal(await kept.locator('td[data-label="Rows"]').innerText(), '1');
    assert.notEqual((await kept.locator('td[data-label="Why"]').innerText()).trim(), '');
    // the preview wrote nothing: the person still signs in
    assert.equal((await w.app.request('GET', '/user', { token: person.token })).status, 200);
    await checkPage(page, 'operator-erasure-preview');
    await shot(page.locator('section', { has: plan }), 'operator-erasure');

    await page.getByRole('button', { name: 'Erase this person…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Erase for good' }).click();
    await page.getByTestId('erasure-status').getByText('Erased.').waitFor({ timeout: 60_000 });
    assert.equal(await page.getByRole('table', { name: 'Rows erased' }).locator('tr', { hasText: 'sessions' }).locator('td[data-label="Rows"]').innerText(), '1');
    const ledger = await w.app.svc.db.owner('ledger_entries').where({ tenant_user_id: other.users.user!.tenantUserId }).select('amount');
    assert.equal(ledger.length, 1);
    assert.match(String(ledger[0].amount), /^7\.250*$/);
    await checkPage(page, 'operator-erasure-done');

    await assert.rejects(w.app.svc.auth.login(person.email, person.password, {}), /Invalid email or password/);
    const found = (await w.app.request('GET', `/godmin/users?q=${encodeURIComponent(person.email)}`, { token: rootToken })).body.data;
    assert.equal(found.total, 0);
    const audit = (await w.app.request('GET', '/godmin/audit?action=account.erase', { token: rootToken })).body.data.items;
    assert.equal(audit.length, 1);
    assert.equal(audit[0].targetId, userId);
    const left = (await w.app.request('GET', `/godmin/users?tenantId=${other.tenantId}`, { token: rootToken })).body.data.items;
    // the member stays in the workspace's records, anonymised: no e-mail, no name
    assert.deepEqual(left.map((u: { email: string }) => u.email.replace(/^erased-[0-9a-f]{10}@erased\.invalid$/, 'erased')).sort(), ['erased', other.users.owner!.email].sort());
    const anon = left.find((u: { email: string }) => u.email !== other.users.owner!.email);
    assert.match(anon.firstName, /^Erased user [0-9a-f]{10}$/);
    assert.equal(anon.lastName, null);

    await page.getByRole('button', { name: 'Close' }).click();
    await members.locator('tbody tr').first().waitFor();
    assert.equal(await members.locator('td[data-label="E-mail"]', { hasText: person.email }).count(), 0);
    assert.deepEqual(await sidewaysOverflow(page), [], 'the workspace page at 375 px');
  });

  it('the page fits a 375 px phone and passes axe there', async () => {
    await checkPhone(w.browser, w.app, ROOT, '/operator', 'table[aria-label], [role=region][aria-label="Workspaces"]', 'operator');
  });
});

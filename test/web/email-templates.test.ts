import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestTenant } from '../helpers/app';
import { mailPartsTo } from '../helpers/mail';
import { waitFor } from '../allocation/helpers';
import { ARTIFACTS, screenshotWithFrames } from './browser';
import { browserSuite, checkPage, checkPhone } from './ops';

/** The workspace's e-mails edited in the browser: preview from sample data as you type, save, the next mail uses it, back to built-in. */
describe('web app: e-mail templates', function () {
  this.timeout(180_000);
  const w = browserSuite('e-mail template page tests', (app) => createTestTenant(app, 'Template Label'));
  const templates = () => w.page.locator('section', { has: w.page.getByRole('heading', { name: 'E-mails', exact: true }) });

  it('the preview is rendered by the server from sample data as the admin types, before saving', async () => {
    const { app, page } = w;
    await page.goto(`${app.url}/app/settings`);
    const s = templates();
    await s.getByLabel('E-mail to change').selectOption({ label: 'Statement ready' });
    await s.getByTestId('template-statement_issued').waitFor();
    await s.getByTestId('template-preview-subject').getByText('Your statement for 2026-Q3 from Template Label', { exact: false }).waitFor();
    await s.getByLabel('Subject').fill('{{statement.period}}: statement no. {{statement.number}} is ready');
    await s.getByTestId('template-preview-subject').getByText('2026-Q3: statement no. 42 is ready', { exact: true }).waitFor();
    await s.getByLabel(/^Text/).fill('Dear {{recipient.name}}, your balance is {{statement.closingBalance}} {{statement.currency}}: {{statement.link}}');
    const frame = page.frameLocator('iframe[title="Preview of the “Statement ready” e-mail"]');
    await frame.getByText('your balance is 1234.56 EUR', { exact: false }).waitFor();
    assert.equal(await frame.locator('a').first().getAttribute('href'), 'https://rondo.example/app/me?statement=sample', 'the link is clickable in the HTML part');
    // a placeholder the e-mail does not have: said in the preview, nothing saved
    await s.getByLabel('Subject').fill('{{statement.secret}} ready');
    await s.getByRole('alert').getByText(/statement\.secret/).waitFor();
    const stored = await app.request('GET', '/settings/email-templates/statement_issued', { token: w.t.users.admin!.token });
    assert.equal(stored.body.data.customised, false, 'typing saves nothing');
    await checkPage(page, 'email-templates-preview-error');
  });

  it('“Save this e-mail”: the next invitation e-mail says what the admin wrote; “Back to the built-in e-mail” restores it', async () => {
    const { app, page, t } = w;
    const admin = t.users.admin!.token;
    await page.goto(`${app.url}/app/settings`);
    const s = templates();
    await s.getByLabel('E-mail to change').selectOption({ label: 'Invitation' });
    await s.getByLabel('Subject').fill('Join {{workspace.name}}, {{recipient.name}}');
    await s.getByLabel(/^Text/).fill('Hello {{recipient.name}}, {{invitation.instructions}}: {{invitation.link}}');
    await s.getByTestId('template-preview-subject').getByText(/^Join Template Label \d+, /).waitFor();
    await s.getByRole('button', { name: 'Save this e-mail' }).click();
    await s.getByText('Saved: the next “Invitation” e-mails use it.').waitFor();
    await s.getByLabel('E-mail to change').locator('option', { hasText: 'Invitation (changed)' }).waitFor({ state: 'attached' });
    await page.frameLocator('iframe[title="Preview of the “Invitation” e-mail"]').getByText(/^Hello Luna Vale, Open this link/).waitFor();
    // the picture in docs/web.md (docs/img/web/email-templates.png), the preview's frame shown
    await screenshotWithFrames(s, s.locator('iframe[srcdoc]'), path.join(ARTIFACTS, 'docs-email-templates.png'));
    await checkPage(page, 'email-templates');

    const saved = (await app.request('GET', '/settings/email-templates/invitation', { token: admin })).body.data;
    assert.deepEqual([saved.customised, saved.subject], [true, 'Join {{workspace.name}}, {{recipient.name}}']);
    const invited = await app.request('POST', '/auth/invite', { token: admin, body: { email: 'tess@templatelabel.test', firstName: 'Tess' } });
    assert.equal(invited.status, 201, invited.text);
    const mail = await waitFor('the invitation', async () => (await mailPartsTo(app.dataDir, 'tess@templatelabel.test'))[0]);
    assert.match(mail.subject, /^Join Template Label \d+, Tess$/);
    assert.match(mail.text, /^Hello Tess, Open this link and choose a password to accept it; you are then signed in: http/);

    await s.getByRole('button', { name: 'Back to the built-in e-mail…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Use the built-in e-mail' }).click();
    await s.getByText('The built-in e-mail is in use.').waitFor();
    await s.getByText('“Invitation” e-mails use the built-in text again.').waitFor();
    assert.equal(await s.getByLabel('Subject').inputValue(), 'You are invited to {{workspace.name}} on Rondo');
    const back = (await app.request('GET', '/settings/email-templates/invitation', { token: admin })).body.data;
    assert.equal(back.customised, false);
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, w.app, w.t.users.admin!, '/settings', 'text=E-mail to change', 'email-templates');
    assert.deepEqual(w.blocked, []);
  });
});

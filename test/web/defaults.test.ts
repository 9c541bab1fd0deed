import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestTenant, type TestApp } from '../helpers/app';
import { createArtist } from '../allocation/helpers';
import { ARTIFACTS } from './browser';
import { browserSuite, checkPage, checkPhone } from './ops';

type Json = Record<string, any>;

/** Defaults (the chain workspace → catalog → label → artist → member) and the redirect origins, in the browser. */
describe('web app: defaults and e-mailed links to your own site', function () {
  this.timeout(180_000);
  let artist = '';
  let label = '';
  const w = browserSuite('defaults page tests', async (app: TestApp) => {
    const t = await createTestTenant(app, 'Defaults Label');
    artist = await createArtist(app, t.tenantId, 'Luna Vale');
    const made = await app.request('POST', '/labels', { token: t.users.admin!.token, body: { name: 'Night Owl', artists: [artist] } });
    assert.equal(made.status, 201, made.text);
    label = made.body.data.id;
    return t;
  });
  const get = (p: string) => w.app.request('GET', p, { token: w.t.users.admin!.token });
  const row = (key: string) => w.page.getByTestId(`def-${key}`);

  it('the workspace genre, a label that overrides it, where each value comes from, and a new recording that takes it', async () => {
    const { app, page, t } = w;
    await page.goto(`${app.url}/app/defaults`);
    await row('content-genre').getByRole('textbox').fill('Jazz');
    await row('content-genre').getByRole('button', { name: 'Save Genre' }).click();
    await row('content-genre').getByText('Set here').waitFor();
    const own = (await get('/defaultsettings/tenant/current')).body.data.settings.map((s: Json) => [s.category, s.key, s.value]);
    assert.deepEqual(own, [['content', 'genre', 'Jazz']]);

    await page.getByLabel('Set defaults for').selectOption({ label: 'A label' });
    await page.getByLabel('Which one').selectOption({ label: 'Night Owl' });
    await row('content-genre').getByText('Jazz (from the workspace)').waitFor();
    await row('content-genre').getByRole('textbox').fill('Electronic');
    await row('content-genre').getByRole('button', { name: 'Save Genre' }).click();
    await row('content-genre').getByText('Set here').waitFor();
    await page.getByTestId('defaults-chain').getByText(/the label Night Owl → the workspace/).waitFor();
    await page.locator('section.card').screenshot({ path: path.join(ARTIFACTS, 'docs-defaults.png') });
    await checkPage(page, 'defaults-label');

    // the artist's recording takes the label's genre; the workspace's is under it
    const song = await app.request('POST', '/asset', { token: t.users.admin!.token, body: { title: 'Owl Song', isrc: 'USNO12600001', artists: [artist] } });
    assert.equal(song.status, 201, song.text);
    assert.deepEqual(song.body.data.mainGenre, ['Electronic']);
    const preview = (await app.request('POST', '/defaultsettings/preview/resolve', { token: t.users.admin!.token, body: { entityType: 'artist', entityId: artist } })).body.data;
    assert.deepEqual([preview.settings.content.genre.level, preview.settings.content.genre.value], ['label', 'Electronic']);

    // “Inherit”: the label takes the workspace's again
    await row('content-genre').getByRole('button', { name: 'Inherit Genre' }).click();
    await row('content-genre').getByText('Jazz (from the workspace)').waitFor();
    assert.deepEqual((await get(`/defaultsettings/label/${label}`)).body.data.settings, []);
  });

  it('a yes/no check and a saved set applied to the whole workspace', async () => {
    const { app, page } = w;
    await page.goto(`${app.url}/app/defaults`);
    await row('validation-requireReleaseDate').getByRole('combobox').selectOption({ label: 'Yes' });
    await row('validation-requireReleaseDate').getByRole('button').first().click();
    await row('validation-requireReleaseDate').getByText('Set here').waitFor();
    await page.getByRole('button', { name: 'Apply here: Europe' }).click();
    await page.getByText(/^“Europe” applied: \d+ set\.$/).waitFor();
    const own = (await get('/defaultsettings/tenant/current')).body.data.settings as Json[];
    const byKey = Object.fromEntries(own.map((s) => [`${s.category}.${s.key}`, s.value]));
    assert.equal(byKey['validation.requireReleaseDate'], true);
    assert.ok(Array.isArray(byKey['ddex.territories']) && byKey['ddex.territories'].includes('GB') && byKey['ddex.territories'].includes('DE'), JSON.stringify(byKey));
    await row('ddex-territories').getByText('Set here').waitFor();
  });

  it('your own site in e-mailed links: added, an invitation may then lead there; removed, it is refused', async () => {
    const { app, page, t } = w;
    const invite = (email: string) => app.request('POST', '/auth/invite', { token: t.users.admin!.token, body: { email, redirect_url: 'https://royalties.nightowl.example/welcome' } });
    assert.equal((await invite('before@defaults.test')).status, 400, 'not listed yet');
    await page.goto(`${app.url}/app/settings`);
    const s = page.locator('section', { has: page.getByRole('heading', { name: 'Your own sites in e-mailed links' }) });
    await s.getByLabel(/^Address of your site/).fill('https://royalties.nightowl.example');
    await s.getByRole('button', { name: 'Add the site' }).click();
    await s.getByRole('cell', { name: 'https://royalties.nightowl.example', exact: true }).waitFor();
    assert.deepEqual((await get('/settings/redirect-origins')).body.data.origins, ['https://royalties.nightowl.example']);
    assert.equal((await invite('after@defaults.test')).status, 201);
    // a whole page address is refused in words
    await s.getByLabel(/^Address of your site/).fill('https://royalties.nightowl.example/welcome');
    await s.getByRole('button', { name: 'Add the site' }).click();
    await s.getByRole('alert').getByText('Give only the start of the site’s address').waitFor();
    assert.deepEqual((await get('/settings/redirect-origins')).body.data.origins, ['https://royalties.nightowl.example']);
    await checkPage(page, 'settings-redirect-origins');
    await s.getByRole('button', { name: 'Remove https://royalties.nightowl.example' }).click();
    await s.getByText('None: links lead to Rondo only.').waitFor();
    assert.equal((await invite('later@defaults.test')).status, 400, 'removed: refused again');
  });

  it('fits a 375 px screen and keeps to the strict content policy', async () => {
    await checkPhone(w.browser, w.app, w.t.users.admin!, '/defaults', 'text=Where values come from', 'defaults');
    assert.deepEqual(w.blocked, []);
  });
});

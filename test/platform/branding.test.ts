import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PDFParse } from 'pdf-parse';
import { createTestTenant, startTestApp, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { getBranding } from '../../src/modules/branding/service';
import { allocateFile, uuid } from '../money/helpers';

/** A 1×1 PNG (an image the PDF renderer draws) and an SVG carrying a script. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

describe('branding: logo, colours, sender name; PDFs and the dashboard', function () {
  let app: TestApp;
  let a: TestTenant;
  let free: TestTenant;
  const admin = () => a.users.admin!.token;
  const objects = async (dir = path.join(app.dataDir, 'objects')): Promise<string[]> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    const out: string[] = [];
    for (const e of entries) {
      if (e.isDirectory()) out.push(...(await objects(path.join(dir, e.name))));
      else if (!e.name.endsWith('.meta.json')) out.push(path.join(dir, e.name));
    }
    return out;
  };
  const logos = async () => (await objects()).filter((f) => f.includes(`${path.sep}branding${path.sep}`));
  const putLogo = (body: Buffer, type: string, token = admin()) => app.request('PUT', '/settings/branding/logo', { token, raw: body, headers: { 'content-type': type } });
  const multipartLogo = (body: Buffer, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([body]), name);
    return app.request('PUT', '/settings/branding/logo', { token: admin(), raw: form });
  };
  const bytes = async (p: string, token?: string) => {
    const r = await fetch(`${app.url}${p}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
  };

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Branded', ['owner', 'admin', 'user', 'guest']);
    free = await createTestTenant(app, 'Plain', ['owner']);
    await app.svc.db.owner('tenants').where({ id: a.tenantId }).update({ plan: 'pro' });
  });
  after(() => app.close());

  it('colours are #rrggbb (400 naming the field otherwise) and the sender name is kept; every member reads them', async () => {
    const empty = await app.request('GET', '/settings/branding', { token: a.users.guest!.token });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, { active: true, primaryColor: null, accentColor: null, senderName: null, logo: null });
    for (const bad of ['#12345', 'red', '#12345g', '#1234567']) {
      const r = await app.request('PUT', '/settings/branding', { token: admin(), body: { primaryColor: bad } });
      assert.equal(r.status, 400, bad);
      assert.match(r.body.error.details.join(' '), /primaryColor/);
    }
    const r = await app.request('PUT', '/settings/branding', { token: admin(), body: { primaryColor: '#1F6FEB', accentColor: '#ffcc00', senderName: 'Moonlight Royalties' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.data.primaryColor, r.body.data.accentColor, r.body.data.senderName], ['#1f6feb', '#ffcc00', 'Moonlight Royalties']);
    assert.equal((await app.request('PUT', '/settings/branding', { token: a.users.user!.token, body: { senderName: 'x' } })).status, 403);
    const gated = await app.request('PUT', '/settings/branding', { token: free.users.owner!.token, body: { senderName: 'Plain' } });
    assert.equal(gated.status, 403);
    assert.equal(gated.body.error.code, 'FEATURE_REQUIRED');
  });

  it('the logo: PNG or JPEG by its bytes; SVG, disguised or oversized files are refused and nothing is kept', async () => {
    const svg = await putLogo(SVG, 'image/svg+xml');
    assert.equal(svg.status, 400);
    assert.equal(svg.body.error.code, 'INVALID_LOGO');
    const disguised = await putLogo(SVG, 'image/png');
    assert.equal(disguised.status, 400);
    assert.equal(disguised.body.error.code, 'INVALID_LOGO');
    const broken = await putLogo(Buffer.concat([PNG.subarray(0, 20), Buffer.alloc(40)]), 'image/png');
    assert.equal(broken.status, 400);
    assert.equal(broken.body.error.code, 'INVALID_LOGO');
    const big = await putLogo(Buffer.concat([PNG, Buffer.alloc(600 * 1024)]), 'image/png');
    assert.equal(big.status, 400);
    assert.equal(big.body.error.code, 'FILE_TOO_LARGE');
    const svgPart = await multipartLogo(SVG, 'logo.svg');
    assert.equal(svgPart.status, 400);
    assert.deepEqual(await logos(), [], 'no refused logo stays in the store');

    const ok = await multipartLogo(PNG, 'logo.png');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.logo.type, 'image/png');
    assert.equal(ok.body.data.logo.size, PNG.length);
    const pub = await bytes(ok.body.data.logo.url);
    assert.equal(pub.status, 200);
    assert.equal(pub.headers.get('content-type'), 'image/png');
    assert.equal(pub.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(pub.body, PNG);
    assert.equal((await logos()).length, 1);

    // replacing it removes the old object; storage usage counts the logo
    const again = await putLogo(PNG, 'image/png');
    assert.equal(again.status, 200, again.text);
    assert.equal((await logos()).length, 1);
    const sub = await app.request('GET', '/billing/subscription', { token: admin() });
    assert.equal(sub.body.data.usage.storageBytes, PNG.length);
  });

  it('getBranding (for e-mail templates) gives the branding while the plan has it, the defaults when not', async () => {
    const b = await withTenant(app.svc.db.app, a.tenantId, (trx) => getBranding(trx, a.tenantId));
    assert.equal(b.active, true);
    assert.equal(b.senderName, 'Moonlight Royalties');
    assert.match(b.logo!.path, new RegExp(`^/branding/${a.workspaceId}/logo\\?v=[0-9a-f]{16}$`));
    const none = await withTenant(app.svc.db.app, free.tenantId, (trx) => getBranding(trx, free.tenantId));
    assert.deepEqual(none, { active: false, primaryColor: null, accentColor: null, senderName: null, logo: null });
  });

  it("e-mails carry the brand: the sender name and colour fill the templates' brand placeholders", async () => {
    const text = '{{brand.senderName}} {{brand.primaryColor}}';
    const branded = await app.request('POST', '/settings/email-templates/file_processed/preview', { token: admin(), body: { text } });
    assert.equal(branded.status, 200, branded.text);
    assert.equal(branded.body.data.text, 'Moonlight Royalties #1f6feb');
    // e-mail settings' own sender name comes first
    await app.request('PUT', '/settings/email', { token: admin(), body: { fromName: 'Finance at Moonlight' } });
    const own = await app.request('POST', '/settings/email-templates/file_processed/preview', { token: admin(), body: { text } });
    assert.equal(own.body.data.text, 'Finance at Moonlight #1f6feb');
    await app.request('PUT', '/settings/email', { token: admin(), body: { fromName: null } });
  });

  it('PDF statements carry the logo and sender name; an issued statement keeps the branding it was issued with', async () => {
    const payee = a.users.user!.tenantUserId;
    const rec = uuid();
    await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('assets').insert({ tenant_id: a.tenantId, id: rec, title: 'Song', isrc: 'USRC12699999' }));
    await allocateFile(app, a.tenantId, uuid(), [{ payee, amount: '12.5', assetId: rec, quantity: '10' }]);
    const run = await app.request('POST', '/statements/runs', { token: admin(), body: { period: '2026-10' } });
    assert.equal(run.status, 201, run.text);
    const st = run.body.data.statements.find((s: { user: string }) => s.user === payee);
    assert.ok(st, 'the payee has a statement');
    const issue = await app.request('POST', `/statements/runs/${run.body.data.id}/issue`, { token: admin() });
    assert.equal(issue.status, 200, issue.text);
    const pdf = await bytes(`/statements/${st.id}/pdf`, admin());
    assert.equal(pdf.status, 200);
    const text = (await new PDFParse({ data: pdf.body }).getText()).text;
    assert.match(text, /Moonlight Royalties/);
    assert.match(pdf.body.toString('latin1'), /\/Subtype \/Image/, 'the logo is drawn');

    // rebranding changes new PDFs only: the issued one is byte-identical
    await app.request('PUT', '/settings/branding', { token: admin(), body: { senderName: 'Sunrise Label' } });
    await app.request('DELETE', '/settings/branding/logo', { token: admin() });
    assert.deepEqual((await bytes(`/statements/${st.id}/pdf`, admin())).body, pdf.body);
    assert.equal((await bytes(`/branding/${a.workspaceId}/logo`)).status, 404);
    assert.deepEqual(await logos(), []);
    const live = await bytes(`/accounting/statement/${payee}?period=2026-11&format=pdf`, admin());
    assert.equal(live.status, 200);
    const liveText = (await new PDFParse({ data: live.body }).getText()).text;
    assert.match(liveText, /Sunrise Label/);
    assert.doesNotMatch(live.body.toString('latin1'), /\/Subtype \/Image/);
  });

  it('the dashboard reads the logo without a token; a workspace whose plan lacks branding shows none', async () => {
    await putLogo(PNG, 'image/png');
    const url = (await app.request('GET', '/settings/branding', { token: a.users.user!.token })).body.data.logo.url;
    assert.equal((await bytes(url)).status, 200);
    await app.svc.db.owner('tenants').where({ id: a.tenantId }).update({ plan: 'free' });
    try {
      assert.equal((await bytes(url)).status, 404);
      assert.equal((await app.request('GET', '/settings/branding', { token: a.users.user!.token })).body.data.active, false);
    } finally {
      await app.svc.db.owner('tenants').where({ id: a.tenantId }).update({ plan: 'pro' });
    }
  });
});

import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { PDFParse } from 'pdf-parse';
import { createTestTenant, startTestApp, type TestApp, type TestTenant } from '../helpers/app';
import { clock } from '../../src/lib/clock';

/** The drawing operators of a PDF's content streams (inflated), to find a colour in them. */
function drawing(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  let out = '';
  for (const m of text.matchAll(/stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = text.indexOf('endstream', start);
    try {
      out += zlib.inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      out += text.slice(start, end);
    }
  }
  return out;
}
/** PDFKit's fill colour operator for #rrggbb (each channel as a fraction of 255). */
const fillOf = (hex: string) => `${[1, 3, 5].map((i) => String(parseInt(hex.slice(i, i + 2), 16) / 255)).join(' ')} scn`;

/** A statement PDF drawn with branding not saved yet (docs/branding.md "Preview"). */
describe('branding: the statement PDF preview with unsaved branding', () => {
  let app: TestApp;
  let t: TestTenant;
  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Preview Label');
    await app.svc.db.owner('tenants').where({ id: t.tenantId }).update({ plan: 'pro' });
  });
  after(() => app.close());
  afterEach(() => clock.reset());

  const address = (body: unknown, token = t.users.admin!.token) => app.request('POST', '/settings/branding/preview/statement', { token, body });
  const pdfAt = async (url: string) => {
    const r = await fetch(`${app.url}${url}`);
    return { status: r.status, type: r.headers.get('content-type'), csp: r.headers.get('content-security-policy'), body: Buffer.from(await r.arrayBuffer()) };
  };

  it('draws the sample statement with the colours and sender name sent, saving nothing', async () => {
    const made = await address({ primaryColor: '#aa3300', accentColor: '#117744', senderName: 'Harbour Records' });
    assert.equal(made.status, 200, made.text);
    assert.match(made.body.data.url, /^\/settings\/branding\/preview\/statement\.pdf\?token=/);
    const pdf = await pdfAt(made.body.data.url);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.type, 'application/pdf');
    assert.match(pdf.csp ?? '', /frame-ancestors 'self'/, 'the settings page may show it in a frame');
    const text = (await new PDFParse({ data: pdf.body }).getText()).text;
    assert.match(text, /Harbour Records/);
    assert.match(text, /Royalty statement\nHarbour Records\n/);
    assert.match(text, /Period: 2026-Q3/);
    assert.match(text, /PREVIEW - sample figures/);
    assert.match(text, /910\.50/);
    const ops = drawing(pdf.body);
    assert.ok(ops.includes(fillOf('#aa3300')), `the band and title in the main colour (${fillOf('#aa3300')})`);
    assert.ok(ops.includes(fillOf('#117744')), 'the sender name in the accent colour');

    const other = await pdfAt((await address({ primaryColor: '#0044cc', senderName: 'Night Owl' })).body.data.url);
    const otherText = (await new PDFParse({ data: other.body }).getText()).text;
    assert.match(otherText, /Night Owl/);
    assert.doesNotMatch(otherText, /Harbour Records/);
    assert.ok(drawing(other.body).includes(fillOf('#0044cc')));
    assert.ok(!drawing(other.body).includes(fillOf('#aa3300')));

    const stored = (await app.request('GET', '/settings/branding', { token: t.users.admin!.token })).body.data;
    assert.deepEqual([stored.primaryColor, stored.senderName], [null, null], 'nothing saved');
  });

  it('admins only; bad colours are refused; the address stops working after 10 minutes or when altered', async () => {
    assert.equal((await address({ senderName: 'x' }, t.users.user!.token)).status, 403);
    const bad = await address({ primaryColor: 'red' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.details.join(' '), /primaryColor/);
    const url = (await address({ senderName: 'Soon Gone' })).body.data.url as string;
    assert.equal((await pdfAt(`${url.slice(0, -4)}AAAA`)).status, 401, 'an altered token');
    assert.equal((await pdfAt('/settings/branding/preview/statement.pdf')).status, 400, 'no token');
    clock.advance(11 * 60_000);
    assert.equal((await pdfAt(url)).status, 401, 'expired');
  });
});

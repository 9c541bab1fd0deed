/**
 * A statement run as one archive (GET /statements/runs/{id}/zip): every payee's PDF and CSV of
 * the run, streamed as a ZIP; the CSVs are the bytes GET /statements/{id}/csv serves; drafts
 * too; admins only; another workspace's run is not found.
 */
import assert from 'node:assert/strict';
import unzipper from 'unzipper';
import { PDFParse } from 'pdf-parse';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { allocateFile, uuid } from './helpers';

describe('money: a statement run as one ZIP archive', function () {
  this.timeout(90_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  const get = async (path: string, token: string) => {
    const r = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, type: r.headers.get('content-type'), disposition: r.headers.get('content-disposition'), body: Buffer.from(await r.arrayBuffer()) };
  };

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Archive', ['owner', 'admin', 'user']);
    b = await createTestTenant(app, 'Elsewhere', ['admin']);
    await allocateFile(app, a.tenantId, uuid(), [
      { payee: a.users.user!.tenantUserId, amount: '12.5', period: '2026-10' },
      { payee: a.users.owner!.tenantUserId, amount: '7.25', period: '2026-10' },
    ]);
  });
  after(async () => app.close());

  it("holds each payee's PDF and CSV of the run, the CSV as the statement's own route serves it", async () => {
    const admin = a.users.admin!.token;
    const run = await app.request('POST', '/statements/runs', { token: admin, body: { period: '2026-10' } });
    assert.equal(run.status, 201, run.text);
    const draft = await get(`/statements/runs/${run.body.data.id}/zip`, admin);
    assert.equal(draft.status, 200);
    const draftNames = (await unzipper.Open.buffer(draft.body)).files.map((f) => f.path).sort();
    assert.equal(draftNames.length, 4);
    assert.ok(draftNames.every((n) => /^statement-2026-10-draft-\d-[A-Za-z0-9.-]+\.(pdf|csv)$/.test(n)), draftNames.join(' '));

    const issued = await app.request('POST', `/statements/runs/${run.body.data.id}/issue`, { token: admin });
    assert.equal(issued.status, 200, issued.text);
    const res = await get(`/statements/runs/${run.body.data.id}/zip`, admin);
    assert.equal(res.status, 200);
    assert.equal(res.type, 'application/zip');
    assert.equal(res.disposition, 'attachment; filename="statements-2026-10.zip"');
    const zip = await unzipper.Open.buffer(res.body);
    const statements = issued.body.data.statements as { id: string; number: number }[];
    assert.equal(statements.length, 2);
    assert.equal(zip.files.length, 4);
    for (const s of statements) {
      const pdf = zip.files.find((f) => f.path.startsWith(`statement-2026-10-${s.number}-`) && f.path.endsWith('.pdf'));
      const csv = zip.files.find((f) => f.path.startsWith(`statement-2026-10-${s.number}-`) && f.path.endsWith('.csv'));
      assert.ok(pdf && csv, zip.files.map((f) => f.path).join(' '));
      assert.deepEqual(await csv.buffer(), (await get(`/statements/${s.id}/csv`, admin)).body);
      const text = (await new PDFParse({ data: await pdf.buffer() }).getText()).text;
      assert.match(text, new RegExp(`No\\. ${s.number}`));
    }
  });

  it('is for admins of the workspace only', async () => {
    const run = await app.request('POST', '/statements/runs', { token: a.users.admin!.token, body: { period: '2026-11' } });
    assert.equal(run.status, 201, run.text);
    assert.equal((await get(`/statements/runs/${run.body.data.id}/zip`, a.users.user!.token)).status, 403);
    assert.equal((await get(`/statements/runs/${run.body.data.id}/zip`, b.users.admin!.token)).status, 404);
    assert.equal((await get(`/statements/runs/${uuid()}/zip`, a.users.admin!.token)).status, 404);
  });
});

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import Papa from 'papaparse';
import { PDFParse } from 'pdf-parse';
import { createTestTenant, signIn, startTestApp, type TestApp, type TestTenant } from '../helpers/app';
import { scanText, settledErasure } from '../helpers/erasure';
import { ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';
import { dispatchPending } from '../../src/modules/webhooks/dispatch';
import { contentHash, figuresCsv, figuresPdf, type Figures } from '../../src/modules/money/statement-build';
import { moveLegacyPayeeDetails } from '../../migrations/20261128090100_statement_payees';

const EMAIL = 'Ottilie.Vandermeersch@everywhere.test';
const FIRST = 'Ottilie';
const LAST = 'Vandermeersch';
const PASSWORD = 'a long password indeed';

const pdfText = async (pdf: Buffer) => (await new PDFParse({ data: pdf }).getText()).text;

describe('account erasure of a person active everywhere', function () {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let god: string;
  let userId: string;
  let ta: string;
  let statementId: string;
  let issuedHash: string;
  /** A statement issued before the payee's details were kept apart: its bodies as issued. */
  const legacy = { id: crypto.randomUUID(), figures: null as unknown as Figures, csv: '', pdf: Buffer.alloc(0) as Buffer, hash: '' };

  const bytes = async (path: string, token: string) => {
    const r = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.status, 200, path);
    return Buffer.from(await r.arrayBuffer());
  };
  const storedPdf = async () => (await app.svc.db.owner('statements').where({ id: statementId }).first('pdf')).pdf as Buffer;

  before(async () => {
    app = await startTestApp({ workers: true });
    const owner = app.svc.db.owner;
    a = await createTestTenant(app, 'EverywhereA', ['owner', 'admin']);
    b = await createTestTenant(app, 'EverywhereB', ['owner', 'admin']);
    god = (await app.svc.auth.createApiKey('god', {})).token;
    const g = await ensureGlobalUser(owner, { email: EMAIL, passwordHash: await app.svc.auth.hashPassword(PASSWORD), firstName: FIRST, lastName: LAST });
    userId = g.id;
    // invited into both workspaces through the API: the admins of each are notified with the address
    for (const t of [a, b]) {
      const inv = await app.request('POST', '/auth/invite', { token: t.users.admin!.token, body: { email: EMAIL, role: 'user', firstName: FIRST, lastName: LAST } });
      assert.equal(inv.status < 300, true, inv.text);
    }
    await owner('tenant_users').where({ user_id: userId }).update({ status: 'active' });
    ta = (await owner('tenant_users').where({ user_id: userId, tenant_id: a.tenantId }).first('id')).id;
    const tb = (await owner('tenant_users').where({ user_id: userId, tenant_id: b.tenantId }).first('id')).id;
    await signIn(app, EMAIL, PASSWORD, a.workspaceId);
    // earned and paid in both
    for (const [t, tu] of [[a, ta], [b, tb]] as const) {
      await owner('ledger_entries').insert({ tenant_id: t.tenantId, tenant_user_id: tu, kind: 'royalty', amount: '120.5', currency: 'USD', accounting_period: '2026-10-01', source_type: 'file', source_id: crypto.randomUUID() });
      const pay = await app.request('POST', '/payment/', { token: t.users.admin!.token, body: { user: tu, title: 'October payout', currency: 'USD', amount: '20', transactionDate: '2026-10-20T00:00:00Z' } });
      assert.equal(pay.status, 201, pay.text);
    }
    // an issued statement in A
    const run = await app.request('POST', '/statements/runs', { token: a.users.admin!.token, body: { period: '2026-10', payees: [ta] } });
    assert.equal(run.status, 201, run.text);
    const issued = await app.request('POST', `/statements/runs/${run.body.data.id}/issue`, { token: a.users.admin!.token });
    assert.equal(issued.status, 200, issued.text);
    statementId = issued.body.data.statements[0].id;
    issuedHash = issued.body.data.statements[0].contentHash;
    // a statement issued before the payee's details were kept apart (August), then the migration's move
    const f = (await owner('statements').where({ id: statementId }).first('figures')).figures as Figures;
    // named "Last, First": its CSV cell is quoted, which the migration's move must read whole
    legacy.figures = { ...f, payee: { id: ta, name: `${LAST}, ${FIRST}`, email: EMAIL, address: [EMAIL] }, period: '2026-08', periodStart: '2026-08-01', periodEnd: '2026-09-01' };
    legacy.csv = figuresCsv(legacy.figures, 2, { state: 'issued', number: 900 });
    legacy.pdf = await figuresPdf(legacy.figures, 2, { state: 'issued', number: 900 });
    legacy.hash = contentHash(JSON.stringify(legacy.figures), legacy.csv, legacy.pdf);
    const runId = crypto.randomUUID();
    await owner('statement_runs').insert({ tenant_id: a.tenantId, id: runId, period_start: '2026-08-01', period_end: '2026-09-01', label: '2026-08', status: 'issued', issued_at: new Date() });
    await owner('statements').insert({ tenant_id: a.tenantId, id: legacy.id, run_id: runId, tenant_user_id: ta, period_start: '2026-08-01', period_end: '2026-09-01', label: '2026-08', number: 900, figures: JSON.stringify(legacy.figures), csv: legacy.csv, pdf: legacy.pdf, content_hash: legacy.hash, issued_at: new Date() });
    await owner.transaction((trx) => moveLegacyPayeeDetails(trx));
    // a webhook endpoint and an event naming the person, fanned out into a delivery
    await owner('tenants').where({ id: a.tenantId }).update({ plan: 'enterprise' });
    await owner('webhook_endpoints').insert({ tenant_id: a.tenantId, url: 'https://hooks.everywhere.invalid/rondo', events: JSON.stringify(['*']), secret_sealed: 'not-a-sealed-secret' });
    await owner('outbound_events').insert({ tenant_id: a.tenantId, family: 'payment', type: 'payment.created', payload: JSON.stringify({ payee: { email: EMAIL, name: `${FIRST} ${LAST}` } }) });
    await dispatchPending(app.svc);
    // the super-admin looked the person up (audited with the search)
    assert.equal((await app.request('GET', `/godmin/users?q=${encodeURIComponent(EMAIL)}`, { token: god })).status, 200);
    await app.svc.auth.limits.hitAddressAndAccountLimits('login', '10.9.9.9', EMAIL, { max: 100, windowSeconds: 600 });
  });
  after(() => app.close());

  it('before the erasure, an issued statement shows the payee; its stored bodies name the payee by id only', async () => {
    const admin = a.users.admin!.token;
    const st = await app.request('GET', `/statements/${statementId}`, { token: admin });
    assert.deepEqual(st.body.data.figures.payee, { id: ta, name: `${FIRST} ${LAST}`, email: EMAIL, address: [EMAIL] });
    const csv = (await bytes(`/statements/${statementId}/csv`, admin)).toString();
    assert.deepEqual(Papa.parse<string[]>(csv.trim()).data.find((r) => r[1] === 'Payee')!.slice(0, 3), ['header', 'Payee', `${FIRST} ${LAST}`]);
    const pdf = await bytes(`/statements/${statementId}/pdf`, admin);
    assert.match(await pdfText(pdf), new RegExp(`Payee: ${FIRST} ${LAST} <${EMAIL.replace(/\./g, '\\.')}>`));
    const stored = await app.svc.db.owner('statements').where({ id: statementId }).first('figures', 'csv', 'pdf', 'content_hash');
    assert.equal(stored.content_hash, issuedHash);
    assert.deepEqual(pdf.subarray(0, stored.pdf.length), stored.pdf, 'the stored PDF is a byte-identical prefix of the one served');
    for (const body of [JSON.stringify(stored.figures), stored.csv, stored.pdf.toString('latin1'), await pdfText(stored.pdf)]) {
      for (const needle of [EMAIL, FIRST, LAST]) assert.equal(body.toLowerCase().includes(needle.toLowerCase()), false, needle);
    }
  });

  it('a statement issued before: the migration moved the details out of its row; it reads as issued, hash unchanged', async () => {
    const admin = a.users.admin!.token;
    const row = await app.svc.db.owner('statements').where({ id: legacy.id }).first('figures', 'csv', 'pdf', 'content_hash', 'hash_scope');
    assert.deepEqual([row.hash_scope, row.pdf, row.content_hash], ['with_payee', null, legacy.hash]);
    for (const body of [JSON.stringify(row.figures), row.csv]) for (const needle of [EMAIL, FIRST, LAST]) assert.equal(body.includes(needle), false, needle);
    const st = await app.request('GET', `/statements/${legacy.id}`, { token: admin });
    assert.deepEqual(st.body.data.figures, JSON.parse(JSON.stringify(legacy.figures)));
    assert.equal((await bytes(`/statements/${legacy.id}/csv`, admin)).toString(), legacy.csv);
    assert.deepEqual(await bytes(`/statements/${legacy.id}/pdf`, admin), legacy.pdf);
    assert.equal(st.body.data.statement.contentHash, legacy.hash);
  });

  it('after the erasure, no readable name or e-mail is left anywhere but where the plan names the record, the field and the reason', async () => {
    const before = await scanText(app, [EMAIL, FIRST, LAST]);
    const seen = new Set(before.map((h) => h.table));
    for (const t of ['users', 'notifications', 'platform_audit', 'outbound_events', 'webhook_deliveries', 'payments', 'statement_payees']) assert.ok(seen.has(t), `the person is in ${t} before: ${JSON.stringify(before)}`);

    const plan = (await app.request('POST', '/godmin/account-erasure/preview', { token: god, body: { userId } })).body;
    const redact = plan.tables.filter((t: { action: string }) => t.action === 'redact').map((t: { table: string }) => t.table).sort();
    assert.deepEqual(redact, ['notifications', 'platform_audit']);
    assert.equal(plan.tables.find((t: { table: string; action: string }) => t.table === 'notifications' && t.action === 'redact').rows, 4, 'the owner and the admin of each workspace were told of the invitation');
    assert.ok(plan.tables.some((t: { table: string; action: string }) => t.table === 'statement_payees' && t.action === 'anonymise'));
    const r = await app.request('POST', '/godmin/account-erasure/execute', { token: god, body: { userId, planHash: plan.planHash } });
    assert.equal(r.status, 201, r.text);
    const job = await settledErasure(app, god, r.body.data.jobId);
    assert.equal(job.status, 'completed', job.error);

    const after = await scanText(app, [EMAIL, FIRST, LAST]);
    const unexplained = after.filter((h) => !plan.retained.some((k: { table: string; columns: string[]; reason: string }) => k.table === h.table && k.columns.includes(h.column) && k.reason.length > 20));
    assert.deepEqual(unexplained, []);
  });

  it('after the erasure, the issued statement carries the pseudonym, and its content hash still verifies', async () => {
    const admin = a.users.admin!.token;
    const st = await app.request('GET', `/statements/${statementId}`, { token: admin });
    assert.equal(st.status, 200);
    assert.equal(st.body.data.statement.contentHash, issuedHash);
    assert.match(st.body.data.figures.payee.name, /^Erased payee [0-9a-f]{10}$/);
    assert.equal(st.body.data.figures.payee.email, '');
    const csv = (await bytes(`/statements/${statementId}/csv`, admin)).toString();
    const pdf = await bytes(`/statements/${statementId}/pdf`, admin);
    const text = await pdfText(pdf);
    for (const body of [JSON.stringify(st.body), csv, pdf.toString('latin1'), text]) {
      for (const needle of [EMAIL, FIRST, LAST]) assert.equal(body.toLowerCase().includes(needle.toLowerCase()), false, `${needle} in ${body.slice(0, 200)}`);
    }
    assert.match(text, /Payee: Erased payee [0-9a-f]{10}/);
    assert.match(csv, /^header,Payee,Erased payee [0-9a-f]{10},/m);
    // the hash covers the stored bodies: figures (canonical JSON), CSV and PDF, unchanged by the erasure
    const stored = await app.svc.db.owner('statements').where({ id: statementId }).first('csv', 'pdf', 'content_hash');
    assert.equal(stored.content_hash, issuedHash);
    assert.deepEqual(pdf.subarray(0, stored.pdf.length), await storedPdf());
    assert.equal(csv.replace(/^header,Payee,[^\n]*$/m, 'header,Payee,,,,'), stored.csv);
    // the one issued before: its PDF (which printed the name) is gone, drawn again from the frozen figures
    const old = await app.request('GET', `/statements/${legacy.id}`, { token: admin });
    const oldPdf = await bytes(`/statements/${legacy.id}/pdf`, admin);
    const oldCsv = (await bytes(`/statements/${legacy.id}/csv`, admin)).toString();
    for (const body of [JSON.stringify(old.body), oldCsv, oldPdf.toString('latin1'), await pdfText(oldPdf)]) {
      for (const needle of [EMAIL, FIRST, LAST]) assert.equal(body.toLowerCase().includes(needle.toLowerCase()), false, needle);
    }
    assert.equal(old.body.data.figures.closingBalance, legacy.figures.closingBalance);
    assert.match(await pdfText(oldPdf), /Erased payee [0-9a-f]{10}/);
  });
});

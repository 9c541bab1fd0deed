/**
 * Cost, recharge and fee rows as their own kind: a layout (not built in) reads them as
 * `expense`, and they land as expenses of the workspace's ledger: the recording's payees bear
 * them by their split shares (recoupable, targeted at the recording), the label the rest and
 * the rows with no recording; exact money; the same expenses after a re-read; none after the
 * file is deleted.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile } from '../ingest/helpers';

const layout = {
  key: 'northgate-costs', name: 'Northgate statement with costs', aggregator: 'Northgate', layout: 'table',
  detect: { fileName: '^northgate_', headers: ['Month', 'Type', 'Title', 'ISRC', 'Amount', 'Currency'] },
  format: { delimiter: ',', encoding: 'auto' },
  columns: { saleMonth: { from: 'Month' }, trackTitle: { from: 'Title' }, isrc: { from: 'ISRC' }, quantity: { from: 'Units' }, net: { from: 'Amount' }, currency: { from: 'Currency' } },
  rows: [{ column: 'Type', equals: ['Recharge', 'Marketing cost'], action: 'expense' }],
};

describe('statement cost rows recorded as expenses of the ledger', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let cur: string;
  let fileId: string;
  const fileExpenses = async () =>
    (await app.svc.db.owner('expenses').where({ tenant_id: a.tenantId, file_id: fileId }).orderBy(['file_line_no', 'amount'])
      .select('id', 'tenant_user_id', 'file_line_no', 'title', 'recoupable', 'target_type', 'target_id', 'currency', app.svc.db.owner.raw('amount::text AS amount'), app.svc.db.owner.raw(`to_char(expense_date, 'YYYY-MM-DD') AS date`)))
      .map((e: any) => ({ ...e, currency: String(e.currency).trim(), amount: e.amount.replace(/\.?0+$/, '') }));

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Costs A');
    cur = String((await app.svc.db.owner('tenants').where({ id: a.tenantId }).first('base_currency')).base_currency).trim();
  });
  after(async () => app?.close());

  it('reads the rows as expenses, not sales, and records them for the recording\'s payees by share, the rest for the label', async () => {
    const admin = a.users.admin!.token;
    const asset = await app.request('POST', '/asset', { token: admin, body: { title: 'Harbour Lights', isrc: 'GBA1B2400001' } });
    assert.equal(asset.status, 201, asset.text);
    const split = await app.request('POST', '/split/', { token: admin, body: { asset: asset.body.data.id, split: [{ user: a.users.user!.tenantUserId, share: 60 }, { user: a.users.owner!.tenantUserId, share: 40 }] } });
    assert.ok(split.status < 300, split.text);
    assert.equal((await app.request('POST', '/sources', { token: admin, body: { pattern: layout } })).status, 201);

    const csv = [
      'Month,Type,Title,ISRC,Units,Amount,Currency',
      `2024-03,Sale,Harbour Lights,GBA1B2400001,100,25.00,${cur}`,
      `2024-03,Recharge,Harbour Lights,GBA1B2400001,,-12.34,${cur}`,
      `2024-03,Marketing cost,Poster run,,,-5.00,${cur}`,
      `2024-03,Sale,Cost of Living,GBA1B2400002,10,2.50,${cur}`,
    ].join('\n') + '\n';
    const f = await waitFile(app, admin, (await upload(app, admin, 'northgate_2024-03.csv', csv)).body.data.id, ['processed', 'failed', 'needs_confirmation']);
    assert.equal(f.status, 'processed', JSON.stringify(f));
    fileId = f.id;
    assert.equal(f.counts.rowsIngested, 2, 'the cost rows are not sales');
    assert.deepEqual(f.totals, { [cur]: '27.5' });
    const lines = await app.svc.db.owner('royalty_lines').where({ tenant_id: a.tenantId, file_id: f.id }).select(app.svc.db.owner.raw('net::text AS net'));
    assert.equal(lines.some((l: any) => l.net.startsWith('-')), false, 'no negative sale');

    const ex = await fileExpenses();
    const who = { [a.users.user!.tenantUserId]: 'user', [a.users.owner!.tenantUserId]: 'owner', [a.users.admin!.tenantUserId]: 'label (uploader)' };
    assert.deepEqual(ex.map((e: any) => [e.file_line_no, who[e.tenant_user_id], e.amount, e.currency, e.recoupable, e.target_type, e.target_id, e.date]), [
      [3, 'owner', '4.936', cur, true, 'asset', asset.body.data.id, '2024-03-01'],
      [3, 'user', '7.404', cur, true, 'asset', asset.body.data.id, '2024-03-01'],
      [4, 'label (uploader)', '5', cur, false, null, null, '2024-03-01'],
    ]);
    assert.deepEqual(ex.map((e: any) => e.title), ['Harbour Lights', 'Harbour Lights', 'Poster run']);
    // exact: the expenses add up to the rows, to the last digit
    const sum = await app.svc.db.owner('expenses').where({ tenant_id: a.tenantId, file_id: f.id }).first(app.svc.db.owner.raw('sum(amount)::text AS s'));
    assert.match(sum.s, /^17\.340*$/);

    // they are the ledger's expenses: listed to the admin, the payee sees their own, recouped from the recording's earnings
    const list = (await app.request('GET', '/expense/?size=50', { token: admin })).body.data;
    assert.equal(list.filter((e: any) => ex.some((x: any) => x.id === e.id)).length, 3);
    const mine = (await app.request('GET', '/expense/', { token: a.users.user!.token })).body.data;
    assert.deepEqual(mine.map((e: any) => [e.title, e.targetType, e.recoupable]), [['Harbour Lights', 'asset', true]]);
    assert.deepEqual([mine[0].amount, mine[0].recouped, mine[0].unrecouped], ['7.404', '7.4', '0'], JSON.stringify(mine[0]));
  });

  it('is idempotent: reading the file again makes the same expenses, never a second set', async () => {
    const admin = a.users.admin!.token;
    const before = await fileExpenses();
    const r = await app.request('POST', `/file/reprocess/${fileId}`, { token: admin, body: {} });
    assert.ok(r.status < 300, r.text);
    const again = await waitFile(app, admin, fileId, ['processed', 'failed']);
    assert.equal(again.status, 'processed');
    const after = await fileExpenses();
    assert.deepEqual(after, before, 'the same expenses, the same rows (nothing rewritten)');
    const count = await app.svc.db.owner('expenses').where({ tenant_id: a.tenantId }).count({ n: '*' });
    assert.equal(Number(count[0]!.n), 3);
  });

  it('deleting the file removes its expenses and their recoupment', async () => {
    const admin = a.users.admin!.token;
    const d = await app.request('DELETE', `/file/${fileId}`, { token: admin });
    assert.ok(d.status < 300, d.text);
    assert.equal(Number((await app.svc.db.owner('expenses').where({ tenant_id: a.tenantId }).count({ n: '*' }))[0]!.n), 0);
    assert.equal(Number((await app.svc.db.owner('file_expense_lines').where({ tenant_id: a.tenantId }).count({ n: '*' }))[0]!.n), 0);
    const recoup = await app.svc.db.owner('ledger_entries').where({ tenant_id: a.tenantId, kind: 'expense_recoup' }).first(app.svc.db.owner.raw('coalesce(sum(amount), 0)::text AS s'));
    assert.equal(Number(recoup.s), 0);
  });
});

import assert from 'node:assert/strict';
import DecimalJs from 'decimal.js';
import Papa from 'papaparse';
import ExcelJS from 'exceljs';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { createArtist, createAsset, createProduct, createSplit, fileRow, loadStatement, waitForReallocation, type LineIn } from './helpers';

/** Exact sums of 12-place amounts need more than decimal.js' default 20 digits. */
const Decimal = DecimalJs.clone({ precision: 80 });
const ISRC1 = 'USEXP2400001';
const ISRC2 = 'USEXP2400002';
/** Every breakdown of routes.ts' BREAKDOWNS, and the release analytics. */
const BREAKDOWNS = ['/royalty/', '/royalty/month', '/royalty/accountingperiod', '/royalty/dsp', '/royalty/country', '/royalty/artist', '/royalty/product', '/royalty/asset', '/royalty/saletype', '/royalty/aggregator', '/royalties/analytics/artist', '/revenue/analytics/country'];

function line(p: Partial<LineIn> & { net: string }): LineIn {
  return { saleMonth: '2024-01-01', dsp: 'Spotify', country: 'US', saleType: 'stream', quantity: '3', currency: 'USD', aggregator: 'DistroKid', ...p };
}

function parseCsv(text: string): Record<string, string>[] {
  const r = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  assert.deepEqual(r.errors, []);
  return r.data;
}

const sum = (rows: Record<string, string>[], key: string) => rows.reduce((s, r) => s.plus(r[key] || '0'), new Decimal(0));

describe('exports: ?format=csv|xlsx on breakdowns and raw lines', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let file1: string;
  let file2: string;
  const hostile = ['=HYPERLINK("http://x","y")', '+1+2', '-3+4', '@SUM(A1)', '\tTabbed', '\rReturn', 'Plain, "quoted"\nnext'];

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'ExportA');
    b = await createTestTenant(app, 'ExportB');
    const owner = a.users.owner!.tenantUserId;
    const user = a.users.user!.tenantUserId;
    const artist = await createArtist(app, a.tenantId, '=Evil Artist', [user]);
    const asset1 = await createAsset(app, a.tenantId, { title: '-Minus Song', isrc: ISRC1, artistId: artist });
    await createAsset(app, a.tenantId, { title: 'Other', isrc: ISRC2, artistId: artist });
    await createProduct(app, a.tenantId, { title: '@Album', upc: '0012345678905', artistId: artist });
    await createSplit(app, a.tenantId, { target: 'asset', id: asset1, shares: { [owner]: '33.333333', [user]: '66.666667' } });
    await createSplit(app, a.tenantId, { target: 'artist', id: artist, shares: { [user]: '100' } });
    await waitForReallocation(app, a.tenantId);
    file1 = await loadStatement(app, a.tenantId, {
      name: 'jan.csv',
      salePeriodEnd: '2024-01-31',
      lines: [
        ...hostile.map((t, i) => line({ isrc: ISRC1, trackTitle: t, dsp: i % 2 ? 'Apple' : '=cmd|calc', country: i % 3 ? 'US' : 'DE', net: `${i}.123456789012` })),
        line({ isrc: ISRC2, net: '-1.5', saleType: 'return', quantity: '-1' }),
        line({ isrc: ISRC2, net: '123456789.123456789012', saleMonth: '2023-12-01' }),
        line({ isrc: 'ZZZZZ0000001', trackTitle: 'Unmatched', net: '0.000000000001' }),
      ],
    });
    file2 = await loadStatement(app, a.tenantId, { name: 'feb.csv', salePeriodEnd: '2024-02-29', lines: [line({ isrc: ISRC1, net: '10', saleMonth: '2024-02-01' })] });
    assert.equal((await fileRow(app, a.tenantId, file1)).status, 'processed');
    assert.equal((await fileRow(app, a.tenantId, file2)).status, 'processed');
  });
  after(async () => app.close());

  for (const who of ['admin', 'user'] as const) {
    it(`every breakdown's CSV adds up to its JSON total exactly (${who})`, async () => {
      for (const path of BREAKDOWNS) {
        const json = await app.request('GET', `${path}?size=1000`, { token: a.users[who]!.token });
        assert.equal(json.status, 200, `${path}: ${json.text}`);
        const csv = await app.request('GET', `${path}?format=csv`, { token: a.users[who]!.token });
        assert.equal(csv.status, 200, `${path}: ${csv.text}`);
        assert.match(csv.headers.get('content-type')!, /^text\/csv/);
        assert.match(csv.headers.get('content-disposition')!, /^attachment; filename=".+\.csv"$/);
        const rows = parseCsv(csv.text);
        const t = json.body.data.total;
        assert.equal(rows.length, json.body.data.pagination.total, path);
        assert.equal(sum(rows, 'revenue').toFixed(), new Decimal(t.revenue).toFixed(), `${path} revenue`);
        assert.equal(sum(rows, 'quantity').toFixed(), new Decimal(t.quantity).toFixed(), `${path} quantity`);
        assert.equal(sum(rows, 'lines').toNumber(), t.lines, `${path} lines`);
        // The same rows, cell for cell (text cells may carry the formula guard).
        json.body.data.rows.forEach((r: Record<string, unknown>, i: number) => {
          assert.equal(rows[i]!.revenue, r.revenue);
          assert.equal(rows[i]!.currency, json.body.data.currency);
        });
      }
    });
  }

  it('the member sees only their own earnings in the CSV', async () => {
    const mine = parseCsv((await app.request('GET', '/royalty/asset?format=csv', { token: a.users.user!.token })).text);
    const all = parseCsv((await app.request('GET', '/royalty/asset?format=csv', { token: a.users.admin!.token })).text);
    assert.ok(sum(mine, 'revenue').lt(sum(all, 'revenue')));
    assert.equal(parseCsv((await app.request('GET', '/royalty/?format=csv', { token: b.users.admin!.token })).text).length, 0);
  });

  it('neutralises formula cells and keeps amounts exact', async () => {
    const csv = await app.request('GET', `/file/${file1}/lines?format=csv`, { token: a.users.admin!.token });
    assert.equal(csv.status, 200, csv.text);
    const rows = parseCsv(csv.text);
    assert.equal(rows.length, hostile.length + 3);
    assert.deepEqual(rows.slice(0, hostile.length).map((r) => r.trackTitle), hostile.map((t) => (/^[=+\-@\t\r]/.test(t) ? `'${t}` : t)));
    assert.equal(rows[0]!.dsp, "'=cmd|calc");
    assert.equal(rows[hostile.length]!.net, '-1.5');
    assert.equal(rows[hostile.length]!.quantity, '-1');
    assert.equal(rows[hostile.length + 1]!.net, '123456789.123456789012');
    assert.equal(rows[hostile.length + 2]!.net, '0.000000000001');
    assert.deepEqual(rows.map((r) => Number(r.lineNo)), rows.map((_, i) => i + 2));
    const artists = parseCsv((await app.request('GET', '/royalty/artist?format=csv', { token: a.users.admin!.token })).text);
    assert.ok(artists.some((r) => r.artist === "'=Evil Artist"));
  });

  it('raw lines: JSON pages, the member view, the period form, tenants apart', async () => {
    const page = await app.request('GET', `/file/${file1}/lines?size=2&page=2`, { token: a.users.admin!.token });
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.data.length, 2);
    assert.equal(page.body.pagination.total, hostile.length + 3);
    assert.equal(page.body.data[0].lineNo, 4);
    assert.equal(page.body.data[0].trackTitle, hostile[2]); // JSON is not neutralised
    // Member: the lines that pay them, with share and earnings; their earnings = their royalty total.
    const member = parseCsv((await app.request('GET', `/royalty/lines?period=2024-Q1&format=csv`, { token: a.users.user!.token })).text);
    const total = (await app.request('GET', '/royalty/', { token: a.users.user!.token })).body.data.total;
    assert.equal(member.length, hostile.length + 3); // every matched line of both files (unmatched pays nobody)
    assert.equal(sum(member, 'earnings').toFixed(), new Decimal(total.revenue).toFixed());
    assert.ok(member.every((r) => r.share === '66.666667' || r.share === '100'));
    const admin = parseCsv((await app.request('GET', `/royalty/lines?period=2024-01&format=csv`, { token: a.users.admin!.token })).text);
    assert.equal(admin.length, hostile.length + 3);
    assert.equal(admin[0]!.earnings, undefined);
    const q1 = parseCsv((await app.request('GET', `/royalty/lines?period=2024-Q1&format=csv`, { token: a.users.admin!.token })).text);
    assert.equal(q1.length, hostile.length + 4);
    // Another workspace: 404 in every format; its own period is empty.
    for (const f of ['', '?format=csv', '?format=xlsx']) {
      const r = await app.request('GET', `/file/${file1}/lines${f}`, { token: b.users.admin!.token });
      assert.equal(r.status, 404, f);
      assert.equal(r.body.status, 'error');
    }
    assert.equal(parseCsv((await app.request('GET', `/royalty/lines?period=2024-Q1&format=csv`, { token: b.users.admin!.token })).text).length, 0);
    const guest = await app.request('GET', `/file/${file1}/lines?format=csv`, { token: a.users.guest!.token });
    assert.equal(guest.status, 403);
  });

  it('bad formats and periods are 400s naming the field', async () => {
    const r = await app.request('GET', '/royalty/dsp?format=pdf', { token: a.users.admin!.token });
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body), /format/);
    const p = await app.request('GET', '/royalty/lines?period=2024-13&format=csv', { token: a.users.admin!.token });
    assert.equal(p.status, 400);
    assert.match(JSON.stringify(p.body), /period/);
    const d = await app.request('GET', '/royalty/month?start=2024-99&format=csv', { token: a.users.admin!.token });
    assert.equal(d.status, 400);
  });

  it('XLSX: one worksheet, numbers where a double holds them, exact text otherwise', async () => {
    const res = await fetch(`${app.url}/file/${file1}/lines?format=xlsx`, { headers: { authorization: `Bearer ${a.users.admin!.token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
    const ws = wb.worksheets[0]!;
    const header = (ws.getRow(1).values as unknown[]).slice(1);
    const col = (k: string) => header.indexOf(k) + 1;
    assert.equal(ws.rowCount, hostile.length + 4);
    assert.equal(ws.getRow(2).getCell(col('trackTitle')).value, hostile[0]); // a string cell, not a formula
    assert.equal(ws.getRow(2).getCell(col('trackTitle')).type, ExcelJS.ValueType.String);
    assert.equal(ws.getRow(3).getCell(col('net')).value, 1.123456789012); // 13 significant digits: a number
    assert.equal(ws.getRow(2 + hostile.length).getCell(col('net')).value, -1.5);
    assert.equal(ws.getRow(3 + hostile.length).getCell(col('net')).value, '123456789.123456789012'); // 21 digits: exact text
    assert.equal(ws.getRow(2).getCell(col('lineNo')).value, 2);

    const dsp = await fetch(`${app.url}/royalty/dsp?format=xlsx`, { headers: { authorization: `Bearer ${a.users.admin!.token}` } });
    const wb2 = new ExcelJS.Workbook();
    await wb2.xlsx.load(Buffer.from(await dsp.arrayBuffer()) as never);
    const json = (await app.request('GET', '/royalty/dsp', { token: a.users.admin!.token })).body.data;
    assert.equal(wb2.worksheets[0]!.rowCount, json.rows.length + 1);
  });

  it('XLSX: months and days are date cells (issue 31, case 9)', async () => {
    const res = await fetch(`${app.url}/file/${file1}/lines?format=xlsx`, { headers: { authorization: `Bearer ${a.users.admin!.token}` } });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
    const ws = wb.worksheets[0]!;
    const header = (ws.getRow(1).values as unknown[]).slice(1);
    const col = (k: string) => header.indexOf(k) + 1;
    const month = ws.getRow(3 + hostile.length).getCell(col('saleMonth'));
    assert.equal(month.type, ExcelJS.ValueType.Date);
    assert.equal((month.value as Date).toISOString(), '2023-12-01T00:00:00.000Z');
    assert.equal(month.numFmt, 'yyyy-mm');
    const day = ws.getRow(2).getCell(col('accountingPeriod'));
    const json = (await app.request('GET', `/file/${file1}/lines?size=1`, { token: a.users.admin!.token })).body.data[0];
    assert.equal(day.type, ExcelJS.ValueType.Date);
    assert.equal((day.value as Date).toISOString().slice(0, 10), json.accountingPeriod);
    assert.equal(day.numFmt, 'yyyy-mm-dd');
    // a breakdown's month column too; the CSV keeps the text
    const m = await fetch(`${app.url}/royalty/month?format=xlsx`, { headers: { authorization: `Bearer ${a.users.admin!.token}` } });
    const wb2 = new ExcelJS.Workbook();
    await wb2.xlsx.load(Buffer.from(await m.arrayBuffer()) as never);
    const cell = wb2.worksheets[0]!.getRow(2).getCell(1);
    assert.equal(cell.type, ExcelJS.ValueType.Date);
    const rows = (await app.request('GET', '/royalty/month', { token: a.users.admin!.token })).body.data.rows;
    assert.equal((cell.value as Date).toISOString().slice(0, 7), rows[0].month);
    assert.match((await app.request('GET', '/royalty/month?format=csv', { token: a.users.admin!.token })).text.split('\r\n')[1]!, /^\d{4}-\d{2},/);
  });

  it('documents format and the file content types in OpenAPI', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    for (const p of [...BREAKDOWNS, '/file/{id}/lines', '/royalty/lines', '/releases/{id}/analytics']) {
      const op = doc.paths[p].get;
      assert.ok(op.parameters.some((x: { name: string }) => x.name === 'format'), p);
      assert.ok(op.responses['200'].content['text/csv'], p);
      assert.ok(op.responses['200'].content['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'], p);
    }
  });
});

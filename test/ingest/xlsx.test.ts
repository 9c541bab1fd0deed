/**
 * .xlsx statements through real HTTP, a real Postgres and the real workers: an Orchard
 * workbook (built by xlsx-writer.ts the way Excel lays one out) is detected as `orchard` and
 * stored line for line like the same rows uploaded as CSV; a workbook inside a zip; an admin
 * pattern with its own delimiter and decimal comma; corrupt, non-workbook, legacy .xls and
 * bomb workbooks fail cleanly.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile, waitChildren, seedRates } from './helpers';
import { zipBuffers } from './zip-writer';
import { buildXlsx, type Cell } from './xlsx-writer';

const HEADER = [
  'STATEMENT PERIOD', 'ACCOUNT ID', 'CONTRACT ID', 'TRANSACTION DATE', 'SALE COUNTRY', 'STORE', 'SERVICE DETAIL', 'LABEL IMPRINT',
  'PRODUCT ARTIST', 'PRODUCT', 'PRODUCT VERSION', 'TRACK ARTIST', 'TRACK', 'TRACK VERSION', 'DISPLAY UPC', 'ISRC', 'TRANSACTION TYPE',
  'TRANSACTION SUBTYPE', 'QUANTITY', 'SALE CURRENCY', 'UNIT PRICE SALE CURRENCY', 'GROSS REVENUE SALE CURRENCY', 'CURRENCY CONVERSION RATE',
  'ACCOUNT CURRENCY', 'GROSS REVENUE ACCOUNT CURRENCY', 'NET SHARE ACCOUNT CURRENCY', 'ORIGINAL STATEMENT PERIOD',
];

/**
 * One statement line: what the CSV says, and how Excel holds it. `netX` is the number text an
 * Excel file carries for the same amount (a double printed in full, or E notation).
 */
interface Line {
  day: number; // serial of TRANSACTION DATE (45672 = 2025-01-15)
  iso: string;
  country: string;
  store: string;
  service: string; // '' → no cell in the workbook (a gap mid-row)
  track: string;
  upc: string; // text (may carry `empty:`), or digits written as a number cell when upcNumber
  upcNumber?: boolean;
  isrc: string;
  type: string;
  qty: string;
  saleCur: string;
  gross: string;
  rate: string;
  cur: string;
  net: string;
  netX?: string;
}

const LINES: (Line | null)[] = [
  { day: 45672, iso: '2025-01-15', country: 'US', store: 'Spotify', service: 'Premium', track: 'Low Orbit', upc: 'empty:00602445791231', isrc: 'QZES81912345', type: 'Stream', qty: '12', saleCur: 'USD', gross: '0.0426', rate: '1', cur: 'USD', net: '0.0213', netX: '0.021299999999999999' },
  { day: 45672, iso: '2025-01-15', country: 'US', store: 'Apple Music', service: '', track: 'Low Orbit', upc: '602445791231', upcNumber: true, isrc: 'qzes81912345', type: 'Stream', qty: '1', saleCur: 'USD', gross: '0.0024', rate: '1', cur: 'USD', net: '0.0012', netX: '1.2E-3' },
  { day: 45673, iso: '2025-01-16', country: 'GB', store: 'iTunes', service: 'Download', track: 'Paper Suns, "live"', upc: 'empty:', isrc: 'QZES81912346', type: 'Download', qty: '1', saleCur: 'GBP', gross: '1.05', rate: '1.19047619', cur: 'USD', net: '1.25' },
  null, // a blank line / a missing row
  { day: 45674, iso: '2025-01-17', country: 'US', store: 'Spotify', service: '', track: 'Low Orbit', upc: 'empty:00602445791231', isrc: 'QZES81912345', type: 'Adjustment', qty: '-3', saleCur: 'USD', gross: '-1', rate: '1', cur: 'USD', net: '-0.5' },
  { day: 45672, iso: '2025-01-15', country: 'FR', store: 'Deezer', service: 'Premium', track: 'Chanson No\u00ebl', upc: '3617052461238', isrc: 'FRZ031800001', type: 'Stream', qty: '5', saleCur: 'EUR', gross: '0.2', rate: '1', cur: 'EUR', net: '0.1', netX: '0.10000000000000001' },
  { day: 45688, iso: '2025-01-31', country: 'DE', store: 'Amazon', service: '', track: 'Paper Suns, "live"', upc: '3617052461238', isrc: 'FRZ031800002', type: 'Download', qty: '2', saleCur: 'EUR', gross: '5', rate: '1', cur: 'EUR', net: '2.5' },
  { day: 45688, iso: '2025-01-31', country: 'DE', store: 'Amazon', service: 'Unlimited', track: 'Tiefe See', upc: '3617052461238', isrc: 'FRZ031800003', type: 'Stream', qty: '40', saleCur: 'EUR', gross: '0.666666666666', rate: '1', cur: 'EUR', net: '0.333333333333' },
];
const EXPECTED_TOTALS = { EUR: '2.933333333333', USD: '0.7725' };
const EXPECTED_ROWS = 7;

function values(l: Line): string[] {
  return ['January 2025', 'AC-7731', 'CT-12', l.iso, l.country, l.store, l.service, 'Nova Lune Records', 'Nova Lune', 'Orbit EP', '', 'Nova Lune', l.track, '',
    l.upc, l.isrc, l.type, '', l.qty, l.saleCur, '0.01', l.gross, l.rate, l.cur, l.net, l.net, ''];
}

const q = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
function orchardCsv(): string {
  return '\ufeff' + [HEADER.join(','), ...LINES.map((l) => (l ? values(l).map(q).join(',') : ''))].join('\r\n') + '\r\n';
}

function orchardXlsx(): Buffer {
  const rows: (Cell[] | null)[] = [HEADER];
  for (const l of LINES) {
    if (!l) {
      rows.push(null);
      continue;
    }
    const v = values(l);
    const cells: Cell[] = v.map((s) => (s === '' ? null : s)); // empty cells are absent, as Excel writes them
    cells[3] = { date: l.day, style: l.day === 45688 ? 2 : 1 };
    if (l.upcNumber) cells[14] = { n: l.upc };
    cells[18] = { n: l.qty };
    cells[20] = { n: '0.01' };
    cells[21] = { n: l.gross };
    cells[22] = { n: l.rate };
    cells[24] = { n: l.netX ?? l.net };
    cells[25] = { n: l.netX ?? l.net };
    cells[26] = null; // ORIGINAL STATEMENT PERIOD empty: the row ends early
    if (l.store === 'iTunes') cells[8] = { inline: 'Nova Lune' };
    rows.push(cells);
  }
  return buildXlsx([{ name: 'Statement', rows }]);
}

describe('statement ingestion: .xlsx workbooks', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let admin: string;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Xlsx A');
    await seedRates(app, a.tenantId);
    admin = a.users.admin!.token;
  });
  after(async () => app?.close());

  const LINE_COLS = ['line_no', 'sale_month', 'sale_period_start', 'sale_period_end', 'accounting_period', 'dsp', 'country', 'isrc', 'upc', 'track_title', 'artist',
    'release_title', 'label', 'sale_type', 'quantity', 'gross', 'gross_currency', 'net', 'currency', 'exchange_rate', 'aggregator', 'isrc_raw', 'upc_raw'];
  const lines = async (fileId: string) =>
    (await app.svc.db.owner('royalty_lines').where({ file_id: fileId }).orderBy('line_no').select(LINE_COLS.map((c) => app.svc.db.owner.raw(`${c}::text as ${c}`)))) as Record<string, string | null>[];

  it('an Orchard workbook is detected as orchard and stored exactly like the same rows as CSV', async () => {
    const x = await waitFile(app, admin, (await upload(app, admin, 'orchard-statement.xlsx', orchardXlsx())).body.data.id);
    const c = await waitFile(app, admin, (await upload(app, admin, 'orchard-statement.csv', orchardCsv())).body.data.id);
    for (const f of [x, c]) {
      assert.equal(f.status, 'processed', `${f.fileName}: ${f.error}`);
      assert.equal(f.source.key, 'orchard', f.fileName);
      assert.equal(f.confidence.schema, 1);
      assert.deepEqual(f.counts, { rowsRead: EXPECTED_ROWS, rowsIngested: EXPECTED_ROWS, rowsFailed: 0, rowsSkipped: 0 }, f.fileName);
      assert.deepEqual(f.totals, EXPECTED_TOTALS, f.fileName);
      assert.equal(f.accountingPeriod, '2025-01-01');
      assert.deepEqual(f.salePeriod, { start: '2025-01-01', end: '2025-01-31' });
    }
    assert.equal(x.kind, 'statement');
    const lx = await lines(x.id), lc = await lines(c.id);
    assert.equal(lx.length, EXPECTED_ROWS);
    assert.deepEqual(lx, lc);
    // line numbers are the spreadsheet's row numbers (the missing row 5 included)
    assert.deepEqual(lx.map((l) => l.line_no), ['2', '3', '4', '6', '7', '8', '9']);
    const first = lx[0]!;
    assert.equal(first.sale_month, '2025-01-01');
    assert.equal(first.net, '0.0213');
    assert.equal(first.upc, '00602445791231');
    assert.equal(lx[1]!.isrc, 'QZES81912345');
    assert.equal(lx[1]!.upc, '602445791231');
    assert.equal(lx[2]!.upc, null);
    assert.equal(lx[2]!.track_title, 'Paper Suns, "live"');
    assert.equal(lx[2]!.artist, 'Nova Lune');
    assert.equal(lx[3]!.net, '-0.5');
    assert.equal(lx[4]!.track_title, 'Chanson No\u00ebl');
    assert.equal(lx[4]!.net, '0.1');
  });

  it('a zip holding a workbook and a CSV statement: each is one child statement, read alike', async () => {
    const zip = zipBuffers([
      { name: 'statements/orchard.xlsx', data: orchardXlsx() },
      { name: 'statements/orchard.csv', data: orchardCsv() },
    ]);
    const r = await upload(app, admin, 'orchard-bundle.zip', zip, { force: 'true' });
    const kids = await waitChildren(app, admin, r.body.data.id, 2);
    assert.deepEqual(kids.map((k) => k.fileName).sort(), ['orchard.csv', 'orchard.xlsx']);
    for (const k of kids) {
      assert.equal(k.status, 'processed', `${k.fileName}: ${k.error}`);
      assert.equal(k.source.key, 'orchard');
      assert.equal(k.counts.rowsIngested, EXPECTED_ROWS);
      assert.deepEqual(k.totals, EXPECTED_TOTALS);
    }
    assert.equal((await app.request('GET', `/file/${r.body.data.id}`, { token: admin })).body.data.kind, 'archive');
  });

  it('an admin pattern with a semicolon delimiter and decimal comma reads a workbook as it reads its CSV', async () => {
    const god = (await app.svc.auth.createApiKey('god', {})).token;
    const pattern = {
      key: 'rondo-test-semicolon',
      name: 'Rondo Test Semicolon',
      aggregator: 'RTS',
      layout: 'table',
      detect: { fileName: '^rts_', headers: ['Mois', 'Piste', 'ISRC', 'Pays', 'Revenu net', 'Devise'] },
      format: { delimiter: ';', encoding: 'auto', decimal: ',' },
      columns: { saleMonth: { from: 'Mois' }, trackTitle: { from: 'Piste' }, isrc: { from: 'ISRC' }, country: { from: 'Pays' }, net: { from: 'Revenu net' }, currency: { from: 'Devise' } },
    };
    const c = await app.request('POST', '/sources/admin', { token: god, body: { pattern } });
    assert.equal(c.status, 201, c.text);
    const xlsx = buildXlsx([
      {
        name: 'Relevé',
        rows: [
          ['Mois', 'Piste', 'ISRC', 'Pays', 'Revenu net', 'Devise'],
          ['2024-03', 'Basse; orbite', 'QZES81912345', 'FR', { n: '1.234' }, 'EUR'],
          ['2024-03', 'Soleils', 'QZES81912346', 'DE', { n: '-0.000211' }, 'EUR'],
        ],
      },
    ]);
    const f = await waitFile(app, admin, (await upload(app, admin, 'rts_mars.xlsx', xlsx)).body.data.id);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.source.key, 'rondo-test-semicolon');
    assert.deepEqual(f.totals, { EUR: '1.233789' }); // 1.234 stays 1.234 (not one thousand two hundred…)
    assert.equal((await lines(f.id))[0]!.track_title, 'Basse; orbite');

    // the pattern creator's dry run reads a workbook sample the same way
    const fd = new FormData();
    fd.append('file', new Blob([xlsx]), 'rts_mars.xlsx');
    const d = await app.request('POST', '/pattern-creator/dry-run', { token: god, raw: fd });
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.data.detection[0].patternKey, 'rondo-test-semicolon');
    assert.deepEqual(d.body.data.read.summary.totals, { EUR: '1.233789' });
    assert.equal(d.body.data.read.lines[0].trackTitle, 'Basse; orbite');
    const fd2 = new FormData();
    fd2.append('file', new Blob([xlsx.subarray(0, xlsx.length - 40)]), 'cut.xlsx');
    const d2 = await app.request('POST', '/pattern-creator/dry-run', { token: god, raw: fd2 });
    assert.equal(d2.status, 400);
    assert.match(d2.body.message, /cannot be read as an xlsx workbook/);
  });

  it('corrupt, truncated, non-workbook, legacy .xls and bomb workbooks fail cleanly; the worker goes on', async () => {
    const good = orchardXlsx();
    const cases: [string, Buffer, RegExp][] = [
      ['cut.xlsx', good.subarray(0, good.length - 30), /xlsx workbook is corrupt or truncated/],
      ['not-a-workbook.xlsx', zipBuffers([{ name: 'data.csv', data: orchardCsv() }]), /not an xlsx workbook/],
      ['legacy.xls', Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(504)]), /Legacy binary Excel workbooks \(\.xls\) are not read/],
      [
        'bomb.xlsx',
        zipBuffers([
          { name: '[Content_Types].xml', data: '<Types/>' },
          { name: 'xl/workbook.xml', data: '<workbook><sheets><sheet name="S" sheetId="1"/></sheets></workbook>' },
          { name: 'xl/worksheets/sheet1.xml', data: `<worksheet><sheetData>${'<row><c><v>0</v></c></row>'.repeat(200_000)}</sheetData></worksheet>` },
        ]),
        /Refused: workbook entry "xl\/worksheets\/sheet1.xml" expands \d+:1/,
      ],
    ];
    // the sheet's deflated bytes damaged: the structure opens, reading the sheet fails
    const bad = Buffer.from(good);
    const at = bad.indexOf(Buffer.from('xl/worksheets/sheet1.xml')) + 'xl/worksheets/sheet1.xml'.length + 60;
    for (let i = at; i < at + 48; i++) bad[i] = bad[i]! ^ 0x5a;
    cases.push(['damaged.xlsx', bad, /xlsx workbook is corrupt/]);
    for (const [name, data, re] of cases) {
      const f = await waitFile(app, admin, (await upload(app, admin, name, data)).body.data.id);
      assert.equal(f.status, 'failed', `${name}: ${f.status}`);
      assert.match(f.error, re, name);
      assert.equal(Number((await app.svc.db.owner('royalty_lines').where({ file_id: f.id }).count('* as n'))[0]!.n), 0);
    }
    // the worker still works
    const ok = await waitFile(app, admin, (await upload(app, admin, 'after.xlsx', good, { force: 'true' })).body.data.id);
    assert.equal(ok.status, 'processed', ok.error);
    assert.deepEqual(ok.totals, EXPECTED_TOTALS);
  });

  it('a gzipped workbook is expanded and read as a workbook', async () => {
    const f = await waitFile(app, admin, (await upload(app, admin, 'orchard-statement.xlsx.gz', zlib.gzipSync(orchardXlsx()), { force: 'true' })).body.data.id);
    assert.equal(f.status, 'processed', f.error);
    assert.equal(f.source.key, 'orchard');
    assert.deepEqual(f.totals, EXPECTED_TOTALS);
  });
});

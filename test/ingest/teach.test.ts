/**
 * Teaching Rondo a layout, by API only, as a workspace admin: upload an unknown statement,
 * draft a pattern from it, validate, save it as the workspace's source, confirm the file
 * with it, and load it to exact totals. No file edit, no re-upload, no super-admin.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { upload, waitFile, seedRates } from './helpers';

/** Header-less: a header record H, sale records S,M and S,P with different cell positions, a totals record T. */
const KINDS = [
  'H,NOVA LUNE RECORDS,2024-03',
  'S,M,2024-03,USRC17607839,Low Orbit,Nova Lune,DE,12,1.25,EUR,T-100.001.001-1',
  'S,P,2024-03,USRC17607840,Paper Suns,FR,0.75,3,EUR',
  'S,M,2024-03,USRC17607841,Glass Tide,Nova Lune,US,40,2.005,EUR,T-100.001.002-2',
  'S,P,2024-03,USRC17607839,Low Orbit,GB,0.3,1,EUR',
  'T,4,4.305,EUR',
  '',
].join('\r\n');

function kindsPattern() {
  return {
    key: 'nova-kinds', name: 'Nova kinds', aggregator: 'Nova Distribution', layout: 'table',
    detect: { headers: ['H', 'S', 'T'] },
    format: { delimiter: ',', encoding: 'auto', header: 'none' },
    columns: {
      saleMonth: { column: 2 }, isrc: { column: 3 }, trackTitle: { column: 4 },
      net: { column: 8 }, currency: { column: 9 }, quantity: { column: 7 }, country: { column: 6 }, artist: { column: 5 },
    },
    rowKinds: {
      cell: 0,
      kinds: [
        { name: 'header', values: ['H'], use: 'skip' },
        { name: 'mechanical', values: ['S'], where: { 1: ['M'] }, use: 'data' },
        { name: 'performance', values: ['S'], where: { 1: ['P'] }, use: 'data', columns: { country: { column: 5 }, net: { column: 6 }, quantity: { column: 7 }, currency: { column: 8 }, artist: { const: 'Nova Lune' } } },
        { name: 'totals', values: ['T'], use: 'total', rowCountCell: 1, columns: { net: { column: 2 }, currency: { column: 3 } } },
      ],
    },
    extra: { iswc: { column: 10, extract: '^(T-[\\d.]+-\\d)$' } },
  };
}

const QUARTERS = [
  'Period;Work Title;ISWC;Writers;Recording;Territory;Uses;Royalty;Withholding;Currency',
  '1Q2024;Low Orbit;T-100.001.001-1;A. Writer / B. Writer;USRC17607839;DE;100;10,50;1,05;EUR',
  '20242;Paper Suns;T-100.001.002-2;A. Writer;USRC17607840;FR;20;2,25;0;EUR',
  'Q3 2024;Glass Tide;;C. Writer;USRC17607841;US;7;0,333;0,033;EUR',
  '2024Q4;Low Orbit;T-100.001.001-1;A. Writer / B. Writer;USRC17607839;GB;3;1,00;;EUR',
  '2024-H2;Low Orbit;T-100.001.001-1;A. Writer / B. Writer;USRC17607839;JP;1;0,10;0,01;EUR',
  'Total;;;;;;;14,183;1,093;EUR',
  '',
].join('\n');

function quarterPattern(net: Record<string, unknown>) {
  return {
    key: 'society-quarters', name: 'Society quarters', aggregator: 'Society', layout: 'table',
    detect: { headers: ['Period', 'Work Title', 'Royalty', 'Withholding'] },
    format: { delimiter: ';', encoding: 'auto', decimal: ',' },
    columns: {
      saleMonth: { from: 'Period' }, trackTitle: { from: 'Work Title' }, isrc: { from: 'Recording' }, country: { from: 'Territory' },
      quantity: { from: 'Uses' }, net, currency: { from: 'Currency' },
    },
    rows: [{ column: 'Period', equals: ['Total'], action: 'total', amountCell: 7 }],
    extra: { iswc: { from: 'ISWC' }, writers: { from: 'Writers' } },
  };
}

const SPLITS = [
  'Month,Song,ISRC,Store,Amount,Split,Currency',
  '2024-01,Low Orbit,USRC17607839,Spotify,10.00,50%,USD',
  '2024-01,Paper Suns,USRC17607840,Apple Music,3.33,0.25,USD',
  '2024-02,Glass Tide,USRC17607841,Deezer,0.07,100%,USD',
  '',
].join('\n');

describe('teaching a layout as a workspace admin (API only)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let admin: string;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Teach A');
    b = await createTestTenant(app, 'Teach B');
    await seedRates(app, a.tenantId, b.tenantId);
    admin = a.users.admin!.token;
  });
  after(async () => app?.close());

  /** Upload → needs_confirmation → save the pattern → confirm → processed. */
  /** (Layouts taught earlier in this file would recognise the upload: it is held for confirmation.) */
  async function teach(name: string, text: string, pattern: Record<string, unknown>) {
    const up = await upload(app, admin, name, text, { forceManualConfirmation: 'true' });
    assert.equal(up.status, 201, up.text);
    const id = up.body.data.id;
    assert.equal((await waitFile(app, admin, id)).status, 'needs_confirmation');
    const v = await app.request('POST', '/sources/validate', { token: admin, body: { pattern, fileId: id } });
    assert.equal(v.status, 200, v.text);
    assert.deepEqual(v.body.data.errors, []);
    assert.equal(v.body.data.valid, true);
    const s = await app.request('POST', '/sources', { token: admin, body: { pattern } });
    assert.equal(s.status, 201, s.text);
    const c = await app.request('POST', `/file/confirm-detection/${id}`, { token: admin, body: { source: pattern.key } });
    assert.equal(c.status, 200, c.text);
    const f = await waitFile(app, admin, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    return { id, file: f, validation: v.body.data, source: s.body.data };
  }

  async function extras(fileId: string): Promise<unknown[]> {
    const rows = await app.svc.db.owner('royalty_lines').where({ file_id: fileId }).orderBy('line_no').select('extra');
    return rows.map((r) => r.extra);
  }

  it('the pattern schema is open to workspace admins, with a description and an example for every field; not to users', async () => {
    const r = await app.request('GET', '/sources/pattern-schema', { token: admin });
    assert.equal(r.status, 200, r.text);
    const s = r.body.data;
    const fm = s.properties.columns.properties.net;
    for (const [k, v] of Object.entries<any>(fm.properties)) {
      assert.ok(v.description, `net.${k} has a description`);
      assert.ok(v.examples?.length, `net.${k} has an example`);
    }
    for (const k of ['rowKinds', 'extra', 'rows', 'format', 'detect']) assert.ok(s.properties[k].description && s.properties[k].examples, k);
    assert.equal((await app.request('GET', '/sources/pattern-schema', { token: a.users.user!.token })).status, 403);
    assert.equal((await app.request('POST', '/sources/validate', { token: a.users.user!.token, body: { pattern: kindsPattern() } })).status, 403);
    assert.equal((await app.request('POST', '/sources/draft', { token: a.users.user!.token, body: {} })).status, 403);
  });

  it('a header-less layout with row kinds: drafted as header-less, taught, loaded to exact totals with the control totals reconciled', async () => {
    const up = await upload(app, admin, 'nova_kinds_202403.csv', KINDS);
    const id = up.body.data.id;
    assert.equal((await waitFile(app, admin, id)).status, 'needs_confirmation');
    const d = await app.request('POST', '/sources/draft', { token: admin, body: { fileId: id } });
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.data.headerLine, null);
    assert.equal(d.body.data.delimiter, ',');
    assert.equal(d.body.data.pattern.format.header, 'none');
    // the first cell is a record kind: the draft proposes the kinds, each sale kind with its own cells
    const rk = d.body.data.pattern.rowKinds;
    assert.deepEqual(rk.kinds.map((k: any) => [k.values, k.where ?? null, k.use]), [
      [['S'], { 1: ['M'] }, 'data'], [['S'], { 1: ['P'] }, 'data'], [['H'], null, 'skip'], [['T'], null, 'total'],
    ]);
    assert.deepEqual(rk.kinds[1].columns, { country: { column: 5 }, net: { column: 6 }, currency: { column: 8 } });
    assert.deepEqual([rk.kinds[3].rowCountCell, rk.kinds[3].columns], [1, { net: { column: 2 }, currency: { column: 3 } }]);
    const asDrafted = await app.request('POST', '/sources/validate', { token: admin, body: { pattern: d.body.data.pattern, fileId: id } });
    assert.equal(asDrafted.status, 200, asDrafted.text);
    assert.deepEqual([asDrafted.body.data.errors, asDrafted.body.data.totals, asDrafted.body.data.reconciles], [[], { EUR: '4.305' }, true]);
    // the admin corrects the draft into the row-kind pattern and saves it; the same upload is confirmed
    const v = await app.request('POST', '/sources/validate', { token: admin, body: { pattern: kindsPattern(), fileId: id } });
    assert.equal(v.status, 200, v.text);
    assert.deepEqual(v.body.data.errors, []);
    assert.deepEqual(v.body.data.totals, { EUR: '4.305' });
    assert.deepEqual(v.body.data.control, { rows: 4, totals: { EUR: '4.305' } });
    assert.equal(v.body.data.reconciles, true);
    assert.deepEqual(v.body.data.skipped, { rows: 1, totals: {} });
    assert.equal((await app.request('POST', '/sources', { token: admin, body: { pattern: kindsPattern() } })).status, 201);
    assert.equal((await app.request('POST', `/file/confirm-detection/${id}`, { token: admin, body: { source: 'nova-kinds' } })).status, 200);
    const f = await waitFile(app, admin, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.deepEqual(f.totals, { EUR: '4.305' });
    assert.equal(f.counts.rowsIngested, 4);
    assert.equal(f.counts.rowsFailed, 0);
    const lines = await app.svc.db.owner('royalty_lines').where({ file_id: id }).orderBy('line_no').select('country', app.svc.db.owner.raw('trim_scale(net)::text as net'), app.svc.db.owner.raw('trim_scale(quantity)::text as quantity'), 'artist');
    assert.deepEqual(lines.map((l) => [l.country, String(l.net), String(l.quantity), l.artist]), [
      ['DE', '1.25', '12', 'Nova Lune'], ['FR', '0.75', '3', 'Nova Lune'], ['US', '2.005', '40', 'Nova Lune'], ['GB', '0.3', '1', 'Nova Lune'],
    ]);
    assert.deepEqual(await extras(id), [{ iswc: 'T-100.001.001-1' }, null, { iswc: 'T-100.001.002-2' }, null]);
    // the next file of the layout is recognised by its row kinds
    const next = await upload(app, admin, 'nova_kinds_202404.csv', KINDS.replace(/2024-03/g, '2024-04'));
    const f2 = await waitFile(app, admin, next.body.data.id);
    assert.equal(f2.status, 'processed', f2.error);
    assert.equal(f2.source.key, 'nova-kinds');
  });

  it('a layout with quarter and half-year periods (1Q2024, 20242, Q3 2024, 2024Q4, 2024-H2), a totals row and extra fields', async () => {
    const { id, file, validation } = await teach('society_2024.csv', QUARTERS, quarterPattern({ from: 'Royalty' }));
    assert.deepEqual(validation.control, { totals: { EUR: '14.183' } });
    assert.equal(validation.reconciles, true);
    assert.deepEqual(file.totals, { EUR: '14.183' });
    const lines = await app.svc.db.owner('royalty_lines').where({ file_id: id }).orderBy('line_no').select(app.svc.db.owner.raw("to_char(sale_month,'YYYY-MM-DD') as m, to_char(sale_period_end,'YYYY-MM-DD') as e"));
    assert.deepEqual(lines.map((l) => [l.m, l.e]), [
      ['2024-01-01', '2024-03-31'], ['2024-04-01', '2024-06-30'], ['2024-07-01', '2024-09-30'], ['2024-10-01', '2024-12-31'], ['2024-07-01', '2024-12-31'],
    ]);
    assert.deepEqual((await extras(id))[0], { iswc: 'T-100.001.001-1', writers: 'A. Writer / B. Writer' });
    assert.deepEqual((await extras(id))[2], { writers: 'C. Writer' });
  });

  it('a layout with computed amounts: royalty − withholding, amount × split, exactly', async () => {
    const p = { ...quarterPattern({ compute: { op: 'difference', of: ['Royalty', 'Withholding'] } }), key: 'society-net', rows: [{ column: 'Period', equals: ['Total'], action: 'skip' }] };
    const { file, validation } = await teach('society_net_2024.csv', QUARTERS + '\n', p);
    assert.deepEqual(file.totals, { EUR: '13.09' });
    assert.deepEqual(validation.skipped, { rows: 1, totals: { EUR: '13.09' } });
    const splits = {
      key: 'split-layout', name: 'Split layout', aggregator: 'Splitter', layout: 'table',
      detect: { headers: ['Month', 'Song', 'Amount', 'Split'] }, format: { delimiter: ',', encoding: 'auto' },
      columns: { saleMonth: { from: 'Month' }, trackTitle: { from: 'Song' }, isrc: { from: 'ISRC' }, dsp: { from: 'Store' }, net: { compute: { op: 'product', of: ['Amount', 'Split'] } }, currency: { from: 'Currency' } },
    };
    const r = await teach('splits_2024.csv', SPLITS, splits);
    assert.deepEqual(r.file.totals, { USD: '5.9025' });
  });

  it('validation names every missing column, every unreadable value with counts and examples, and the totals it would load', async () => {
    const bad = (QUARTERS + '\n\n').replace('Q3 2024', 'sometime').replace('20242', 'n/a').replace('0,333', 'abc');
    const up = await upload(app, admin, 'society_bad.csv', bad);
    const id = up.body.data.id;
    await waitFile(app, admin, id);
    const p = quarterPattern({ from: 'Royalty' }) as any;
    p.columns.artist = { from: 'Artsit' }; // misspelt optional column
    p.columns.upc = { from: 'Barcode' };
    p.extra.code = { from: 'Song Code' };
    const v = await app.request('POST', '/sources/validate', { token: admin, body: { pattern: p, fileId: id } });
    assert.equal(v.status, 200, v.text);
    const d = v.body.data;
    assert.equal(d.valid, false);
    assert.deepEqual(d.missingColumns, [{ field: 'artist', column: 'Artsit' }, { field: 'upc', column: 'Barcode' }, { field: 'extra.code', column: 'Song Code' }]);
    for (const c of ['Artsit', 'Barcode', 'Song Code']) assert.ok(d.errors.some((e: string) => e.includes(`"${c}"`) && e.includes('not in the sample')), c);
    assert.deepEqual(d.unreadable.map((u: any) => [u.field, u.column, u.count, u.examples.map((x: any) => x.value)]), [
      ['saleMonth', 'Period', 2, ['n/a', 'sometime']],
    ]);
    assert.ok(d.errors.includes('2 value(s) in "Period" (saleMonth) cannot be read, e.g. "n/a", "sometime" (line 3, 4)'), d.errors.join('\n'));
    assert.deepEqual(d.totals, { EUR: '11.6' });
    assert.deepEqual(d.rows, { read: 6, ingested: 3, failed: 2, skipped: 1 });
    // marked optional, the absent column is not reported
    p.columns.artist.optional = true;
    const v2 = await app.request('POST', '/sources/validate', { token: admin, body: { pattern: p, fileId: id } });
    assert.deepEqual(v2.body.data.missingColumns.map((m: any) => m.column), ['Barcode', 'Song Code']);
    // a value a normaliser cannot read in an amount
    const q = quarterPattern({ from: 'Withholding' }) as any;
    const v3 = await app.request('POST', '/sources/validate', { token: admin, body: { pattern: q, fileId: id } });
    assert.ok(v3.body.data.unreadable.some((u: any) => u.field === 'net' && u.column === 'Withholding' && u.count === 1 && u.examples[0].value === ''), JSON.stringify(v3.body.data.unreadable));
    // schema mistakes without a sample; another workspace's file is not found
    const s = await app.request('POST', '/sources/validate', { token: admin, body: { pattern: { ...kindsPattern(), format: { delimiter: ',', encoding: 'auto' }, columns: { net: { from: 'x' }, currency: {} } } } });
    assert.equal(s.body.data.valid, false);
    assert.ok(s.body.data.errors.some((e: string) => e.includes('/columns/currency needs one of')), s.text);
    assert.equal((await app.request('POST', '/sources/validate', { token: b.users.admin!.token, body: { pattern: p, fileId: id } })).status, 404);
    assert.equal((await app.request('POST', '/sources/validate', { token: admin, body: { pattern: p, fileId: 'nope' } })).status, 400);
  });

  it('draft from a sample sent with the request: roles with confidences and the first lines as they would be stored', async () => {
    const fd = new FormData();
    fd.append('file', new Blob([SPLITS]), 'splits.csv');
    const d = await app.request('POST', '/sources/draft', { token: admin, raw: fd });
    assert.equal(d.status, 200, d.text);
    const roles = Object.fromEntries(d.body.data.columns.map((c: any) => [c.name, c.role]));
    assert.deepEqual(roles, { Month: 'date', Song: 'title', ISRC: 'isrc', Store: 'dsp', Amount: 'amount', Split: null, Currency: 'currency' });
    assert.ok(d.body.data.columns.every((c: any) => c.role === null || (c.confidence > 0.5 && c.confidence < 1)));
    assert.equal(d.body.data.headerLine, 1);
    assert.equal(d.body.data.preview.lines.length, 3);
    assert.equal(d.body.data.preview.lines[0].net, '10.00');
    assert.equal(d.body.data.preview.lines[0].isrc, 'USRC17607839');
  });

  it('a draft on a statement with no currency proposes the workspace\'s and says it is a guess; validation of a guess says so', async () => {
    const settings = await app.request('GET', '/settings/workspace', { token: admin });
    assert.equal(settings.status, 200, settings.text);
    const base: string = settings.body.data.baseCurrency;
    const csv = 'Date,Platform,ISRC,Track,Streams,Revenue,Fee,Payout Amount\n2024-03-01,Spotify,QZES81912345,Midnight Tides,1200,4.80,1.20,3.60\n2024-03-02,Deezer,QZES81912347,Low Orbit,400,1.20,0.30,0.90\n';
    const fd = new FormData();
    fd.append('file', new Blob([csv]), 'merchline_royalties.csv');
    const d = await app.request('POST', '/sources/draft', { token: admin, raw: fd });
    assert.equal(d.status, 200, d.text);
    assert.deepEqual(d.body.data.currency, { code: base, source: 'workspace', why: `the file does not say; ${base} is the workspace's base currency — a guess to confirm` });
    assert.deepEqual(d.body.data.money.map((m: any) => [m.name, m.basis]), [['Revenue', 'gross'], ['Fee', 'fee'], ['Payout Amount', 'net']]);
    assert.match(d.body.message, /^Draft pattern, with guesses to confirm: currency: /);
    const vd = new FormData();
    vd.append('file', new Blob([csv]), 'merchline_royalties.csv');
    vd.append('pattern', JSON.stringify(d.body.data.pattern));
    const v = await app.request('POST', '/sources/validate', { token: admin, raw: vd });
    assert.equal(v.status, 200, v.text);
    assert.equal(v.body.data.valid, true);
    assert.deepEqual(v.body.data.warnings, [`the currency ${base} is a guess: no column, header or file name of the sample names it; confirm the statement is in ${base}`]);
    assert.match(v.body.message, /^Valid, with guesses to confirm: the currency/);
  });

  it('re-processing a file under a corrected pattern replaces its lines', async () => {
    const p = { ...quarterPattern({ from: 'Withholding' }), key: 'society-fix', rows: [{ column: 'Period', equals: ['Total'] }] } as any;
    p.columns.net.default = '0';
    const { id, file } = await teach('society_fix.csv', QUARTERS + '\n\n\n', p);
    assert.deepEqual(file.totals, { EUR: '1.093' });
    const src = (await app.request('GET', '/sources', { token: admin })).body.data.find((s: any) => s.source.key === 'society-fix');
    const fixed = { ...p, columns: { ...p.columns, net: { from: 'Royalty' } } };
    assert.equal((await app.request('PUT', `/sources/${src.id}`, { token: admin, body: { pattern: fixed } })).status, 200);
    assert.equal((await app.request('POST', `/file/confirm-detection/${id}`, { token: admin, body: { source: 'society-fix' } })).status, 200);
    const f = await waitFile(app, admin, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed', f.error);
    assert.deepEqual(f.totals, { EUR: '14.183' });
    assert.equal(f.source.version, 2);
    const n = await app.svc.db.owner('royalty_lines').where({ file_id: id }).count('* as n').first();
    assert.equal(Number(n!.n), 5);
    // uploading the same file again offers that path instead of a second copy
    const again = await upload(app, admin, 'society_fix_again.csv', QUARTERS + '\n\n\n');
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.data.duplicateOf, id);
    assert.ok(again.body.data.error.includes(`POST /file/reprocess/${id}`), again.body.data.error);
    const back = await app.request('POST', again.body.data.reprocess.path, { token: admin, body: { source: 'society-fix' } });
    assert.equal(back.status, 200, back.text);
    assert.equal((await waitFile(app, admin, id, ['processed', 'failed'])).status, 'processed');
    const lines = await app.svc.db.owner('royalty_lines').where({ tenant_id: a.tenantId }).whereIn('file_id', [id, again.body.data.id]).count('* as n').first();
    assert.equal(Number(lines!.n), 5, 'one copy of the lines');
  });
});

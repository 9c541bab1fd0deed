/**
 * The statement-side lists take sort, order and search (docs/api.md "Lists and paging"):
 * a file's and a period's lines (sorted in SQL, the page taken after the order; without
 * sort and order, line order as before) and the checklists of unmatched recordings and
 * products (grouped, largest amount first by default).
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { loadStatement, type LineIn } from '../allocation/helpers';

function line(p: Partial<LineIn> & { net: string }): LineIn {
  return { saleMonth: '2024-01-01', dsp: 'Spotify', country: 'US', saleType: 'stream', quantity: '1', currency: 'USD', ...p };
}

describe('statement lines and checklists: sort, order, search', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let jan: string;
  let feb: string;
  const get = async (url: string, status = 200) => {
    const r = await app.request('GET', url, { token: t.users.admin!.token });
    assert.equal(r.status, status, r.text);
    return r.body;
  };

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'LineSort');
    // nothing is in the catalogue: every line is unmatched
    jan = await loadStatement(app, t.tenantId, {
      name: 'jan.csv',
      salePeriodEnd: '2024-01-31',
      lines: [
        line({ isrc: 'USAAA2400001', trackTitle: 'Beta', dsp: 'Tidal', net: '9' }),
        line({ isrc: 'USAAA2400002', trackTitle: 'Alpha', dsp: 'Apple', net: '100', upc: '0012345678905', releaseTitle: 'Big Album' }),
        line({ isrc: 'USAAA2400001', trackTitle: 'Beta', dsp: 'Spotify', net: '-2', quantity: '-1' }),
        line({ isrc: 'USAAA2400003', trackTitle: 'Gamma', dsp: 'Deezer', net: '30' }),
      ],
    });
    feb = await loadStatement(app, t.tenantId, { name: 'feb.csv', salePeriodEnd: '2024-02-29', lines: [line({ isrc: 'USAAA2400003', trackTitle: 'Gamma', dsp: 'Amazon', net: '5', saleMonth: '2024-02-01' })] });
  });
  after(async () => app?.close());

  it("a file's lines: line order by default, any shown field both ways, numbers as numbers, search, 400 for another field", async () => {
    assert.deepEqual((await get(`/file/${jan}/lines`)).data.map((l: any) => l.lineNo), [2, 3, 4, 5]);
    const byNet = await get(`/file/${jan}/lines?sort=net&order=desc&size=2`);
    const byNet2 = await get(`/file/${jan}/lines?sort=net&order=desc&size=2&page=2`);
    // 100 > 30 > 9 > -2: a numeric order, not the text's ("9" > "30" > "100" > "-2")
    assert.deepEqual([...byNet.data, ...byNet2.data].map((l: any) => l.net), ['100', '30', '9', '-2']);
    assert.deepEqual([byNet.totalItems, byNet.totalPages, byNet2.currentPage], [4, 2, 2]);
    assert.deepEqual((await get(`/file/${jan}/lines?sort=dsp`)).data.map((l: any) => l.dsp), ['Apple', 'Deezer', 'Spotify', 'Tidal']);
    assert.deepEqual((await get(`/file/${jan}/lines?order=desc`)).data.map((l: any) => l.lineNo), [5, 4, 3, 2]);
    const found = await get(`/file/${jan}/lines?search=bet&sort=net&order=asc`);
    assert.deepEqual(found.data.map((l: any) => [l.trackTitle, l.net]), [['Beta', '-2'], ['Beta', '9']]);
    assert.equal(found.totalItems, 2);
    // the export follows the same order and search
    const csv = await app.request('GET', `/file/${jan}/lines?format=csv&search=bet&sort=net&order=desc`, { token: t.users.admin!.token });
    assert.equal(csv.status, 200, csv.text);
    assert.deepEqual(csv.text.trim().split(/\r?\n/).slice(1).map((r) => r.split(',')[1]), ['2', '4']);
    const bad = await get(`/file/${jan}/lines?sort=earnings`, 400);
    assert.equal(bad.code, 'INVALID_SORT');
    const badCsv = await app.request('GET', `/file/${jan}/lines?format=csv&sort=nope`, { token: t.users.admin!.token });
    assert.equal(badCsv.status, 400, badCsv.text);
  });

  it("a period's lines: file by file by default, sorted across files when asked", async () => {
    const all = await get('/royalty/lines?period=2024-Q1');
    assert.deepEqual(all.data.map((l: any) => [l.fileId === jan ? 'jan' : l.fileId === feb ? 'feb' : '?', l.lineNo]), [['jan', 2], ['jan', 3], ['jan', 4], ['jan', 5], ['feb', 2]]);
    assert.deepEqual((await get('/royalty/lines?period=2024-Q1&sort=lineNo&order=asc')).data.map((l: any) => l.lineNo), [2, 3, 4, 5, 2]);
    assert.deepEqual((await get('/royalty/lines?period=2024-Q1&sort=saleMonth&order=desc&size=1')).data.map((l: any) => l.dsp), ['Amazon']);
    assert.deepEqual((await get('/royalty/lines?period=2024-Q1&search=gamma&sort=net')).data.map((l: any) => l.net), ['5', '30']);
  });

  it('the unmatched recordings checklist: largest amount first, any shown field, search over the groups', async () => {
    const d = await get('/checklist/royaltyassets');
    assert.deepEqual(d.data.map((g: any) => [g.isrc, g.amount]), [['USAAA2400002', '100'], ['USAAA2400003', '35'], ['USAAA2400001', '7']]);
    assert.deepEqual((await get('/checklist/royaltyassets?sort=title&order=desc')).data.map((g: any) => g.title), ['Gamma', 'Beta', 'Alpha']);
    const files = await get('/checklist/royaltyassets?sort=files&order=desc&size=1');
    assert.deepEqual([files.data[0].isrc, files.totalItems, files.totalPages], ['USAAA2400003', 3, 3]);
    assert.deepEqual((await get('/checklist/royaltyassets?search=alp')).data.map((g: any) => g.title), ['Alpha']);
    // the groups are read once, their count a window over them: a page past the end and an
    // empty first page still say how many there are
    const past = await get('/checklist/royaltyassets?size=2&page=3');
    assert.deepEqual([past.data, past.pagination.total], [[], 3]);
    const second = await get('/checklist/royaltyassets?size=2&page=2');
    assert.deepEqual([second.data.map((g: any) => g.isrc), second.pagination.total], [['USAAA2400001'], 3]);
    const none = await get('/checklist/royaltyassets?search=nothing-like-this');
    assert.deepEqual([none.data, none.pagination.total, none.catalogueItems.pagination.total], [[], 0, 0]);
    assert.equal((await get('/checklist/royaltyassets?sort=kind', 400)).error.code, 'INVALID_SORT');
    const products = await get('/checklist/royaltyproducts?sort=upc&order=asc');
    assert.deepEqual(products.data.map((g: any) => g.upc), ['0012345678905', null]);
    assert.equal((await get('/checklist/royaltyproducts?sort=isrc', 400)).error.code, 'INVALID_SORT');
  });
});

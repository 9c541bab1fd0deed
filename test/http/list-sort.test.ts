/**
 * Lists take `sort` (a field the item shows), `order` and `search` beside their paging, the
 * same way on every list (src/http/list-sort.ts; docs/api.md "Lists and paging"): order and
 * totals checked through the API; a field a list does not sort by is a 400 naming it.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';

/** A valid GTIN-13 from 12 digits (check digit appended). */
function gtin(base: string): string {
  const sum = [...base].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return base + String((10 - (sum % 10)) % 10);
}

describe('lists: sort, order and search beside paging', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let adm: string;
  const get = async (path: string) => {
    const r = await app.request('GET', path, { token: adm });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body as { data: Record<string, any>[]; totalItems: number; totalPages: number; currentPage: number; pagination: { total: number } };
  };
  const names = (b: { data: Record<string, any>[] }, f: string) => b.data.map((x) => x[f]);

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'Sorts', ['owner', 'admin']);
    adm = t.users.admin!.token;
    for (const name of ['Mira Vale', 'Ada Stone', 'Zed Stone', 'Cleo Hart']) {
      assert.equal((await app.request('POST', '/artist/', { token: adm, body: { name } })).status, 201);
    }
    const titles = ['Night Drive', 'Amber Night', 'Blue Hour', 'Night Swim', 'Coda'];
    for (const [i, title] of titles.entries()) {
      const r = await app.request('POST', '/asset/', { token: adm, body: { title, isrc: `QZSRT260000${i + 1}` } });
      assert.equal(r.status, 201, r.text);
    }
    for (const [i, title] of ['Harbour EP', 'After Hours', 'Harbour Live'].entries()) {
      const r = await app.request('POST', '/product/', { token: adm, body: { title, upc: gtin(`19000000000${i}`) } });
      assert.equal(r.status, 201, r.text);
    }
    for (const email of ['zoe@listed.example', 'bob@listed.example', 'kim@listed.example']) {
      assert.equal((await app.request('POST', '/user/', { token: adm, body: { email, role: 'user' } })).status, 201);
    }
    await withTenant(app.svc.db.app, t.tenantId, async (trx) => {
      for (const [name, size] of [['march.csv', 30], ['april-report.csv', 10], ['may-report.csv', 20]] as const) {
        await trx('files').insert({ tenant_id: t.tenantId, id: crypto.randomUUID(), original_name: name, size_bytes: size, status: 'processed', accounting_period: '2026-10-01' });
      }
    });
  });
  after(async () => app?.close());

  it('artists: by name both ways, paged, with search and totals', async () => {
    const asc = await get('/artist/?sort=name&order=asc&size=3');
    assert.deepEqual(names(asc, 'name'), ['Ada Stone', 'Cleo Hart', 'Mira Vale']);
    assert.deepEqual([asc.totalItems, asc.totalPages, asc.currentPage], [4, 2, 1]);
    const asc2 = await get('/artist/?sort=name&order=asc&size=3&page=2');
    assert.deepEqual(names(asc2, 'name'), ['Zed Stone']);
    const desc = await get('/artist/?sort=name&order=desc&size=3');
    assert.deepEqual(names(desc, 'name'), ['Zed Stone', 'Mira Vale', 'Cleo Hart']);
    const found = await get('/artist/?search=stone&sort=name&order=desc');
    assert.deepEqual(names(found, 'name'), ['Zed Stone', 'Ada Stone']);
    assert.deepEqual([found.totalItems, found.totalPages], [2, 1]);
  });

  it('recordings: by title and by ISRC, search narrows the totals', async () => {
    const byTitle = await get('/asset/?sort=title&order=asc&size=2&page=2');
    assert.deepEqual(names(byTitle, 'title'), ['Coda', 'Night Drive']);
    assert.deepEqual([byTitle.totalItems, byTitle.totalPages, byTitle.currentPage], [5, 3, 2]);
    const byIsrc = await get('/asset/?sort=isrc&order=desc&size=2');
    assert.deepEqual(names(byIsrc, 'isrc'), ['QZSRT2600005', 'QZSRT2600004']);
    const night = await get('/asset/?search=night&sort=title&order=desc');
    assert.deepEqual(names(night, 'title'), ['Night Swim', 'Night Drive', 'Amber Night']);
    assert.equal(night.totalItems, 3);
  });

  it('products: by title both ways and by UPC, with search', async () => {
    assert.deepEqual(names(await get('/product/?sort=title&order=asc'), 'title'), ['After Hours', 'Harbour EP', 'Harbour Live']);
    assert.deepEqual(names(await get('/product/?sort=title&order=desc'), 'title'), ['Harbour Live', 'Harbour EP', 'After Hours']);
    assert.deepEqual(names(await get('/product/?sort=upc&order=desc&size=1'), 'title'), ['Harbour Live']);
    const harbour = await get('/product/?search=harbour&sort=title&order=desc&size=1&page=2');
    assert.deepEqual(names(harbour, 'title'), ['Harbour EP']);
    assert.deepEqual([harbour.totalItems, harbour.totalPages, harbour.currentPage], [2, 2, 2]);
  });

  it('splits: by target both ways, search over what they split', async () => {
    const U = t.users.admin!.tenantUserId;
    const asset = (await get('/asset/?search=coda')).data[0]!.id;
    const product = (await get('/product/?search=after')).data[0]!.id;
    const artist = (await get('/artist/?search=cleo')).data[0]!.id;
    for (const target of [{ product }, { asset }, { artist }]) {
      const r = await app.request('POST', '/split/', { token: adm, body: { ...target, split: [{ user: U, share: 100 }] } });
      assert.ok(r.status === 201, r.text);
    }
    assert.deepEqual(names(await get('/split/?sort=target&order=asc'), 'target'), ['artist', 'asset', 'product']);
    const desc = await get('/split/?sort=target&order=desc&size=2');
    assert.deepEqual(names(desc, 'target'), ['product', 'asset']);
    assert.deepEqual([desc.totalItems, desc.totalPages], [3, 2]);
    const coda = await get('/split/?search=coda&sort=target');
    assert.deepEqual(names(coda, 'asset'), [asset]);
    assert.equal(coda.totalItems, 1);
  });

  it('files: by name and by size both ways, search in the name', async () => {
    assert.deepEqual(names(await get('/file/?sort=fileName&order=asc'), 'fileName'), ['april-report.csv', 'march.csv', 'may-report.csv']);
    assert.deepEqual(names(await get('/file/?sort=size&order=desc'), 'fileName'), ['march.csv', 'may-report.csv', 'april-report.csv']);
    const reports = await get('/file/?search=report&sort=size&order=asc&size=1&page=2');
    assert.deepEqual(names(reports, 'fileName'), ['may-report.csv']);
    assert.deepEqual([reports.totalItems, reports.totalPages, reports.currentPage], [2, 2, 2]);
  });

  it('users: by e-mail both ways, search narrows', async () => {
    const all = await get('/user/?sort=email&order=asc');
    const emails = names(all, 'email');
    assert.equal(all.totalItems, 5);
    assert.deepEqual(emails, [...emails].sort());
    assert.deepEqual(names(await get('/user/?sort=email&order=desc'), 'email'), [...emails].sort().reverse());
    const mine = await get('/user/?search=listed.example&sort=email&order=desc&size=2');
    assert.deepEqual(names(mine, 'email'), ['zoe@listed.example', 'kim@listed.example']);
    assert.deepEqual([mine.totalItems, mine.totalPages], [3, 2]);
  });

  it('every sortable field is one the item shows, and sorts', async () => {
    const lists: [string, string[]][] = [
      ['/artist/', ['name', 'externalId', 'country', 'createdAt', 'updatedAt']],
      ['/asset/', ['title', 'isrc', 'iswc', 'type', 'version', 'displayArtist', 'externalId', 'isDraft', 'createdAt', 'updatedAt']],
      ['/product/', ['title', 'upc', 'type', 'format', 'releaseDate', 'displayArtist', 'label', 'catalogNumber', 'externalId', 'isDraft', 'createdAt', 'updatedAt']],
      ['/file/', ['fileName', 'kind', 'status', 'progress', 'size', 'confidence', 'accountingPeriod', 'createdAt', 'updatedAt', 'processedAt']],
      ['/user/', ['email', 'firstName', 'lastName', 'role', 'status', 'createdAt', 'updatedAt']],
    ];
    for (const [path, fields] of lists) {
      for (const f of fields) {
        const r = await get(`${path}?sort=${f}&order=asc&size=1`);
        assert.ok(f in r.data[0]!, `${path} item shows ${f}`);
      }
    }
  });

  it('a field a list does not sort by is a 400 naming it', async () => {
    for (const path of ['/artist/', '/asset/', '/product/', '/split/', '/file/', '/user/']) {
      const r = await app.request('GET', `${path}?sort=password_hash&order=asc`, { token: adm });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.match(JSON.stringify(r.body), /password_hash/, path);
      assert.match(JSON.stringify(r.body), /INVALID_SORT/, path);
    }
    const bad = await app.request('GET', '/user/?order=sideways', { token: adm });
    assert.equal(bad.status, 400, bad.text);
  });

  it('the OpenAPI document declares sort, order and search on each of these lists', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: { name: string; in: string; description?: string }[] }>> };
    for (const p of ['/artist/', '/asset/', '/product/', '/split/', '/file/', '/user/']) {
      const op = doc.paths[p]?.get ?? doc.paths[p.replace(/\/$/, '')]?.get;
      assert.ok(op, p);
      const q = new Map((op.parameters ?? []).filter((x) => x.in === 'query').map((x) => [x.name, x]));
      for (const n of ['page', 'size', 'sort', 'order', 'search']) assert.ok(q.has(n), `${p} declares ${n}`);
      assert.match(q.get('sort')!.description ?? '', /createdAt|name/, p);
    }
  });
});

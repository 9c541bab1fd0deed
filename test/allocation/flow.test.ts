import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import {
  createArtist, createAsset, createProduct, createSplit, exactEarnings, fileRow, loadStatement, setShares, tx, waitFor, waitForReallocation, type LineIn,
} from './helpers';
import { removeFilesRoyalties } from '../../src/modules/royalty/pipeline';

const ISRC1 = 'USAAA2400001';
const ISRC2 = 'USAAA2400002';
const ISRC3 = 'USAAA2400003';
const UPC1 = '0012345678905';

function line(p: Partial<LineIn> & { net: string }): LineIn {
  return { saleMonth: '2024-01-01', dsp: 'Spotify', country: 'US', saleType: 'stream', quantity: '10', currency: 'USD', aggregator: 'DistroKid', ...p };
}

/** A line is (file_id, line_no); earnings name it by file_id + line_id (= line_no). */
async function earningsOf(app: TestApp, tenantId: number, line: { file_id: string; line_no: number }, current = true) {
  return tx(app, tenantId, (trx) =>
    trx('royalty_earnings').where({ file_id: line.file_id, line_id: line.line_no }).modify((b) => (current ? b.whereNull('superseded_at') : b)).orderBy('tenant_user_id').select('*'),
  );
}

describe('royalty allocation: matching, splits, currency, history', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let owner: string, admin: string, user: string;
  let artist: string, asset1: string, asset2: string, product1: string;
  let file1: string;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'AllocA');
    b = await createTestTenant(app, 'AllocB');
    owner = a.users.owner!.tenantUserId;
    admin = a.users.admin!.tenantUserId;
    user = a.users.user!.tenantUserId;
    artist = await createArtist(app, a.tenantId, 'Nova Lune', [user]);
    asset1 = await createAsset(app, a.tenantId, { title: 'Midnight Drive', isrc: ISRC1, artistId: artist, displayArtist: 'Nova Lune' });
    asset2 = await createAsset(app, a.tenantId, { title: 'Paper Moon', isrc: ISRC2, artistId: artist, displayArtist: 'Nova Lune' });
    product1 = await createProduct(app, a.tenantId, { title: 'Night Songs', upc: UPC1, artistId: artist });
    // asset1: its own split; everything else of the artist: artist default.
    await createSplit(app, a.tenantId, { target: 'asset', id: asset1, shares: { [owner]: '33.333333', [admin]: '33.333333', [user]: '33.333334' } });
    await createSplit(app, a.tenantId, { target: 'artist', id: artist, shares: { [user]: '100' } });
    await createSplit(app, a.tenantId, { target: 'product', id: product1, shares: { [owner]: '60', [user]: '40' } });
    await waitForReallocation(app, a.tenantId);
  });
  after(async () => app.close());

  it('matches by ISRC and UPC, allocates, and payee shares sum exactly to the line', async () => {
    file1 = await loadStatement(app, a.tenantId, {
      salePeriodEnd: '2024-01-31',
      lines: [
        line({ isrc: ISRC1, net: '1.000000000001' }),
        line({ isrc: ISRC2, net: '0.333333333333' }),
        line({ upc: '12345678905', releaseTitle: 'Night Songs', net: '7.77' }), // 12-digit UPC-A → GTIN-13
        line({ isrc: 'ZZAAA2400009', trackTitle: 'Unknown Song', artist: 'Nobody', net: '2' }),
      ],
    });
    const f = await fileRow(app, a.tenantId, file1);
    assert.equal(f.status, 'processed', f.error_message);
    assert.equal(f.accounting_period.toISOString().slice(0, 10), '2024-01-01');
    const lines = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: file1 }).orderBy('line_no'));
    assert.deepEqual(lines.map((l: any) => l.match_status), ['isrc', 'isrc', 'upc', 'unmatched']);
    assert.equal(lines[0].asset_id, asset1);
    assert.equal(lines[2].product_id, product1);
    assert.equal(lines[0].artist_id, artist);
    for (const l of lines.slice(0, 3)) {
      const e = await earningsOf(app, a.tenantId, l);
      assert.ok(e.length > 0);
      const sum = e.reduce((s: Decimal, r: any) => s.plus(r.amount), new Decimal(0));
      assert.ok(sum.eq(l.base_amount), `line ${l.line_no}: ${sum} vs ${l.base_amount}`);
    }
    // Rounding remainder goes to the largest share (user 33.333334).
    const e0 = await earningsOf(app, a.tenantId, lines[0]);
    const mine = e0.find((r: any) => r.tenant_user_id === user);
    assert.equal(new Decimal(mine.amount).toFixed(), new Decimal('1.000000000001').minus(new Decimal(e0.find((r: any) => r.tenant_user_id === owner).amount).times(2)).toFixed());
    // Artist default for asset2; product split for the UPC line.
    assert.deepEqual((await earningsOf(app, a.tenantId, lines[1])).map((r: any) => [r.tenant_user_id, new Decimal(r.amount).toFixed()]), [[user, '0.333333333333']]);
    assert.equal((await earningsOf(app, a.tenantId, lines[2])).length, 2);
    assert.equal((await earningsOf(app, a.tenantId, lines[3])).length, 0);

    const tot = await app.request('GET', '/royalty/', { token: a.users.admin!.token });
    assert.equal(tot.status, 200);
    assert.equal(tot.body.status, 'success');
    assert.equal(tot.body.data.currency, 'USD');
    assert.equal(tot.body.data.total.revenue, '11.103333333334');
    assert.equal(tot.body.data.total.lines, 4);
    const mineTot = await app.request('GET', '/royalty/', { token: a.users.user!.token });
    // Analytics apply the shares at read, exactly: Σ line × share (the rounded earnings rows above are what statements post).
    assert.equal(mineTot.body.data.total.revenue, await exactEarnings(app, a.tenantId, user));
    assert.equal(mineTot.body.data.total.lines, 3);

    // Notification + outbound event.
    const n = await tx(app, a.tenantId, (trx) => trx('notifications').where({ resource_id: file1 }));
    assert.ok(n.length >= 1);
    assert.equal(n[0].type, 'royalty.file.processed');
    const ev = await tx(app, a.tenantId, (trx) => trx('outbound_events').where({ family: 'royalty', type: 'royalty.file.processed' }));
    assert.equal(ev.length, 1);
  });

  it('lists unmatched lines; creating the missing asset re-matches and allocates them', async () => {
    const cl = await app.request('GET', '/checklist/royaltyassets', { token: a.users.admin!.token });
    assert.equal(cl.status, 200);
    const row = cl.body.data.find((r: any) => r.isrc === 'ZZAAA2400009');
    assert.ok(row);
    assert.equal(row.lines, 1);
    assert.equal(row.amount, '2');
    const asUser = await app.request('GET', '/checklist/royaltyassets', { token: a.users.user!.token });
    assert.equal(asUser.status, 200);
    assert.deepEqual(asUser.body.data, []); // statement lines: admins only

    await createAsset(app, a.tenantId, { title: 'Unknown Song', isrc: 'ZZAAA2400009', artistId: artist });
    await waitForReallocation(app, a.tenantId);
    const l = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: file1, isrc: 'ZZAAA2400009' }).first());
    assert.equal(l.match_status, 'isrc');
    const e = await earningsOf(app, a.tenantId, l);
    assert.deepEqual(e.map((r: any) => [r.tenant_user_id, new Decimal(r.amount).toFixed()]), [[user, '2']]);
    const cl2 = await app.request('GET', '/checklist/royaltyassets', { token: a.users.admin!.token });
    assert.equal(cl2.body.data.find((r: any) => r.isrc === 'ZZAAA2400009'), undefined);
    const art = await app.request('GET', `/royalty/artist`, { token: a.users.admin!.token });
    assert.equal(art.body.data.rows.find((r: any) => r.artistId === artist).revenue, '11.103333333334');
  });

  it('re-allocates only what a split change affects, keeping the earlier allocation as history', async () => {
    const l1 = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: file1, isrc: ISRC1 }).first());
    const l2 = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: file1, isrc: ISRC2 }).first());
    const before2 = await earningsOf(app, a.tenantId, l2);
    const splitId = (await earningsOf(app, a.tenantId, l1))[0].split_id;
    await setShares(app, a.tenantId, splitId, { [owner]: '50', [user]: '50' });
    await waitForReallocation(app, a.tenantId);
    const now1 = await earningsOf(app, a.tenantId, l1);
    assert.deepEqual(now1.map((r: any) => new Decimal(r.share).toFixed()), [owner, user].sort().map(() => '50'));
    const sum = now1.reduce((s: Decimal, r: any) => s.plus(r.amount), new Decimal(0));
    assert.ok(sum.eq(l1.base_amount));
    // Untouched line keeps its rows (same ids, never superseded).
    assert.deepEqual((await earningsOf(app, a.tenantId, l2)).map((r: any) => r.id), before2.map((r: any) => r.id));
    const h = await app.request('GET', `/royalty/allocations/history?fileId=${l1.file_id}&lineId=${l1.line_no}`, { token: a.users.admin!.token });
    assert.equal(h.status, 200);
    assert.equal(h.body.data.filter((r: any) => !r.current).length, 3);
    assert.equal(h.body.data.filter((r: any) => r.current).length, 2);
    // A member sees only their own history rows.
    const hu = await app.request('GET', `/royalty/allocations/history?fileId=${l1.file_id}&lineId=${l1.line_no}`, { token: a.users.user!.token });
    assert.ok(hu.body.data.every((r: any) => r.tenantUserId === user));
    // Per-user rollups follow.
    const mine = await app.request('GET', '/royalty/asset', { token: a.users.admin!.token, headers: {} });
    assert.equal(mine.status, 200);
    const adminView = await app.request('GET', '/royalty/', { token: a.users.admin!.token });
    assert.equal(adminView.body.data.total.lines, 4);
    const adminOwn = await app.request('GET', '/royalty/', { token: a.users.user!.token });
    assert.equal(adminOwn.body.data.total.revenue, await exactEarnings(app, a.tenantId, user));
  });

  it('split priority (asset > product > artist default) and conditions (territory, date, type)', async () => {
    const a3 = await createAsset(app, a.tenantId, { title: 'Tidal', isrc: ISRC3, artistId: artist });
    const p2 = await createProduct(app, a.tenantId, { title: 'Tidal EP', upc: '4006381333931', artistId: artist });
    await createSplit(app, a.tenantId, { target: 'product', id: p2, shares: { [owner]: '100' } });
    await createSplit(app, a.tenantId, { target: 'asset', id: a3, territories: ['FR'], shares: { [admin]: '100' } });
    await createSplit(app, a.tenantId, { target: 'asset', id: a3, type: 'download', shares: { [user]: '100' } });
    await createSplit(app, a.tenantId, { target: 'asset', id: a3, validFrom: '2024-02-01', shares: { [owner]: '50', [admin]: '50' } });
    await waitForReallocation(app, a.tenantId);
    const f = await loadStatement(app, a.tenantId, {
      salePeriodEnd: '2024-02-29',
      lines: [
        line({ isrc: ISRC3, upc: '4006381333931', country: 'FR', saleMonth: '2024-01-01', net: '1' }), // territory split → admin
        line({ isrc: ISRC3, upc: '4006381333931', country: 'US', saleType: 'download', saleMonth: '2024-01-01', net: '1' }), // type → user
        line({ isrc: ISRC3, upc: '4006381333931', country: 'US', saleMonth: '2024-02-01', net: '1' }), // dated → owner+admin
        line({ isrc: ISRC3, upc: '4006381333931', country: 'US', saleMonth: '2024-01-01', net: '1' }), // no asset split fits → product
        line({ isrc: 'QQAAA2400001', upc: '4006381333931', country: 'US', saleMonth: '2024-01-01', net: '1' }), // product only
      ],
    });
    const lines = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: f }).orderBy('line_no'));
    const who = async (i: number) => (await earningsOf(app, a.tenantId, lines[i])).map((r: any) => r.tenant_user_id).sort();
    assert.deepEqual(await who(0), [admin]);
    assert.deepEqual(await who(1), [user]);
    assert.deepEqual(await who(2), [owner, admin].sort());
    assert.deepEqual(await who(3), [owner]);
    assert.deepEqual(await who(4), [owner]);
  });

  it('unsplit lines are listed and allocate when a split appears', async () => {
    const lone = await createArtist(app, a.tenantId, 'Lone Wolf');
    const a4 = await createAsset(app, a.tenantId, { title: 'Howl', isrc: 'USAAA2400044', artistId: lone });
    await waitForReallocation(app, a.tenantId);
    const f = await loadStatement(app, a.tenantId, { salePeriodEnd: '2024-01-31', lines: [line({ isrc: 'USAAA2400044', net: '5' })] });
    const cl = await app.request('GET', '/checklist/missingroyaltysplits', { token: a.users.owner!.token });
    assert.equal(cl.status, 200);
    const row = cl.body.statementLines.data.find((r: any) => r.assetId === a4);
    assert.equal(row.lines, 1);
    assert.equal(row.amount, '5');
    await createSplit(app, a.tenantId, { target: 'artist', id: lone, shares: { [admin]: '100' } });
    await waitForReallocation(app, a.tenantId);
    const l = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: f }).first());
    assert.deepEqual((await earningsOf(app, a.tenantId, l)).map((r: any) => r.tenant_user_id), [admin]);
    const cl2 = await app.request('GET', '/checklist/missingroyaltysplits', { token: a.users.owner!.token });
    assert.equal(cl2.body.statementLines.data.find((r: any) => r.assetId === a4), undefined);
  });

  it('offers fuzzy suggestions, never applies them silently; accepting re-matches and re-allocates', async () => {
    const f = await loadStatement(app, a.tenantId, {
      salePeriodEnd: '2024-01-31',
      lines: [line({ trackTitle: 'Midnight Drive (Remastered)', artist: 'Nova Lune', net: '3' }), line({ trackTitle: 'Midnight Drive (Remastered)', artist: 'Nova Lune', net: '4', dsp: 'Deezer' })],
    });
    const lines = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: f }));
    assert.ok(lines.every((l: any) => l.match_status === 'unmatched' && l.asset_id === null));
    const s = await app.request('GET', '/royalty/matches/suggestions', { token: a.users.admin!.token });
    assert.equal(s.status, 200);
    const sug = s.body.data.find((r: any) => r.statement.title === 'Midnight Drive (Remastered)' && r.candidate.assetId === asset1);
    assert.ok(sug, JSON.stringify(s.body.data));
    assert.equal((await app.request('POST', '/royalty/matches/accept', { token: a.users.user!.token, body: { suggestionId: sug.id } })).status, 403);
    const acc = await app.request('POST', '/royalty/matches/accept', { token: a.users.admin!.token, body: { suggestionId: sug.id } });
    assert.equal(acc.status, 200, acc.text);
    await waitForReallocation(app, a.tenantId);
    const after = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: f }));
    assert.ok(after.every((l: any) => l.asset_id === asset1 && l.match_status === 'rule'));
    for (const l of after) assert.equal((await earningsOf(app, a.tenantId, l)).length, 2);
    // The rule applies to later files too.
    const f2 = await loadStatement(app, a.tenantId, { salePeriodEnd: '2024-01-31', lines: [line({ trackTitle: 'Midnight Drive (Remastered)', artist: 'Nova Lune', net: '1' })] });
    const l2 = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: f2 }).first());
    assert.equal(l2.asset_id, asset1);
    assert.equal((await app.request('POST', '/royalty/matches/accept', { token: a.users.admin!.token, body: { suggestionId: sug.id } })).status, 400);
  });

  it('store-name rules rewrite the DSP of existing and later lines', async () => {
    const f = await loadStatement(app, a.tenantId, { salePeriodEnd: '2024-01-31', lines: [line({ isrc: ISRC2, dsp: 'Spotify AB', net: '1' })] });
    const r = await app.request('POST', '/royalty/matching-rules', { token: a.users.admin!.token, body: { kind: 'dsp', store: 'Spotify AB', dsp: 'Spotify' } });
    assert.equal(r.status, 201, r.text);
    await waitForReallocation(app, a.tenantId);
    const l = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: f }).first());
    assert.deepEqual([l.dsp, l.dsp_source], ['Spotify', 'Spotify AB']);
    const dsp = await app.request('GET', '/royalty/dsp', { token: a.users.admin!.token });
    assert.equal(dsp.body.data.rows.find((x: any) => x.dsp === 'Spotify AB'), undefined);
    const list = await app.request('GET', '/royalty/matching-rules', { token: a.users.admin!.token });
    assert.ok(list.body.data.some((x: any) => x.kind === 'dsp'));
  });

  it('currency: statement rate first, then the monthly rate; a missing rate fails the file with a clear message', async () => {
    const put = await app.request('PUT', '/currency/rates', { token: a.users.admin!.token, body: { rates: [{ currency: 'EUR', month: '2024-02', rate: '1.1' }] } });
    assert.equal(put.status, 200);
    const f = await loadStatement(app, a.tenantId, {
      salePeriodEnd: '2024-02-29',
      lines: [
        line({ isrc: ISRC2, saleMonth: '2024-02-01', currency: 'EUR', net: '10' }),
        line({ isrc: ISRC2, saleMonth: '2024-02-01', currency: 'EUR', net: '10', gross: '8', grossCurrency: 'USD', exchangeRate: '1.25' }),
      ],
    });
    const ls = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: f }).orderBy('line_no'));
    assert.deepEqual(ls.map((l: any) => new Decimal(l.base_amount).toFixed()), ['11', '8']);
    assert.deepEqual(ls.map((l: any) => new Decimal(l.fx_rate).toFixed()), ['1.1', '0.8']);
    assert.deepEqual(ls.map((l: any) => [new Decimal(l.net).toFixed(), l.currency]), [['10', 'EUR'], ['10', 'EUR']]);

    const bad = await loadStatement(app, a.tenantId, { salePeriodEnd: '2024-03-31', lines: [line({ isrc: ISRC2, saleMonth: '2024-03-01', currency: 'GBP', net: '1' })] });
    const fr = await fileRow(app, a.tenantId, bad);
    assert.equal(fr.status, 'failed');
    assert.match(fr.error_message, /GBP 2024-03/);
    assert.equal((await tx(app, a.tenantId, (trx) => trx('royalty_earnings').where({ file_id: bad }))).length, 0);
    // Fix the rate, reprocess.
    await app.request('PUT', '/currency/rates', { token: a.users.admin!.token, body: { rates: [{ currency: 'GBP', month: '2024-03', rate: '1.25' }] } });
    const re = await app.request('POST', `/royalty/files/${bad}/allocate`, { token: a.users.admin!.token });
    assert.equal(re.status, 200, re.text);
    // at once, the file shows its new run, not the old failure (whoever waits for it to settle waits for this run)
    const queued = await fileRow(app, a.tenantId, bad);
    assert.notEqual(queued.status, 'failed');
    assert.equal(queued.error_message, null);
    const fr2 = await waitFor('reprocessed', async () => {
      const x = await fileRow(app, a.tenantId, bad);
      return x.status === 'processed' ? x : null;
    });
    assert.equal(fr2.error_message, null);
  });

  it('a second workspace with the same ISRCs is untouched; cross-workspace reads see nothing', async () => {
    const before = await app.request('GET', '/royalty/', { token: a.users.admin!.token });
    const bArtist = await createArtist(app, b.tenantId, 'Other');
    const bAsset = await createAsset(app, b.tenantId, { title: 'Midnight Drive', isrc: ISRC1, artistId: bArtist });
    await createSplit(app, b.tenantId, { target: 'asset', id: bAsset, shares: { [b.users.owner!.tenantUserId]: '100' } });
    await waitForReallocation(app, b.tenantId);
    const fb = await loadStatement(app, b.tenantId, { salePeriodEnd: '2024-01-31', lines: [line({ isrc: ISRC1, net: '100' })] });
    const lb = await tx(app, b.tenantId, (trx) => trx('royalty_lines').where({ file_id: fb }).first());
    assert.equal(lb.asset_id, bAsset);
    const after = await app.request('GET', '/royalty/', { token: a.users.admin!.token });
    assert.deepEqual(after.body.data.total, before.body.data.total);
    const bt = await app.request('GET', '/royalty/', { token: b.users.admin!.token });
    assert.equal(bt.body.data.total.revenue, '100');
    // B filtering on A's file / asset: nothing.
    const x = await app.request('GET', `/royalty/asset?file=${file1}`, { token: b.users.admin!.token });
    assert.equal(x.status, 200);
    assert.deepEqual(x.body.data.rows, []);
    const y = await app.request('GET', `/royalty/month?asset=${asset1}`, { token: b.users.admin!.token });
    assert.deepEqual(y.body.data.rows, []);
    const h = await app.request('GET', `/royalty/allocations/history?fileId=${file1}`, { token: b.users.admin!.token });
    assert.deepEqual(h.body.data, []);
    assert.equal((await app.request('POST', `/royalty/files/${file1}/allocate`, { token: b.users.admin!.token })).status, 404);
    const sug = await app.request('GET', '/royalty/matches/suggestions?status=accepted', { token: a.users.admin!.token });
    const acc = await app.request('POST', '/royalty/matches/reject', { token: b.users.admin!.token, body: { suggestionId: sug.body.data[0].id } });
    assert.equal(acc.status, 404);
    assert.equal((await app.request('GET', '/royalty/')).status, 401);
  });

  it('removing a file removes its lines, earnings and rollups', async () => {
    const f = await loadStatement(app, a.tenantId, { salePeriodEnd: '2024-01-31', lines: [line({ isrc: ISRC2, net: '1000', dsp: 'Tidal' })] });
    const with_ = await app.request('GET', '/royalty/dsp', { token: a.users.admin!.token });
    assert.equal(with_.body.data.rows.find((r: any) => r.dsp === 'Tidal').revenue, '1000');
    await tx(app, a.tenantId, (trx) => removeFilesRoyalties(trx, a.tenantId, [f]));
    const without = await app.request('GET', '/royalty/dsp', { token: a.users.admin!.token });
    assert.equal(without.body.data.rows.find((r: any) => r.dsp === 'Tidal'), undefined);
    assert.equal((await tx(app, a.tenantId, (trx) => trx('royalty_earnings').where({ file_id: f }))).length, 0);
    const mine = await app.request('GET', '/royalty/dsp', { token: a.users.user!.token });
    assert.equal(mine.body.data.rows.find((r: any) => r.dsp === 'Tidal'), undefined);
  });
});

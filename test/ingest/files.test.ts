/**
 * Statement ingestion through real HTTP, a real Postgres and the real pg-boss workers:
 * every built-in fixture to exact counts and totals, archives, duplicates, errors, SSE,
 * signed-URL uploads, deletion, roles and tenant isolation.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, upload, waitFile, waitChildren, seedRates } from './helpers';
import { zipBuffers } from './zip-writer';

/** fixture → [source key, rowsIngested, rowsFailed, rowsSkipped, totals, reconciles] */
const EXPECTED: Record<string, [string, number, number, number, Record<string, string>, boolean | null]> = {
  'DistroKid_1683000000000_NovaLune.tsv': ['distrokid-2023', 15, 0, 0, { USD: '10.88196' }, null],
  'DistroKid_1693900000000_NovaLune.tsv': ['distrokid', 24, 0, 0, { USD: '7.570056' }, null],
  'latin1-distrokid.tsv': ['distrokid-2018', 12, 0, 0, { USD: '0.82195668' }, null],
  '80012345_0723_US.txt': ['itunes-downloads', 13, 0, 4, { EUR: '2.8', USD: '11.2' }, true],
  'apple-music-streaming_0723.tsv': ['apple-music-streaming', 16, 0, 1, { USD: '6.97332' }, true],
  'DSR_NovaLune_DSPco_PremiumService_2024-Q1_FR_1of1_20240415T120000.tsv': ['ddex-dsr', 6, 0, 0, { EUR: '21.079' }, true],
  'YouTube_NovaLuneRecords_M_20230701_20230731_asset_raw_v1-1.csv': ['youtube-asset-raw', 20, 0, 0, { USD: '16.86288' }, null],
  'YouTube_NovaLuneRecords_M_20230701_20230731_ADJ_asset_raw_v1-1.csv.gz': ['youtube-asset-raw', 10, 0, 0, { USD: '-0.05016' }, null],
  'believe-english.csv': ['believe', 10, 0, 0, { EUR: '3358.02129' }, null],
  'semicolon-decimal-comma.csv': ['believe', 18, 0, 0, { EUR: '0.335279' }, null],
  'bom-header.csv': ['orchard', 12, 0, 0, { GBP: '3.1722' }, null],
  'orchard-legacy-2018M8.csv': ['orchard', 10, 0, 0, { EUR: '2.75' }, null],
  'cdbaby-lowercase-isrc-quoted-barcode.txt': ['cdbaby', 11, 0, 0, { USD: '12.65628' }, null],
  'no-leading-zero.tsv': ['apple-music-streaming', 10, 0, 1, { CAD: '1.17315' }, true],
  'quoted-delimiters-newlines.csv': ['tunecore', 6, 1, 0, { USD: '0.21' }, null],
  'tunecore-sales-report.csv': ['tunecore', 14, 0, 0, { EUR: '0.81098', USD: '1.7876' }, null],
  'two-currencies.csv': ['fuga', 16, 0, 0, { EUR: '0.8888832', USD: '0.7901184' }, null],
  'negative-adjustments.tsv': ['distrokid', 8, 0, 0, { USD: '1.503257249999' }, null],
  'soundcloud-preamble.csv': ['soundcloud', 12, 0, 0, { USD: '0.40188' }, null],
  'utf16-bandcamp.csv': ['bandcamp', 10, 0, 0, { GBP: '35.7', USD: '89.25' }, null],
  'ragged-row.tsv': ['distrokid', 5, 5, 0, { USD: '1.7' }, null],
};

describe('statement ingestion: files', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  const ids: Record<string, string> = {};
  let admin: string;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'Files A');
    b = await createTestTenant(app, 'Files B');
    await seedRates(app, a.tenantId, b.tenantId);
    admin = a.users.admin!.token;
  });
  after(async () => app?.close());

  async function dbLines(fileId: string) {
    const rows = await app.svc.db.owner('royalty_lines').where({ file_id: fileId }).groupBy('currency').select('currency', app.svc.db.owner.raw('count(*)::int as n'), app.svc.db.owner.raw('sum(net)::text as net'), app.svc.db.owner.raw('count(distinct line_no)::int as distinct_lines'));
    return rows;
  }

  it('every built-in fixture: detected, read and stored with exact counts and totals', async () => {
    const names = Object.keys(EXPECTED);
    for (const n of names) {
      const r = await upload(app, admin, n, fixture(n));
      assert.equal(r.status, 201, `${n}: ${r.text}`);
      assert.equal(r.body.success, true);
      assert.equal(r.body.data.status, 'uploaded', 'answers at once');
      ids[n] = r.body.data.id;
    }
    for (const n of names) {
      const f = await waitFile(app, admin, ids[n]!, ['processed', 'failed', 'needs_confirmation'], 60_000);
      const [key, ingested, failed, skipped, totals, reconciles] = EXPECTED[n]!;
      assert.equal(f.status, 'processed', `${n}: ${f.status} ${f.error} ${JSON.stringify(f.detection?.candidates?.[0])}`);
      assert.equal(f.source.key, key, n);
      assert.equal(f.progress, 100);
      assert.equal(f.counts.rowsIngested, ingested, `${n} rowsIngested`);
      assert.equal(f.counts.rowsFailed, failed, `${n} rowsFailed`);
      assert.equal(f.counts.rowsSkipped, skipped, `${n} rowsSkipped`);
      assert.deepEqual(f.totals, totals, `${n} totals`);
      assert.equal(f.reconciles, reconciles, `${n} reconciles`);
      assert.ok(f.confidence.source >= 0 && f.confidence.schema === 1, n);
      assert.equal(typeof f.source.version, 'number');
      // the database holds exactly those lines, and their sum is the file's total
      const rows = await dbLines(f.id);
      assert.equal(rows.reduce((s: number, r: any) => s + r.n, 0), ingested, `${n} lines in db`);
      for (const r of rows) {
        assert.equal(Number(r.net), Number(totals[r.currency.trim()]), `${n} ${r.currency} db total`);
        assert.equal(r.distinct_lines, r.n, 'one row per line number');
      }
    }
  });

  it('stores canonical values (ISRC upper-case, UPC with leading zeros, dates, sale period)', async () => {
    const f = await waitFile(app, admin, ids['cdbaby-lowercase-isrc-quoted-barcode.txt']!);
    const lines = await app.svc.db.owner('royalty_lines').where({ file_id: f.id }).orderBy('line_no').select('*');
    for (const l of lines) {
      assert.match(l.isrc, /^[A-Z]{2}[A-Z0-9]{3}\d{7}$/);
      assert.match(l.upc, /^\d+$/);
      assert.equal(l.tenant_id, a.tenantId);
      assert.ok(l.line_no > 1);
    }
    assert.ok(lines.some((l: any) => l.upc?.startsWith('0')), 'leading zeros kept');
    const dk = await waitFile(app, admin, ids['DistroKid_1683000000000_NovaLune.tsv']!);
    assert.deepEqual(dk.salePeriod, { start: '2023-03-01', end: '2023-04-30' });
    assert.equal(dk.accountingPeriod, '2023-05-01');
  });

  it('malformed lines are reported with line numbers; the good ones are kept; errors download as CSV', async () => {
    const f = await waitFile(app, admin, ids['ragged-row.tsv']!);
    assert.equal(f.counts.rowsFailed, 5);
    assert.ok(f.errors.length === 5);
    assert.deepEqual(f.errors.map((e: any) => e.lineNo), [...f.errors.map((e: any) => e.lineNo)].sort((x: number, y: number) => x - y));
    assert.ok(f.errors.every((e: any) => Number.isInteger(e.lineNo) && e.lineNo > 1 && e.reason.length > 0));
    assert.ok(f.errors.some((e: any) => e.lineNo === 4), 'the short row on line 4');
    assert.equal((await app.request('GET', `/file/${f.id}/errors`, { token: a.users.user!.token })).status, 403);
    const csv = await app.request('GET', `/file/${f.id}/errors`, { token: admin });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type')!, /text\/csv/);
    const lines = csv.text.trim().split('\n');
    assert.equal(lines[0], 'line_no,reason,raw');
    assert.equal(lines.length, 6);
    assert.ok(lines[1]!.startsWith('4,'));
    assert.ok(csv.text.includes('Nova Lune'), 'raw line included');
  });

  it('lists files paged, filtered by status, source and period', async () => {
    const all = await app.request('GET', '/file/?size=5', { token: admin });
    assert.equal(all.status, 200);
    assert.equal(all.body.data.length, 5);
    assert.ok(all.body.pagination.total >= Object.keys(EXPECTED).length);
    const bySource = await app.request('GET', '/file/?source=tunecore&size=100', { token: admin });
    assert.equal(bySource.body.data.length, 2);
    assert.ok(bySource.body.data.every((f: any) => f.source.key === 'tunecore'));
    const byPeriod = await app.request('GET', '/file/?period=2018-08&size=100', { token: admin });
    // sale period overlapping August 2018, or accounted for in August 2018
    assert.deepEqual(byPeriod.body.data.map((f: any) => f.fileName).sort(), ['orchard-legacy-2018M8.csv']);
    const byRange = await app.request('GET', '/file/?periodStart=2024-01-01&periodEnd=2024-01-31&size=100', { token: admin });
    assert.deepEqual(byRange.body.data.map((f: any) => f.fileName).sort(), ['DSR_NovaLune_DSPco_PremiumService_2024-Q1_FR_1of1_20240415T120000.tsv', 'believe-english.csv', 'no-leading-zero.tsv', 'ragged-row.tsv']);
    const failed = await app.request('GET', '/file/?status=failed', { token: admin });
    assert.equal(failed.body.pagination.total, 0);
    const bad = await app.request('GET', '/file/?period=nope', { token: admin });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
  });

  it('duplicate upload: flagged duplicateOf, not ingested twice; forced, the new upload replaces the earlier copy', async () => {
    const n = 'two-currencies.csv';
    const dup = await upload(app, admin, 'again.csv', fixture(n));
    assert.equal(dup.status, 201);
    assert.equal(dup.body.data.duplicateOf, ids[n]);
    assert.equal(dup.body.data.status, 'failed');
    assert.equal((await dbLines(dup.body.data.id)).length, 0);
    const forced = await upload(app, admin, 'two-currencies.csv', fixture(n), { force: 'true' });
    assert.equal(forced.body.data.duplicateOf, ids[n]);
    const f = await waitFile(app, admin, forced.body.data.id);
    assert.equal(f.status, 'processed');
    assert.equal(f.counts.rowsIngested, 16);
    assert.equal((await dbLines(ids[n]!)).length, 0, 'one copy of the lines');
    // the other tenant's identical upload is not a duplicate
    const other = await upload(app, b.users.admin!.token, n, fixture(n));
    assert.equal(other.body.data.duplicateOf, null);
    await waitFile(app, b.users.admin!.token, other.body.data.id);
  });

  it('zip with several statements: one child file per statement', async () => {
    const zip = zipBuffers([
      { name: 'statements/tunecore-sales-report.csv', data: fixture('tunecore-sales-report.csv').toString() + '\n' },
      { name: 'statements/believe-english.csv', data: Buffer.concat([fixture('believe-english.csv'), Buffer.from('\n')]) },
      { name: 'statements/yt.csv.gz', data: zlib.gzipSync(fixture('YouTube_NovaLuneRecords_M_20230701_20230731_asset_raw_v1-1.csv')) },
      { name: '__MACOSX/._believe-english.csv', data: 'junk' },
    ]);
    // distinct bytes (a trailing blank line) so they are not duplicates of the first test's uploads
    const r = await upload(app, admin, 'bundle.zip', zip);
    assert.equal(r.status, 201);
    const kids = await waitChildren(app, admin, r.body.data.id, 3);
    const parent = (await app.request('GET', `/file/${r.body.data.id}`, { token: admin })).body.data;
    assert.equal(parent.kind, 'archive');
    assert.equal(parent.status, 'processed');
    const byName = Object.fromEntries(kids.map((k) => [k.fileName, k]));
    assert.deepEqual(Object.keys(byName).sort(), ['believe-english.csv', 'tunecore-sales-report.csv', 'yt.csv.gz']);
    assert.equal(byName['believe-english.csv'].totals.EUR, '3358.02129');
    assert.equal(byName['tunecore-sales-report.csv'].counts.rowsIngested, 14);
    assert.equal(byName['yt.csv.gz'].status, 'processed', byName['yt.csv.gz'].error);
    assert.equal(byName['yt.csv.gz'].totals.USD, '16.86288');
    assert.ok(kids.every((k) => k.parentId === r.body.data.id));
    const listed = await app.request('GET', `/file/?parentId=${r.body.data.id}`, { token: admin });
    assert.equal(listed.body.pagination.total, 3);
  });

  it('a zip bomb is refused: the file fails cleanly and the process lives', async () => {
    const bomb = zipBuffers([{ name: 'huge.csv', data: Buffer.alloc(64 * 1024 * 1024, 0x30) }]);
    assert.ok(bomb.length < 200_000);
    const r = await upload(app, admin, 'bomb.zip', bomb);
    const f = await waitFile(app, admin, r.body.data.id);
    assert.equal(f.status, 'failed');
    assert.match(f.error, /Refused/);
    // the uploader is notified, in the transaction that failed the file
    const note = (await app.request('GET', '/notifications?type=royalty.file.failed&pageSize=100', { token: admin })).body.data.notifications.find((x: any) => x.resourceId === r.body.data.id);
    assert.match(note.title, /^Statement failed: bomb\.zip$/);
    assert.match(note.content, /Refused/);
    // a lying header (declares 1 KB, holds 8 MB) is caught while streaming
    const liar = zipBuffers([{ name: 'small.csv', data: Buffer.alloc(8 * 1024 * 1024, 0x31), lieAboutSize: 1024 }]);
    const r2 = await upload(app, admin, 'liar.zip', liar);
    const f2 = await waitFile(app, admin, r2.body.data.id);
    assert.equal(f2.status, 'failed');
    assert.match(f2.error, /Refused|expands/);
    assert.equal(f2.children.length, 0, 'no child left behind');
    const health = await app.request('GET', '/health');
    assert.equal(health.status, 200);
  });

  it('zip entries: a stored (uncompressed) entry is read; an entry failing its CRC-32 fails the file, no child left', async () => {
    // distinct bytes (trailing blank lines): not a copy of an earlier upload
    const stored = zipBuffers([{ name: 'believe.csv', data: Buffer.concat([fixture('believe-english.csv'), Buffer.from('\n\n')]), store: true }]);
    const f1 = await waitFile(app, admin, (await upload(app, admin, 'stored.zip', stored)).body.data.id);
    assert.equal(f1.children.length, 1);
    const c1 = await waitFile(app, admin, f1.children[0].id);
    assert.equal(c1.status, 'processed', JSON.stringify(c1.error));
    assert.ok(c1.counts.rowsIngested > 0);
    for (const store of [false, true]) {
      const bad = zipBuffers([{ name: 'believe.csv', data: fixture('believe-english.csv'), store, wrongCrc: true }]);
      const f = await waitFile(app, admin, (await upload(app, admin, `crc-${store}.zip`, bad, { force: 'true' })).body.data.id);
      assert.equal(f.status, 'failed');
      assert.match(f.error, /CRC-32/);
      assert.equal(f.children.length, 0, 'no child left behind');
    }
  });

  it('too many entries in one zip is refused', async () => {
    const { INGEST_LIMITS } = await import('../../src/modules/files/pipeline');
    const saved = INGEST_LIMITS.maxEntries;
    INGEST_LIMITS.maxEntries = 3;
    try {
      const zip = zipBuffers([1, 2, 3, 4].map((i) => ({ name: `s${i}.csv`, data: `a,b\n${i},2\n` })));
      const f = await waitFile(app, admin, (await upload(app, admin, 'many.zip', zip)).body.data.id);
      assert.equal(f.status, 'failed');
      assert.match(f.error, /4 entries \(limit 3\)/);
    } finally {
      INGEST_LIMITS.maxEntries = saved;
    }
  });

  it('a truncated zip, a corrupt gzip and a file of the wrong encoding fail cleanly', async () => {
    const zip = zipBuffers([{ name: 'believe.csv', data: fixture('believe-english.csv') }]);
    const f1 = await waitFile(app, admin, (await upload(app, admin, 'cut.zip', zip.subarray(0, zip.length - 30))).body.data.id);
    assert.equal(f1.status, 'failed');
    assert.match(f1.error, /corrupt or truncated|could not be read/);
    const gz = zlib.gzipSync(fixture('believe-english.csv'));
    const f2 = await waitFile(app, admin, (await upload(app, admin, 'cut.csv.gz', gz.subarray(0, gz.length - 12))).body.data.id);
    assert.equal(f2.status, 'failed');
    assert.match(f2.error, /corrupt or truncated/);
    // UTF-16 bytes that are not valid UTF-16 (odd length, lone surrogate) with a Bandcamp name and header
    const good = fixture('utf16-bandcamp.csv');
    const broken = Buffer.concat([good, Buffer.from([0x00, 0xd8, 0x41, 0x00, 0x0a])]);
    const f3 = await waitFile(app, admin, (await upload(app, admin, 'utf16-bandcamp-broken.csv', broken)).body.data.id);
    // bytes invalid under the pattern's explicit encoding reject the file (as for UTF-8), with a clear reason
    assert.equal(f3.status, 'failed');
    assert.match(f3.error, /could not be read as "Bandcamp sales export \(often UTF-16\)": file is not valid UTF-16LE/);
    assert.equal((await app.request('GET', '/health')).status, 200);
  });

  it('an unrecognised file waits for confirmation; confirm-detection names the source and period', async () => {
    const r = await upload(app, admin, 'generic.csv', fixture('generic.csv'));
    const f = await waitFile(app, admin, r.body.data.id);
    assert.equal(f.status, 'needs_confirmation');
    assert.ok(f.detection.candidates.length > 0);
    assert.ok(f.detection.candidates[0].score < 0.8);
    // forceManualConfirmation: even a confident file waits
    const dk = fixture('DistroKid_1693900000000_NovaLune.tsv');
    const held = await upload(app, admin, 'DistroKid_1693900000001_NovaLune.tsv', Buffer.concat([dk, Buffer.from('\n')]), { forceManualConfirmation: 'true' });
    const h = await waitFile(app, admin, held.body.data.id);
    assert.equal(h.status, 'needs_confirmation');
    assert.equal(h.source.key, 'distrokid', 'best guess recorded');
    assert.ok(h.detection.candidates[0].score >= 0.8);
    const bad = await app.request('POST', `/file/confirm-detection/${h.id}`, { token: admin, body: { source: 'no-such-source' } });
    assert.equal(bad.status, 400);
    const c = await app.request('POST', `/file/confirm-detection/${h.id}`, { token: admin, body: { source: 'distrokid', periodStart: '2023-06-01', periodEnd: '2023-08-31', accountingPeriod: '2023-09-01' } });
    assert.equal(c.status, 200, c.text);
    assert.equal(c.body.data.status, 'queued');
    const done = await waitFile(app, admin, h.id, ['processed', 'failed']);
    assert.equal(done.status, 'processed');
    assert.equal(done.counts.rowsIngested, 24);
    assert.deepEqual(done.salePeriod, { start: '2023-06-01', end: '2023-08-31' });
    assert.equal(done.confidence.source, 1);
    // autoProcessIfConfident=false also waits
    const manual = await upload(app, admin, 'DistroKid_1693900000002_NovaLune.tsv', Buffer.concat([dk, Buffer.from('\n\n')]), { autoProcessIfConfident: 'false' });
    assert.equal((await waitFile(app, admin, manual.body.data.id)).status, 'needs_confirmation');
  });

  it('signed upload URL: PUT streams to storage, createroyalty registers it; the legacy alias works', async () => {
    for (const [i, p] of ['/file/upload-url', '/file/getuUloadurl'].entries()) {
      const u = await app.request('POST', p, { token: admin, body: { fileName: 'soundcloud.csv' } });
      assert.equal(u.status, 201, u.text);
      const { uploadUrl, fileId, key, expiresAt } = u.body.data;
      assert.ok(new Date(expiresAt) > new Date());
      const put = await app.request('PUT', new URL(uploadUrl).pathname, { raw: fixture('soundcloud-preamble.csv').toString() + '\n'.repeat(i + 1) });
      assert.equal(put.status, 200, put.text);
      const reg = await app.request('POST', '/file/createroyalty', { token: admin, body: { key, fileName: 'soundcloud-preamble.csv' } });
      assert.equal(reg.status, 201, reg.text);
      assert.equal(reg.body.data.id, fileId);
      const f = await waitFile(app, admin, fileId);
      assert.equal(f.status, 'processed', f.error);
      assert.equal(f.source.key, 'soundcloud');
      // used URL cannot be reused
      const again = await app.request('PUT', new URL(uploadUrl).pathname, { raw: 'x' });
      assert.equal(again.status, 400);
    }
    const forged = await app.request('PUT', '/file/upload/eyJhbGciOiJIUzI1NiJ9.eyJ0eXAiOiJ1cGxvYWQifQ.bad-signature-here', { raw: 'x' });
    assert.equal(forged.status, 401);
    const missing = await app.request('POST', '/file/createroyalty', { token: admin, body: { fileId: '00000000-0000-4000-8000-000000000000', fileName: 'x.csv' } });
    assert.equal(missing.status, 400);
    // another tenant's key is refused
    const u = await app.request('POST', '/file/upload-url', { token: admin, body: {} });
    const cross = await app.request('POST', '/file/createroyalty', { token: b.users.admin!.token, body: { key: u.body.data.key, fileName: 'x.csv' } });
    assert.equal(cross.status, 400);
  });

  it('server-sent events push progress until the file is done', async () => {
    const r = await upload(app, admin, 'believe.csv', Buffer.concat([fixture('believe-english.csv'), Buffer.from('\n\n\n')]));
    const res = await fetch(`${app.url}/file/${r.body.data.id}/events`, { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/event-stream/);
    const text = await res.text(); // the stream ends at a terminal status
    const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ type: m[1], data: JSON.parse(m[2]!) }));
    assert.equal(events.at(-1)!.type, 'end');
    assert.equal(events.at(-1)!.data.status, 'processed');
    const progress = events.filter((e) => e.type === 'progress');
    assert.ok(progress.length >= 1);
    assert.equal(progress.at(-1)!.data.progress, 100);
    assert.equal(progress.at(-1)!.data.counts.rowsIngested, 10);
  });

  it('re-running decompression re-ingests with exactly the same lines and totals', async () => {
    const id = ids['tunecore-sales-report.csv']!;
    const before = await dbLines(id);
    const r = await app.request('PUT', `/file/royalty/decompress/${a.tenantId}/${id}`, { token: admin });
    assert.equal(r.status, 200, r.text);
    const f = await waitFile(app, admin, id, ['processed', 'failed']);
    assert.equal(f.status, 'processed');
    assert.deepEqual(f.totals, { EUR: '0.81098', USD: '1.7876' });
    assert.deepEqual(await dbLines(id), before);
    // the tenant in the path must be the caller's
    const wrong = await app.request('PUT', `/file/royalty/decompress/${b.tenantId}/${id}`, { token: admin });
    assert.equal(wrong.status, 404);
    const resend = await app.request('POST', '/file/resend-pending-files', { token: admin });
    assert.equal(resend.status, 200);
    assert.equal(typeof resend.body.data.requeued, 'number');
  });

  it('GET /file/sources lists active public sources, or the workspace\'s configured ones', async () => {
    const all = await app.request('GET', '/file/sources', { token: a.users.user!.token });
    assert.equal(all.status, 200);
    const keys = all.body.data.map((s: any) => s.key);
    for (const k of ['distrokid', 'tunecore', 'cdbaby', 'apple-music-streaming', 'ddex-dsr', 'bandcamp']) assert.ok(keys.includes(k), k);
    const mine = await app.request('GET', '/file/sources?includeAll=false', { token: a.users.user!.token });
    assert.deepEqual(mine.body.data, []);
    assert.equal((await app.request('GET', '/file/sources?includeAll=maybe', { token: admin })).status, 400);
  });

  it("role limits: guests and users read no statement file (the label's, with its gross totals), admins upload, confirm and delete", async () => {
    const id = ids['bom-header.csv']!;
    const guest = a.users.guest!.token;
    const user = a.users.user!.token;
    assert.equal((await app.request('GET', '/file/', { token: guest })).status, 403);
    assert.equal((await app.request('GET', `/file/${id}`, { token: guest })).status, 403);
    assert.equal((await app.request('GET', '/file/', { token: user })).status, 403);
    assert.equal((await app.request('GET', `/file/${id}`, { token: user })).status, 403);
    assert.equal((await app.request('GET', `/file/${id}`, { token: admin })).status, 200);
    assert.equal((await upload(app, user, 'x.csv', 'a,b\n1,2\n')).status, 403);
    assert.equal((await app.request('POST', '/file/upload-url', { token: user, body: {} })).status, 403);
    assert.equal((await app.request('DELETE', `/file/${id}`, { token: user })).status, 403);
    assert.equal((await app.request('POST', `/file/confirm-detection/${id}`, { token: user, body: { source: 'orchard' } })).status, 403);
    assert.equal((await app.request('POST', '/file/resend-pending-files', { token: user })).status, 403);
    assert.equal((await app.request('GET', '/file/')).status, 401);
    const drive = await app.request('POST', '/file/upload-from-drive', { token: admin, body: {} });
    assert.equal(drive.status, 400);
    assert.equal(drive.body.error.code, 'DRIVE_NOT_CONFIGURED');
    assert.match(drive.body.error.message, /download the statement from the drive and upload it here/);
    const doc = (await app.request('GET', '/openapi.json')).body as { paths: Record<string, unknown> };
    assert.equal('/file/upload-from-drive' in doc.paths || '/file/get-drive-signed-url' in doc.paths, false);
  });

  it('cross-tenant reads and writes on file routes → 404 and no data', async () => {
    const id = ids['believe-english.csv']!;
    const bt = b.users.owner!.token;
    for (const [m, p, body] of [
      ['GET', `/file/${id}`],
      ['GET', `/file/${id}/errors`],
      ['GET', `/file/${id}/events`],
      ['DELETE', `/file/${id}`],
      ['POST', `/file/confirm-detection/${id}`, { source: 'believe' }],
      ['PUT', `/file/royalty/decompress/${b.tenantId}/${id}`],
      ['PUT', `/file/royalty/decompress/${a.tenantId}/${id}`],
    ] as [string, string, unknown?][]) {
      const r = await app.request(m, p, { token: bt, body });
      assert.equal(r.status, 404, `${m} ${p}: ${r.status} ${r.text}`);
      assert.ok(!r.text.includes('believe-english'), 'no data leaks');
    }
    const list = await app.request('GET', '/file/?size=200', { token: bt });
    assert.ok(list.body.data.every((f: any) => !Object.values(ids).includes(f.id)));
    const f = await waitFile(app, admin, id);
    assert.equal(f.status, 'processed', 'untouched');
    assert.equal((await dbLines(id))[0].n, 10);
  });

  it('DELETE removes the file, its children, lines, errors and stored objects', async () => {
    const zip = zipBuffers([{ name: 'r.tsv', data: fixture('ragged-row.tsv') }, { name: 'c.csv', data: fixture('two-currencies.csv') }]);
    const r = await upload(app, admin, 'del.zip', zip, { force: 'true' });
    const kids = await waitChildren(app, admin, r.body.data.id, 2);
    const objDir = path.join(app.dataDir, 'objects', `t${a.tenantId}`, 'files');
    const allIds = [r.body.data.id, ...kids.map((k) => k.id)];
    for (const i of allIds) assert.ok((await fs.readdir(path.join(objDir, i))).length > 0);
    const d = await app.request('DELETE', `/file/${r.body.data.id}`, { token: admin });
    assert.equal(d.status, 200, d.text);
    assert.deepEqual([...d.body.data.deleted].sort(), [...allIds].sort());
    for (const i of allIds) {
      assert.equal((await app.request('GET', `/file/${i}`, { token: admin })).status, 404);
      assert.equal((await dbLines(i)).length, 0);
      assert.equal(Number((await app.svc.db.owner('file_errors').where({ file_id: i }).count({ n: '*' }))[0]!.n), 0);
      const left = await fs.readdir(path.join(objDir, i)).catch(() => []);
      assert.deepEqual(left, []);
    }
  });
});

/**
 * A client written to the reference service's release and checklist conventions (docs/api.md,
 * "Coming from the reference service"): tracks with `ISRC`, artwork (`files`) and track audio
 * (`file`) uploads kept in the object store, review without a body, approve and reject, the
 * release's stats; the royalty-assets checklist and its import.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { objectStore } from '../../src/lib/storage';
import { loadStatement, waitForReallocation, type LineIn } from '../allocation/helpers';
import { wav } from '../helpers/media';
import { storageUsed } from '../../src/domain/quota';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function form(field: string, bytes: Buffer, name: string, type: string): FormData {
  const f = new FormData();
  f.append(field, new Blob([bytes], { type }), name);
  return f;
}

describe('reference client flow: releases (tracks, artwork, audio, review) and the royalty-assets checklist', function () {
  this.timeout(120_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let rel = '';
  let t1 = '';
  let t2 = '';
  let artworkKey = '';
  let audioKey = '';
  const tok = (r: 'owner' | 'admin' | 'user' | 'guest', t = a) => t.users[r]!.token;

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'RefRelA');
    b = await createTestTenant(app, 'RefRelB');
  });
  after(async () => app.close());

  it('POST /releases/{id}/tracks takes {title, ISRC}; GET /releases/{id}/tracks lists them in order', async () => {
    const r = await app.request('POST', '/releases', { token: tok('user'), body: { title: 'Tidal Maps', artistName: 'Oona Vale', type: 'EP', format: 'Digital' } });
    assert.equal(r.status, 201, r.text);
    rel = r.body.data.id;
    const one = await app.request('POST', `/releases/${rel}/tracks`, { token: tok('user'), body: { title: 'Undertow', ISRC: 'GB-AYE-06-01498' } });
    assert.equal(one.status, 201, one.text);
    assert.equal(one.body.data.isrc, 'GBAYE0601498');
    t1 = one.body.data.id;
    const two = await app.request('POST', `/releases/${rel}/tracks`, { token: tok('user'), body: { title: 'Slack Water', ISRC: 'GBAYE0601499' } });
    t2 = two.body.data.id;
    const both = await app.request('POST', `/releases/${rel}/tracks`, { token: tok('user'), body: { title: 'X', isrc: 'GBAYE0601400', ISRC: 'GBAYE0601401' } });
    assert.equal(both.status, 400, both.text);
    assert.match(both.text, /isrc and ISRC differ/);
    const list = await app.request('GET', `/releases/${rel}/tracks`, { token: tok('user') });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((t: any) => [t.title, t.isrc, t.position, t.media]), [['Undertow', 'GBAYE0601498', 1, null], ['Slack Water', 'GBAYE0601499', 2, null]]);
  });

  it('artwork: POST /releases/{id}/media/files (multipart "files") stores an image in the object store; anything else is refused and not kept', async () => {
    const up = await app.request('POST', `/releases/${rel}/media/files`, { token: tok('user'), raw: form('files', PNG, 'cover.png', 'image/png') });
    assert.equal(up.status, 201, up.text);
    assert.equal(up.body.data.length, 1);
    const art = up.body.data[0];
    assert.deepEqual([art.name, art.kind, art.mimeType, art.size], ['cover.png', 'image', 'image/png', PNG.length]);
    artworkKey = art.storageKey;
    assert.equal((await objectStore(app.cfg).stat(artworkKey))?.size, PNG.length);
    const sound = await app.request('POST', `/releases/${rel}/media/files`, { token: tok('user'), raw: form('files', wav(), 'cover.wav', 'audio/wav') });
    assert.equal(sound.status, 400, sound.text);
    assert.equal(sound.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    const wrongField = await app.request('POST', `/releases/${rel}/media/files`, { token: tok('user'), raw: form('file', PNG, 'cover2.png', 'image/png') });
    assert.equal(wrongField.status, 400, wrongField.text);
    assert.equal(wrongField.body.error.code, 'NO_FILE');
    const two = form('files', PNG, 'front.png', 'image/png');
    two.append('files', new Blob([PNG], { type: 'image/png' }), 'back.png');
    const many = await app.request('POST', `/releases/${rel}/media/files`, { token: tok('user'), raw: two });
    assert.equal(many.status, 400, many.text);
    assert.equal(many.body.error.code, 'TOO_MANY_PARTS');
    const listed = await app.request('GET', `/releases/${rel}/media`, { token: tok('user') });
    assert.deepEqual(listed.body.data.map((m: any) => m.name), ['cover.png']);
    const stored = await app.svc.db.owner('catalogue_media').where({ release_id: rel }).pluck('storage_key');
    assert.deepEqual(stored, [artworkKey]);
  });

  it('track audio: POST /releases/{id}/tracks/{trackId}/media/file (multipart "file") stores it with its metadata; cloudUrl serves the same bytes', async () => {
    const bytes = wav();
    const up = await app.request('POST', `/releases/${rel}/tracks/${t1}/media/file`, { token: tok('user'), raw: form('file', bytes, 'undertow.wav', 'audio/wav') });
    assert.equal(up.status, 201, up.text);
    const m = up.body.data;
    assert.deepEqual([m.type, m.name, m.isLink, m.processingStatus, m.metadata.duration, m.metadata.sampleRate, m.metadata.fileSize, m.metadata.linkValidated], ['audio', 'undertow.wav', false, 'processed', 0.5, '8000', bytes.length, false]);
    assert.equal(m.releasePath, `releases/${rel}/tracks/${t1}/undertow.wav`);
    const path = `/releases/${rel}/tracks/${t1}/media/file`;
    assert.equal(m.cloudUrl, `${app.cfg.publicUrl.replace(/\/$/, '')}${path}`);
    audioKey = (await app.svc.db.owner('track_media').where({ track_id: t1 }).first('storage_key')).storage_key;
    assert.equal(await storageUsed(app.svc.db.owner, a.tenantId), PNG.length + bytes.length, 'the artwork and the audio count against the storage limit');
    const got = await fetch(app.url + path, { headers: { authorization: `Bearer ${tok('user')}` } });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'audio/wav');
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(bytes), 'the stored bytes come back');
    const again = await app.request('POST', `/releases/${rel}/tracks/${t1}/media/file`, { token: tok('user'), raw: form('file', bytes, 'again.wav', 'audio/wav') });
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.error.code, 'TRACK_MEDIA_EXISTS');
    const image = await app.request('POST', `/releases/${rel}/tracks/${t2}/media/file`, { token: tok('user'), raw: form('file', PNG, 'art.png', 'image/png') });
    assert.equal(image.status, 400, image.text);
    assert.equal(image.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.equal(await app.svc.db.owner('track_media').where({ track_id: t2 }).first('id'), undefined);
    const tracks = await app.request('GET', `/releases/${rel}/tracks`, { token: tok('user') });
    assert.deepEqual(tracks.body.data.map((t: any) => t.media?.name ?? null), ['undertow.wav', null]);
  });

  it('GET /releases/{id}/stats counts tracks, their media and ISRCs, the duration, the artwork and the feedback', async () => {
    const r = await app.request('GET', `/releases/${rel}/stats`, { token: tok('user') });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data, {
      releaseId: rel, status: 'draft', tracks: 2, tracksWithMedia: 1, tracksWithUploadedFile: 1, tracksWithIsrc: 2,
      durationSeconds: 0.5, artworkFiles: 1, feedback: 0, submittedAt: null, reviewedAt: null,
    });
  });

  it('review with no body moves submitted → in_review; reject (with a reason) and approve are admin routes of their own', async () => {
    assert.equal((await app.request('POST', `/releases/${rel}/submit`, { token: tok('user'), body: {} })).status, 200);
    assert.equal((await app.request('POST', `/releases/${rel}/review`, { token: tok('user') })).status, 403);
    const review = await app.request('POST', `/releases/${rel}/review`, { token: tok('admin') });
    assert.equal(review.status, 200, review.text);
    assert.equal(review.body.data.status, 'in_review');
    assert.equal((await app.request('POST', `/releases/${rel}/approve`, { token: tok('user') })).status, 403);
    const rejected = await app.request('POST', `/releases/${rel}/reject`, { token: tok('admin'), body: { reason: 'The cover is too small' } });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.data.status, 'rejected');
    const events = (await app.request('GET', `/releases/${rel}/feedback`, { token: tok('user') })).body.data;
    assert.deepEqual(events.map((e: any) => [e.toStatus, e.message]), [['submitted', null], ['in_review', null], ['rejected', 'The cover is too small']]);
    // a rejected release is editable again: new artwork, then resubmitted and approved
    assert.equal((await app.request('POST', `/releases/${rel}/media/files`, { token: tok('user'), raw: form('files', PNG, 'cover.png', 'image/png') })).status, 201);
    assert.equal((await app.request('POST', `/releases/${rel}/submit`, { token: tok('user'), body: {} })).status, 200);
    const approved = await app.request('POST', `/releases/${rel}/approve`, { token: tok('admin') });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.data.status, 'approved');
    const twice = await app.request('POST', `/releases/${rel}/approve`, { token: tok('admin') });
    assert.equal(twice.status, 400, twice.text);
    assert.equal(twice.body.error.code, 'ILLEGAL_STATUS_MOVE');
    const locked = await app.request('POST', `/releases/${rel}/tracks/${t2}/media/file`, { token: tok('user'), raw: form('file', wav(), 'slack.wav', 'audio/wav') });
    assert.equal(locked.status, 400, locked.text);
    assert.equal(locked.body.error.code, 'RELEASE_LOCKED');
    const stats = (await app.request('GET', `/releases/${rel}/stats`, { token: tok('user') })).body.data;
    assert.deepEqual([stats.status, stats.feedback, stats.artworkFiles], ['approved', 5, 1]);
  });

  it("another workspace, and a guest who does not own the release, see none of it", async () => {
    for (const [method, path] of [
      ['GET', `/releases/${rel}/tracks`], ['GET', `/releases/${rel}/stats`], ['GET', `/releases/${rel}/media`], ['GET', `/releases/${rel}/tracks/${t1}/media/file`],
      ['POST', `/releases/${rel}/approve`], ['POST', `/releases/${rel}/reject`], ['POST', `/releases/${rel}/review`],
    ] as const) {
      const r = await app.request(method, path, { token: tok('owner', b) });
      assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
    }
    const cross = await app.request('POST', `/releases/${rel}/media/files`, { token: tok('owner', b), raw: form('files', PNG, 'x.png', 'image/png') });
    assert.equal(cross.status, 404, cross.text);
    for (const path of [`/releases/${rel}/tracks`, `/releases/${rel}/stats`, `/releases/${rel}/tracks/${t1}/media/file`]) {
      assert.equal((await app.request('GET', path, { token: tok('guest') })).status, 404, path);
    }
  });

  it('deleting the release removes its stored artwork and audio', async () => {
    assert.equal((await app.request('DELETE', `/releases/${rel}`, { token: tok('admin') })).status, 200);
    assert.equal(await objectStore(app.cfg).stat(artworkKey), null);
    assert.equal(await objectStore(app.cfg).stat(audioKey), null);
  });

  describe('the royalty-assets checklist', () => {
    const line = (p: Partial<LineIn> & { net: string }): LineIn => ({ saleMonth: '2026-09-01', dsp: 'Spotify', country: 'GB', saleType: 'stream', quantity: '100', currency: 'USD', ...p });

    before(async () => {
      await loadStatement(app, a.tenantId, {
        salePeriodEnd: '2026-09-30',
        lines: [
          line({ isrc: 'GBKPL2600011', trackTitle: 'Lantern Song', artist: 'Mara Quill', net: '7.25' }),
          line({ isrc: 'GBKPL2600011', trackTitle: 'Lantern Song (Radio Edit)', artist: 'Mara Quill', net: '1.10' }),
          line({ isrc: 'GBKPL2600012', trackTitle: 'Copper Hills', artist: 'The Fennel Band', net: '3.00' }),
          line({ isrc: null, trackTitle: 'No Code Here', artist: 'Nobody', net: '0.50' }),
        ],
      });
    });

    it('GET /checklist/royaltyassets answers the recordings statements name and the catalogue lacks in data (admins), searchable', async () => {
      const r = await app.request('GET', '/checklist/royaltyassets', { token: tok('admin') });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data.map((g: any) => [g.isrc, g.title, g.artist, g.amount]), [
        ['GBKPL2600011', 'Lantern Song', 'Mara Quill', '7.25'],
        ['GBKPL2600012', 'Copper Hills', 'The Fennel Band', '3'],
        ['GBKPL2600011', 'Lantern Song (Radio Edit)', 'Mara Quill', '1.1'],
        [null, 'No Code Here', 'Nobody', '0.5'],
      ]);
      assert.equal(r.body.totalItems, 4);
      assert.ok(Array.isArray(r.body.catalogueItems.data), 'the catalogue\'s own checklist beside it');
      const found = await app.request('GET', '/checklist/royaltyassets?search=fennel', { token: tok('admin') });
      assert.deepEqual(found.body.data.map((g: any) => g.isrc), ['GBKPL2600012']);
      assert.deepEqual((await app.request('GET', '/checklist/royaltyassets', { token: tok('user') })).body.data, []);
      assert.equal((await app.request('GET', '/checklist/royaltyassets', { token: tok('admin', b) })).body.totalItems, 0);
    });

    it('POST /checklist/royaltyassets/import adds them (admins); the lines are then matched and leave the checklist', async () => {
      assert.equal((await app.request('POST', '/checklist/royaltyassets/import', { token: tok('user') })).status, 403);
      const other = await app.request('POST', '/checklist/royaltyassets/import', { token: tok('admin', b) });
      assert.equal(other.status, 201, other.text);
      assert.deepEqual(other.body.data, { created: [], errors: [] });
      const some = await app.request('POST', '/checklist/royaltyassets/import', { token: tok('admin'), body: { isrcs: ['GB-KPL-26-00012', 'nonsense', 'GBKPL2699999'] } });
      assert.equal(some.status, 201, some.text);
      assert.deepEqual(some.body.data.created.map((c: any) => [c.title, c.isrc]), [['Copper Hills', 'GBKPL2600012']]);
      assert.deepEqual(some.body.data.errors, ['isrcs: "nonsense" is not an ISRC', 'isrcs: GBKPL2699999 is not a recording missing from the catalogue']);
      const rest = await app.request('POST', '/checklist/royaltyassets/import', { token: tok('admin') });
      assert.equal(rest.status, 201, rest.text);
      assert.deepEqual(rest.body.data.created.map((c: any) => [c.title, c.isrc]), [['Lantern Song', 'GBKPL2600011']], 'titled as the line with the largest amount');
      const asset = await app.request('GET', `/asset/${rest.body.data.created[0].id}`, { token: tok('admin') });
      const artists = await app.svc.db.owner('artists').whereIn('id', asset.body.data.artists).pluck('name');
      assert.deepEqual(artists, ['Mara Quill']);
      await waitForReallocation(app, a.tenantId);
      const after = await app.request('GET', '/checklist/royaltyassets', { token: tok('admin') });
      assert.deepEqual(after.body.data.map((g: any) => g.title), ['No Code Here'], 'only the line without an ISRC is left');
      const matched = await app.svc.db.owner('royalty_lines').where({ tenant_id: a.tenantId }).whereNotNull('isrc').whereNull('asset_id').count<{ n: string }[]>({ n: '*' });
      assert.equal(Number(matched[0].n), 0);
    });
  });
});

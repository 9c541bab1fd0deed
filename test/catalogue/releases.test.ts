import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { withTenant } from '../../src/db';
import { wav } from '../helpers/media';

/** A fake media host on loopback: .mp3/.mp4 answer with audio/video, /page with HTML, /gone 404, HEAD refused on /nohead. */
function fakeHost(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const p = req.url ?? '';
    if (p.startsWith('/gone')) { res.writeHead(404).end(); return; }
    if (p.startsWith('/nohead') && req.method === 'HEAD') { res.writeHead(405).end(); return; }
    if (p.startsWith('/page')) { res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'); return; }
    const type = p.endsWith('.mp4') ? 'video/mp4' : p.endsWith('.jpg') ? 'image/jpeg' : 'audio/mpeg';
    res.writeHead(200, { 'content-type': type, 'content-length': '1234' });
    res.end(req.method === 'HEAD' ? undefined : Buffer.alloc(1234));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  })));
}


describe('releases, tracks, media', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let host: { url: string; close(): Promise<void> };
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'RelA');
    b = await createTestTenant(app, 'RelB');
    host = await fakeHost();
  });
  after(async () => { await host.close(); await app.close(); });

  async function newRelease(token = a.users.user!.token, tracks = [{ title: 'One' }]) {
    const r = await app.request('POST', '/releases', { token, body: { title: 'Night Drive', artistName: 'Nina Sol', type: 'EP', format: 'Digital', tracks } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data;
  }

  it('creating a release and a track writes in-app notifications with the release metadata', async () => {
    const rel = await newRelease();
    assert.equal(rel.status, 'draft');
    const t = await app.request('POST', `/releases/${rel.id}/tracks`, { token: a.users.user!.token, body: { title: 'Two', isrc: 'us-rc1-76-07839' } });
    assert.equal(t.status, 201);
    assert.equal(t.body.data.isrc, 'USRC17607839');
    const notes = await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('notifications').where({ tenant_user_id: a.users.user!.tenantUserId }).orderBy('created_at'));
    const rn = notes.find((n) => n.type === 'release.created' && n.resource_id === rel.id)!;
    assert.deepEqual(rn.metadata, { type: 'EP', format: 'Digital', status: 'draft', artistName: 'Nina Sol', releaseTitle: 'Night Drive' });
    assert.equal(rn.resource_type, 'release');
    assert.equal(notes.filter((n) => n.type === 'track.created').length, 2);
  });

  it('status moves: draft → submitted → in_review → approved; illegal moves are 400; review is admin only', async () => {
    const rel = await newRelease();
    const u = a.users.user!.token;
    const adm = a.users.admin!.token;
    const ill = await app.request('POST', `/releases/${rel.id}/review`, { token: adm, body: { status: 'approved' } });
    assert.equal(ill.status, 400);
    assert.equal(ill.body.error.code, 'ILLEGAL_STATUS_MOVE');
    assert.equal((await app.request('POST', `/releases/${rel.id}/submit`, { token: u, body: {} })).body.data.status, 'submitted');
    assert.equal((await app.request('POST', `/releases/${rel.id}/submit`, { token: u, body: {} })).status, 400);
    assert.equal((await app.request('PUT', `/releases/${rel.id}`, { token: u, body: { title: 'Locked' } })).status, 400);
    assert.equal((await app.request('POST', `/releases/${rel.id}/review`, { token: u, body: { status: 'approved' } })).status, 403);
    assert.equal((await app.request('POST', `/releases/${rel.id}/review`, { token: adm, body: { status: 'in_review' } })).body.data.status, 'in_review');
    assert.equal((await app.request('POST', `/releases/${rel.id}/review`, { token: adm, body: { status: 'in_review' } })).status, 400);
    const ok = await app.request('POST', `/releases/${rel.id}/review`, { token: adm, body: { status: 'approved', message: 'Ship it' } });
    assert.equal(ok.body.data.status, 'approved');
    assert.equal(ok.body.data.reviewedBy, a.users.admin!.tenantUserId);
    assert.equal((await app.request('POST', `/releases/${rel.id}/submit`, { token: u, body: {} })).status, 400);
    assert.equal((await app.request('POST', `/releases/${rel.id}/review`, { token: adm, body: { status: 'rejected' } })).status, 400);
    const fb = await app.request('GET', `/releases/${rel.id}/feedback`, { token: u });
    assert.deepEqual(fb.body.data.map((e: any) => `${e.fromStatus}>${e.toStatus}`), ['draft>submitted', 'submitted>in_review', 'in_review>approved']);
  });

  it('rejected → resubmit; feedback, and admins send back to draft; a release needs tracks to be submitted', async () => {
    const u = a.users.user!.token;
    const adm = a.users.admin!.token;
    const empty = await newRelease(u, []);
    const no = await app.request('POST', `/releases/${empty.id}/submit`, { token: u, body: {} });
    assert.equal(no.status, 400);
    assert.equal(no.body.error.code, 'NO_TRACKS');
    const rel = await newRelease();
    await app.request('POST', `/releases/${rel.id}/submit`, { token: u, body: {} });
    assert.equal((await app.request('POST', `/releases/${rel.id}/feedback`, { token: u, body: { message: 'pls', requestChanges: true } })).status, 403);
    const back = await app.request('POST', `/releases/${rel.id}/feedback`, { token: adm, body: { message: 'Fix the cover', requestChanges: true } });
    assert.equal(back.body.data.release.status, 'draft');
    const note = await app.request('POST', `/releases/${rel.id}/feedback`, { token: u, body: { message: 'Done' } });
    assert.equal(note.body.data.feedback.at(-1).message, 'Done');
    assert.equal((await app.request('PUT', `/releases/${rel.id}`, { token: u, body: { title: 'Night Drive (Deluxe)' } })).body.data.title, 'Night Drive (Deluxe)');
    await app.request('POST', `/releases/${rel.id}/submit`, { token: u, body: {} });
    assert.equal((await app.request('POST', `/releases/${rel.id}/review`, { token: adm, body: { status: 'rejected' } })).body.data.status, 'rejected');
    assert.equal((await app.request('POST', `/releases/${rel.id}/submit`, { token: u, body: {} })).body.data.status, 'submitted');
    const list = await app.request('GET', '/releases?status=submitted&search=deluxe', { token: u });
    assert.deepEqual(list.body.data.map((r: any) => r.id), [rel.id]);
    const stats = await app.request('GET', '/releases/stats', { token: u });
    assert.ok(stats.body.data.byStatus.submitted >= 1);
    // a guest sees no release they neither created nor share an artist with (docs/auth.md, role matrix)
    assert.deepEqual((await app.request('GET', '/releases?status=submitted&search=deluxe', { token: a.users.guest!.token })).body.data, []);
    assert.equal((await app.request('GET', '/releases/stats', { token: a.users.guest!.token })).body.data.total, 0);
    assert.equal((await app.request('POST', '/releases', { token: a.users.guest!.token, body: { title: 'x' } })).status, 403);
    assert.equal((await app.request('DELETE', `/releases/${empty.id}`, { token: u })).status, 403);
    assert.equal((await app.request('DELETE', `/releases/${empty.id}`, { token: adm })).status, 200);
  });

  it('track media link: audio/video only, validated, one per track', async () => {
    const rel = await newRelease(a.users.user!.token, [{ title: 'A' }, { title: 'B' }]);
    const [t1, t2] = rel.tracks;
    const link = (track: string, body: object) => app.request('POST', `/releases/${rel.id}/tracks/${track}/media/link`, { token: a.users.user!.token, body });
    const ftp = await link(t1.id, { url: 'ftp://127.0.0.1/a.mp3' });
    assert.equal(ftp.status, 400);
    assert.equal(ftp.body.error.code, 'INVALID_LINK_SCHEME');
    assert.equal((await link(t1.id, { url: `${host.url}/cover.jpg` })).status, 400);
    assert.equal((await link(t1.id, { url: `${host.url}/page` })).body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.equal((await link(t1.id, { url: `${host.url}/gone/a.mp3` })).body.error.code, 'LINK_UNREACHABLE');
    assert.equal((await link(t1.id, { url: 'http://127.0.0.1:1/a.mp3' })).body.error.code, 'LINK_UNREACHABLE');
    assert.equal((await link(t1.id, { url: `${host.url}/a.mp3`, type: 'video' })).status, 400);
    const ok = await link(t1.id, { url: `${host.url}/nohead/master.mp3` });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.success, true);
    const d = ok.body.data;
    assert.equal(d.type, 'audio');
    assert.equal(d.name, 'master.mp3');
    assert.equal(d.isLink, true);
    assert.equal(d.cloudUrl, `${host.url}/nohead/master.mp3`);
    assert.equal(d.releasePath, `releases/${rel.id}/tracks/${t1.id}/master.mp3`);
    assert.equal(d.metadata.linkValidated, true);
    assert.equal(d.metadata.mimeType, 'audio/mpeg');
    assert.match(d.cloudId, /^[0-9a-f-]{36}$/);
    const second = await link(t1.id, { url: `${host.url}/video.mp4` });
    assert.equal(second.status, 400);
    assert.equal(second.body.error.code, 'TRACK_MEDIA_EXISTS');
    const vid = await link(t2.id, { url: `${host.url}/clip.mp4`, name: 'Clip' });
    assert.equal(vid.body.data.type, 'video');
    assert.equal((await app.request('GET', `/releases/${rel.id}/tracks/${t2.id}/media`, { token: a.users.user!.token })).body.data.name, 'Clip');
    assert.equal((await app.request('GET', `/releases/${rel.id}/tracks/${t2.id}/media`, { token: a.users.guest!.token })).status, 404);
    assert.equal((await app.request('DELETE', `/releases/${rel.id}/tracks/${t1.id}/media`, { token: a.users.user!.token })).status, 200);
    assert.equal((await link(t1.id, { url: `${host.url}/video.mp4` })).status, 200);
    assert.equal((await app.request('POST', `/releases/${rel.id}/tracks/${t1.id}/media/link`, { token: a.users.guest!.token, body: { url: `${host.url}/a.mp3` } })).status, 403);
    // another tenant: 404, nothing written
    const cross = await app.request('POST', `/releases/${rel.id}/tracks/${t2.id}/media/link`, { token: b.users.owner!.token, body: { url: `${host.url}/a.mp3` } });
    assert.equal(cross.status, 404);
  });

  it('asset media upload streams to the object store with metadata; delete by name', async () => {
    const adm = a.users.admin!.token;
    const asset = (await app.request('POST', '/asset', { token: adm, body: { title: 'Upload me', isrc: 'GB-AAA-26-00001' } })).body.data.id;
    const form = new FormData();
    form.append('file', new Blob([wav()], { type: 'audio/wav' }), 'take 1.wav');
    const up = await app.request('POST', `/asset/${asset}/media`, { token: adm, raw: form });
    assert.equal(up.status, 201, up.text);
    const m = up.body.data;
    assert.equal(m.name, 'take 1.wav');
    assert.equal(m.kind, 'audio');
    assert.equal(m.metadata.duration, 0.5);
    assert.equal(m.metadata.sampleRate, '8000');
    assert.equal(m.metadata.channels, '1');
    assert.equal(m.metadata.fileSize, 8044);
    assert.equal(m.metadata.mimeType, 'audio/wav');
    assert.ok(m.metadata.codec);
    assert.ok(m.metadata.bitrate);
    const { objectStore } = await import('../../src/lib/storage');
    assert.equal((await objectStore(app.cfg).stat(m.storageKey))?.size, 8044);
    assert.equal((await app.request('GET', `/asset/${asset}/media`, { token: a.users.guest!.token })).status, 404); // not the guest's recording
    const listed = await app.request('GET', `/asset/${asset}/media`, { token: adm });
    assert.equal(listed.body.data.length, 1);
    const cross = new FormData();
    cross.append('file', new Blob([wav()]), 'x.wav');
    assert.equal((await app.request('POST', `/asset/${asset}/media`, { token: b.users.owner!.token, raw: cross })).status, 404);
    assert.equal((await app.request('DELETE', `/asset/${asset}/media/${encodeURIComponent('take 1.wav')}`, { token: b.users.owner!.token })).status, 404);
    assert.equal((await app.request('DELETE', `/asset/${asset}/media/${encodeURIComponent('take 1.wav')}`, { token: adm })).status, 200);
    assert.equal(await objectStore(app.cfg).stat(m.storageKey), null);
    // products take media too (cover art: no audio facts)
    const product = (await app.request('POST', '/product/', { token: adm, body: { title: 'With cover', upc: '4006381333931' } })).body.data.id;
    const img = new FormData();
    img.append('file', new Blob([Buffer.from('89504e47', 'hex')], { type: 'image/png' }), 'cover.png');
    const pu = await app.request('POST', `/product/${product}/media`, { token: adm, raw: img });
    assert.equal(pu.status, 201);
    assert.equal(pu.body.data.kind, 'image');
    assert.equal(pu.body.data.metadata.duration, null);
    assert.equal((await app.request('DELETE', `/product/${product}/media/cover.png`, { token: adm })).status, 200);
    assert.equal((await app.request('POST', `/product/${product}/media`, { token: a.users.user!.token, raw: img })).status, 403);
  });

  it('cross-tenant reads and writes on releases and tracks answer 404', async () => {
    const rel = await newRelease();
    const t = rel.tracks[0].id;
    const o = b.users.owner!.token;
    for (const [m, p, body] of [
      ['GET', `/releases/${rel.id}`], ['PUT', `/releases/${rel.id}`, { title: 'x' }], ['DELETE', `/releases/${rel.id}`],
      ['POST', `/releases/${rel.id}/submit`, {}], ['POST', `/releases/${rel.id}/review`, { status: 'approved' }], ['POST', `/releases/${rel.id}/feedback`, { message: 'x' }],
      ['GET', `/releases/${rel.id}/feedback`], ['POST', `/releases/${rel.id}/tracks`, { title: 'x' }], ['PUT', `/releases/${rel.id}/tracks/${t}`, { title: 'x' }],
      ['DELETE', `/releases/${rel.id}/tracks/${t}`], ['GET', `/releases/${rel.id}/tracks/${t}/media`],
    ] as [string, string, unknown?][]) {
      const r = await app.request(m, p, { token: o, body });
      assert.equal(r.status, 404, `${m} ${p}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await app.request('GET', '/releases', { token: o })).body.data.length, 0);
    assert.equal((await app.request('GET', `/releases/${rel.id}`, { token: a.users.user!.token })).body.data.title, 'Night Drive');
    assert.equal((await app.request('GET', `/releases/${rel.id}`, { token: a.users.guest!.token })).status, 404);
  });
});

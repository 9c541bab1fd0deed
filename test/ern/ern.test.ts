import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, signIn, type TestApp, type TestTenant } from '../helpers/app';
import { seedDemo } from '../../src/seed/demo';
import { withTenant } from '../../src/db';
import { validateErn, ernXsd } from './xsd';
import { AVS_VERSION_ID, isoDuration } from '../../src/modules/ern/builder';
import { COMMERCIAL_MODELS, USE_TYPES, PARENTAL_WARNINGS, TERRITORY_CODES } from '../../src/modules/defaultsettings/keys';
import { wav } from '../helpers/media';

/** A GTIN-13 with a valid check digit from 12 digits. */
function gtin(base: string): string {
  const sum = [...base].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return base + ((10 - (sum % 10)) % 10);
}


const count = (xml: string, tag: string) => (xml.match(new RegExp(`<${tag}[ >]`, 'g')) ?? []).length;
const avsValues = (type: string): string[] => {
  const m = ernXsd().avs.match(new RegExp(`<xs:simpleType name="${type}">([\\s\\S]*?)</xs:simpleType>`));
  assert.ok(m, `AVS type ${type}`);
  return [...m[1]!.matchAll(/<xs:enumeration value="([^"]+)"/g)].map((x) => x[1]!);
};

describe('DDEX ERN 4.3 generation', () => {
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let upcSeq = 100;
  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'ErnA');
    b = await createTestTenant(app, 'ErnB');
    const adm = a.users.admin!.token;
    for (const [key, value] of [['senderDpid', 'PADPIDA2026112401A'], ['recipientDpid', 'PADPIDA2014021302H'], ['recipientName', 'Example Store']] as const) {
      const r = await app.request('POST', '/defaultsettings/tenant/current', { token: adm, body: { category: 'ddex', key, value } });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => app.close());

  async function release(body: Record<string, unknown>, token = a.users.admin!.token) {
    const r = await app.request('POST', '/releases', { token, body: { title: 'Night Drive', artistName: 'Nina Sol', type: 'Single', genre: ['Electronic'], upc: gtin(`0360002${++upcSeq}00`.slice(0, 12)), releaseDate: '2026-12-04', ...body } });
    assert.equal(r.status, 201, r.text);
    return r.body.data;
  }
  // the releases are the admin's: a user generates messages only for their own (docs/auth.md, role matrix)
  const generate = (body: Record<string, unknown>, token = a.users.admin!.token, headers?: Record<string, string>) => app.request('POST', '/ddex/ern/generate', { token, body, headers });

  it('a one-track release: a NewReleaseMessage that validates against the ERN 4.3 XSD', async () => {
    const rel = await release({ tracks: [{ title: 'Night Drive', isrc: 'GB-ERN-26-00001', metadata: { duration: 215.3 } }] });
    const r = await generate({ releaseId: rel.id });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'success');
    const { xml, messageType, deals, messageId, fileName } = r.body.data;
    assert.equal(messageType, 'NewReleaseMessage');
    assert.equal(fileName, `${messageId}.xml`);
    const v = await validateErn(xml);
    assert.deepEqual(v.errors, []);
    assert.equal(v.valid, true);
    assert.match(xml, /<ern:NewReleaseMessage xmlns:ern="http:\/\/ddex\.net\/xml\/ern\/43" LanguageAndScriptCode="en" AvsVersionId="3">/);
    assert.match(xml, /<MessageSender>\s*<PartyId>PADPIDA2026112401A<\/PartyId>\s*<PartyName>\s*<FullName>ErnA \d+<\/FullName>/);
    assert.match(xml, /<ISRC>GBERN2600001<\/ISRC>/);
    assert.match(xml, new RegExp(`<ICPN>${rel.upc}</ICPN>`));
    assert.match(xml, /<Duration>PT3M35\.3S<\/Duration>/);
    assert.match(xml, /<FullName>Nina Sol<\/FullName>/);
    assert.match(xml, /<DisplayArtistRole>MainArtist<\/DisplayArtistRole>/);
    assert.equal(deals, 1);
    assert.equal(count(xml, 'Deal'), 1);
    assert.match(xml, /<TerritoryCode>Worldwide<\/TerritoryCode>\s*<ValidityPeriod>\s*<StartDate>2026-12-04<\/StartDate>/);
    assert.equal(count(xml, 'SoundRecording'), 1);
  });

  it('the validator really checks: a message with the release id removed fails', async () => {
    const rel = await release({ tracks: [{ title: 'T', isrc: 'GB-ERN-26-00002', metadata: { duration: 60 } }] });
    const { xml } = (await generate({ releaseId: rel.id })).body.data;
    const broken = (xml as string).replace(/<ReleaseId>[\s\S]*?<\/ReleaseId>/, '');
    const v = await validateErn(broken);
    assert.equal(v.valid, false);
    assert.ok(v.errors.some((e) => /ReleaseId|DisplayTitleText/.test(e)), v.errors.join('\n'));
  });

  it('a multi-track release on a label with three territories: one deal per territory, technical details from the uploaded audio', async () => {
    const adm = a.users.admin!.token;
    const artist = (await app.request('POST', '/artist', { token: adm, body: { name: 'Orla Finch' } })).body.data.id;
    const label = (await app.request('POST', '/labels', { token: adm, body: { name: 'Finch Sounds', artists: [artist] } })).body.data.id;
    for (const [key, value] of [['territories', ['GB', 'FR', 'DE']], ['commercialModels', ['SubscriptionModel']], ['useTypes', ['OnDemandStream']], ['dealStartDate', '2027-01-15']] as const) {
      assert.equal((await app.request('POST', `/defaultsettings/label/${label}`, { token: adm, body: { category: 'ddex', key, value } })).status, 201);
    }
    const asset = (await app.request('POST', '/asset', { token: adm, body: { title: 'Glass', isrc: 'GB-ERN-26-00010', artists: [artist] } })).body.data.id;
    const form = new FormData();
    form.append('file', new Blob([wav()], { type: 'audio/wav' }), 'glass.wav');
    assert.equal((await app.request('POST', `/asset/${asset}/media`, { token: adm, raw: form })).status, 201);
    const rel = await release({
      title: 'Glasshouse & Other <Stories>', artistName: undefined, artist, type: 'Album',
      tracks: [
        { title: 'Glass', asset },
        { title: 'Mirror "Live"', isrc: 'GB-ERN-26-00011', explicit: true, metadata: { duration: 180 } },
        { title: 'Frame', isrc: 'GB-ERN-26-00012', metadata: { duration: 3725.25 } },
      ],
    });
    const r = await generate({ releaseId: rel.id });
    assert.equal(r.status, 200, r.text);
    const xml: string = r.body.data.xml;
    const v = await validateErn(xml);
    assert.deepEqual(v.errors, []);
    assert.equal(r.body.data.deals, 3);
    assert.equal(count(xml, 'Deal'), 3);
    assert.deepEqual([...xml.matchAll(/<TerritoryCode>(\w+)<\/TerritoryCode>/g)].map((m) => m[1]), ['GB', 'FR', 'DE']);
    assert.equal(count(xml, 'CommercialModelType'), 3);
    assert.match(xml, /<StartDate>2027-01-15<\/StartDate>/);
    assert.equal(count(xml, 'SoundRecording'), 3);
    assert.equal(count(xml, 'ResourceGroupContentItem'), 3);
    assert.match(xml, /<ReleaseType>Album<\/ReleaseType>/);
    assert.match(xml, /<TitleText>Glasshouse &amp; Other &lt;Stories&gt;<\/TitleText>/);
    // technical details of the asset's WAV (8 kHz mono PCM, 0.5 s)
    assert.match(xml, /<ISRC>GBERN2600010<\/ISRC>/);
    assert.match(xml, /<ContainerFormat>WAV<\/ContainerFormat>/);
    assert.match(xml, /<AudioCodecType>PCM<\/AudioCodecType>/);
    assert.match(xml, /<NumberOfChannels>1<\/NumberOfChannels>/);
    assert.match(xml, /<SamplingRate UnitOfMeasure="Hz">8000<\/SamplingRate>/);
    assert.match(xml, /<BitRate UnitOfMeasure="kbps">128<\/BitRate>/);
    assert.match(xml, /<URI>resources\/glass\.wav<\/URI>\s*<FileSize>8044<\/FileSize>/);
    assert.match(xml, /<Duration>PT0M0\.5S<\/Duration>/);
    assert.match(xml, /<Duration>PT1H2M5\.25S<\/Duration>/);
    // the explicit track and therefore the release
    assert.equal(count(xml, 'ParentalWarningType'), 4);
    assert.equal((xml.match(/<ParentalWarningType>Explicit<\/ParentalWarningType>/g) ?? []).length, 2);
    assert.match(xml, /<PartyName>\s*<FullName>Orla Finch<\/FullName>/);
  });

  it('track media records give the technical details and the duration', async () => {
    const rel = await release({ tracks: [{ title: 'Linked', isrc: 'GB-ERN-26-00020' }] });
    const track = rel.tracks[0].id;
    await withTenant(app.svc.db.app, a.tenantId, (trx) => trx('track_media').insert({
      tenant_id: a.tenantId, release_id: rel.id, track_id: track, type: 'audio', name: 'linked.flac', url: 'https://media.example/linked.flac?x=1&y=2',
      release_path: `releases/${rel.id}/linked.flac`, processing_status: 'processed',
      metadata: { duration: 42.5, bitrate: '1411200', sampleRate: '44100', channels: '2', codec: 'FLAC', fileSize: 7_500_000 },
    }));
    const r = await generate({ releaseId: rel.id });
    assert.equal(r.status, 200, r.text);
    const xml: string = r.body.data.xml;
    assert.deepEqual((await validateErn(xml)).errors, []);
    assert.match(xml, /<AudioCodecType>FLAC<\/AudioCodecType>/);
    assert.match(xml, /<BitRate UnitOfMeasure="kbps">1411\.2<\/BitRate>/);
    assert.match(xml, /<SamplingRate UnitOfMeasure="Hz">44100<\/SamplingRate>/);
    assert.match(xml, /<NumberOfChannels>2<\/NumberOfChannels>/);
    assert.match(xml, /<URI>https:\/\/media\.example\/linked\.flac\?x=1&amp;y=2<\/URI>/);
    assert.match(xml, /<Duration>PT0M42\.5S<\/Duration>/);
  });

  it('PurgeReleaseMessage validates; UpdateReleaseMessage and unknown types are 400', async () => {
    const rel = await release({ tracks: [{ title: 'Gone', isrc: 'GB-ERN-26-00030', metadata: { duration: 10 } }] });
    const p = await generate({ releaseId: rel.id, messageType: 'PurgeReleaseMessage' });
    assert.equal(p.status, 200, p.text);
    assert.match(p.body.data.xml, /<ern:PurgeReleaseMessage /);
    assert.deepEqual((await validateErn(p.body.data.xml)).errors, []);
    const u = await generate({ releaseId: rel.id, messageType: 'UpdateReleaseMessage' });
    assert.equal(u.status, 400);
    assert.equal(u.body.status, 'error');
    assert.match(u.body.message, /UpdateReleaseMessage/);
    assert.match(u.body.details[0], /send a NewReleaseMessage again/);
    const x = await generate({ releaseId: rel.id, messageType: 'TakedownMessage' });
    assert.equal(x.status, 400);
    assert.match(x.body.details[0], /supported: NewReleaseMessage, PurgeReleaseMessage/);
  });

  it('missing data is a 400 naming each gap (UPC, ISRC, duration, genre)', async () => {
    const rel = await release({ upc: null, genre: [], tracks: [{ title: 'No Code' }, { title: 'Fine', isrc: 'GB-ERN-26-00040', metadata: { duration: 5 } }] });
    const r = await generate({ releaseId: rel.id });
    assert.equal(r.status, 400);
    assert.equal(r.body.status, 'error');
    assert.equal(r.body.message, 'Cannot write the ERN: missing release.upc, release.genre, tracks[1] "No Code": isrc, tracks[1] "No Code": duration');
    assert.equal(r.body.details.length, 4);
    const huge = await release({ tracks: [{ title: 'Endless', isrc: 'GB-ERN-26-00041', metadata: { duration: 1e300 } }] });
    const h = await generate({ releaseId: huge.id });
    assert.equal(h.status, 400);
    assert.equal(h.body.message, 'Cannot write the ERN: missing tracks[1] "Endless": duration');
    const empty = await release({ tracks: [] });
    const e = await generate({ releaseId: empty.id });
    assert.equal(e.status, 400);
    assert.match(e.body.message, /release\.tracks/);
  });

  it('sender and recipient party ids come from the ddex settings: without them, a 400 naming the setting', async () => {
    const other = await createTestTenant(app, 'ErnC', ['admin']);
    const r = await app.request('POST', '/releases', { token: other.users.admin!.token, body: { title: 'Solo', artistName: 'S', genre: ['Pop'], upc: gtin('036000291452'.slice(0, 12)), tracks: [{ title: 'S', isrc: 'GB-ERN-26-00050', metadata: { duration: 5 } }] } });
    assert.equal(r.status, 201, r.text);
    const g = await generate({ releaseId: r.body.data.id }, other.users.admin!.token);
    assert.equal(g.status, 400);
    assert.equal(g.body.message, 'Cannot write the ERN: missing ddex.senderDpid, ddex.recipientDpid');
  });

  it('validation settings: requireTrackMedia and requireReleaseDate refuse what they name', async () => {
    const adm = a.users.admin!.token;
    const artist = (await app.request('POST', '/artist', { token: adm, body: { name: 'Strict Artist' } })).body.data.id;
    const label = (await app.request('POST', '/labels', { token: adm, body: { name: 'Strict Label', artists: [artist] } })).body.data.id;
    const ap = await app.request('POST', '/defaultsettings/templates/builtin-strict-delivery/apply', { token: adm, body: { entityType: 'label', entityId: label } });
    assert.equal(ap.status, 200, ap.text);
    const rel = await release({ artist, artistName: undefined, releaseDate: null, tracks: [{ title: 'Raw', isrc: 'GB-ERN-26-00060', metadata: { duration: 5 } }] });
    const r = await generate({ releaseId: rel.id });
    assert.equal(r.status, 400);
    assert.equal(r.body.message, 'Cannot write the ERN: missing release.releaseDate, tracks[1] "Raw": processed audio');
  });

  it('Accept: application/xml answers the XML file itself', async () => {
    const rel = await release({ tracks: [{ title: 'File', isrc: 'GB-ERN-26-00070', metadata: { duration: 5 } }] });
    assert.equal((await generate({ releaseId: rel.id }, a.users.user!.token)).status, 404); // not the user's release
    const r = await generate({ releaseId: rel.id }, a.users.admin!.token, { accept: 'application/xml' });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/xml/);
    assert.match(r.headers.get('content-disposition') ?? '', /^attachment; filename="RONDO[0-9A-F]{32}\.xml"$/);
    assert.ok(r.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>'));
    assert.deepEqual((await validateErn(r.text)).errors, []);
  });

  it("another workspace's release is not found; guests and anonymous callers are refused; bad ids are 400", async () => {
    const rel = await release({ tracks: [{ title: 'Mine', isrc: 'GB-ERN-26-00080', metadata: { duration: 5 } }] });
    const cross = await generate({ releaseId: rel.id }, b.users.owner!.token);
    assert.equal(cross.status, 404);
    assert.deepEqual(cross.body, { status: 'error', message: 'Release not found', code: 'RELEASE_NOT_FOUND' });
    assert.equal((await generate({ releaseId: rel.id }, a.users.guest!.token)).status, 403);
    assert.equal((await app.request('POST', '/ddex/ern/generate', { body: { releaseId: rel.id } })).status, 401);
    const bad = await generate({ releaseId: 'nope' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.details[0], /body\.releaseId/);
  });

  it('the allowed values Rondo writes are in the published AVS, and the AVS version matches', () => {
    assert.match(ernXsd().avs, new RegExp(`<xs:documentation source="AvsVersionId">${AVS_VERSION_ID}</xs:documentation>`));
    const cm = new Set(avsValues('CommercialModelType_ERN'));
    assert.deepEqual(COMMERCIAL_MODELS.filter((v) => !cm.has(v)), []);
    const ut = new Set(avsValues('UseType_ERN'));
    assert.deepEqual(USE_TYPES.filter((v) => !ut.has(v)), []);
    const pw = new Set(avsValues('ParentalWarningType'));
    assert.deepEqual(PARENTAL_WARNINGS.filter((v) => !pw.has(v)), []);
    const terr = new Set(avsValues('CurrentTerritoryCode'));
    assert.ok(terr.has('Worldwide'));
    assert.ok(TERRITORY_CODES.size > 240);
    assert.deepEqual([...TERRITORY_CODES].filter((c) => !terr.has(c)), []);
  });

  it('the demo workspace is ready for ERN: its seeded release writes a valid test message with four deals', async () => {
    const demo = await seedDemo(app.svc);
    assert.ok(demo.seeded.includes('default-settings'));
    await seedDemo(app.svc); // idempotent
    const owner = demo.users.find((u) => u.role === 'owner')!;
    const { token } = await signIn(app, owner.email, demo.password, demo.workspaceId);
    const rels = await app.request('GET', '/releases', { token });
    assert.equal(rels.body.data.length, 1);
    const r = await generate({ releaseId: rels.body.data[0].id }, token);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await validateErn(r.body.data.xml)).errors, []);
    assert.equal(r.body.data.deals, 4);
    assert.match(r.body.data.xml, /<MessageControlType>TestMessage<\/MessageControlType>/);
    assert.match(r.body.data.xml, /<PLineText>2026 Moonlight Records<\/PLineText>/);
    assert.equal(count(r.body.data.xml, 'SoundRecording'), 4);
  });

  it('text XML cannot carry (control characters) is dropped, never a broken message', async () => {
    const rel = await release({ title: 'Bad\u0001Byte', tracks: [{ title: 'Tab\tand\u0008back', isrc: 'GB-ERN-26-00090', metadata: { duration: 5 } }] });
    const r = await generate({ releaseId: rel.id });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await validateErn(r.body.data.xml)).errors, []);
    assert.match(r.body.data.xml, /<TitleText>BadByte<\/TitleText>/);
    assert.match(r.body.data.xml, /<TitleText>Tab\tandback<\/TitleText>/);
  });

  it('durations are ISO 8601', () => {
    assert.equal(isoDuration(0.5), 'PT0M0.5S');
    assert.equal(isoDuration(215.3), 'PT3M35.3S');
    assert.equal(isoDuration(3600), 'PT1H0M0S');
  });
});

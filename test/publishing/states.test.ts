/**
 * Publishing state machines over HTTP (docs/publishing.md): every allowed and every refused
 * move of agreements (docs/publishing.md, errors `{message, error}`), registrations (
 * pending → queued → submitted → registered | rejected, through the CWR export and the
 * society's acknowledgement file) and claims; and a 1,000-work catalogue exported as CWR
 * and read back equal to the works the API answers.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { AGREEMENT_MOVES, type AgreementStatus } from '../../src/modules/publishing/agreements';
import { CLAIM_MOVES, type ClaimStatus } from '../../src/modules/publishing/claims';
import { readCwr } from '../../src/modules/publishing/cwr/reader';
import { formatRecord } from '../../src/modules/publishing/cwr/codec';
import { ipi, parties, withPublishing } from './helpers';

const AGREEMENT_STATES: AgreementStatus[] = ['draft', 'pending', 'active', 'expired', 'terminated'];
/** The shortest path of allowed moves from draft to each state. */
const PATH: Record<AgreementStatus, AgreementStatus[]> = { draft: [], pending: ['pending'], active: ['pending', 'active'], expired: ['pending', 'active', 'expired'], terminated: ['pending', 'active', 'terminated'] };

describe('publishing: state machines and CWR registrations', function () {
  this.timeout(600_000);
  let app: TestApp;
  let t: TestTenant;
  let tok: string;
  let writer: string;
  let publisher: string;

  before(async () => {
    app = await startTestApp();
    t = await createTestTenant(app, 'States');
    await withPublishing(app, t);
    tok = t.users.admin!.token;
    ({ writer, publisher } = await parties(app, tok));
  });
  after(async () => {
    await app?.close();
  });

  const agreement = async () => {
    const r = await app.request('POST', '/agreements', { token: tok, body: { publisher, writer, territories: ['GB', 'US'], startDate: '2026-01-01', writerShare: '70', advance: '1000.50', currency: 'gbp' } });
    assert.equal(r.status, 201, r.text);
    return r.body.data as { id: string; status: string };
  };
  const move = (id: string, status: string) => app.request('PATCH', `/agreements/${id}/status`, { token: tok, body: { status } });

  describe('agreements', () => {
    it('is created draft with its terms; listed; the terms change while draft', async () => {
      const a = await agreement();
      assert.equal(a.status, 'draft');
      assert.equal((await app.request('GET', `/agreements/${a.id}`, { token: t.users.user!.token })).status, 403); // publishing is read by admins
      const g = await app.request('GET', `/agreements/${a.id}`, { token: t.users.admin!.token });
      assert.deepEqual({ ...g.body.data, id: undefined, createdAt: undefined, updatedAt: undefined }, {
        id: undefined, publisher, writer, territories: ['GB', 'US'], startDate: '2026-01-01', endDate: null, writerShare: '70', advance: '1000.5', currency: 'GBP',
        status: 'draft', statusChangedAt: null, createdAt: undefined, updatedAt: undefined,
      });
      const u = await app.request('PUT', `/agreements/${a.id}`, { token: tok, body: { endDate: '2028-12-31', territories: ['WORLD'] } });
      assert.equal(u.status, 200, u.text);
      assert.deepEqual([u.body.data.endDate, u.body.data.territories], ['2028-12-31', ['WORLD']]);
      const l = await app.request('GET', `/agreements?writer=${writer}&status=draft`, { token: tok });
      assert.ok(l.body.data.some((x: { id: string }) => x.id === a.id));
    });

    for (const from of AGREEMENT_STATES) {
      for (const to of AGREEMENT_STATES) {
        const allowed = AGREEMENT_MOVES[from].includes(to);
        it(`${from} → ${to}: ${allowed ? 'allowed' : 'refused with 400 {message, error}'}`, async () => {
          const a = await agreement();
          for (const step of PATH[from]) assert.equal((await move(a.id, step)).status, 200);
          const r = await move(a.id, to);
          if (allowed) {
            assert.equal(r.status, 200, r.text);
            assert.equal(r.body.data.status, to);
            assert.ok(r.body.data.statusChangedAt);
          } else {
            assert.equal(r.status, 400, r.text);
            assert.deepEqual(Object.keys(r.body).sort(), ['error', 'message']);
            assert.equal(r.body.error, 'INVALID_TRANSITION');
            assert.match(r.body.message, new RegExp(`from ${from} to ${to}`));
            assert.equal((await app.request('GET', `/agreements/${a.id}`, { token: tok })).body.data.status, from);
          }
        });
      }
    }

    it('exactly these moves are allowed (the documented table)', () => {
      assert.deepEqual(AGREEMENT_MOVES, { draft: ['pending'], pending: ['draft', 'active'], active: ['expired', 'terminated'], expired: [], terminated: [] });
    });

    it('terms are locked once active; bad input and unknown ids answer {message, error}', async () => {
      const a = await agreement();
      await move(a.id, 'pending');
      await move(a.id, 'active');
      const locked = await app.request('PUT', `/agreements/${a.id}`, { token: tok, body: { writerShare: 80 } });
      assert.equal(locked.status, 400);
      assert.equal(locked.body.error, 'NOT_EDITABLE');
      const bad = await app.request('POST', '/agreements', { token: tok, body: { publisher, writer, territories: ['GB'], startDate: '2026-05-01', endDate: '2026-01-01', writerShare: 150 } });
      assert.equal(bad.status, 400);
      assert.deepEqual(Object.keys(bad.body).sort(), ['error', 'message']);
      const noStatus = await app.request('PATCH', `/agreements/${a.id}/status`, { token: tok, body: { status: 'signed' } });
      assert.equal(noStatus.status, 400);
      assert.match(noStatus.body.message, /status/);
      const missing = await app.request('GET', '/agreements/00000000-0000-4000-8000-000000000000', { token: tok });
      assert.equal(missing.status, 404);
      assert.deepEqual(Object.keys(missing.body).sort(), ['error', 'message']);
      const member = await app.request('PATCH', `/agreements/${a.id}/status`, { token: t.users.user!.token, body: { status: 'expired' } });
      assert.equal(member.status, 403);
    });
  });

  describe('claims', () => {
    const STATES: ClaimStatus[] = ['open', 'disputed', 'resolved', 'withdrawn'];
    const CLAIM_PATH: Record<ClaimStatus, ClaimStatus[]> = { open: [], disputed: ['disputed'], resolved: ['resolved'], withdrawn: ['withdrawn'] };
    let work: string;
    before(async () => {
      work = (await app.request('POST', '/works', { token: tok, body: { title: 'Claimed', writers: [{ writer, role: 'composer', share: 100 }] } })).body.data.id;
    });
    for (const from of STATES) {
      for (const to of STATES) {
        const allowed = CLAIM_MOVES[from].includes(to);
        it(`claim ${from} → ${to}: ${allowed ? 'allowed' : 'refused with 400'}`, async () => {
          const c = await app.request('POST', '/claims', { token: tok, body: { work, claimant: 'Rival Music', claimantIpi: ipi(), society: 'ASCAP', right: 'performance', share: '12.5' } });
          assert.equal(c.status, 201, c.text);
          assert.equal(c.body.data.status, 'open');
          for (const step of CLAIM_PATH[from]) assert.equal((await app.request('PATCH', `/claims/${c.body.data.id}/status`, { token: tok, body: { status: step } })).status, 200);
          const r = await app.request('PATCH', `/claims/${c.body.data.id}/status`, { token: tok, body: { status: to, note: 'checked' } });
          assert.equal(r.status, allowed ? 200 : 400, r.text);
          assert.equal((await app.request('GET', `/claims/${c.body.data.id}`, { token: tok })).body.data.status, allowed ? to : from);
        });
      }
    }
  });

  describe('registrations and CWR', () => {
    let work: string;
    before(async () => {
      work = (await app.request('POST', '/works', {
        token: tok, body: { title: 'Registered Song', iswc: 'T-034.524.680-1', writers: [{ writer, role: 'composer_lyricist', share: 100, publisher }], publishers: [{ publisher, share: 100 }] },
      })).body.data.id;
    });
    const reg = (id: string) => app.request('GET', `/registrations/${id}`, { token: tok }).then((r) => r.body.data);
    /** A society's acknowledgement file for our transactions: [work number, status, society work id]. */
    const ackFile = (society: string, acks: [string, string, string, string?][]) => {
      const v = '2.1';
      const cisac = { PRS: '052', ASCAP: '010' }[society]!;
      const ls = [formatRecord(v, 'HDR', { senderType: 'SO', senderId: cisac, senderName: `${society} society`, ediVersion: '01.10', creationDate: '20261201', creationTime: '120000', transmissionDate: '20261201' }),
        formatRecord(v, 'GRH', { transactionType: 'ACK', groupId: 1, versionNumber: '02.10', batchRequest: 0 })];
      acks.forEach(([code, status, societyId, msg], i) => {
        ls.push(formatRecord(v, 'ACK', { transactionSeq: i, recordSeq: 0, creationDate: '20261124', creationTime: '120000', originalGroupId: 1, originalTransactionSeq: i, originalTransactionType: 'NWR',
          creationTitle: 'REGISTERED SONG', submitterCreationNumber: code, recipientCreationNumber: societyId, processingDate: '20261201', transactionStatus: status }));
        if (msg) ls.push(formatRecord(v, 'MSG', { transactionSeq: i, recordSeq: 1, messageType: 'T', originalRecordSeq: 0, messageRecordType: 'NWR', messageLevel: 'T', validationNumber: '001', messageText: msg }));
      });
      ls.push(formatRecord(v, 'GRT', { groupId: 1, transactionCount: acks.length, recordCount: ls.length }));
      ls.push(formatRecord(v, 'TRL', { groupCount: 1, transactionCount: acks.length, recordCount: ls.length + 1 }));
      return ls.map((l) => `${l}\r\n`).join('');
    };

    it('pending → queued → submitted (export) → registered (ACK); a second registration is REV; every refused move is a 400', async () => {
      const c = await app.request('POST', '/registrations', { token: tok, body: { work, society: 'PRS' } });
      assert.equal(c.status, 201, c.text);
      const id = c.body.data.id;
      assert.equal(c.body.data.status, 'pending');
      assert.equal((await app.request('POST', '/registrations', { token: tok, body: { work, society: 'PRS' } })).status, 400); // one open registration per society
      const none = await app.request('GET', '/registrations/export?format=cwr21', { token: tok });
      assert.equal(none.status, 400); // nothing queued yet
      const q = await app.request('POST', `/registrations/${id}/queue`, { token: tok, body: {} });
      assert.equal(q.body.data.status, 'queued');
      assert.equal((await app.request('POST', `/registrations/${id}/queue`, { token: tok, body: {} })).status, 400); // queued → queued
      const ex = await app.request('GET', '/registrations/export?format=cwr22', { token: tok });
      assert.equal(ex.status, 200, ex.text);
      assert.match(ex.headers.get('content-disposition') ?? '', /CW26\d{4}\d{3}_PRS\.V22/);
      const file = readCwr(ex.text);
      assert.equal(file.version, '2.2');
      assert.deepEqual(file.works.map((w) => [w.transactionType, w.title, w.iswc]), [['NWR', 'REGISTERED SONG', 'T0345246801']]);
      // the file is kept: listed and downloadable again, by this workspace only
      const subs = await app.request('GET', '/registrations/submissions', { token: tok });
      assert.equal(subs.body.data[0].id, ex.headers.get('x-cwr-submission'));
      assert.equal(subs.body.data[0].transactionCount, 1);
      const kept = await app.request('GET', `/registrations/submissions/${subs.body.data[0].id}`, { token: tok });
      assert.equal(kept.text, ex.text);
      const stranger = await createTestTenant(app, 'Stranger', ['owner']);
      await withPublishing(app, stranger);
      assert.equal((await app.request('GET', `/registrations/submissions/${subs.body.data[0].id}`, { token: stranger.users.owner!.token })).status, 404);
      assert.equal((await app.request('GET', '/registrations/submissions', { token: stranger.users.owner!.token })).body.pagination.total, 0);
      const sub = await reg(id);
      assert.deepEqual([sub.status, sub.transactionType, sub.transactionSeq], ['submitted', 'NWR', 0]);
      assert.equal(sub.submission, ex.headers.get('x-cwr-submission'));
      assert.equal((await app.request('POST', `/registrations/${id}/queue`, { token: tok, body: {} })).status, 400); // submitted → queued
      const code = file.works[0]!.code;
      const ack = await app.request('POST', '/registrations/ack', { token: tok, body: { content: ackFile('PRS', [[code, 'AS', 'PRS-998877']]) } });
      assert.equal(ack.status, 200, ack.text);
      assert.deepEqual([ack.body.registered, ack.body.rejected, ack.body.unmatched], [1, 0, []]);
      const done = await reg(id);
      assert.deepEqual([done.status, done.societyWorkId], ['registered', 'PRS-998877']);
      assert.equal((await app.request('POST', `/registrations/${id}/queue`, { token: tok, body: {} })).status, 400); // registered → queued
      const again = await app.request('POST', '/registrations/ack', { token: tok, body: { content: ackFile('PRS', [[code, 'AS', 'PRS-998877']]) } });
      assert.deepEqual([again.body.registered, again.body.unmatched.length], [0, 1]); // registered is final: nothing submitted matches
      // a new registration of the same work with the same society is a revision
      const r2 = (await app.request('POST', '/registrations', { token: tok, body: { work, society: 'PRS' } })).body.data.id;
      await app.request('POST', `/registrations/${r2}/queue`, { token: tok, body: {} });
      const ex2 = await app.request('GET', '/registrations/export?format=cwr21&society=PRS', { token: tok });
      assert.deepEqual(readCwr(ex2.text).works.map((w) => w.transactionType), ['REV']);
    });

    it('a rejection keeps the society\'s message and can be queued again; a conflict registers and records an open claim', async () => {
      const a = (await app.request('POST', '/registrations', { token: tok, body: { work, society: 'ASCAP' } })).body.data.id;
      await app.request('POST', `/registrations/${a}/queue`, { token: tok, body: {} });
      const code = readCwr((await app.request('GET', '/registrations/export?format=cwr21&society=ASCAP', { token: tok })).text).works[0]!.code;
      const rj = await app.request('POST', '/registrations/ack', { token: tok, body: { content: ackFile('ASCAP', [[code, 'RJ', '', 'WRITER IPI UNKNOWN']]) } });
      assert.deepEqual([rj.body.registered, rj.body.rejected], [0, 1]);
      const rejected = await reg(a);
      assert.deepEqual([rejected.status, rejected.message], ['rejected', 'WRITER IPI UNKNOWN']);
      assert.equal((await app.request('POST', `/registrations/${a}/queue`, { token: tok, body: {} })).body.data.status, 'queued');
      await app.request('GET', '/registrations/export?format=cwr21&society=ASCAP', { token: tok });
      const co = await app.request('POST', '/registrations/ack', { token: tok, body: { content: ackFile('ASCAP', [[code, 'CO', 'ASCAP-1', 'CONFLICT WITH RIVAL PUBLISHING']]) } });
      assert.deepEqual([co.body.registered, co.body.claims], [1, 1]);
      const claims = await app.request('GET', `/claims?work=${work}&status=open`, { token: tok });
      const claim = claims.body.data.find((c: { registration: string }) => c.registration === a);
      assert.equal(claim.claimant, 'ASCAP SOCIETY');
      assert.equal(claim.note, 'CONFLICT WITH RIVAL PUBLISHING');
    });

    it('a file that is not CWR, or has no ACK, is a 400 naming body.content', async () => {
      for (const content of ['hello', `${formatRecord('2.1', 'HDR', { senderType: 'SO', senderId: '52', senderName: 'X' })}\r\n`]) {
        const r = await app.request('POST', '/registrations/ack', { token: tok, body: { content } });
        assert.equal(r.status, 400);
        assert.match(r.text, /body\.content/);
      }
    });

    it('an export needs a controlled publisher with an IPI as its sender', async () => {
      const other = await createTestTenant(app, 'Nosender', ['owner']);
      await withPublishing(app, other);
      const ot = other.users.owner!.token;
      const w = (await app.request('POST', '/writers', { token: ot, body: { lastName: 'Solo' } })).body.data.id;
      const wk = (await app.request('POST', '/works', { token: ot, body: { title: 'Alone', writers: [{ writer: w, role: 'composer', share: 100 }] } })).body.data.id;
      const r = (await app.request('POST', '/registrations', { token: ot, body: { work: wk, society: 'BMI' } })).body.data.id;
      await app.request('POST', `/registrations/${r}/queue`, { token: ot, body: {} });
      const ex = await app.request('GET', '/registrations/export?format=cwr21', { token: ot });
      assert.equal(ex.status, 400);
      assert.match(ex.text, /query\.sender/);
      assert.equal((await app.request('GET', `/registrations/${r}`, { token: ot })).body.data.status, 'queued');
    });

    it('a 1,000-work catalogue registered, exported as CWR 2.1 and read back equals the works the API answers', async () => {
      const cat = await createTestTenant(app, 'Catalogue', ['owner']);
      await withPublishing(app, cat);
      const ct = cat.users.owner!.token;
      const ws: string[] = [];
      for (let i = 0; i < 20; i++) ws.push((await app.request('POST', '/writers', { token: ct, body: { firstName: `First${i}`, lastName: `Writer ${i}`, ipi: ipi(), society: ['PRS', 'BMI', 'ASCAP'][i % 3], controlled: i % 5 !== 4 } })).body.data.id);
      const ps: string[] = [];
      for (let i = 0; i < 4; i++) ps.push((await app.request('POST', '/publishers', { token: ct, body: { name: `Publisher ${i}`, ipi: ipi(), society: 'PRS' } })).body.data.id);
      const items = Array.from({ length: 1000 }, (_, i) => ({
        title: `Catalogue song ${i}`, duration: 100 + i, alternateTitles: i % 10 ? [] : [{ title: `Alt song ${i}` }],
        writers: [{ writer: ws[i % 20], role: 'composer', share: '33.333333', publisher: ps[i % 4] }, { writer: ws[(i + 7) % 20], role: 'lyricist', share: '66.666667' }],
        publishers: [{ publisher: ps[i % 4], share: 100 }],
      }));
      const bulk = await app.request('POST', '/works/bulk', { token: ct, body: { works: items } });
      assert.equal(bulk.status, 200, bulk.text.slice(0, 500));
      assert.equal(bulk.body.processedCount, 1000, JSON.stringify(bulk.body.errors.slice(0, 5)));
      const ids: string[] = bulk.body.ids;
      // registering a thousand works one request each is not what this test is about: seed the queued registrations directly
      await app.svc.db.owner('work_registrations').insert(ids.map((id, i) => ({ tenant_id: cat.tenantId, work_id: id, society: 'PRS', status: 'queued', queued_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) })));
      const ex = await app.request('GET', '/registrations/export?format=cwr21', { token: ct });
      assert.equal(ex.status, 200, ex.text.slice(0, 300));
      const file = readCwr(ex.text);
      assert.equal(file.works.length, 1000);
      const api: Record<string, any>[] = [];
      for (let page = 1; page <= 5; page++) api.push(...(await app.request('GET', `/works?size=200&page=${page}`, { token: ct })).body.data);
      const codes = new Map(((await app.request('GET', '/writers?size=200', { token: ct })).body.data as { id: string; code: string; ipi: string }[]).map((w) => [w.id, w]));
      const pcodes = new Map(((await app.request('GET', '/publishers?size=200', { token: ct })).body.data as { id: string; code: string }[]).map((p) => [p.id, p.code]));
      const expected = ids.map((id) => api.find((w) => w.id === id)!).map((w) => ({
        title: w.title.toUpperCase(), code: w.code, duration: w.duration, alternateTitles: w.alternateTitles.map((a: { title: string }) => a.title.toUpperCase()),
        writers: w.writers.map((x: Record<string, string>) => [codes.get(x.writer)!.code, codes.get(x.writer)!.ipi, x.performanceShare, x.mechanicalShare, x.publisher ? pcodes.get(x.publisher) : null]),
        publishers: w.publishers.map((p: Record<string, string>) => [pcodes.get(p.publisher), p.performanceShare, p.mechanicalShare]),
      }));
      const got = file.works.map((w) => ({
        title: w.title, code: w.code, duration: w.duration, alternateTitles: w.alternateTitles.map((a) => a.title),
        writers: w.writers.map((x) => [x.code, x.ipi, x.prShare, x.mrShare, x.publisherCode]),
        publishers: w.publishers.map((p) => [p.code, p.prShare, p.mrShare]),
      }));
      // uncontrolled writers get no PWR link in CWR
      for (const [i, e] of expected.entries()) e.writers = e.writers.map((x: unknown[], k: number) => (file.works[i]!.writers[k]!.controlled ? x : [...x.slice(0, 4), null]));
      assert.deepEqual(got, expected);
      const statuses = await app.request('GET', '/registrations?status=submitted&size=1', { token: ct });
      assert.equal(statuses.body.pagination.total, 1000);
    });
  });
});

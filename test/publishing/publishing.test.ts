/**
 * Publishing over HTTP (docs/publishing.md): writers and publishers, works with their share
 * rules, a recording's works, bulk create and CSV, the plan gate, and every publishing route
 * probed from another workspace.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { isrc } from '../catalogue/helpers';
import { routeRegistry } from '../../src/http/route';
import { ipi, iswc, parties, withPublishing } from './helpers';

describe('publishing: writers, publishers, works', function () {
  this.timeout(300_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let tok: string;

  before(async () => {
    app = await startTestApp();
    a = await createTestTenant(app, 'Pub');
    b = await createTestTenant(app, 'Other');
    await withPublishing(app, a);
    await withPublishing(app, b);
    tok = a.users.admin!.token;
  });
  after(async () => {
    await app?.close();
  });

  describe('writers and publishers', () => {
    it('create, read, list, change and delete a writer; the IPI is checked and answered in 11 digits', async () => {
      const number = ipi();
      const c = await app.request('POST', '/writers', { token: tok, body: { firstName: 'Joni', lastName: 'Mitchell', ipi: number.replace(/^0+/, ''), society: 'SOCAN', controlled: true, user: a.users.user!.tenantUserId } });
      assert.equal(c.status, 201, c.text);
      assert.equal(c.body.message, 'Writer created');
      assert.equal(c.body.data.ipi, number);
      assert.equal(c.body.data.user, a.users.user!.tenantUserId);
      assert.match(c.body.data.code, /^W\d{8}$/);
      const id = c.body.data.id;
      assert.equal((await app.request('GET', `/writers/${id}`, { token: tok })).body.data.lastName, 'Mitchell');
      assert.equal((await app.request('GET', `/writers/${id}`, { token: a.users.user!.token })).status, 403); // publishing is read by admins (docs/auth.md)
      const l = await app.request('GET', '/writers?search=mitch', { token: tok });
      assert.deepEqual(l.body.data.map((w: { id: string }) => w.id), [id]);
      const u = await app.request('PUT', `/writers/${id}`, { token: tok, body: { controlled: false, user: null } });
      assert.equal(u.status, 200, u.text);
      assert.equal(u.body.data.controlled, false);
      assert.equal(u.body.data.user, null);
      assert.equal((await app.request('DELETE', `/writers/${id}`, { token: tok })).status, 200);
      assert.equal((await app.request('GET', `/writers/${id}`, { token: tok })).status, 404);
    });

    it('refuses an IPI with wrong check digits, of 12 digits, or already used, naming the field', async () => {
      const good = ipi();
      const wrong = good.slice(0, 9) + String((Number(good.slice(9)) + 1) % 100).padStart(2, '0');
      const r1 = await app.request('POST', '/writers', { token: tok, body: { lastName: 'X', ipi: wrong } });
      assert.equal(r1.status, 400);
      assert.match(r1.text, /body\.ipi/);
      const r2 = await app.request('POST', '/publishers', { token: tok, body: { name: 'X', ipi: `${good}1` } });
      assert.equal(r2.status, 400);
      assert.match(r2.text, /body\/ipi|body\.ipi/);
      assert.equal((await app.request('POST', '/publishers', { token: tok, body: { name: 'First', ipi: good } })).status, 201);
      const dup = await app.request('POST', '/publishers', { token: tok, body: { name: 'Second', ipi: good } });
      assert.equal(dup.status, 400);
      assert.match(dup.body.message, /already exists/);
    });

    it('a society outside the list and a user of another workspace are refused', async () => {
      assert.equal((await app.request('POST', '/writers', { token: tok, body: { lastName: 'X', society: 'NOPE' } })).status, 400);
      const other = await app.request('POST', '/writers', { token: tok, body: { lastName: 'X', user: b.users.user!.tenantUserId } });
      assert.equal(other.status, 400);
      assert.match(other.text, /body\.user .* is not a member of this workspace/);
    });

    it('admins read and write; users and guests neither', async () => {
      assert.equal((await app.request('GET', '/publishers', { token: tok })).status, 200);
      assert.equal((await app.request('GET', '/publishers', { token: a.users.user!.token })).status, 403);
      assert.equal((await app.request('POST', '/publishers', { token: a.users.user!.token, body: { name: 'Nope' } })).status, 403);
      assert.equal((await app.request('GET', '/publishers', { token: a.users.guest!.token })).status, 403);
    });
  });

  describe('works', () => {
    let w1: string;
    let w2: string;
    let p1: string;
    let p2: string;
    let asset: string;

    before(async () => {
      ({ writer: w1, publisher: p1 } = await parties(app, tok, { writer: 'Lennon', publisher: 'Northern Songs' }));
      ({ writer: w2, publisher: p2 } = await parties(app, tok, { writer: 'McCartney', publisher: 'Maclen' }));
      const r = await app.request('POST', '/asset', { token: tok, body: { title: 'Help! (Remastered)', isrc: isrc(), displayArtist: 'The Beatles' } });
      assert.equal(r.status, 201, r.text);
      asset = r.body.data.id;
    });

    it('a work with two writers and two publishers gets the default splits (performance 50/50, mechanical 0/100), exactly', async () => {
      const r = await app.request('POST', '/works', {
        token: tok,
        body: {
          title: 'Help!', iswc: 'T0345246801', language: 'en', duration: 138, alternateTitles: [{ title: 'Help' }],
          writers: [{ writer: w1, role: 'composer_lyricist', share: '66.666667', publisher: p1 }, { writer: w2, role: 'composer_lyricist', share: '33.333333', publisher: p2 }],
          publishers: [{ publisher: p1, share: 50 }, { publisher: p2, share: 50 }], recordings: [asset],
        },
      });
      assert.equal(r.status, 201, r.text);
      const d = r.body.data;
      assert.equal(d.iswc, 'T-034.524.680-1');
      assert.equal(d.language, 'EN');
      assert.deepEqual(d.performanceSplit, { writers: '50.00', publishers: '50.00' });
      assert.deepEqual(d.mechanicalSplit, { writers: '0.00', publishers: '100.00' });
      assert.deepEqual(d.writers.map((w: Record<string, string>) => [w.share, w.performanceShare, w.mechanicalShare]), [['66.666667', '33.33', '0.00'], ['33.333333', '16.67', '0.00']]);
      assert.deepEqual(d.publishers.map((p: Record<string, string>) => [p.performanceShare, p.mechanicalShare]), [['25.00', '50.00'], ['25.00', '50.00']]);
      assert.deepEqual(d.recordings, [asset]);
      assert.deepEqual(d.alternateTitles, [{ title: 'Help', type: 'AT', language: null }]);
      assert.equal((await app.request('GET', `/asset/${asset}/works`, { token: a.users.guest!.token })).status, 403);
      const works = await app.request('GET', `/asset/${asset}/works`, { token: tok });
      assert.equal(works.status, 200);
      assert.deepEqual(works.body.data.map((x: { id: string }) => x.id), [d.id]);
    });

    it('every right adds up to exactly 100.00 over the parties, for awkward shares', async () => {
      const r = await app.request('POST', '/works', {
        token: tok,
        body: {
          title: 'Thirds', writers: [{ writer: w1, role: 'composer', share: '33.333333' }, { writer: w2, role: 'lyricist', share: '66.666667' }],
          publishers: [{ publisher: p1, share: '33.333333' }, { publisher: p2, share: '66.666667' }], performanceSplit: { writers: '66.67', publishers: '33.33' }, mechanicalSplit: { writers: 25, publishers: 75 },
        },
      });
      assert.equal(r.status, 201, r.text);
      const all = [...r.body.data.writers, ...r.body.data.publishers];
      const cents = (k: string) => all.reduce((s: number, x: Record<string, string>) => s + Math.round(Number(x[k]) * 100), 0);
      assert.equal(cents('performanceShare'), 10000);
      assert.equal(cents('mechanicalShare'), 10000);
    });

    it('refuses shares that do not add up, a publishers\' performance side over 50, and a bad ISWC, each naming its field', async () => {
      const base = { title: 'Bad', writers: [{ writer: w1, role: 'composer', share: 60 }] };
      const cases: [Record<string, unknown>, RegExp][] = [
        [base, /body\.writers shares must add up to exactly 100/],
        [{ ...base, writers: [{ writer: w1, role: 'composer', share: 100 }], publishers: [{ publisher: p1, share: 100 }], performanceSplit: { writers: 40, publishers: 60 } }, /performanceSplit\.publishers must be at most 50/],
        [{ ...base, writers: [{ writer: w1, role: 'composer', share: 100 }], publishers: [{ publisher: p1, share: 100 }], mechanicalSplit: { writers: 10, publishers: 80 } }, /mechanicalSplit: writers \+ publishers must be exactly 100/],
        [{ ...base, writers: [{ writer: w1, role: 'composer', share: 100 }], performanceSplit: { writers: 50, publishers: 50 } }, /performanceSplit\.publishers must be 0 when the work has no publishers/],
        [{ ...base, writers: [{ writer: w1, role: 'composer', share: 100 }], iswc: 'T-034.524.680-2' }, /body\.iswc .* is not a valid ISWC/],
        [{ ...base, writers: [{ writer: w1, role: 'composer', share: 100, publisher: p2 }] }, /writers\[0\]\.publisher .* is not one of the work's publishers/],
      ];
      for (const [body, msg] of cases) {
        const r = await app.request('POST', '/works', { token: tok, body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.match(JSON.stringify(r.body), msg);
      }
    });

    it('a duplicate ISWC in the workspace is refused; compact and dashed forms are the same ISWC', async () => {
      const r = await app.request('POST', '/works', { token: tok, body: { title: 'Again', iswc: 'T-034.524.680-1', writers: [{ writer: w1, role: 'composer', share: 100 }] } });
      assert.equal(r.status, 400);
      assert.match(JSON.stringify(r.body), /ISWC T0345246801 already exists/);
    });

    it('a change replaces the lists it names and re-derives the shares', async () => {
      const c = await app.request('POST', '/works', { token: tok, body: { title: 'Solo', writers: [{ writer: w1, role: 'composer', share: 100 }] } });
      assert.deepEqual(c.body.data.performanceSplit, { writers: '100.00', publishers: '0.00' });
      const u = await app.request('PUT', `/works/${c.body.data.id}`, { token: tok, body: { publishers: [{ publisher: p1, share: 100 }], recordings: [asset] } });
      assert.equal(u.status, 200, u.text);
      assert.deepEqual(u.body.data.performanceSplit, { writers: '50.00', publishers: '50.00' });
      assert.equal(u.body.data.writers[0].performanceShare, '50.00');
      assert.equal(u.body.data.publishers[0].mechanicalShare, '100.00');
      assert.equal(u.body.data.title, 'Solo');
      const bad = await app.request('PUT', `/works/${c.body.data.id}`, { token: tok, body: { writers: [{ writer: w1, role: 'composer', share: 99 }] } });
      assert.equal(bad.status, 400);
      assert.equal((await app.request('GET', `/works/${c.body.data.id}`, { token: tok })).body.data.writers[0].share, '100');
    });

    it('a writer or publisher still on a work is not deleted (400), and bulk delete names it', async () => {
      const r = await app.request('DELETE', `/writers/${w1}`, { token: tok });
      assert.equal(r.status, 400);
      assert.match(r.body.message, /still named on works/);
      const bulk = await app.request('POST', '/publishers/bulk/delete', { token: tok, body: { ids: [p1] } });
      assert.equal(bulk.status, 200);
      assert.equal(bulk.body.processedCount, 0);
      assert.match(bulk.body.failedDeletions[0].error, /still named on works/);
    });

    it('bulk create reports each bad item by index and creates the rest', async () => {
      const r = await app.request('POST', '/works/bulk', {
        token: tok,
        body: {
          works: [
            { title: 'Bulk one', iswc: iswc('111222333'), writers: [{ writer: w1, role: 'composer', share: 100 }] },
            { title: 'Bulk two', writers: [{ writer: w1, role: 'composer', share: 90 }] },
            { title: 'Bulk three', iswc: iswc('111222333'), writers: [{ writer: w2, role: 'composer', share: 100 }] },
            { title: 'Bulk four', writers: [{ writer: w2, role: 'poet', share: 100 }] },
            { title: 'Bulk five', writers: [{ writer: b.users.owner!.tenantUserId, role: 'composer', share: 100 }] },
          ],
        },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.processedCount, 1);
      assert.deepEqual(r.body.created, ['Bulk one']);
      const at = (e: string) => Number(/^works\[(\d+)\]/.exec(e)?.[1]);
      assert.deepEqual([...new Set(r.body.errors.map(at))], [1, 2, 3, 4]);
      assert.match(r.body.errors.find((e: string) => at(e) === 2), /appears more than once|already exists/);
    });

    it('the CSV has a row per work with its parties', async () => {
      assert.equal((await app.request('POST', '/works/download/csv', { token: a.users.user!.token, body: {} })).status, 403);
      const r = await app.request('POST', '/works/download/csv', { token: tok, body: {} });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /text\/csv/);
      const lines = r.text.trim().split('\n');
      assert.equal(lines[0], 'id,code,title,iswc,language,duration,writers,publishers,alternate_titles,recordings,created_at');
      const help = lines.find((l) => l.includes(',"Help!",'))!;
      assert.match(help, /T-034\.524\.680-1/);
      assert.match(help, /Ann Lennon \(composer_lyricist, 66\.666667%; performance 33\.33%, mechanical 0\.00%\)/);
      const count = (await app.request('GET', '/works?size=1', { token: tok })).body.pagination.total;
      assert.equal(lines.length - 1, count);
    });

    it('list filters by writer, publisher, ISWC and title (alternate titles too)', async () => {
      const byIswc = await app.request('GET', `/works?iswc=${encodeURIComponent('T-034.524.680-1')}`, { token: tok });
      assert.deepEqual(byIswc.body.data.map((w: { title: string }) => w.title), ['Help!']);
      const byPub = await app.request('GET', `/works?publisher=${p2}`, { token: tok });
      assert.deepEqual(byPub.body.data.map((w: { title: string }) => w.title).sort(), ['Help!', 'Thirds']);
      const byAlt = await app.request('GET', '/works?search=help', { token: tok });
      assert.deepEqual(byAlt.body.data.map((w: { title: string }) => w.title), ['Help!']);
    });
  });

  describe('plan gate', () => {
    it('a workspace on the free plan gets 403 FEATURE_REQUIRED on every publishing route, naming the feature', async () => {
      const free = await createTestTenant(app, 'Free', ['owner']);
      const paths = ['/writers', '/publishers', '/works', '/agreements', '/registrations', '/claims'];
      for (const p of paths) {
        const r = await app.request('GET', p, { token: free.users.owner!.token });
        assert.equal(r.status, 403, p);
        assert.equal(r.body.error.code, 'FEATURE_REQUIRED');
        assert.match(r.body.error.details.join(' '), /feature: publishing/);
      }
      const gated = routeRegistry.filter((r) => paths.some((p) => r.path === p || r.path.startsWith(`${p}/`)));
      assert.ok(gated.length >= 30, `${gated.length} routes`);
      assert.deepEqual(gated.filter((r) => r.feature !== 'publishing').map((r) => `${r.method} ${r.path}`), []);
    });
  });

  describe('another workspace', () => {
    it('every publishing route answers 404 (or nothing) for ids of another workspace, and changes nothing', async () => {
      const ta = a.users.owner!.token;
      const { writer, publisher } = await parties(app, ta, { writer: 'Probe', publisher: 'Probe Pub' });
      const work = (await app.request('POST', '/works', { token: ta, body: { title: 'Probe work', writers: [{ writer, role: 'composer', share: 100 }] } })).body.data.id;
      const agreement = (await app.request('POST', '/agreements', { token: ta, body: { publisher, writer, territories: ['WORLD'], startDate: '2026-01-01', writerShare: 50 } })).body.data.id;
      const registration = (await app.request('POST', '/registrations', { token: ta, body: { work, society: 'PRS' } })).body.data.id;
      const claim = (await app.request('POST', '/claims', { token: ta, body: { work, claimant: 'Someone' } })).body.data.id;
      const asset = (await app.request('POST', '/asset', { token: ta, body: { title: 'Probe rec', isrc: isrc() } })).body.data.id;
      const ids: Record<string, string> = { writers: writer, publishers: publisher, works: work, agreements: agreement, registrations: registration, claims: claim };
      const tb = b.users.owner!.token;
      const probed: string[] = [];
      const areas = Object.keys(ids);
      for (const r of routeRegistry.filter((x) => areas.some((p) => x.path.startsWith(`/${p}/:id`)))) {
        const area = r.path.split('/')[1]!;
        const path = r.path.replace(':id', ids[area]!);
        const body = r.method === 'get' || r.method === 'delete' ? undefined
          : r.path.endsWith('/status') ? { status: area === 'claims' ? 'withdrawn' : 'pending' } : r.path.endsWith('/queue') ? {} : area === 'writers' ? { lastName: 'Hacked' }
            : area === 'publishers' ? { name: 'Hacked' } : area === 'works' ? { title: 'Hacked' } : area === 'agreements' ? { writerShare: 99 } : { note: 'Hacked' };
        const res = await app.request(r.method.toUpperCase(), path, { token: tb, body });
        assert.equal(res.status, 404, `${r.method} ${path}: ${res.status} ${res.text}`);
        probed.push(`${r.method} ${r.path}`);
      }
      assert.equal((await app.request('GET', `/asset/${asset}/works`, { token: tb })).status, 404);
      assert.ok(probed.length >= 14, probed.join(', '));
      // lists and creates of B neither see nor reach A's records
      for (const p of areas) assert.equal((await app.request('GET', `/${p}`, { token: tb })).body.pagination.total, 0, p);
      const refs = [
        ['/works', { title: 'X', writers: [{ writer, role: 'composer', share: 100 }] }],
        ['/agreements', { publisher, writer, territories: ['GB'], startDate: '2026-01-01', writerShare: 50 }],
        ['/registrations', { work, society: 'PRS' }],
        ['/claims', { work, claimant: 'X' }],
      ] as const;
      for (const [p, body] of refs) assert.equal((await app.request('POST', p, { token: tb, body })).status, 400, p);
      const bulk = await app.request('POST', '/works/bulk/delete', { token: tb, body: { ids: [work] } });
      assert.equal(bulk.body.processedCount, 0);
      const csv = await app.request('POST', '/works/download/csv', { token: tb, body: {} });
      assert.equal(csv.text.trim().split('\n').length, 1);
      // A's records are unchanged
      assert.equal((await app.request('GET', `/writers/${writer}`, { token: ta })).body.data.lastName, 'Probe');
      assert.equal((await app.request('GET', `/works/${work}`, { token: ta })).body.data.title, 'Probe work');
      assert.equal((await app.request('GET', `/agreements/${agreement}`, { token: ta })).body.data.status, 'draft');
      assert.equal((await app.request('GET', `/registrations/${registration}`, { token: ta })).body.data.status, 'pending');
      assert.equal((await app.request('GET', `/claims/${claim}`, { token: ta })).body.data.status, 'open');
    });
  });
});

import assert from 'node:assert/strict';
import Decimal from 'decimal.js';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, seedRates, upload, waitFile } from '../ingest/helpers';
import { tx } from '../allocation/helpers';

/** The works of the fixtures: Low Orbit and Paper Suns carry their ISWC, Glass Tide does not. */
const ISWC_LOW_ORBIT = 'T3452468014';
const ISWC_PAPER_SUNS = 'T9123456702';

interface Party { writers: Record<string, string>; publisher: string; works: Record<string, string> }

/** Writers, a publisher, three works and one active agreement (Mara Vell with the publisher, 70 % to her, worldwide). */
async function seedCatalogue(app: TestApp, tenantId: number): Promise<Party> {
  return tx(app, tenantId, async (trx) => {
    const w = async (first: string, last: string) => (await trx('writers').insert({ tenant_id: tenantId, first_name: first, last_name: last }).returning('id'))[0].id as string;
    const writers = { mara: await w('Mara', 'Vell'), jon: await w('Jon', 'Ostrander'), ilse: await w('Ilse', 'Brandt') };
    const publisher = (await trx('publishers').insert({ tenant_id: tenantId, name: 'Nova Lune Publishing' }).returning('id'))[0].id as string;
    const work = async (title: string, iswc: string | null, ws: [string, string, string, string | null][], perfPub: string, mechPub: string) => {
      const id = (await trx('works').insert({ tenant_id: tenantId, title, iswc }).returning('id'))[0].id as string;
      let pos = 0;
      for (const [writer, share, perf, pub] of ws)
        await trx('work_writers').insert({ tenant_id: tenantId, work_id: id, writer_id: writer, position: ++pos, role: 'composer_lyricist', share, performance_share: perf, mechanical_share: '0', publisher_id: pub });
      await trx('work_publishers').insert({ tenant_id: tenantId, work_id: id, publisher_id: publisher, position: 1, share: '100', performance_share: perfPub, mechanical_share: mechPub });
      return id;
    };
    const works = {
      lowOrbit: await work('Low Orbit', ISWC_LOW_ORBIT, [[writers.mara, '50', '25', publisher], [writers.jon, '50', '25', null]], '50', '100'),
      paperSuns: await work('Paper Suns', ISWC_PAPER_SUNS, [[writers.mara, '100', '50', publisher]], '50', '100'),
      glassTide: await work('Glass Tide', null, [[writers.jon, '50', '25', publisher], [writers.ilse, '50', '25', publisher]], '50', '100'),
    };
    await trx('publishing_agreements').insert({ tenant_id: tenantId, publisher_id: publisher, writer_id: writers.mara, territories: ['WORLD'], start_date: '2020-01-01', writer_share: '70', status: 'active' });
    return { writers, publisher, works };
  });
}

async function ingest(app: TestApp, token: string, name: string): Promise<any> {
  const r = await upload(app, token, name, fixture(name));
  assert.equal(r.status, 201, r.text);
  const id = r.body.data?.id ?? r.body.data?.files?.[0]?.id ?? r.body.id;
  return waitFile(app, token, id, ['processed', 'failed', 'needs_confirmation']);
}

describe('publishing income: society statements, works, shares, publisher statements', function () {
  this.timeout(180_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let admin: string;
  let party: Party;
  const files: Record<string, any> = {};
  let assetsAfterPublishing: string[] = [];

  before(async () => {
    app = await startTestApp({ workers: true });
    a = await createTestTenant(app, 'PubA');
    b = await createTestTenant(app, 'PubB');
    await app.svc.db.owner('tenants').whereIn('id', [a.tenantId, b.tenantId]).update({ plan: 'enterprise' });
    await seedRates(app, a.tenantId, b.tenantId);
    admin = a.users.admin!.token;
    party = await seedCatalogue(app, a.tenantId);
    const set = await app.request('PUT', '/settings/workspace', { token: admin, body: { autoCreateCatalogue: true } });
    assert.equal(set.status, 200, set.text);
    for (const f of ['MLC_Work_Summary_2024-03.tsv', 'PRS_Statement_2024041.csv', 'ascap_statement_2024Q2.csv', 'bmi_royalty_statement_20242.csv'])
      files[f] = await ingest(app, admin, f);
    assetsAfterPublishing = await tx(app, a.tenantId, (trx) => trx('assets').orderBy('title').pluck('title'));
    files['soundexchange_statement_2024Q1.csv'] = await ingest(app, admin, 'soundexchange_statement_2024Q1.csv');
  });
  after(async () => app?.close());

  it('ingests the five layouts through the upload pipeline to their exact totals', () => {
    const expect: Record<string, [string, Record<string, string>]> = {
      'MLC_Work_Summary_2024-03.tsv': ['mlc-work-summary', { USD: '51.83111' }],
      'PRS_Statement_2024041.csv': ['prs-distribution', { GBP: '41.3317' }],
      'ascap_statement_2024Q2.csv': ['ascap-statement', { USD: '32.19' }],
      'bmi_royalty_statement_20242.csv': ['bmi-statement', { USD: '25.2334' }],
      'soundexchange_statement_2024Q1.csv': ['soundexchange-statement', { USD: '33.997676' }],
    };
    for (const [name, [key, totals]] of Object.entries(expect)) {
      const f = files[name];
      assert.equal(f.status, 'processed', `${name}: ${JSON.stringify(f)}`);
      assert.equal(f.source?.key, key, name);
      const t = Object.fromEntries(Object.entries(f.totals as Record<string, string>).map(([c, v]) => [c, new Decimal(v).toFixed()]));
      assert.deepEqual(t, totals, name);
    }
  });

  it('marks society files as publishing income and never pays recording splits with them', async () => {
    const rows = await tx(app, a.tenantId, (trx) => trx.raw(
      `SELECT f.original_name, f.income, count(l.share_set_id)::int AS recording_paid FROM files f JOIN royalty_lines l ON l.tenant_id = f.tenant_id AND l.file_id = f.id GROUP BY 1, 2 ORDER BY 1`));
    const by = Object.fromEntries(rows.rows.map((r: any) => [r.original_name, r]));
    for (const n of ['MLC_Work_Summary_2024-03.tsv', 'PRS_Statement_2024041.csv', 'ascap_statement_2024Q2.csv', 'bmi_royalty_statement_20242.csv']) {
      assert.equal(by[n].income, 'publishing', n);
      assert.equal(by[n].recording_paid, 0, n);
    }
    assert.equal(by['soundexchange_statement_2024Q1.csv'].income, 'recording');
    // autoCreateCatalogue creates recordings from recording income only (SoundExchange's ISRCs), never from works
    assert.deepEqual(assetsAfterPublishing, []);
    const assets = await tx(app, a.tenantId, (trx) => trx('assets').orderBy('title').pluck('title'));
    assert.deepEqual(assets, ['Glass Tide', 'Low Orbit', 'Paper Suns']);
    // the recording checklists list recording income only
    const un = await app.request('GET', '/checklist/royaltyassets?size=100', { token: admin });
    assert.equal(un.status, 200, un.text);
    const titles = un.body.data.map((r: any) => r.title);
    assert.ok(!titles.includes('Night Ferry') && !titles.includes('LOW ORBIT') && !titles.includes('Work Primary Title'), JSON.stringify(titles));
    const sug = await app.request('GET', '/royalty/matches/suggestions?status=open', { token: admin });
    assert.equal(sug.status, 200, sug.text);
    assert.ok(!sug.body.data.some((x: any) => ['Night Ferry', 'LOW ORBIT', 'GLASS TIDE'].includes(x.title)), 'no recording suggestion from publishing income');
  });

  it('matches lines to works by ISWC, and only by ISWC before any suggestion is accepted', async () => {
    const lines = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ file_id: files['MLC_Work_Summary_2024-03.tsv'].id }).orderBy('line_no').select('work_id', 'work_match'));
    assert.deepEqual(lines.map((l: any) => [l.work_id, l.work_match]), [
      [party.works.lowOrbit, 'iswc'], [party.works.lowOrbit, 'iswc'], [party.works.paperSuns, 'iswc'], [null, null], [null, null],
    ]);
  });

  it('splits a matched line exactly: mechanical Low Orbit 40.123456 → Mara 70 % of the publisher part, the publisher 30 %', async () => {
    const fileId = files['MLC_Work_Summary_2024-03.tsv'].id;
    const e = await tx(app, a.tenantId, (trx) => trx('publishing_earnings').where({ file_id: fileId })
      .where('line_no', trx('royalty_lines').where({ file_id: fileId }).min('line_no')).orderBy('payee_kind').select('payee_kind', 'payee_id', 'amount'));
    assert.deepEqual(e.map((r: any) => [r.payee_kind, r.payee_id, new Decimal(r.amount).toFixed()]), [
      ['publisher', party.publisher, '12.0370368'], ['writer', party.writers.mara, '28.0864192'],
    ]);
  });

  it('every paid line is shared to its base amount exactly', async () => {
    const { rows } = await tx(app, a.tenantId, (trx) => trx.raw(
      `SELECT l.file_id, l.line_no, l.base_amount::text AS base, sum(e.amount)::text AS shared
         FROM royalty_lines l JOIN publishing_earnings e ON e.file_id = l.file_id AND e.line_no = l.line_no
        GROUP BY 1, 2, 3`));
    assert.equal(rows.length, 7, 'MLC: 3 lines, PRS: 4 lines (ASCAP and BMI carry no ISWC)');
    for (const r of rows) assert.ok(new Decimal(r.base).eq(r.shared), `${r.file_id}:${r.line_no} ${r.base} vs ${r.shared}`);
  });

  it('lists unmatched lines, suggests Glass Tide by title + writers, and matches it only once accepted', async () => {
    const un = await app.request('GET', '/publishing/income/unmatched?size=50', { token: admin });
    assert.equal(un.status, 200, un.text);
    const titles = un.body.data.map((r: any) => r.title);
    assert.ok(titles.includes('Glass Tide') && titles.includes('Night Ferry'), JSON.stringify(titles));
    // largest amount first by default; sort, order and search like every list
    const amounts = (rows: any[]) => rows.map((r) => new Decimal(r.amount));
    const desc = amounts(un.body.data);
    assert.ok(desc.length > 2 && desc.every((x: Decimal, i: number) => i === 0 || desc[i - 1]!.gte(x)), JSON.stringify(un.body.data));
    const asc = await app.request('GET', '/publishing/income/unmatched?size=50&sort=amount&order=asc', { token: admin });
    assert.deepEqual(amounts(asc.body.data).map(String), [...desc].reverse().map(String));
    const ferry = await app.request('GET', '/publishing/income/unmatched?search=night%20fer&sort=lines&order=desc', { token: admin });
    assert.equal(ferry.status, 200, ferry.text);
    assert.ok(ferry.body.data.length >= 1 && ferry.body.data.every((r: any) => r.title === 'Night Ferry'), JSON.stringify(ferry.body.data));
    assert.equal(ferry.body.totalItems, ferry.body.data.length);
    const badSort = await app.request('GET', '/publishing/income/unmatched?sort=work', { token: admin });
    assert.deepEqual([badSort.status, badSort.body.code], [400, 'INVALID_SORT']);
    const sug = await app.request('GET', '/publishing/income/suggestions', { token: admin });
    assert.equal(sug.status, 200, sug.text);
    const glass = sug.body.data.filter((s: any) => s.work.id === party.works.glassTide);
    assert.ok(glass.length >= 1, JSON.stringify(sug.body.data));
    assert.ok(!sug.body.data.some((s: any) => s.title === 'Night Ferry'), 'no work is called Night Ferry');
    const mlcGlass = glass.find((s: any) => s.writers === 'Jon Ostrander|Ilse Brandt');
    assert.equal(mlcGlass.score, '1');
    const before = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ work_id: party.works.glassTide }).count<{ n: string }[]>({ n: '*' }));
    assert.equal(Number(before[0]!.n), 0);
    const acc = await app.request('POST', `/publishing/income/suggestions/${mlcGlass.id}/accept`, { token: admin });
    assert.equal(acc.status, 200, acc.text);
    const after = await tx(app, a.tenantId, (trx) => trx('royalty_lines').where({ work_id: party.works.glassTide }).orderBy(['file_id', 'line_no']).select('work_match', 'pub_share_set_id'));
    // the two MLC lines and the PRS line whose writers normalise the same (Jon Ostrander/Ilse Brandt)
    assert.equal(after.length, 3);
    assert.ok(after.every((l: any) => l.work_match === 'rule' && l.pub_share_set_id));
    const again = await app.request('POST', `/publishing/income/suggestions/${mlcGlass.id}/accept`, { token: admin });
    assert.equal(again.status, 400);
  });

  describe('publisher statements', () => {
    let sid: string;
    it('creates a draft from the writer\'s income; lines add up to the total, CSV and PDF agree', async () => {
      const r = await app.request('POST', '/publisher-statements', { token: admin, body: { writer: party.writers.mara, periodStart: '2023-01-01', periodEnd: '2025-12-31' } });
      assert.equal(r.status, 201, r.text);
      const s = r.body.data;
      sid = s.id;
      assert.equal(s.status, 'draft');
      assert.ok(s.lines.length >= 3);
      const sum = s.lines.reduce((x: Decimal, l: any) => x.plus(l.amount), new Decimal(0));
      assert.equal(sum.toFixed(2), s.incomeTotal);
      assert.equal(new Decimal(s.incomeExact).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2), s.incomeTotal);
      const exact = await tx(app, a.tenantId, (trx) => trx('publishing_earnings').where({ payee_kind: 'writer', payee_id: party.writers.mara }).sum<{ s: string }[]>({ s: 'amount' }));
      assert.ok(new Decimal(exact[0]!.s).eq(s.incomeExact));
      const csv = await app.request('GET', `/publisher-statements/${sid}/csv`, { token: admin });
      assert.equal(csv.status, 200);
      const rows = csv.text.trim().split('\n').slice(1).map((l: string) => l.split(','));
      const incomeRows = rows.filter((c: string[]) => c[0] === 'income');
      assert.equal(incomeRows.length, s.lines.length);
      assert.equal(incomeRows.reduce((x: Decimal, c: string[]) => x.plus(c[7]!), new Decimal(0)).toFixed(2), s.incomeTotal);
      assert.equal(rows.at(-1)![7], s.total);
      const pdf = await app.request('GET', `/publisher-statements/${sid}/pdf`, { token: admin });
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    });

    it('refuses an overlapping statement of the same writer', async () => {
      const r = await app.request('POST', '/publisher-statements', { token: admin, body: { writer: party.writers.mara, periodStart: '2024-06-01', periodEnd: '2024-06-30' } });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.status, 'error');
    });

    it('allows exactly the five moves of the spec and refuses every other with 400', async () => {
      const ALLOWED = new Set(['draft>pending', 'pending>approved', 'pending>draft', 'approved>paid', 'approved>pending']);
      const PATH: Record<string, string[]> = { draft: [], pending: ['pending'], approved: ['pending', 'approved'], paid: ['pending', 'approved', 'paid'] };
      let year = 2000;
      for (const from of ['draft', 'pending', 'approved', 'paid']) {
        for (const to of ['draft', 'pending', 'approved', 'paid']) {
          year += 1;
          const c = await app.request('POST', '/publisher-statements', { token: admin, body: { publisher: party.publisher, periodStart: `${year}-01-01`, periodEnd: `${year}-12-31` } });
          assert.equal(c.status, 201, c.text);
          for (const step of PATH[from]!) assert.equal((await app.request('PATCH', `/publisher-statements/${c.body.data.id}/status`, { token: admin, body: { status: step } })).status, 200);
          const r = await app.request('PATCH', `/publisher-statements/${c.body.data.id}/status`, { token: admin, body: { status: to } });
          const allowed = ALLOWED.has(`${from}>${to}`);
          assert.equal(r.status, allowed ? 200 : 400, `${from} → ${to}: ${r.text}`);
          const now = (await app.request('GET', `/publisher-statements/${c.body.data.id}`, { token: admin })).body.data.status;
          assert.equal(now, allowed ? to : from);
        }
      }
    });

    it('takes adjustments in draft and pending, refuses them once approved or paid', async () => {
      const add = (amount: string) => app.request('POST', `/publisher-statements/${sid}/adjustments`, { token: admin, body: { amount, memo: 'advance recoup' } });
      const d = await add('-10.50');
      assert.equal(d.status, 201, d.text);
      assert.equal(d.body.data.adjustmentsTotal, '-10.50');
      assert.equal(new Decimal(d.body.data.incomeTotal).minus('10.50').toFixed(2), d.body.data.total);
      assert.equal((await add('1.234')).status, 400); // more decimals than USD has
      assert.equal((await app.request('PATCH', `/publisher-statements/${sid}/status`, { token: admin, body: { status: 'pending' } })).status, 200);
      assert.equal((await add('2')).status, 201);
      assert.equal((await app.request('PATCH', `/publisher-statements/${sid}/status`, { token: admin, body: { status: 'approved' } })).status, 200);
      const locked = await add('3');
      assert.equal(locked.status, 400);
      assert.equal(locked.body.status, 'error');
      assert.equal((await app.request('PATCH', `/publisher-statements/${sid}/status`, { token: admin, body: { status: 'paid' } })).status, 200);
      assert.equal((await add('3')).status, 400);
      const s = (await app.request('GET', `/publisher-statements/${sid}`, { token: admin })).body.data;
      assert.deepEqual(s.adjustments.map((x: any) => x.amount), ['-10.50', '2.00']);
    });

    it('lists statements', async () => {
      const r = await app.request('GET', `/publisher-statements?writer=${party.writers.mara}`, { token: admin });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data.map((s: any) => s.id), [sid]);
    });

    it('does not leak across workspaces', async () => {
      const other = b.users.admin!.token;
      assert.equal((await app.request('GET', `/publisher-statements/${sid}`, { token: other })).status, 404);
      assert.equal((await app.request('GET', `/publisher-statements/${sid}/csv`, { token: other })).status, 404);
      assert.equal((await app.request('PATCH', `/publisher-statements/${sid}/status`, { token: other, body: { status: 'pending' } })).status, 404);
      assert.equal((await app.request('POST', `/publisher-statements/${sid}/adjustments`, { token: other, body: { amount: '1', memo: 'x' } })).status, 404);
      assert.equal((await app.request('POST', '/publisher-statements', { token: other, body: { writer: party.writers.mara, periodStart: '2030-01-01', periodEnd: '2030-12-31' } })).status, 404);
      const list = await app.request('GET', '/publisher-statements', { token: other });
      assert.deepEqual(list.body.data, []);
      const un = await app.request('GET', '/publishing/income/unmatched', { token: other });
      assert.deepEqual(un.body.data, []);
      const sug = await app.request('GET', '/publishing/income/suggestions?status=accepted', { token: admin });
      assert.equal(sug.status, 200, sug.text);
      assert.ok(sug.body.data.length >= 1, sug.text);
      const id = sug.body.data[0].id;
      assert.equal((await app.request('POST', `/publishing/income/suggestions/${id}/reject`, { token: other })).status, 404);
    });

    it('needs the publishing plan feature and an admin', async () => {
      await app.svc.db.owner('tenants').where({ id: b.tenantId }).update({ plan: 'free' });
      assert.equal((await app.request('GET', '/publisher-statements', { token: b.users.admin!.token })).status, 403);
      assert.equal((await app.request('GET', '/publisher-statements', { token: a.users.user!.token })).status, 403);
    });
  });
});

import assert from 'node:assert/strict';
import { startTestApp, signIn, type TestApp } from '../helpers/app';
import { seedDemo, DEMO_PASSWORD } from '../../src/seed/demo';
import { waitFile } from '../ingest/helpers';

describe('demo seeder: statements', () => {
  let app: TestApp;
  before(async () => (app = await startTestApp({ workers: true })));
  after(async () => app.close());

  it('registers two statements that the pipeline reads, matches and allocates; idempotent', async () => {
    const r = await seedDemo(app.svc);
    assert.ok(r.seeded.includes('statements'));
    await seedDemo(app.svc); // second run: no new files
    const { token } = await signIn(app, 'finance@moonlight.demo', DEMO_PASSWORD, r.workspaceId);
    const files = await app.request('GET', '/file/', { token });
    assert.equal(files.status, 200);
    assert.equal(files.body.data.length, 2);
    const done = await Promise.all(files.body.data.map((f: any) => waitFile(app, token, f.id)));
    assert.deepEqual(done.map((f) => f.status), ['processed', 'processed'], JSON.stringify(done.map((f) => f.error)));
    const sources = done.map((f) => f.source?.name ?? f.source).map(String).sort();
    assert.equal(sources.length, 2);

    // every line is in the totals, in USD (EUR converted at the seeded 2026-02 rate)
    const sum = await app.svc.db.owner.raw(`SELECT sum(base_amount)::text AS s, count(*)::int AS n FROM royalty_lines WHERE tenant_id = ?`, [r.tenantId]);
    const total = await app.request('GET', '/royalty/', { token });
    assert.equal(total.status, 200);
    assert.equal(total.body.data.currency, 'USD');
    assert.equal(total.body.data.total.lines, sum.rows[0].n);
    assert.equal(Number(total.body.data.total.lines) > 50, true);
    assert.equal(total.body.data.total.revenue.replace(/0+$/, '').replace(/\.$/, ''), sum.rows[0].s.replace(/0+$/, '').replace(/\.$/, ''));
    const months = await app.request('GET', '/royalty/month?periodFilterType=sale', { token });
    assert.deepEqual(months.body.data.rows.map((x: any) => x.month ?? x.saleMonth ?? Object.values(x)[0]).map((m: string) => String(m).slice(0, 7)).sort(), ['2026-01', '2026-02']);

    // the recording the catalogue lacks is on the checklist; the artists see their own share
    const cl = await app.request('GET', '/checklist/royaltyassets', { token });
    assert.equal(cl.status, 200);
    assert.ok(JSON.stringify(cl.body).includes('GBMLR2699001'));
    const ana = await signIn(app, 'ana@moonlight.demo', DEMO_PASSWORD, r.workspaceId);
    const own = await app.request('GET', '/royalty/', { token: ana.token });
    assert.equal(own.status, 200);
    assert.ok(Number(own.body.data.total.lines) > 0);
    const earned = await app.svc.db.owner.raw(
      `SELECT sum(e.amount)::text AS s FROM royalty_earnings e JOIN tenant_users tu ON tu.tenant_id = e.tenant_id AND tu.id = e.tenant_user_id
        JOIN users u ON u.id = tu.user_id WHERE e.tenant_id = ? AND e.superseded_at IS NULL AND u.email = 'ana@moonlight.demo'`,
      [r.tenantId],
    );
    assert.equal(own.body.data.total.revenue.replace(/0+$/, '').replace(/\.$/, ''), earned.rows[0].s.replace(/0+$/, '').replace(/\.$/, ''));
  });
});

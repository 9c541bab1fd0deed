/**
 * Issue 37, "no plan depends on statistics being fresh": statements are loaded through the
 * real pipeline (allocate → aggregate jobs) into a fresh workspace and the analytics are
 * asked at once — before autovacuum could analyse anything (it is off for the tables these
 * read, as it is in the minute after a label's first statements are processed). The plans
 * of the SQL the routes run (EXPLAIN (FORMAT JSON) of the very statement royaltyAnalytics
 * sends) are checked, for an admin and for a payee paid on every recording of the catalogue:
 * no nested loop runs the rollup rows as its inner side once per share set, and every
 * rollup or lines scan estimates its rows within a factor of the true count. No timing.
 */
import assert from 'node:assert/strict';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { tx, waitFor, waitForReallocation } from './helpers';
import { royaltyAnalytics, type GroupBy } from '../../src/modules/royalty/analytics';
import { SHAPE_TABLES } from '../../src/modules/royalty/shapes';
import { hashJoins, type Trx } from '../../src/db';

const RECORDINGS = 1_000;
const FILES = 4;
/** Lines per file: every recording × 5 stores × 6 countries (a statement's real density). */
const DSPS = ['Spotify', 'Apple Music', 'YouTube', 'Deezer', 'Amazon'];
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'BR', 'JP'];
const LINES_PER_FILE = RECORDINGS * DSPS.length * COUNTRIES.length;
const READ_TABLES = [...SHAPE_TABLES, 'royalty_lines', 'royalty_share_sets'];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

function* nodes(n: PlanNode): Generator<PlanNode> {
  yield n;
  for (const c of n.Plans ?? []) yield* nodes(c);
}
const relationsUnder = (n: PlanNode) => [...nodes(n)].map((x) => x['Relation Name']).filter((r): r is string => !!r);

/**
 * The plan of the statement royaltyAnalytics answers with (`WITH g AS MATERIALIZED …`):
 * that statement is run as EXPLAIN (ANALYZE, FORMAT JSON) where the route runs it, in the
 * same transaction and under the same settings; every other statement runs as it is.
 */
async function answerPlan(trx: Trx, tenantId: number, payee: string | null, group: GroupBy): Promise<PlanNode> {
  let plan: PlanNode | null = null;
  const spy = new Proxy(trx, {
    get(target, prop, receiver) {
      if (prop !== 'raw') return Reflect.get(target, prop, receiver);
      return async (sql: string, b: unknown[] = []) => {
        if (!/^\s*WITH g AS MATERIALIZED/.test(sql)) return target.raw(sql, b as never);
        const r = await target.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, b as never);
        plan = r.rows[0]['QUERY PLAN'][0].Plan;
        return { rows: [] };
      };
    },
  });
  await royaltyAnalytics(spy as Trx, tenantId, payee, group, {});
  assert.ok(plan, 'the answer statement was run');
  return plan;
}

describe('the first analytics request after a load plans as well as a later one (issue 37)', function () {
  this.timeout(600_000);
  let app: TestApp;
  let t: TestTenant;

  before(async () => {
    app = await startTestApp({ workers: true });
    // Autovacuum off for what the analytics read: the statistics stay as the load leaves
    // them, whatever the machine's timing (the worst case of a first request).
    for (const table of READ_TABLES) await app.svc.db.owner.raw(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    t = await createTestTenant(app, 'Fresh');
    const broad = t.users.user!.tenantUserId;
    const others = [t.users.guest!.tenantUserId, t.users.admin!.tenantUserId];
    // 1,000 recordings of 50 artists, each with its own split: the payee `user` on every one
    // (a label partner), beside one other payee — 1,000 share sets naming them.
    await tx(app, t.tenantId, async (trx) => {
      await trx.raw(`INSERT INTO artists (tenant_id, name) SELECT ?, 'Artist ' || g FROM generate_series(1, 50) g`, [t.tenantId]);
      await trx.raw(
        `INSERT INTO assets (tenant_id, title, isrc) SELECT ?, 'Song ' || g, 'USFRS' || lpad(g::text, 7, '0') FROM generate_series(1, ?) g`,
        [t.tenantId, RECORDINGS],
      );
      await trx.raw(
        `INSERT INTO asset_artists (tenant_id, asset_id, artist_id, position)
         SELECT a.tenant_id, a.id, ar.id, 0 FROM (SELECT id, tenant_id, row_number() OVER (ORDER BY isrc) % 50 AS k FROM assets WHERE tenant_id = ?) a
           JOIN (SELECT id, row_number() OVER (ORDER BY name) - 1 AS k FROM artists WHERE tenant_id = ?) ar ON ar.k = a.k`,
        [t.tenantId, t.tenantId],
      );
      await trx.raw(`INSERT INTO splits (tenant_id, target, asset_id, type) SELECT tenant_id, 'asset', id, 'all' FROM assets WHERE tenant_id = ?`, [t.tenantId]);
      await trx.raw(
        `INSERT INTO split_shares (tenant_id, split_id, tenant_user_id, share)
         SELECT s.tenant_id, s.id, u.who, u.share FROM (SELECT tenant_id, id, row_number() OVER (ORDER BY id) AS k FROM splits WHERE tenant_id = ?) s
          CROSS JOIN LATERAL (VALUES (?::uuid, 60 + (s.k % 7)), (CASE WHEN s.k % 2 = 0 THEN ?::uuid ELSE ?::uuid END, 40 - (s.k % 7))) u(who, share)`,
        [t.tenantId, broad, others[0], others[1]],
      );
    });
    await waitForReallocation(app, t.tenantId);
    // FILES statements, one sale month each, as ingest leaves them; the allocate job each.
    const files: string[] = [];
    for (let f = 0; f < FILES; f++) {
      files.push(
        await tx(app, t.tenantId, async (trx) => {
          const [file] = await trx('files')
            .insert({ tenant_id: t.tenantId, original_name: `fresh-${f}.csv`, status: 'allocating', rows_ingested: LINES_PER_FILE })
            .returning('id');
          await trx.raw(
            `INSERT INTO royalty_lines (tenant_id, file_id, line_no, sale_month, dsp, country, isrc, quantity, net, currency, sale_type)
             SELECT ?, ?, g + 1, ?::date, (?::text[])[1 + g % 5], (?::text[])[1 + (g / 5) % 6], 'USFRS' || lpad((1 + (g / 30) % ?)::text, 7, '0'),
                    1 + g % 3, ((1 + g % 97) * 0.013)::numeric(28,12), 'USD', 'stream'
               FROM generate_series(1, ?) g`,
            [t.tenantId, file.id, `2026-0${f + 1}-01`, DSPS, COUNTRIES, RECORDINGS, LINES_PER_FILE],
          );
          await app.svc.queue.send('royalty.allocate', { tenantId: t.tenantId, fileId: file.id }, { trx });
          return file.id as string;
        }),
      );
    }
    await waitFor(
      'files processed',
      async () => {
        const { rows } = await app.svc.db.owner.raw(`SELECT count(*) FILTER (WHERE status = 'processed')::int AS done, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM files WHERE tenant_id = ?`, [t.tenantId]);
        if (rows[0].failed) throw new Error('a statement failed');
        return rows[0].done === FILES;
      },
      480_000,
    );
  });

  after(async () => {
    await app?.close();
  });

  /** The plan of the answer, in the member's or admin's own transaction. */
  function planOf(payee: string | null, group: GroupBy): Promise<PlanNode> {
    return tx(app, t.tenantId, (trx) => answerPlan(trx, t.tenantId, payee, group));
  }

  function assertPlan(plan: PlanNode, what: string) {
    for (const n of nodes(plan)) {
      // No nested loop of the share sets over the rollup rows or the lines (nor the reverse:
      // the share sets read again for each of them).
      if (n['Node Type'] === 'Nested Loop') {
        const inner = relationsUnder(n.Plans!.find((c) => c['Parent Relationship'] === 'Inner')!);
        const outer = relationsUnder(n.Plans!.find((c) => c['Parent Relationship'] === 'Outer')!);
        const big = (rels: string[]) => rels.some((r) => r.startsWith('royalty_roll_') || r === 'royalty_lines');
        const sets = (rels: string[]) => rels.includes('royalty_share_sets');
        assert.ok(!((sets(outer) && big(inner)) || (big(outer) && sets(inner))), `${what}: a nested loop of ${outer.join(', ')} over ${inner.join(', ')}`);
      }
      // Every scan of a rollup or of the lines estimates its rows within 10× of what it reads.
      const rel = n['Relation Name'];
      if (rel && (rel.startsWith('royalty_roll_') || rel === 'royalty_lines')) {
        const actual = (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1);
        const est = n['Plan Rows'] * (n['Actual Loops'] ?? 1);
        assert.ok(est * 10 >= actual && est <= Math.max(actual, 1) * 10, `${what}: ${n['Node Type']} on ${rel} estimated ${est} rows, read ${actual}`);
      }
    }
  }

  for (const group of ['total', 'month', 'artist', 'asset', 'dsp'] as GroupBy[]) {
    it(`/royalty/${group === 'total' ? '' : group}: the broad payee's plan right after the load`, async () => {
      assertPlan(await planOf(t.users.user!.tenantUserId, group), `payee ${group}`);
    });
    it(`/royalty/${group === 'total' ? '' : group}: the admin's plan right after the load`, async () => {
      assertPlan(await planOf(null, group), `admin ${group}`);
    });
  }

  it('the figures are the lines\' (the payee\'s total is Σ base amount × share of their lines)', async () => {
    const payee = t.users.user!.tenantUserId;
    const r = await tx(app, t.tenantId, (trx) => royaltyAnalytics(trx, t.tenantId, payee, 'total', {}));
    // The reference sum hashed too (it is not what is tested, and has no index to loop over).
    const { rows } = await tx(app, t.tenantId, (trx) =>
      hashJoins(trx, () => trx.raw(
        `SELECT trim_scale(sum(l.base_amount * s.share * 0.01))::text AS s, count(*)::int AS n FROM royalty_lines l
           JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id WHERE s.tenant_user_id = ?`,
        [payee],
      )),
    );
    assert.equal(rows[0].n, FILES * LINES_PER_FILE);
    assert.equal(r.total.revenue, rows[0].s);
    assert.equal(r.total.lines, FILES * LINES_PER_FILE);
  });
});

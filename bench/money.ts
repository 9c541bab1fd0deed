/**
 * npm run bench:money: time to compute what is due to every payee from the ledger, for
 * 10,000 payees over 10,000,000 ledger-backed earnings lines, on an embedded Postgres.
 *
 *  1. earnings (the royalty_earnings view): BENCH_LINES lines, one share set per payee, (INSERT … SELECT generate_series) spread over
 *     BENCH_FILES files (one accounting period each) and BENCH_PAYEES payees;
 *  2. each file posted with postRoyaltiesForFile (what the allocation job calls);
 *  3. current due of every payee = SUM(ledger_entries) GROUP BY payee, in a tenant (RLS)
 *     transaction, and one payee's due (the balance check of an approval);
 *  4. reference: the bare aggregate over the 10M source lines, same run, same sums.
 * Env: BENCH_LINES (10000000), BENCH_PAYEES (10000), BENCH_FILES (100), BENCH_DIR (tmp).
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { loadConfig } from '../src/config';
import { boot } from '../src/compose';
import { withTenant } from '../src/db';
import { createTenant } from '../src/modules/users/service';
import { balanceOf, postRoyaltiesForFile } from '../src/modules/money/ledger';

const LINES = Number(process.env.BENCH_LINES ?? 10_000_000);
const PAYEES = Number(process.env.BENCH_PAYEES ?? 10_000);
const FILES = Number(process.env.BENCH_FILES ?? 100);
const per = Math.ceil(LINES / FILES);

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
async function timed<T>(label: string, fn: () => Promise<T>): Promise<{ v: T; ms: number }> {
  const t0 = process.hrtime.bigint();
  const v = await fn();
  const t = ms(t0);
  console.log(`${label.padEnd(58)} ${t.toFixed(1).padStart(10)} ms`);
  return { v, ms: t };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const dir = process.env.BENCH_DIR ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-bench-money-')));
  const cfg = loadConfig({}, { dataDir: dir, logLevel: 'warn' });
  const rt = await boot(cfg, { workers: false, queue: false, fastEmbedded: true });
  const { db } = rt.svc;
  try {
    console.log(`money bench: ${LINES.toLocaleString()} earnings lines, ${PAYEES.toLocaleString()} payees, ${FILES} files, ${os.cpus().length} cores`);
    const t = await createTenant(db.owner, { name: `Bench ${Date.now()}` });
    await timed(`create ${PAYEES} payees`, async () => {
      await db.owner.raw(`INSERT INTO users (email) SELECT 'payee' || g || '.' || ? || '@bench.test' FROM generate_series(1, ?) g`, [t.id, PAYEES]);
      await db.owner.raw(`INSERT INTO tenant_users (tenant_id, user_id, role) SELECT ?, id, 'user' FROM users WHERE email LIKE ?`, [t.id, `%.${t.id}@bench.test`]);
      await db.owner.raw(`CREATE TABLE bench_payees AS SELECT (row_number() OVER (ORDER BY id) - 1)::int AS n, id FROM tenant_users WHERE tenant_id = ?`, [t.id]);
      await db.owner.raw(`CREATE UNIQUE INDEX ON bench_payees (n)`);
      await db.owner.raw(
        `INSERT INTO royalty_share_sets (tenant_id, share_set_id, tenant_user_id, share, gets_remainder) SELECT ?, md5('bench-set-' || id)::uuid, id, 100, true FROM bench_payees`,
        [t.id],
      );
    });
    await timed(`generate ${LINES.toLocaleString()} royalty_earnings lines`, async () => {
      for (let f = 0; f < FILES; f += 10) {
        const lo = f * per;
        const hi = Math.min(LINES, (f + 10) * per) - 1;
        // One statement line per earning, paid 100 % to its payee through a one-payee share set.
        await db.owner.raw(
          `INSERT INTO royalty_lines (tenant_id, file_id, line_no, net, currency, base_amount, base_currency, accounting_period, sale_month, dsp, share_set_id)
           SELECT ?, md5('bench-file-' || (g / ?))::uuid, g, x.amount, 'USD', x.amount, 'USD',
                  make_date(2025, (1 + (g / ?) % 12)::int, 1), make_date(2025, (1 + (g / ?) % 12)::int, 1), 'DSP ' || (g % 7), md5('bench-set-' || p.id)::uuid
           FROM generate_series(?::bigint, ?::bigint) g JOIN bench_payees p ON p.n = (g % ?)::int
           CROSS JOIN LATERAL (SELECT round((random() * 2)::numeric, 12) AS amount) x`,
          [t.id, per, per, per, lo, hi, PAYEES],
        );
      }
      await db.owner.raw(`ANALYZE royalty_lines`);
    });
    // the lines have no file row (nothing allocated them): posted as files without an accounting period
    const files: string[] = (await db.owner.raw(`SELECT DISTINCT file_id FROM royalty_lines WHERE tenant_id = ?`, [t.id])).rows.map((r: { file_id: string }) => r.file_id);
    const post = await timed(`post ${files.length} files to the ledger (postRoyaltiesForFile)`, async () => {
      let n = 0;
      for (const f of files) n += (await withTenant(db.app, t.id, (trx) => postRoyaltiesForFile(trx, { id: f, accounting_period: null }))).royaltyEntries;
      await db.owner.raw(`ANALYZE ledger_entries`);
      return n;
    });
    const again = await timed(`re-post one file (idempotent, nothing changes)`, () => withTenant(db.app, t.id, (trx) => postRoyaltiesForFile(trx, { id: files[0]!, accounting_period: null })));
    console.log(`ledger entries: ${post.v.toLocaleString()} (re-post added ${again.v.royaltyEntries})`);

    const dueAll = `SELECT tenant_user_id, sum(amount) AS due FROM ledger_entries GROUP BY 1`;
    const bare = `SELECT tenant_user_id, sum(amount) AS due FROM royalty_earnings WHERE superseded_at IS NULL GROUP BY 1`;
    const runs = 5;
    const ledgerMs: number[] = [];
    const bareMs: number[] = [];
    let ledgerRows: { tenant_user_id: string; due: string }[] = [];
    let bareRows: { tenant_user_id: string; due: string }[] = [];
    for (let i = 0; i < runs; i++) {
      const a = await timed(`current due, all payees, from the ledger (run ${i + 1})`, () => withTenant(db.app, t.id, (trx) => trx.raw(dueAll)));
      ledgerMs.push(a.ms);
      ledgerRows = a.v.rows;
      const b = await timed(`reference: bare aggregate over the earnings lines (run ${i + 1})`, () => withTenant(db.app, t.id, (trx) => trx.raw(bare)));
      bareMs.push(b.ms);
      bareRows = b.v.rows;
    }
    const m = new Map(bareRows.map((r) => [r.tenant_user_id, r.due]));
    const mismatches = ledgerRows.filter((r) => m.get(r.tenant_user_id) !== r.due).length;
    if (ledgerRows.length !== PAYEES || mismatches) throw new Error(`sums differ: ${ledgerRows.length} payees, ${mismatches} mismatches`);
    const sample = (await db.owner.raw(`SELECT id FROM bench_payees ORDER BY random() LIMIT 200`)).rows.map((r: { id: string }) => r.id);
    const one = await timed(`one payee's due x200 (approval balance check)`, () => withTenant(db.app, t.id, async (trx) => {
      for (const p of sample) await balanceOf(trx, p);
    }));
    const L = median(ledgerMs);
    const B = median(bareMs);
    console.log('');
    console.log(`RESULT current due for ${PAYEES.toLocaleString()} payees over ${LINES.toLocaleString()} lines (${post.v.toLocaleString()} ledger entries):`);
    console.log(`  ledger (SUM ledger_entries GROUP BY payee, RLS): median ${L.toFixed(1)} ms`);
    console.log(`  reference (bare SUM over royalty_earnings):      median ${B.toFixed(1)} ms`);
    console.log(`  ratio ledger / reference: ${(L / B).toFixed(3)}  (sums identical for all ${PAYEES.toLocaleString()} payees)`);
    console.log(`  one payee's due: ${(one.ms / sample.length).toFixed(2)} ms each (sequential on one connection)`);
    console.log(`  posting: ${(LINES / (post.ms / 1000)).toFixed(0)} lines/s through postRoyaltiesForFile`);
  } finally {
    await rt.shutdown();
    if (!process.env.BENCH_DIR) await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

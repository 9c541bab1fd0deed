/**
 * The replica's sums kept as its lines change (engine/replica.ts applyReplicaSums): a file's
 * lines leave and others enter, and every sums table then holds exactly the sums of the lines,
 * whether the change is merged into a table's rows (keys NULL included, rows whose lines all
 * left deleted) or the table written again, and whichever of the two each table takes.
 */
import assert from 'node:assert/strict';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { REPLICA_LINE_COLUMNS, REPLICA_SUMS, applyReplicaSums, buildReplicaSums, mergesSums, sumsCheckSql } from '../../../src/modules/royalty/engine';

const FILES = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c'];
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** `n` lines of `file`: a few share sets, artists, stores and months, some keys NULL, amounts of up to 8 decimals and a remainder. */
function lines(file: string, n: number, seed: number): string {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = (i * 7 + seed * 13) % 97;
    const key = (m: number, base: number) => (k % m === 0 ? 'NULL' : `'${uuid(base + (k % m))}'`);
    rows.push(`('${file}', DATE '2026-0${1 + (k % 3)}-01', DATE '2026-0${1 + (k % 2) * 3}-01', DATE '2026-0${3 + (k % 2) * 3}-30',
      ${key(5, 100)}, ${key(4, 200)}, ${key(6, 300)}, ${key(11, 400)}, ${k % 9 === 0 ? 'NULL' : `'store${k % 4}'`}, '${['DE', 'US', 'FR'][k % 3]}', '${k % 2 ? 'stream' : 'download'}', ${k % 8 === 0 ? 'NULL' : `'agg${k % 2}'`},
      ${(k * 0.01234567 - 0.3).toFixed(8)}, ${((k % 5) * 0.000123).toFixed(12)}, ${k % 10}, ${k % 7}, ${k % 2}, ${6 + (k % 3)}, ${k % 2})`);
  }
  return rows.join(',\n');
}

/** Rows of a sums table not in the sums of the lines, and the other way round (0 when they agree). */
async function differences(c: DuckDBConnection): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const x of REPLICA_SUMS) {
    const [[, extra, missing]] = (await c.runAndReadAll(sumsCheckSql('t1', x))).getRowsJson() as [string, string, string][];
    out[x.table] = Number(extra) + Number(missing);
  }
  return out;
}

const none = Object.fromEntries(REPLICA_SUMS.map((x) => [x.table, 0]));

/** A workspace of three files, then: file a's lines replaced, file b's taken out, file c's added again; sums checked after each. */
async function run(merges: (touched: number, rows: number, table: string) => boolean): Promise<string[]> {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const c = await db.connect();
  const merged = new Set<string>();
  try {
    await c.run(`CREATE SCHEMA t1`);
    await c.run(`CREATE TABLE t1.lines (${REPLICA_LINE_COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')})`);
    await c.run(`INSERT INTO t1.lines VALUES ${lines(FILES[0]!, 120, 1)}, ${lines(FILES[1]!, 80, 2)}, ${lines(FILES[2]!, 60, 3)}`);
    await buildReplicaSums(c, 't1');
    assert.deepEqual(await differences(c), none, 'built');
    const change = async (file: string, entering: string | null, what: string) => {
      await c.run('BEGIN TRANSACTION');
      await c.run(`CREATE OR REPLACE TEMP TABLE old_lines AS SELECT * FROM t1.lines WHERE file_id = '${file}'`);
      await c.run(`CREATE OR REPLACE TEMP TABLE new_lines AS SELECT * FROM t1.lines LIMIT 0`);
      if (entering) await c.run(`INSERT INTO new_lines VALUES ${entering}`);
      await c.run(`DELETE FROM t1.lines WHERE file_id = '${file}'`);
      await c.run(`INSERT INTO t1.lines SELECT * FROM new_lines`);
      for (const t of (await applyReplicaSums(c, 't1', merges)).merged) merged.add(t);
      await c.run('COMMIT');
      assert.deepEqual(await differences(c), none, what);
    };
    await change(FILES[0]!, lines(FILES[0]!, 70, 5), 'a file allocated again (other keys, other amounts)');
    await change(FILES[1]!, null, 'a file deleted (keys whose lines all left)');
    await change(FILES[2]!, lines(FILES[2]!, 60, 3), 'a file allocated again, the same lines');
    await change(FILES[1]!, lines(FILES[1]!, 90, 7), 'a deleted file processed again');
    // Every sums row whose lines all left is gone (no row of zeros stays).
    for (const x of REPLICA_SUMS) assert.equal(Number((await c.runAndReadAll(`SELECT count(*) FROM t1.${x.table} WHERE lines = 0`)).getRowsJson()[0]![0]), 0, x.table);
  } finally {
    c.closeSync();
    db.closeSync();
  }
  return [...merged];
}

describe('the analytics replica: sums kept as a file\'s lines leave and enter', function () {
  this.timeout(60_000);

  it('merged into every table: each holds the sums of the lines after every change', async () => {
    assert.equal((await run(() => true)).length, REPLICA_SUMS.length);
  });

  it('every table written again: the same', async () => {
    assert.deepEqual(await run(() => false), []);
  });

  it('some merged (by time) and the others written again in the same change', async () => {
    assert.deepEqual((await run((_t, _r, table) => /time/.test(table))).sort(), ['sums_dsp_time', 'sums_time']);
  });

  it('merges a change touching a few rows of a large table; writes again one touching most of a table or a small table', () => {
    assert.equal(mergesSums(5_731, 137_544), true); // one month of 24, at 10M lines
    assert.equal(mergesSums(116_309, 116_309), false); // every store and recording
    assert.equal(mergesSums(5_731, 22_924), false); // a small table: writing it again is cheaper
  });
});

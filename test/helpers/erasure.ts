/** Helpers of the account-erasure tests (test/platform/erasure*.test.ts). */
import assert from 'node:assert/strict';
import type { TestApp } from './app';

/**
 * Every text-like column (text, varchar, char, json, jsonb, their arrays) of every table of
 * every schema but the system's, with how many rows hold any of the needles (case-insensitive).
 */
export async function scanText(app: TestApp, needles: string[]): Promise<Array<{ table: string; column: string; rows: number }>> {
  const owner = app.svc.db.owner;
  const { rows: cols } = await owner.raw(
    `SELECT c.table_schema, c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')
        AND (c.data_type IN ('text', 'character varying', 'character', 'jsonb', 'json') OR c.udt_name IN ('_text', '_varchar', '_jsonb', '_json'))
      ORDER BY 1, 2, 3`,
  );
  assert.ok(cols.length > 100, 'the catalogue lists the columns');
  const hits: Array<{ table: string; column: string; rows: number }> = [];
  const patterns = needles.map((n) => `%${n.toLowerCase()}%`);
  for (const c of cols as Array<{ table_schema: string; table_name: string; column_name: string }>) {
    const { rows } = await owner.raw(`SELECT count(*)::int AS n FROM ??.?? WHERE lower(??::text) LIKE ANY (?::text[])`, [c.table_schema, c.table_name, c.column_name, patterns]);
    if (rows[0].n) hits.push({ table: c.table_schema === 'public' ? c.table_name : `${c.table_schema}.${c.table_name}`, column: c.column_name, rows: rows[0].n });
  }
  return hits;
}

/** Polls an erasure job until it settles (the worker runs it); its state is then asserted exactly. */
export async function settledErasure(app: TestApp, god: string, jobId: string) {
  for (let i = 0; i < 600; i++) {
    const r = await app.request('GET', `/godmin/account-erasure/jobs/${jobId}`, { token: god });
    assert.equal(r.status, 200, r.text);
    if (r.body.data.status === 'completed' || r.body.data.status === 'failed') return r.body.data;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('the erasure job did not settle');
}

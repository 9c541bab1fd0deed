/**
 * Tables and their owners (pure: reads the source text, no database). A shared table belongs
 * to one area; that area and the table's repository (src/repositories/) query it, and every
 * other file of src/ and jobs/ goes through the repository (docs/architecture.md, "Tables and
 * their owners"):
 *
 * - nothing but the owner area, the repository and the writers WRITERS names writes the table:
 *   a knex builder on it (`trx('files')`, `.from('files')`, `.into('files')`, `.table('files')`)
 *   that inserts, updates or deletes, or raw SQL `INSERT INTO` / `UPDATE` / `DELETE FROM` it;
 * - a read of it elsewhere (a builder on it, or `FROM` / `JOIN` it in raw SQL) is one of the
 *   read-only joins inside set-based SQL that JOINS lists with the reason it stays there, or one
 *   of the lookups LEFT names (which may only shrink); each listed count is exact.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

type Table = 'files' | 'tenant_users' | 'artists' | 'assets' | 'products';

const OWNERS: Record<Table, { area: string; repository: string }> = {
  files: { area: 'src/modules/files/', repository: 'src/repositories/files.ts' },
  tenant_users: { area: 'src/modules/users/', repository: 'src/repositories/members.ts' },
  artists: { area: 'src/modules/catalogue/', repository: 'src/repositories/catalogue.ts' },
  assets: { area: 'src/modules/catalogue/', repository: 'src/repositories/catalogue.ts' },
  products: { area: 'src/modules/catalogue/', repository: 'src/repositories/catalogue.ts' },
};

/** Writers besides the owner and the repository, with the reason. */
const WRITERS: Record<string, Partial<Record<Table, string>>> = {
  'src/pipeline/run-step.ts': { files: 'the pipeline runner records a step\'s outcome (status, patch) and marks a file failed: the one place a file moves from step to step' },
};

const PER_ROW = 'moving it to the repository would read the row once per line or key instead of joining it once';

/** Read-only joins inside set-based SQL that stay where they are: [count, reason]. */
const JOINS: Record<string, Partial<Record<Table, [number, string]>>> = {
  'src/domain/quota.ts': { files: [1, 'storage used: one sum over files, media and logos in one statement'] },
  'src/modules/money/ledger.ts': { files: [1, `ledger postings join each line's file for its accounting period; ${PER_ROW}`] },
  'src/modules/money/statement-runs.ts': { files: [1, 'a statement\'s source lines name their file in the set-based read of the run'] },
  'src/modules/money/statement-build.ts': { assets: [1, `a statement's earnings name their recording; ${PER_ROW}`] },
  'src/modules/publishing-income/allocate.ts': { files: [2, 'publishing lines are chosen by their file\'s income inside the set-based allocation'] },
  'src/modules/publishing-income/income.ts': { files: [1, 'publishing lines are chosen by their file\'s income inside the set-based reads'] },
  'src/modules/publishing/cwr-works.ts': { assets: [1, 'a CWR export names each work\'s recordings in one query'], products: [1, 'the first release date of each recording, in the same query'] },
  'src/modules/publishing/works.ts': { assets: [1, 'a work list names its recordings\' ISRCs in the paged query'] },
  'src/modules/royalty/allocate.ts': { files: [4, `the allocation's temp tables join each line's file (publishing lines out, the period, the history); ${PER_ROW}`] },
  'src/modules/royalty/analytics.ts': {
    files: [3, 'analytics read processed files\' periods and names in the one set-based query; a breakdown sorted by name orders its groups by the file\'s name before the page is taken'],
    artists: [2, 'analytics group by artist in the same query, and sort the groups by its name before the page is taken'],
    assets: [2, 'analytics group by recording in the same query, and sort the groups by its title before the page is taken'],
    products: [2, 'analytics group by product in the same query, and sort the groups by its title before the page is taken'],
  },
  'src/modules/royalty/analytics-engine.ts': { files: [1, 'the analytics replica copies the lines of processed files with their periods in one COPY, the same set-based read as the analytics\' lines source'] },
  'src/modules/royalty/decided.ts': { files: [2, 'the in-flight check compares the file\'s ingest snapshot with every change row in one statement; the change floor is the oldest snapshot of the workspace\'s files'] },
  'src/modules/royalty/lines.ts': { files: [1, 'the line list joins each line\'s file name in the paged query'] },
  'src/modules/royalty/match.ts': { artists: [1, `matching finds each key's artist by its normalised name in the set-based pass; ${PER_ROW}`] },
  'src/modules/royalty/reallocate.ts': { files: [1, 'a re-allocation takes the lines of processed files, set-based'] },
  'src/modules/royalty/reference.ts': { assets: [1, 'the reference filters turn ISRCs into recordings in one query'], products: [1, 'and UPCs into products'] },
  'src/modules/royalty/service.ts': {
    files: [1, 'the catalogue figures read processed recording files\' lines, set-based'],
    assets: [2, 'unmatched and matched line groups name their recording in the grouped query'], products: [2, 'the same groups name their product'],
    tenant_users: [1, 'the allocation history\'s search finds payees by name or e-mail in an EXISTS of the paged query'],
  },
  'src/modules/sources/remembered.ts': { files: [1, 'a remembered confirmation is read with the name of the file that taught it, in one query'] },
  'src/modules/royalty/shapes.ts': { files: [1, 'a rollup shape\'s INSERT … SELECT joins its file\'s period'] },
  'src/modules/auth/origins.ts': { tenant_users: [1, 'the origins a person may use: an EXISTS over their active memberships in one query'] },
  'src/modules/auth/service.ts': { tenant_users: [3, 'the access check on every request and a person\'s workspaces join membership, workspace and person in one statement'] },
  'src/modules/catalogue/reports.ts': { tenant_users: [2, 'the payee report lists members with their holdings, paged and sorted in SQL'] },
  'src/modules/platform/godmin.ts': { tenant_users: [4, 'the super-admin lists count and aggregate memberships over every workspace; impersonation reads a membership with its workspace\'s status'] },
};

/** Lookups of catalogue rows by other areas still to move behind the repository: they may only shrink. */
const LEFT: Record<string, Partial<Record<Table, number>>> = {
  'src/modules/datashares/service.ts': { assets: 1, products: 1 },
  'src/modules/defaultsettings/chain.ts': { artists: 1, assets: 1, products: 1 },
  'src/modules/ern/service.ts': { artists: 2, assets: 1, products: 1 },
  'src/modules/imports/apply.ts': { artists: 1, assets: 4, products: 2 },
  'src/modules/releases/service.ts': { artists: 1, assets: 1 },
  'src/modules/users/import.ts': { artists: 1 },
  'src/modules/publishing/works.ts': { assets: 1 },
  'src/seed/catalogue.ts': { artists: 1 },
  'src/seed/defaults.ts': { artists: 1, assets: 1, products: 1 },
  'src/seed/statements.ts': { assets: 1, products: 1 },
};

const TABLES = Object.keys(OWNERS) as Table[];
const WRITE_CALL = /\.(insert|update|delete|del|increment|decrement|upsert|merge)\(/;

function sourceFiles(roots: string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.posix.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) out.push(p);
    }
  };
  for (const r of roots) walk(r);
  return out.sort();
}

/** Every access to `table` in `text`: whether it writes, and its line. */
export function accesses(text: string, table: Table): { write: boolean; line: number }[] {
  const found: { write: boolean; line: number }[] = [];
  const line = (i: number) => text.slice(0, i).split('\n').length;
  for (const m of text.matchAll(new RegExp(`\\(\\s*['"\`]${table}(?:\\s+as\\s+\\w+)?['"\`]`, 'g'))) {
    const end = text.indexOf(';', m.index);
    found.push({ write: WRITE_CALL.test(text.slice(m.index, end < 0 ? undefined : end)), line: line(m.index) });
  }
  for (const m of text.matchAll(new RegExp(`\\b(DELETE\\s+FROM|FROM|JOIN|UPDATE|INSERT\\s+INTO)\\s+${table}\\b`, 'g'))) {
    found.push({ write: !/^(FROM|JOIN)$/.test(m[1]!), line: line(m.index) });
  }
  return found;
}

describe('tables and their owners', () => {
  const files = sourceFiles(['src', 'jobs']);
  const texts = new Map(files.map((f) => [f, fs.readFileSync(f, 'utf8')]));
  const owns = (f: string, t: Table) => f.startsWith(OWNERS[t].area) || f === OWNERS[t].repository;

  it('reads the accesses (a planted write and read are found; the repositories exist)', () => {
    for (const t of TABLES) assert.ok(texts.has(OWNERS[t].repository), `${OWNERS[t].repository} exists`);
    assert.deepEqual(accesses(`await trx('files').where({ id }).update({ status: 'failed' });`, 'files'), [{ write: true, line: 1 }]);
    assert.deepEqual(accesses("x;\nawait trx.raw(`UPDATE tenant_users SET status = 'active'`);", 'tenant_users'), [{ write: true, line: 2 }]);
    assert.deepEqual(accesses("await trx.raw(`SELECT 1 FROM files f JOIN artists a ON true`);", 'files'), [{ write: false, line: 1 }]);
    assert.deepEqual(accesses("const r = await db('assets as a').where({ id }).first();", 'assets'), [{ write: false, line: 1 }]);
    assert.ok(accesses(texts.get('src/repositories/files.ts')!, 'files').some((a) => a.write), 'the files repository writes the table');
  });

  it('no file but the owner area, its repository and the listed writers writes a shared table', () => {
    const bad: string[] = [];
    for (const [f, text] of texts) {
      for (const t of TABLES) {
        if (owns(f, t) || WRITERS[f]?.[t]) continue;
        for (const a of accesses(text, t)) if (a.write) bad.push(`${f}:${a.line} writes ${t}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('other areas read a shared table only in the listed set-based joins (and the listed lookups, which only shrink)', () => {
    const seen: string[] = [];
    for (const [f, text] of texts) {
      for (const t of TABLES) {
        if (owns(f, t)) continue;
        const n = accesses(text, t).filter((a) => !a.write).length;
        if (n) seen.push(`${f} reads ${t} ×${n}`);
      }
    }
    const listed = new Map<string, number>();
    for (const [f, byTable] of Object.entries(JOINS)) for (const [t, v] of Object.entries(byTable)) listed.set(`${f} reads ${t}`, (listed.get(`${f} reads ${t}`) ?? 0) + v![0]);
    for (const [f, byTable] of Object.entries(LEFT)) for (const [t, n] of Object.entries(byTable)) listed.set(`${f} reads ${t}`, (listed.get(`${f} reads ${t}`) ?? 0) + n!);
    assert.ok(listed.size > 20, 'the lists are read');
    assert.deepEqual(seen.sort(), [...listed].map(([k, n]) => `${k} ×${n}`).sort());
  });

  it('every listed join says why it stays', () => {
    for (const byTable of Object.values(JOINS)) for (const v of Object.values(byTable)) assert.ok(v![1].length > 20);
    for (const byTable of Object.values(WRITERS)) for (const why of Object.values(byTable)) assert.ok(why!.length > 20);
  });
});

/**
 * Frozen migrations: a migration holds the SQL it runs and imports nothing from src/ (whose
 * meaning changes later), so an empty database takes every migration in order whatever the
 * code declares today, a new line column added by a later migration included.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKnex, MIGRATIONS_DIR } from '../../src/db';
import { createTestDatabase } from '../helpers/db';

/** Every module specifier a file imports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"\n]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => (m[1] ?? m[2])!);
}

function migrationFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? migrationFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** The imports of the migrations (and their helpers) that leave migrations/: none is allowed but packages. */
export function importsLeavingMigrations(dir: string): string[] {
  const out: string[] = [];
  for (const f of migrationFiles(dir)) {
    for (const spec of importsOf(f)) {
      if (!spec.startsWith('.')) continue; // a package (knex's types)
      const target = path.resolve(path.dirname(f), spec);
      if (path.relative(dir, target).startsWith('..')) out.push(`${path.relative(dir, f)} imports ${spec}`);
    }
  }
  return out;
}

describe('migrations are frozen', () => {
  it('no migration imports from outside migrations/ (src/ changes meaning later)', () => {
    assert.deepEqual(importsLeavingMigrations(MIGRATIONS_DIR), []);
  });

  it('the check finds an import of src/ (it can fail)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-mig-'));
    try {
      fs.writeFileSync(path.join(dir, '20990101000000_live_code.ts'), `import type { Knex } from 'knex';\nimport { SHAPES } from '../src/modules/royalty/shapes';\nexport async function up(knex: Knex) {}\n`);
      assert.deepEqual(importsLeavingMigrations(dir), ['20990101000000_live_code.ts imports ../src/modules/royalty/shapes']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an empty database takes every migration, then a new one that adds a line column', async function () {
    this.timeout(180_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-mig-'));
    const db = await createTestDatabase({ empty: true });
    const knex = createKnex(db.url);
    try {
      fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, '20991231000000_royalty_lines_release_channel.ts'),
        `import type { Knex } from 'knex';\nexport async function up(knex: Knex) { await knex.raw('ALTER TABLE royalty_lines ADD COLUMN release_channel text'); }\nexport async function down(knex: Knex) { await knex.raw('ALTER TABLE royalty_lines DROP COLUMN release_channel'); }\n`,
      );
      const [, applied] = (await knex.migrate.latest({ directory: dir, loadExtensions: ['.ts'] })) as [number, string[]];
      assert.equal(applied.length, fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.ts')).length + 1);
      const { rows } = await knex.raw(`SELECT 1 FROM information_schema.columns WHERE table_name = 'royalty_lines' AND column_name = 'release_channel'`);
      assert.equal(rows.length, 1);
    } finally {
      await knex.destroy();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

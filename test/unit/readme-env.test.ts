/**
 * The table of every variable (docs/operations.md, "Every variable") lists every variable
 * src/config.ts reads, and nothing it does not read (pure: reads two files). README's short
 * table names only variables of it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { SOCIAL_PROVIDERS } from '../../src/config';

/**
 * Variable names src/config.ts reads: `env.NAME`, and in a function that builds names from a
 * prefix (`${k}_…` for each social provider, `INVOICER_${n}`), the prefix with each suffix it
 * reads (`env[`${k}_SCOPE`]`, `need('TOKEN_URL')`).
 */
function readByConfig(): Set<string> {
  const text = fs.readFileSync('src/config.ts', 'utf8');
  const names = new Set([...text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!));
  for (const fn of text.split(/^(?:export )?function /m)) {
    const literal = /env\[`([A-Z][A-Z0-9]*_)\$\{n\}`\]/.exec(fn)?.[1];
    const prefixes = fn.includes('env[`${k}_') ? SOCIAL_PROVIDERS.map((p) => `${p.toUpperCase()}_`) : literal ? [literal] : [];
    const suffixes = [...fn.matchAll(/env\[`\$\{k\}_([A-Z_]+)`\]|need\('([A-Z_]+)'\)/g)].map((m) => m[1] ?? m[2]!);
    for (const p of prefixes) for (const s of suffixes) names.add(`${p}${s}`);
  }
  return names;
}

/** Names in the first column of a section's table (`SOCIAL_B_…` stands for a family). */
function listedIn(file: string, heading: string): { names: Set<string>; families: string[] } {
  const text = fs.readFileSync(file, 'utf8');
  const section = text.split(new RegExp(`^## ${heading}$`, 'm'))[1]!.split(/^## /m)[0]!;
  const firstCells = section.split('\n').filter((l) => l.startsWith('| `')).map((l) => l.split('|')[1]!);
  const tokens = firstCells.flatMap((c) => [...c.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  return {
    names: new Set(tokens.filter((t) => /^[A-Z][A-Z0-9_]*$/.test(t))),
    families: tokens.filter((t) => t.endsWith('_…')).map((t) => t.slice(0, -1)),
  };
}

describe('the environment tables (docs/operations.md, README)', () => {
  const read = readByConfig();
  const { names, families } = listedIn('docs/operations.md', 'Every variable');

  it('the readers see real names (so the checks below can fail)', () => {
    for (const n of ['DATABASE_URL', 'TRUSTED_PROXIES', 'S3_BUCKET', 'SOCIAL_A_SCOPE', 'SOCIAL_C_CLIENT_SECRET', 'INVOICER_TOKEN_URL']) assert.ok(read.has(n), `config reads ${n}`);
    assert.ok(!read.has('INVOICER_USERINFO_URL'), 'suffixes stay with their own prefix');
    for (const n of ['DATABASE_URL', 'METRICS_PORT', 'SOCIAL_A_USERINFO_URL']) assert.ok(names.has(n), `docs/operations.md lists ${n}`);
    assert.ok(read.size > 50, `${read.size} names`);
  });

  it('lists every variable src/config.ts reads', () => {
    const missing = [...read].filter((n) => !names.has(n) && !families.some((f) => n.startsWith(f))).sort();
    assert.deepEqual(missing, []);
  });

  it('lists no variable src/config.ts does not read', () => {
    assert.deepEqual([...names].filter((n) => !read.has(n)).sort(), []);
  });

  it('README names only variables src/config.ts reads', () => {
    const readme = listedIn('README.md', 'Environment');
    assert.ok(readme.names.size >= 5, `${readme.names.size} names`);
    assert.deepEqual([...readme.names].filter((n) => !read.has(n)).sort(), []);
  });
});

/**
 * The shape of the source tree (pure: reads files, no database). Imports are read from the
 * source text, `import type` included (a type-only cycle still ties two files together).
 *
 * - No file imports itself back, through any chain, in src/, jobs/ or parsers/.
 * - The job registry (src/pipeline/registry.ts) is a leaf; src/pipeline imports nothing of
 *   the modules; src/modules never imports jobs/; only the composition root imports jobs/.
 * - No folder cycle reaches jobs/, parsers/, src/pipeline, src/db or src/modules/money.
 *   The composition root (the files at src/ that build a process) is one node that may import
 *   anything and that nothing imports; parsers/ counts as one folder.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOTS = ['src', 'jobs', 'parsers'];
const COMPOSITION_ROOT = new Set(['src/compose.ts', 'src/app.ts', 'src/server.ts', 'src/worker.ts', 'src/cli.ts']);
/** Folders that must sit in no folder cycle. */
const ACYCLIC = ['jobs', 'parsers', 'src/pipeline', 'src/db', 'src/modules/money'];

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.posix.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) out.push(p);
    }
  };
  for (const r of ROOTS) walk(r);
  return out.sort();
}

const IMPORT_RE = /(?:^|\n)[ \t]*(?:import|export)(?:\s+type)?\s*(?:\{[^}]*\}|[^'";]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|\n)[ \t]*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Relative imports of a file, resolved to repository paths (packages are not followed). */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith('.')) continue;
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    const hit = [base, `${base}.ts`, base.replace(/\.js$/, '.ts'), `${base}/index.ts`].find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
    assert.ok(hit, `${file}: import "${spec}" resolves to no file`);
    out.push(hit);
  }
  return out;
}

/** Strongly connected components with more than one node (Tarjan). */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>(), found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next); low.set(v, next); next++; stack.push(v); on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); c.push(w); } while (w !== v);
      if (c.length > 1 || edges.get(v)?.has(v)) found.push(c.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

function folderOf(file: string): string {
  if (COMPOSITION_ROOT.has(file)) return '(composition root)';
  if (file.startsWith('parsers/')) return 'parsers';
  return path.posix.dirname(file);
}

describe('source structure', () => {
  const files = sourceFiles();
  const graph = new Map(files.map((f) => [f, new Set(importsOf(f, fs.readFileSync(f, 'utf8')))]));
  const importers = (pred: (to: string) => boolean) =>
    [...graph].flatMap(([from, tos]) => [...tos].filter(pred).map((to) => `${from} → ${to}`));

  it('reads the import graph (the checks below see real edges)', () => {
    assert.ok(files.length > 100, `${files.length} files`);
    assert.ok(graph.get('jobs/files.ts')!.has('src/modules/files/pipeline.ts'));
    assert.ok(graph.get('src/modules/files/pipeline.ts')!.has('src/pipeline/registry.ts'));
    // the cycle finder finds a planted cycle
    assert.deepEqual(cycles(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]])), [['a', 'b', 'c']]);
  });

  it('no file-level import cycle in src/, jobs/, parsers/', () => {
    assert.deepEqual(cycles(graph), []);
  });

  it('the job registry is a leaf; src/pipeline imports nothing of the modules', () => {
    assert.deepEqual([...graph.get('src/pipeline/registry.ts')!], []);
    assert.deepEqual(importers((to) => !to.startsWith('src/pipeline/')).filter((e) => e.startsWith('src/pipeline/')), []);
  });

  it('modules never import jobs/; only the composition root does', () => {
    const intoJobs = importers((to) => to.startsWith('jobs/')).filter((e) => !e.startsWith('jobs/'));
    assert.deepEqual(intoJobs.filter((e) => e.startsWith('src/modules/')), []);
    assert.deepEqual(intoJobs.filter((e) => !COMPOSITION_ROOT.has(e.split(' → ')[0]!)), []);
    assert.deepEqual(importers((to) => COMPOSITION_ROOT.has(to)).filter((e) => !COMPOSITION_ROOT.has(e.split(' → ')[0]!)), []);
  });

  it('no folder cycle reaches jobs/, parsers/, src/pipeline, src/db or src/modules/money', () => {
    const folders = new Map<string, Set<string>>();
    for (const [from, tos] of graph) {
      const a = folderOf(from);
      if (!folders.has(a)) folders.set(a, new Set());
      for (const to of tos) if (folderOf(to) !== a) folders.get(a)!.add(folderOf(to));
    }
    for (const f of ACYCLIC) assert.ok(folders.has(f), `${f} is a folder of the tree`);
    const bad = cycles(folders).filter((c) => c.some((f) => ACYCLIC.includes(f)));
    assert.deepEqual(bad, []);
  });
});

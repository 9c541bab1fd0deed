/**
 * The shape of the source tree (pure: reads files, no database). Imports are read from the
 * source text, `import type` included (a type-only cycle still ties two files together).
 *
 * - No file imports itself back, through any chain, in src/, jobs/ or parsers/.
 * - The job registry (src/pipeline/registry.ts) is a leaf; src/pipeline imports nothing of
 *   the modules; src/modules never imports jobs/; only the composition root imports jobs/.
 * - No import cycle between folders: each folder of src/ (the other files at src/ itself
 *   count as one folder), jobs/ and parsers/. The composition root (the files at src/ that
 *   build a process) is one node that may import anything and that nothing imports; parsers/
 *   counts as one folder.
 * - The web app (web/src, .ts and .tsx): no file-level cycle and no cycle between its folders;
 *   its entry (web/src/app/main.tsx) is the only file that imports the pages, from a folder of
 *   its own, so the pages and the shared pieces at web/src (api, state, ui, words) never form a
 *   loop. The web app imports nothing of the server's tree.
 * - Plan and role policy (plan features and limits with their SQL, role ranks and scopes, the
 *   rules of a CSV cell) lives in src/domain: it imports nothing of src/http or the modules,
 *   src/http exports none of its names, and no file outside src/http imports policy from
 *   src/http (a name src/domain exports, or one of src/http's files it replaced).
 * - The statement pipeline: a settled file's notice goes out from the runner alone; no step
 *   service writes status `failed` or declares a failure type of its own (StepFailure is it);
 *   every declared step says what it does.
 * - No source file (src/, jobs/, parsers/, web/src) is over 500 lines, but for the files
 *   OVER_LIMIT names, which may not grow and leave the list once they are back under it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOTS = ['src', 'jobs', 'parsers'];
const COMPOSITION_ROOT = new Set(['src/compose.ts', 'src/app.ts', 'src/server.ts', 'src/worker.ts', 'src/cli.ts', 'src/openapi-offline.ts']);
/** Folders that must exist for the folder check to mean anything. */
const FOLDERS = ['jobs', 'parsers', 'src', 'src/pipeline', 'src/db', 'src/lib', 'src/http', 'src/domain', 'src/modules/auth', 'src/modules/users', 'src/modules/catalogue', 'src/modules/money'];

/** A file's most lines. */
const MAX_LINES = 500;
/** Files over MAX_LINES today, each at its present length: they may shrink, never grow. */
const OVER_LIMIT: Record<string, number> = {};
/** Generated files (npm run web:types writes the web app's API types from the OpenAPI document): no one edits them. */
const GENERATED = new Set(['web/src/api-types.ts']);

function sourceFiles(roots = ROOTS, ext = /\.ts$/): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.posix.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (ext.test(p)) out.push(p);
    }
  };
  for (const r of roots) walk(r);
  return out.sort();
}

const IMPORT_RE = /(?:^|\n)[ \t]*(?:import|export)(?:\s+type)?\s*(?:\{[^}]*\}|[^'";]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|\n)[ \t]*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Relative imports of a file, resolved to repository paths (packages are not followed). */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith('.') || spec.endsWith('.css')) continue;
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    const hit = [base, `${base}.ts`, `${base}.tsx`, base.replace(/\.js$/, '.ts'), `${base}/index.ts`].find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
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

/** The folder graph of a file graph, and for each folder edge one file import that makes it. */
function folderGraph(graph: Map<string, Set<string>>, folderOf: (file: string) => string) {
  const folders = new Map<string, Set<string>>();
  const why = new Map<string, string>();
  for (const [from, tos] of graph) {
    const a = folderOf(from);
    if (!folders.has(a)) folders.set(a, new Set());
    for (const to of tos) {
      const b = folderOf(to);
      if (b === a) continue;
      folders.get(a)!.add(b);
      if (!why.has(`${a} → ${b}`)) why.set(`${a} → ${b}`, `${from} → ${to}`);
    }
  }
  // each cycle with the file edges that tie its folders together, so a failure says where to cut
  const bad = cycles(folders).map((c) => c.flatMap((a) => [...folders.get(a)!].filter((b) => c.includes(b)).map((b) => why.get(`${a} → ${b}`)!)));
  return { folders, bad };
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

  it('docs/architecture.md states which area reads which exactly as the imports stand', () => {
    const areaOf = (f: string) => /^src\/modules\/([^/]+)\//.exec(f)?.[1];
    const actual = new Map<string, Set<string>>();
    for (const f of files) if (areaOf(f)) actual.set(areaOf(f)!, new Set());
    for (const [from, tos] of graph) {
      const a = areaOf(from);
      for (const to of tos) if (a && areaOf(to) && areaOf(to) !== a) actual.get(a)!.add(areaOf(to)!);
    }
    const doc = fs.readFileSync('docs/architecture.md', 'utf8');
    const table = /<!-- area-reads:start -->([\s\S]*?)<!-- area-reads:end -->/.exec(doc);
    assert.ok(table, 'docs/architecture.md has the area-reads table');
    const stated = new Map<string, Set<string>>();
    for (const row of table[1].split('\n')) {
      const m = /^\| `([a-z-]+)` \| (.*) \|$/.exec(row.trim());
      if (m) stated.set(m[1]!, new Set([...m[2]!.matchAll(/`([a-z-]+)`/g)].map((r) => r[1]!)));
    }
    const lines = (m: Map<string, Set<string>>) => [...m].map(([a, r]) => `${a}: ${[...r].sort().join(', ') || '—'}`).sort();
    assert.ok(actual.size > 20 && actual.get('files')!.has('royalty'), 'the area graph is read');
    assert.deepEqual(lines(stated), lines(actual));
  });

  it('plan and role policy lives in src/domain; nothing outside src/http takes policy from src/http', () => {
    const domain = files.filter((f) => f.startsWith('src/domain/'));
    assert.ok(domain.length >= 4, 'src/domain holds the policy files');
    assert.deepEqual(importers((to) => to.startsWith('src/http/') || to.startsWith('src/modules/')).filter((e) => e.startsWith('src/domain/')), []);
    const exported = (text: string) => [...text.matchAll(/^export\s+(?:async\s+)?(?:const|function|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
    const policy = new Set(domain.flatMap((f) => exported(fs.readFileSync(f, 'utf8'))));
    assert.ok(['ROLE_RANK', 'rankOf', 'ownOnly', 'FEATURES', 'effectivePlanSql', 'planLimit', 'assertMemberRoom', 'csvCell', 'neutralise'].every((n) => policy.has(n)), 'the policy names are read');
    // the named imports of every file, with the file they come from
    const named = (file: string) => [...fs.readFileSync(file, 'utf8').matchAll(/(?:^|\n)[ \t]*(?:import|export)(?:\s+type)?\s*\{([^}]*)\}\s*from\s*['"](\.[^'"]+)['"]/g)]
      .map((m) => ({ names: m[1]!.split(',').map((n) => n.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0]!.trim()).filter(Boolean), from: path.posix.normalize(path.posix.join(path.posix.dirname(file), m[2]!)) }));
    const leaks: string[] = [];
    for (const f of [...files, ...sourceFiles(['test', 'bench'])]) {
      for (const { names, from } of named(f)) {
        if (!from.startsWith('src/http/')) continue;
        const taken = names.filter((n) => policy.has(n));
        if (taken.length) leaks.push(`${f} takes ${taken.join(', ')} from ${from}`);
      }
    }
    assert.deepEqual(leaks, []);
    // plan features and limits were files of src/http: they are policy, in src/domain now
    for (const name of ['features', 'quota']) assert.ok(!fs.existsSync(`src/http/${name}.ts`) && fs.existsSync(`src/domain/${name}.ts`), name);
  });

  it('no import cycle between folders of src/, jobs/, parsers/', () => {
    const { folders, bad } = folderGraph(graph, folderOf);
    for (const f of FOLDERS) assert.ok(folders.has(f), `${f} is a folder of the tree`);
    assert.deepEqual(bad, []);
  });
});

describe('statement pipeline: one result, one failure type, one place that settles a file', () => {
  const text = (f: string) => fs.readFileSync(f, 'utf8');
  const stepServices = ['src/modules/files/pipeline.ts', 'src/modules/royalty/pipeline.ts', 'src/modules/royalty/allocate.ts', 'src/modules/royalty/decided.ts'];

  it('a settled file\'s notice is sent by the runner alone (announce reaches it through jobs/steps.ts only)', () => {
    const users = sourceFiles().filter((f) => /\bannounce\b/.test(text(f)) && f !== 'src/modules/royalty/pipeline.ts');
    assert.deepEqual(users, ['jobs/steps.ts']);
    assert.match(text('src/pipeline/run-step.ts'), /ports\.notice\(trx, tenantId, file, 'failed'/);
  });

  it('no step service marks a file failed (the runner\'s markFailed is the one path) or declares a failure type of its own', () => {
    for (const f of stepServices) {
      assert.doesNotMatch(text(f), /status:\s*'failed'/, `${f} writes status failed`);
      // SinkError never leaves the ingest's COPY: it carries the COPY's own error out of the parser's sink
      const own = [...text(f).matchAll(/class (\w+) extends (\w+)/g)].map((m) => `${m[1]} extends ${m[2]}`).filter((c) => c !== 'SinkError extends Error' && !/extends (Transform)$/.test(c));
      assert.deepEqual(own, [], `${f} declares a failure type`);
    }
    assert.equal([...text('src/pipeline/run-step.ts').matchAll(/status: 'failed'/g)].length, 1, 'one "mark the file failed" path');
  });

  it('every declared step says what it does; the aggregate step is gone (the allocation builds the rollups)', async () => {
    const { PIPELINE, STEPS } = await import('../src/pipeline/registry');
    assert.deepEqual(STEPS, ['file.decompress', 'file.detect', 'file.ingest', 'royalty.allocate']);
    for (const s of STEPS) assert.ok(PIPELINE[s].does.length > 20, s);
  });
});

describe('web app structure (web/src)', () => {
  const files = sourceFiles(['web/src'], /\.tsx?$/);
  const graph = new Map(files.map((f) => [f, new Set(importsOf(f, fs.readFileSync(f, 'utf8')))]));
  const dir = (f: string) => path.posix.dirname(f);

  it('reads the web import graph (the checks below see real edges)', () => {
    assert.ok(files.length > 15, `${files.length} files`);
    assert.ok(graph.get('web/src/app/main.tsx')!.has('web/src/pages/statements.tsx'));
    assert.ok(graph.get('web/src/pages/statements.tsx')!.has('web/src/api.ts'));
    // the folder check finds a planted folder cycle: the entry back at web/src would close one
    const planted = new Map([...graph, [path.posix.join('web/src', 'main.tsx'), new Set(graph.get('web/src/app/main.tsx'))]]);
    assert.ok(folderGraph(planted, dir).bad.length > 0);
  });

  it('no file-level import cycle in web/src', () => {
    assert.deepEqual(cycles(graph), []);
  });

  it('no import cycle between folders of web/src (the entry alone imports the pages)', () => {
    assert.deepEqual(folderGraph(graph, dir).bad, []);
    const intoPages = [...graph].flatMap(([from, tos]) => [...tos].filter((to) => to.startsWith('web/src/pages/')).map((to) => `${from} → ${to}`));
    assert.deepEqual(intoPages.filter((e) => !e.startsWith('web/src/pages/') && !e.startsWith('web/src/app/')), []);
  });

  it('the web app imports nothing of the server tree', () => {
    const out = [...graph].flatMap(([from, tos]) => [...tos].filter((to) => !to.startsWith('web/')).map((to) => `${from} → ${to}`));
    assert.deepEqual(out, []);
  });
});

describe('file size', () => {
  const lines = (f: string) => { const t = fs.readFileSync(f, 'utf8'); return t.split('\n').length - (t.endsWith('\n') ? 1 : 0); };
  const files = [...sourceFiles(), ...sourceFiles(['web/src'], /\.tsx?$/)].filter((f) => !GENERATED.has(f));

  it(`no source file of src/, jobs/, parsers/, web/src is over ${MAX_LINES} lines (the listed ones do not grow)`, () => {
    assert.ok(files.length > 300 && files.includes('web/src/api.ts'), `${files.length} files`);
    const over = files.map((f) => [f, lines(f)] as const).filter(([f, n]) => n > (OVER_LIMIT[f] ?? MAX_LINES)).map(([f, n]) => `${f}: ${n} lines`);
    assert.deepEqual(over, []);
  });

  it('a file on the over-limit list is still over the limit (else it leaves the list)', () => {
    const back = Object.keys(OVER_LIMIT).filter((f) => !fs.existsSync(f) || lines(f) <= MAX_LINES);
    assert.deepEqual(back, []);
  });
});

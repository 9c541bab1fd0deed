import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function markdownFiles(): string[] {
  const out = ['README.md', 'CHANGELOG.md', 'bench/RESULTS.md', 'parsers/README.md'];
  for (const f of fs.readdirSync(path.join(root, 'docs'))) if (f.endsWith('.md')) out.push(`docs/${f}`);
  return out;
}

describe('documentation tree', () => {
  it('README.md stays under 250 lines', () => {
    const lines = fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
    assert.ok(lines < 250, `README.md has ${lines} lines`);
  });

  it('no document links to another site (example hosts and loopback only)', () => {
    const allowed = /^https?:\/\/(localhost|127\.0\.0\.1|[a-z0-9.-]*\.example)([:/]|$)/;
    const outside: string[] = [];
    for (const f of markdownFiles()) {
      const text = fs.readFileSync(path.join(root, f), 'utf8');
      for (const m of text.matchAll(/https?:\/\/[^\s)"'`<>,]+/g)) if (!allowed.test(m[0])) outside.push(`${f}: ${m[0]}`);
    }
    assert.deepEqual(outside, []);
  });

  describe('what the code cites', () => {
    /** Every source file a reader might follow a citation from (fixtures are data, not prose). */
    const sources: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(path.join(root, d), { withFileTypes: true })) {
        const p = path.posix.join(d, e.name);
        if (p === 'test/fixtures') continue;
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(p)) sources.push(p);
      }
    };
    for (const d of ['src', 'jobs', 'parsers', 'web/src', 'migrations', 'test']) walk(d);
    const self = 'test/docs-tree.test.ts';

    /** A citation of a text outside the repository: the design notes or a numbered section of the interface spec. */
    const OUTSIDE = [/\bDESIGN\b/g, /§|\bspec\s+(?:part\s+\d|\d+(?:\.\d+)?\b(?!\.\d))|\(spec\s/gi];
    /** A path of this repository named in the text (docs, sources, tests, scripts). */
    const PATH = /(?<![\w/.-])((?:src|jobs|parsers|web|migrations|test|bench|docs|scripts)\/[\w./-]*\w\.(?:tsx?|md|json|mjs|cjs))\b/g;

    function outsideCitations(name: string, text: string): string[] {
      return text.split('\n').flatMap((line, i) => OUTSIDE.flatMap((re) => [...line.matchAll(re)]).map((m) => `${name}:${i + 1}: ${m[0]}`));
    }
    function missingPaths(name: string, text: string, exists: (p: string) => boolean): string[] {
      return text.split('\n').flatMap((line, i) => [...line.matchAll(PATH)].filter((m) => !exists(m[1]!)).map((m) => `${name}:${i + 1}: ${m[1]}`));
    }

    it('the checks see a citation when there is one', () => {
      assert.ok(sources.length > 300, `${sources.length} files`);
      assert.equal(outsideCitations('x', '/** Tokens (spec part 5). */\n// DESIGN §5: no FKs\nconst a = 1; // (spec 4.1)\n * spec 2.4 items\n').length, 5);
      assert.deepEqual(outsideCitations('x', "const DESIGNATION = 1; // the spec's order; Design decisions; interface spec 2.6.0; docs/errors.md"), []);
      assert.deepEqual(missingPaths('x', ' * see docs/errors.md and docs/nowhere.md, src/app.ts', (p) => fs.existsSync(path.join(root, p))), ['x:1: docs/nowhere.md']);
    });

    it('no source file cites DESIGN.md or a section of the interface spec (the repository\'s docs/ hold the rules)', () => {
      const found = sources.filter((f) => f !== self).flatMap((f) => outsideCitations(f, fs.readFileSync(path.join(root, f), 'utf8')));
      assert.deepEqual(found, []);
    });

    it('no document cites DESIGN.md or a section of the interface spec either', () => {
      const found = markdownFiles().flatMap((f) => outsideCitations(f, fs.readFileSync(path.join(root, f), 'utf8')));
      assert.deepEqual(found, []);
    });

    it('every repository file a source file names exists (docs/x.md included)', () => {
      const found = sources.filter((f) => f !== self).flatMap((f) => missingPaths(f, fs.readFileSync(path.join(root, f), 'utf8'), (p) => fs.existsSync(path.join(root, p))));
      assert.deepEqual(found, []);
    });
  });
});

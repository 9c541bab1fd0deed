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
});

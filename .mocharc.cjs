// Mocha runs the TypeScript sources directly through tsx; test/setup.ts holds the root
// hooks that start (or connect to) Postgres once and migrate the template database.
// `npx mocha test/a.test.ts` runs that file alone: mocha adds a config's spec to the files
// named on the command line, so the whole suite is the spec only when none is named.
const fs = require('node:fs');
const path = require('node:path');

const named = process.argv.slice(2).some((a) => /\.test\.ts$/.test(a));
// The whole suite runs its files in parallel worker processes (each file has its own database,
// cloned from one template on one server; test/setup.ts): TEST_JOBS=1 runs them one by one.
const jobs = Number(process.env.TEST_JOBS ?? 2);

/** Every test file under test/, sorted by path. */
function testFiles(dir = 'test') {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...testFiles(p));
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

/**
 * The suite's files, the slowest first: the workers take files in this order, so the long ones
 * start early and the last file of each worker is a short one (neither worker idles while the
 * other finishes a long file). test/slow-files.txt lists the slow ones, measured; the rest
 * follow by path.
 */
function suiteFiles() {
  const all = testFiles();
  const listed = fs
    .readFileSync('test/slow-files.txt', 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim().split(/\s+/).pop())
    .filter(Boolean);
  const missing = listed.filter((f) => !all.includes(f));
  if (missing.length) throw new Error(`test/slow-files.txt names files that do not exist (renamed or removed? change the list): ${missing.join(', ')}`);
  const first = new Set(listed);
  return [...listed, ...all.filter((f) => !first.has(f))];
}

module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup.ts'],
  spec: named ? [] : suiteFiles(),
  timeout: 60000,
  exit: false,
  ...(named || jobs <= 1 ? {} : { parallel: true, jobs }),
};

// Mocha runs the TypeScript sources directly through tsx; test/setup.ts holds the root
// hooks that start (or connect to) Postgres once and migrate the template database.
// `npx mocha test/a.test.ts` runs that file alone: mocha adds a config's spec to the files
// named on the command line, so the whole suite is the spec only when none is named.
const named = process.argv.slice(2).some((a) => /\.test\.ts$/.test(a));
// The whole suite runs its files in parallel worker processes (each file has its own database,
// cloned from one template on one server; test/setup.ts): TEST_JOBS=1 runs them one by one.
const jobs = Number(process.env.TEST_JOBS ?? 2);
module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup.ts'],
  spec: named ? [] : ['test/**/*.test.ts'],
  timeout: 60000,
  exit: false,
  ...(named || jobs <= 1 ? {} : { parallel: true, jobs }),
};

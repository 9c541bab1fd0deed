// Mocha runs the TypeScript sources directly through tsx; test/setup.ts holds the root
// hooks that start (or connect to) Postgres once and migrate the template database.
module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup.ts'],
  spec: ['test/**/*.test.ts'],
  timeout: 60000,
  exit: false,
};

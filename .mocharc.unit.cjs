// The pure tier: tests under test/unit/ need no Postgres (no root hooks), and run in seconds.
// `npm test` (.mocharc.cjs) runs them too, with everything else.
module.exports = {
  'node-option': ['import=tsx'],
  spec: ['test/unit/**/*.test.ts'],
  timeout: 20000,
  exit: false,
};

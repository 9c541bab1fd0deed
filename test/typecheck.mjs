#!/usr/bin/env node
// `npm run typecheck`: the web app's generated API types checked up to date, the server's
// TypeScript and the web app's, all three at once (they share nothing, and about 20 s of CPU
// between them need not wait for each other on two cores). Each one's output is printed whole,
// in this order, once it ends; the check fails when any of them does.
import { spawn } from 'node:child_process';

const checks = [
  ['npm', ['run', '--silent', 'web:types', '--', '--check']],
  ['npx', ['tsc', '--noEmit', '-p', '.']],
  ['npx', ['tsc', '--noEmit', '-p', 'web']],
];

const runs = checks.map(
  ([cmd, args]) =>
    new Promise((resolve) => {
      const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', (err) => resolve({ line: `${cmd} ${args.join(' ')}`, code: 1, out: `${out}${err.message}\n` }));
      child.on('close', (code) => resolve({ line: `${cmd} ${args.join(' ')}`, code: code ?? 1, out }));
    }),
);
let failed = 0;
for (const run of runs) {
  const { line, code, out } = await run;
  process.stdout.write(`> ${line}\n${out}`);
  if (code !== 0) {
    failed++;
    process.stdout.write(`(${line} failed with code ${code})\n`);
  }
}
process.exit(failed ? 1 : 0);

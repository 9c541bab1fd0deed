import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS, newDatabaseWarning } from '../src/cli-help';

const root = path.resolve(import.meta.dirname, '..');

/** The CLI as a user runs it; DATABASE_URL cleared so the embedded database is the one in question. */
function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI: help and the new-database warning', () => {
  let dataDir: string;
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-cli-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('--help lists every command and starts no database', () => {
    const r = cli(['--help'], { DATA_DIR: dataDir });
    assert.equal(r.status, 0);
    for (const name of Object.keys(COMMANDS)) assert.ok(r.stdout.includes(name), name);
    assert.equal(r.stderr.includes('warning'), false);
    assert.deepEqual(fs.readdirSync(dataDir), []);
  });

  it('<command> --help lists that command\'s options, for every command', () => {
    for (const [name, c] of Object.entries(COMMANDS)) {
      const r = cli([name, '--help'], { DATA_DIR: dataDir });
      assert.equal(r.status, 0, name);
      assert.ok(r.stdout.startsWith(`Usage: npm run rondo -- ${name}`), name);
      for (const o of c.options) assert.ok(r.stdout.includes(`--${o.name}`), `${name} --${o.name}`);
    }
    assert.deepEqual(fs.readdirSync(dataDir), []);
  });

  it('an unknown command or option fails with exit code 2 and says why', () => {
    const unknown = cli(['tenant:delete'], { DATA_DIR: dataDir });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command tenant:delete/);
    const bad = cli(['key:revoke', '--kind', 'god'], { DATA_DIR: dataDir });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /key:revoke takes no --kind/);
  });

  it('warns when the command would create a new embedded database, and checks its options before creating anything', () => {
    const r = cli(['tenant:create', '--name', 'Forgot DATA_DIR'], { DATA_DIR: dataDir });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /warning: no embedded database under .* yet: this command creates a new one, which no server uses/);
    assert.match(r.stderr, /tenant:create needs --owner-email, --password/);
    assert.deepEqual(fs.readdirSync(dataDir), []);
  });

  it('does not warn when DATA_DIR holds a cluster or DATABASE_URL is set', () => {
    fs.mkdirSync(path.join(dataDir, 'pg'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'pg', 'PG_VERSION'), '18\n');
    try {
      const r = cli(['tenant:create', '--name', 'Existing'], { DATA_DIR: dataDir });
      assert.equal(r.status, 2);
      assert.equal(r.stderr.includes('warning'), false);
    } finally {
      fs.rmSync(path.join(dataDir, 'pg'), { recursive: true, force: true });
    }
    assert.equal(newDatabaseWarning('postgres://db.example/rondo', dataDir, () => false), null);
    assert.match(newDatabaseWarning(null, dataDir, () => false) ?? '', /creates a new one/);
    assert.equal(newDatabaseWarning(null, dataDir, () => true), null);
  });
});

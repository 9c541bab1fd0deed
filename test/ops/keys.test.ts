/**
 * JWT and encryption keys: several keys with ids (rotation), keys moved out of the database
 * they protect, the production rule, the boot check and secrets:reencrypt.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { loadConfig, type Config } from '../../src/config';
import { boot, type Runtime } from '../../src/compose';
import { keyId, SecretBox } from '../../src/lib/crypto';
import { TokenSigner } from '../../src/modules/auth/tokens';
import { UnauthorizedError } from '../../src/lib/errors';
import { defaultKeyFile, parseKeyFile, reencryptSecrets, rotateKeyFile, SEALED_COLUMNS, writeKeyFile } from '../../src/keys';
import { createTestDatabase } from '../helpers/db';
import { createTenant, ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';

const OLD = 'old-secret-0123456789abcdef';
const NEW = 'new-secret-fedcba9876543210';

async function legacyToken(secret: string, typ: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ typ }).setProtectedHeader({ alg: 'HS256' }).setSubject('s').setIssuedAt(now).setExpirationTime(now + 600).sign(new TextEncoder().encode(secret));
}

async function rejects401(p: Promise<unknown>): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof UnauthorizedError && (err as UnauthorizedError & { code?: string }).code === 'INVALID_TOKEN');
}

describe('ops: keys and rotation', function () {
  this.timeout(60_000);

  describe('JWT keys (TokenSigner)', () => {
    it('signs with the first key and names it in `kid`; verifies tokens of every listed key, not of an unlisted one', async () => {
      const before = new TokenSigner([OLD]);
      const oldToken = await before.signPurpose('upload', 'x', 600);
      assert.equal(decodeProtectedHeader(oldToken).kid, keyId(OLD));

      const rotated = new TokenSigner([NEW, OLD]);
      const newToken = await rotated.signPurpose('upload', 'x', 600);
      assert.equal(decodeProtectedHeader(newToken).kid, keyId(NEW));
      assert.equal((await rotated.verify<{ sub: string }>(oldToken, 'upload')).sub, 'x', 'old token verifies while its key is listed');
      assert.equal((await rotated.verify<{ sub: string }>(newToken, 'upload')).sub, 'x');

      const dropped = new TokenSigner([NEW]);
      await rejects401(dropped.verify(oldToken, 'upload'));
      await rejects401(before.verify(newToken, 'upload'));
    });

    it('a token from before key ids (no `kid`) verifies against any listed key, and only those', async () => {
      const t = await legacyToken(OLD, 'upload');
      assert.equal((await new TokenSigner([NEW, OLD]).verify<{ sub: string }>(t, 'upload')).sub, 's');
      await rejects401(new TokenSigner([NEW]).verify(t, 'upload'));
    });

    it('a token whose `kid` names a listed key but whose signature is another key fails', async () => {
      const forged = await new SignJWT({ typ: 'upload' }).setProtectedHeader({ alg: 'HS256', kid: keyId(OLD) }).setSubject('s').setExpirationTime('10m').sign(new TextEncoder().encode(NEW));
      await rejects401(new TokenSigner([NEW, OLD]).verify(forged, 'upload'));
    });
  });

  describe('encryption keys (SecretBox)', () => {
    it('seals under the first key (id prefix); opens values of every listed key; an unlisted key is named', () => {
      const old = new SecretBox([OLD]);
      const sealedOld = old.seal('IBAN DE89 3704');
      assert.equal(SecretBox.keyIdOf(sealedOld), keyId(OLD));
      const rotated = new SecretBox([NEW, OLD]);
      assert.equal(rotated.open(sealedOld), 'IBAN DE89 3704');
      assert.equal(rotated.isCurrent(sealedOld), false);
      const resealed = rotated.seal(rotated.open(sealedOld));
      assert.equal(SecretBox.keyIdOf(resealed), keyId(NEW));
      assert.equal(rotated.isCurrent(resealed), true);
      assert.throws(() => new SecretBox([NEW]).open(sealedOld), new RegExp(`sealed with key ${keyId(OLD)}`));
    });

    it('a value sealed before key ids (three parts) opens with whichever listed key sealed it', () => {
      const legacy = new SecretBox(OLD).seal('s3cr3t').split('.').slice(1).join('.');
      assert.equal(legacy.split('.').length, 3);
      assert.equal(SecretBox.keyIdOf(legacy), null);
      assert.equal(new SecretBox([NEW, OLD]).open(legacy), 's3cr3t');
      assert.throws(() => new SecretBox([NEW]).open(legacy), /no configured encryption key/);
    });

    it('a tampered value does not open', () => {
      const box = new SecretBox([NEW]);
      const parts = box.seal('payout details').split('.');
      parts[3] = Buffer.from('tampered!').toString('base64url');
      assert.throws(() => box.open(parts.join('.')), /no configured encryption key/);
    });
  });

  describe('key files (keys:rotate)', () => {
    it('puts a new key first and keeps the older ones; the file is readable by its owner only', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-keys-'));
      try {
        const file = path.join(dir, 'sub', 'jwt.keys');
        const first = rotateKeyFile('jwt', file);
        const second = rotateKeyFile('jwt', file);
        const keys = parseKeyFile(fs.readFileSync(file, 'utf8'));
        assert.equal(keys.length, 2);
        assert.equal(keyId(keys[0]!), second.keyId);
        assert.equal(keyId(keys[1]!), first.keyId);
        assert.equal(fs.statSync(file).mode & 0o777, 0o600);
        // the CLI command, which needs no database
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'keys:rotate', '--kind', 'encryption', '--file', path.join(dir, 'enc.keys')], {
          env: { PATH: process.env.PATH, LOG_LEVEL: 'silent' },
        });
        const out = JSON.parse(stdout);
        const enc = parseKeyFile(fs.readFileSync(path.join(dir, 'enc.keys'), 'utf8'));
        assert.equal(enc.length, 1);
        assert.equal(out.currentKeyId, keyId(enc[0]!));
        assert.match(out.next, /secrets:reencrypt/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('loading at boot, and secrets:reencrypt (database)', () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let dataDir: string;
    let rt: Runtime | null = null;
    let tenantId: number;
    const legacySealed = new SecretBox(OLD).seal('sk_live_processor').split('.').slice(1).join('.');
    const legacyDetails = new SecretBox(OLD).seal('{"iban":"DE89"}').split('.').slice(1).join('.');

    function cfgOf(overrides: Partial<Config> = {}): Config {
      return loadConfig({}, { databaseUrl: db.url, dataDir, logLevel: 'silent', passwordHashMemoryKiB: 1024, ...overrides });
    }
    async function start(overrides: Partial<Config> = {}): Promise<Runtime> {
      rt = await boot(cfgOf(overrides), { workers: false, queue: false, migrate: false, databaseUrl: db.url });
      return rt;
    }
    async function stop() {
      await rt?.shutdown();
      rt = null;
    }
    async function stored(table: string, column: string): Promise<string> {
      const r = await start();
      try {
        return (await r.svc.db.owner(table).where({ tenant_id: tenantId }).first(column))[column];
      } finally {
        await stop();
      }
    }

    before(async () => {
      db = await createTestDatabase();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-keys-'));
      // The database as an earlier version left it: both keys generated into system_secrets,
      // a processor secret and a payout setting sealed before key ids.
      const r = await boot(cfgOf({ jwtSecret: 'bootstrap-secret-0123456789', encryptionKey: OLD }), { workers: false, queue: false, migrate: false, databaseUrl: db.url });
      const owner = r.svc.db.owner;
      const t = await createTenant(owner, { name: 'Keys' });
      tenantId = t.id;
      const g = await ensureGlobalUser(owner, { email: 'keys@example.test', passwordHash: null });
      const tu = await upsertMembership(owner, t.id, g.id, 'owner');
      await owner('system_secrets').insert([{ name: 'jwt', value: OLD }, { name: 'encryption', value: OLD }]);
      await owner('processor_integrations').insert({ tenant_id: t.id, secret_sealed: legacySealed });
      await owner('payment_settings').insert({ tenant_id: t.id, tenant_user_id: tu, method: 'bank_transfer', details_sealed: legacyDetails });
      await r.shutdown();
    });
    after(async () => {
      await stop();
      await db?.drop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('keys an earlier version kept in the database are moved to key files and leave the database; what they protect still opens', async () => {
      assert.equal(fs.existsSync(defaultKeyFile({ dataDir }, 'jwt')), false);
      const r = await start();
      try {
        assert.equal(await r.svc.db.owner('system_secrets').whereIn('name', ['jwt', 'encryption']).count({ n: '*' }).first().then((x) => Number(x!.n)), 0);
        for (const kind of ['jwt', 'encryption'] as const) {
          const file = defaultKeyFile({ dataDir }, kind);
          assert.deepEqual(parseKeyFile(fs.readFileSync(file, 'utf8')), [OLD], kind);
          assert.equal(fs.statSync(file).mode & 0o777, 0o600);
        }
        assert.equal(r.svc.secrets.open(legacySealed), 'sk_live_processor');
        assert.equal((await r.svc.signer.verify<{ sub: string }>(await legacyToken(OLD, 'upload'), 'upload')).sub, 's');
      } finally {
        await stop();
      }
    });

    it('after rotation: old tokens verify, new ones carry the new kid; secrets:reencrypt re-seals everything under the new key', async () => {
      const oldToken = await new TokenSigner([OLD]).signPurpose('upload', 'u', 600);
      const jwt = rotateKeyFile('jwt', defaultKeyFile({ dataDir }, 'jwt'));
      const enc = rotateKeyFile('encryption', defaultKeyFile({ dataDir }, 'encryption'));
      const r = await start();
      try {
        assert.equal((await r.svc.signer.verify<{ sub: string }>(oldToken, 'upload')).sub, 'u');
        assert.equal(decodeProtectedHeader(await r.svc.signer.signPurpose('upload', 'u', 600)).kid, jwt.keyId);
        assert.equal(r.svc.secrets.currentKeyId, enc.keyId);

        const res = await reencryptSecrets(r.svc.db.owner, r.svc.secrets);
        assert.deepEqual(res, { 'processor_integrations.secret_sealed': { reencrypted: 1, current: 0 }, 'payment_settings.details_sealed': { reencrypted: 1, current: 0 } });
        assert.deepEqual(await reencryptSecrets(r.svc.db.owner, r.svc.secrets), {
          'processor_integrations.secret_sealed': { reencrypted: 0, current: 1 },
          'payment_settings.details_sealed': { reencrypted: 0, current: 1 },
        }, 'a second run has nothing to do');
      } finally {
        await stop();
      }
      const secret = await stored('processor_integrations', 'secret_sealed');
      const details = await stored('payment_settings', 'details_sealed');
      assert.equal(SecretBox.keyIdOf(secret), enc.keyId);
      assert.equal(SecretBox.keyIdOf(details), enc.keyId);

      // The old keys can go now: the sealed values open with the new key alone.
      for (const kind of ['jwt', 'encryption'] as const) {
        const file = defaultKeyFile({ dataDir }, kind);
        writeKeyFile(file, parseKeyFile(fs.readFileSync(file, 'utf8')).slice(0, 1), 'test');
      }
      const r2 = await start();
      try {
        assert.equal(r2.svc.secrets.keyIds.length, 1);
        assert.equal(r2.svc.secrets.open(secret), 'sk_live_processor');
        assert.equal(r2.svc.secrets.open(details), '{"iban":"DE89"}');
        await rejects401(r2.svc.signer.verify(oldToken, 'upload'));
      } finally {
        await stop();
      }
    });

    it('a process started with an encryption key that does not open the stored secrets refuses to start', async () => {
      await assert.rejects(start({ encryptionKey: 'some-other-key-0123456789' }), /do not open the secrets stored in processor_integrations\.secret_sealed/);
      rt = null;
    });

    it('environment keys: JWT_SECRET signs, JWT_SECRET_PREVIOUS still verifies', async () => {
      const oldToken = await new TokenSigner([OLD]).signPurpose('upload', 'e', 600);
      const current = parseKeyFile(fs.readFileSync(defaultKeyFile({ dataDir }, 'encryption'), 'utf8'))[0]!;
      const r = await start({ jwtSecret: NEW, jwtSecretPrevious: [OLD], encryptionKey: current });
      try {
        assert.equal((await r.svc.signer.verify<{ sub: string }>(oldToken, 'upload')).sub, 'e');
        assert.equal(decodeProtectedHeader(await r.svc.signer.signPurpose('upload', 'e', 600)).kid, keyId(NEW));
      } finally {
        await stop();
      }
    });

    it('production with an external database never generates keys: it refuses to start without them', async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-keys-'));
      try {
        await assert.rejects(start({ production: true, dataDir: empty }), /JWT_SECRET or JWT_SECRET_FILE is required in production/);
        rt = null;
        assert.equal(fs.existsSync(defaultKeyFile({ dataDir: empty }, 'jwt')), false);
        // a key file named in the environment is enough
        const jf = path.join(empty, 'jwt'), ef = path.join(empty, 'enc');
        writeKeyFile(jf, [NEW], 'test');
        writeKeyFile(ef, [parseKeyFile(fs.readFileSync(defaultKeyFile({ dataDir }, 'encryption'), 'utf8'))[0]!], 'test');
        const r = await start({ production: true, dataDir: empty, jwtSecretFile: jf, encryptionKeyFile: ef });
        assert.equal(decodeProtectedHeader(await r.svc.signer.signPurpose('upload', 'p', 600)).kid, keyId(NEW));
        await stop();
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    });

    it('two processes starting at once on a fresh DATA_DIR end up with the same generated keys', async () => {
      const fresh = await createTestDatabase();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rondo-keys-'));
      try {
        const cfg = loadConfig({}, { databaseUrl: fresh.url, dataDir: dir, logLevel: 'silent', passwordHashMemoryKiB: 1024 });
        const both = await Promise.all([1, 2].map(() => boot(cfg, { workers: false, queue: false, migrate: false, databaseUrl: fresh.url })));
        try {
          const [a, b] = both.map((x) => x.svc);
          assert.deepEqual(a!.secrets.keyIds, b!.secrets.keyIds);
          assert.equal(b!.secrets.open(a!.secrets.seal('shared')), 'shared');
          const t = await a!.signer.signPurpose('upload', 'both', 600);
          assert.equal((await b!.signer.verify<{ sub: string }>(t, 'upload')).sub, 'both');
          assert.deepEqual(fs.readdirSync(path.join(dir, 'keys')).sort(), ['encryption.keys', 'jwt.keys'], 'no temporary file left behind');
        } finally {
          for (const x of both) await x.shutdown();
        }
      } finally {
        await fresh.drop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('every *_sealed column of the schema is listed for the boot check and re-encryption', async () => {
      const r = await start();
      try {
        const cols = await r.svc.db.owner.raw(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name LIKE '%\\_sealed' ORDER BY 1, 2`);
        assert.deepEqual(
          cols.rows.map((c: { table_name: string; column_name: string }) => `${c.table_name}.${c.column_name}`),
          SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort(),
        );
      } finally {
        await stop();
      }
    });
  });
});

/**
 * The two process-wide keys: the JWT secret (signs tokens and signed URLs) and the
 * encryption key (seals secrets at rest). Neither may live only in the database it
 * protects: a leaked dump would carry its own key, a lost key would make the dump useless.
 *
 * Where each comes from, first match wins:
 *   1. the environment: JWT_SECRET (+ JWT_SECRET_PREVIOUS), ENCRYPTION_KEY (+ ENCRYPTION_KEY_PREVIOUS);
 *   2. a key file named by JWT_SECRET_FILE / ENCRYPTION_KEY_FILE (it must exist);
 *   3. the default key file DATA_DIR/keys/jwt.keys / encryption.keys, when it exists;
 *   4. a key an earlier version generated into the `system_secrets` table: moved out once into
 *      the default key file and deleted from the table;
 *   5. a new random key written to the default key file, except in production with an
 *      external database (DATABASE_URL), where Rondo refuses to start instead: several
 *      machines would each make their own.
 *
 * A key file holds one key a line (blank lines and `#` comments ignored); the first line is
 * the current key (signs / seals), the others are older keys still accepted (verify / open).
 * Rotation: put a new key first (`keys:rotate`), restart, run `secrets:reencrypt`, and drop
 * the old line once nothing needs it (docs/operations.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Config } from './config';
import type { Db, Knex } from './db';
import type { Logger } from './lib/logger';
import { keyId, SecretBox } from './lib/crypto';

export type KeyKind = 'jwt' | 'encryption';

export interface KeySet {
  kind: KeyKind;
  /** Current key first. */
  keys: string[];
  /** Where they came from (for logs and errors; never the keys themselves). */
  source: string;
}

/**
 * Every column that holds a SecretBox-sealed value. A module that seals something new adds
 * its column here so that the boot check and `secrets:reencrypt` cover it (a test compares
 * this list with the schema's `*_sealed` columns).
 */
const SEALED: Record<string, string[]> = {
  processor_integrations: ['secret_sealed'],
  payment_settings: ['details_sealed'],
  fx_integrations: ['api_key_sealed'],
  invoicer_connections: ['access_token_sealed', 'refresh_token_sealed'],
  distributor_credentials: ['token_sealed', 'webhook_secret_sealed'],
  email_settings: ['smtp_password_sealed'],
  email_domains: ['dkim_private_key_sealed'],
  webhook_endpoints: ['secret_sealed', 'previous_secret_sealed', 'headers_sealed', 'auth_sealed'],
};
export const SEALED_COLUMNS: ReadonlyArray<{ table: string; column: string }> = Object.entries(SEALED).flatMap(([table, columns]) => columns.map((column) => ({ table, column })));

const ENV_NAMES: Record<KeyKind, { key: string; previous: string; file: string }> = {
  jwt: { key: 'JWT_SECRET', previous: 'JWT_SECRET_PREVIOUS', file: 'JWT_SECRET_FILE' },
  encryption: { key: 'ENCRYPTION_KEY', previous: 'ENCRYPTION_KEY_PREVIOUS', file: 'ENCRYPTION_KEY_FILE' },
};

/** Keys are at least this long: a short secret makes HS256 tokens guessable offline. */
export const MIN_KEY_LENGTH = 16;

export function defaultKeyFile(cfg: Pick<Config, 'dataDir'>, kind: KeyKind): string {
  return path.join(cfg.dataDir, 'keys', `${kind}.keys`);
}

export function newKey(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** The keys of a key file's text, current first. */
export function parseKeyFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

function checkKeys(kind: KeyKind, keys: string[], source: string): KeySet {
  if (!keys.length) throw new Error(`${source} holds no ${kind} key`);
  for (const k of keys) {
    if (k.length < MIN_KEY_LENGTH) throw new Error(`a ${kind} key from ${source} is shorter than ${MIN_KEY_LENGTH} characters`);
    if (/[\s,]/.test(k)) throw new Error(`a ${kind} key from ${source} contains whitespace or a comma`);
  }
  return { kind, keys: [...new Set(keys)], source };
}

export function readKeyFile(kind: KeyKind, file: string): KeySet {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the ${kind} key file ${file}: ${(err as Error).message}`);
  }
  return checkKeys(kind, parseKeyFile(text), file);
}

function writeTemp(file: string, keys: string[], comment: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  const body = `# ${comment}\n# One key a line: the first is current, the others are older keys still accepted.\n${keys.join('\n')}\n`;
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    fs.writeSync(fd, body);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return tmp;
}

/** Writes (or replaces) a key file readable by its owner only; `keys` current first. Atomic (rename). */
export function writeKeyFile(file: string, keys: string[], comment: string): void {
  fs.renameSync(writeTemp(file, keys, comment), file);
}

/**
 * Creates a key file only if none exists (atomic: a hard link fails on an existing name), so
 * two processes starting at once on the same DATA_DIR end up with the same key: the second
 * one reads the first one's file.
 */
function createKeyFileOnce(kind: KeyKind, file: string, keys: string[], comment: string): KeySet {
  const tmp = writeTemp(file, keys, comment);
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.unlinkSync(tmp);
  }
  return readKeyFile(kind, file);
}

/** Puts a new key first in a key file (created when absent). Returns the new key's id. */
export function rotateKeyFile(kind: KeyKind, file: string): { keyId: string; keys: number } {
  const old = fs.existsSync(file) ? readKeyFile(kind, file).keys : [];
  const key = newKey();
  writeKeyFile(file, [key, ...old], `Rondo ${kind} keys`);
  return { keyId: keyId(key), keys: old.length + 1 };
}

/** Steps 1–3: the environment or a key file; null when neither holds the key. */
export function keysFromConfig(cfg: Config, kind: KeyKind): KeySet | null {
  const env = ENV_NAMES[kind];
  const [current, previous, file] =
    kind === 'jwt' ? [cfg.jwtSecret, cfg.jwtSecretPrevious, cfg.jwtSecretFile] : [cfg.encryptionKey, cfg.encryptionKeyPrevious, cfg.encryptionKeyFile];
  if (current) return checkKeys(kind, [current, ...previous], previous.length ? `${env.key} and ${env.previous}` : env.key);
  if (previous.length) throw new Error(`${env.previous} is set but ${env.key} is not`);
  if (file) return readKeyFile(kind, file);
  const def = defaultKeyFile(cfg, kind);
  if (fs.existsSync(def)) return readKeyFile(kind, def);
  return null;
}

/**
 * Steps 4–5. The key is written to its file (fsync'd) before the database row goes, so a
 * crash in between leaves the key in both places, never in neither.
 */
async function keysFromDatabaseOrNew(cfg: Config, owner: Knex, kind: KeyKind, log: Logger): Promise<KeySet> {
  const env = ENV_NAMES[kind];
  const file = defaultKeyFile(cfg, kind);
  const row = await owner('system_secrets').where({ name: kind }).first('value');
  if (row) {
    const keys = createKeyFileOnce(kind, file, [row.value as string], `Rondo ${kind} key, moved out of the database`);
    if (!keys.keys.includes(row.value as string)) throw new Error(`${file} appeared meanwhile without the ${kind} key kept in the database: compare the two before going on`);
    await owner('system_secrets').where({ name: kind }).del();
    log.warn({ kind, file }, `the ${kind} key was moved out of the database into its key file: back it up apart from the database, or set ${env.file}`);
    return keys;
  }
  if (cfg.production && cfg.databaseUrl) {
    throw new Error(
      `${env.key} or ${env.file} is required in production (NODE_ENV=production with DATABASE_URL): every process must use the same key. ` +
        `Make one with \`npm run rondo -- keys:rotate --kind ${kind} --file <path>\` and set ${env.file}=<path> (docs/operations.md).`,
    );
  }
  const keys = createKeyFileOnce(kind, file, [newKey()], `Rondo ${kind} key, generated`);
  log.warn({ kind, file }, `no ${kind} key configured: using the generated key file. Back it up apart from the database (docs/operations.md)`);
  return keys;
}

/**
 * Opens one sealed value of each sealed column, if there is one: a process started with
 * the wrong encryption key must not run and seal new values under it.
 */
export async function checkEncryptionKeys(owner: Knex, box: SecretBox): Promise<void> {
  for (const { table, column } of SEALED_COLUMNS) {
    const r = await owner(table).whereNotNull(column).first(column);
    if (!r) continue;
    try {
      box.open(r[column]);
    } catch (err) {
      throw new Error(
        `the configured encryption keys (ids ${box.keyIds.join(', ')}) do not open the secrets stored in ${table}.${column}: ${(err as Error).message}. ` +
          'Start with the key this database was sealed with (ENCRYPTION_KEY / ENCRYPTION_KEY_FILE; docs/operations.md).',
      );
    }
  }
}

export interface LoadedKeys {
  jwt: KeySet;
  encryption: KeySet;
  box: SecretBox;
}

/** Both keys for boot(): from the environment, key files, or moved out of the database. */
export async function loadKeys(cfg: Config, db: Db, log: Logger): Promise<LoadedKeys> {
  const jwt = keysFromConfig(cfg, 'jwt') ?? (await keysFromDatabaseOrNew(cfg, db.owner, 'jwt', log));
  const encryption = keysFromConfig(cfg, 'encryption') ?? (await keysFromDatabaseOrNew(cfg, db.owner, 'encryption', log));
  const box = new SecretBox(encryption.keys);
  await checkEncryptionKeys(db.owner, box);
  log.debug({ jwt: { source: jwt.source, ids: jwt.keys.map(keyId) }, encryption: { source: encryption.source, ids: box.keyIds } }, 'keys loaded');
  return { jwt, encryption, box };
}

/**
 * `secrets:reencrypt`: every sealed value not under the current key is opened (with any
 * configured key) and sealed again under the current one. Matching on the old value makes
 * each update exact and safe against a concurrent change (that row is then left for the
 * next run). Runs as the owner: every workspace at once.
 */
export async function reencryptSecrets(owner: Knex, box: SecretBox, batch = 500): Promise<Record<string, { reencrypted: number; current: number }>> {
  const out: Record<string, { reencrypted: number; current: number }> = {};
  const prefix = `${box.currentKeyId}.`;
  for (const { table, column } of SEALED_COLUMNS) {
    const res = { reencrypted: 0, current: 0 };
    let after: string | null = null;
    for (;;) {
      // Only values under an older key; a value re-sealed here leaves the selection.
      const q = owner(table).whereNotNull(column).whereNot(column, 'like', `${prefix}%`).orderBy(column).limit(batch).select('tenant_id', column);
      if (after !== null) q.where(column, '>', after);
      const rows: Array<Record<string, string>> = await q;
      if (!rows.length) break;
      for (const r of rows) {
        const sealed = r[column]!;
        res.reencrypted += await owner(table).where({ tenant_id: r.tenant_id, [column]: sealed }).update({ [column]: box.seal(box.open(sealed)) });
      }
      after = rows.at(-1)![column]!;
    }
    const [{ n }] = await owner(table).where(column, 'like', `${prefix}%`).count({ n: '*' });
    res.current = Number(n) - res.reencrypted;
    out[`${table}.${column}`] = res;
  }
  return out;
}

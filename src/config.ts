/**
 * Every environment variable Rondo reads, parsed and validated once. Nothing else in the
 * code base reads process.env (tests override through loadConfig()).
 */
import path from 'node:path';

export interface Config {
  /** Postgres URL of the schema owner. Unset: an embedded Postgres under DATA_DIR/pg. */
  databaseUrl: string | null;
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL used in e-mails and signed upload URLs. */
  publicUrl: string;
  /** HMAC secret for JWTs and signed URLs; persisted under DATA_DIR when unset. */
  jwtSecret: string | null;
  /** 32-byte key (hex or base64) for secrets at rest; derived from jwtSecret when unset. */
  encryptionKey: string | null;
  logLevel: string;
  /** Run pg-boss workers in the API process. */
  runWorkers: boolean;
  /** SMTP URL (smtp://user:pass@host:port); unset: mail is written to DATA_DIR/mail. */
  smtpUrl: string | null;
  mailFrom: string;
  /** Detection score above which a file goes on without confirmation. */
  detectionThreshold: number;
  /** Login attempts per IP per window. */
  loginRateLimit: { max: number; windowSeconds: number };
  /** Postgres role the API and workers use for tenant data (no BYPASSRLS, not owner). */
  appRole: string;
  /** Password hashing cost (argon2 memory KiB); tests lower it. */
  passwordHashMemoryKiB: number;
  /** pg-boss polling interval, seconds. */
  queuePollSeconds: number;
  /** Base URL of the payment processor's API (transfers); unset: payouts are recorded, not sent. */
  processorApiUrl: string | null;
}

function int(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function num(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got "${value}"`);
  return n;
}

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = int('PORT', env.PORT, 3000);
  const dataDir = path.resolve(env.DATA_DIR || './.data');
  const cfg: Config = {
    databaseUrl: env.DATABASE_URL || null,
    port,
    host: env.HOST || '0.0.0.0',
    dataDir,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    jwtSecret: env.JWT_SECRET || null,
    encryptionKey: env.ENCRYPTION_KEY || null,
    logLevel: env.LOG_LEVEL || 'info',
    runWorkers: bool(env.RUN_WORKERS, true),
    smtpUrl: env.SMTP_URL || null,
    mailFrom: env.MAIL_FROM || 'Rondo <no-reply@rondo.local>',
    detectionThreshold: num('DETECTION_THRESHOLD', env.DETECTION_THRESHOLD, 0.8),
    loginRateLimit: {
      max: int('LOGIN_RATE_MAX', env.LOGIN_RATE_MAX, 20),
      windowSeconds: int('LOGIN_RATE_WINDOW_SECONDS', env.LOGIN_RATE_WINDOW_SECONDS, 180),
    },
    appRole: env.APP_DB_ROLE || 'rondo_app',
    passwordHashMemoryKiB: int('PASSWORD_HASH_MEMORY_KIB', env.PASSWORD_HASH_MEMORY_KIB, 19456),
    queuePollSeconds: num('QUEUE_POLL_SECONDS', env.QUEUE_POLL_SECONDS, 2),
    processorApiUrl: (env.PROCESSOR_API_URL || '').replace(/\/$/, '') || null,
    ...overrides,
  };
  if (cfg.detectionThreshold < 0 || cfg.detectionThreshold > 1) throw new Error('DETECTION_THRESHOLD must be between 0 and 1');
  if (!/^[a-z_][a-z0-9_]*$/.test(cfg.appRole)) throw new Error('APP_DB_ROLE must be a plain identifier');
  return cfg;
}

/**
 * Every environment variable Rondo reads, parsed and validated once. Nothing else in the
 * code base reads process.env (tests override through loadConfig()).
 */
import path from 'node:path';
import type { S3Config } from './lib/s3-store';
export type { S3Config };

export interface Config {
  /** Postgres URL of the schema owner. Unset: an embedded Postgres under DATA_DIR/pg. */
  databaseUrl: string | null;
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL used in e-mails and signed upload URLs. */
  publicUrl: string;
  /** NODE_ENV=production: keys must come from the environment or key files (src/keys.ts). */
  production: boolean;
  /** HMAC secret that signs JWTs and signed URLs (JWT_SECRET); unset: JWT_SECRET_FILE or DATA_DIR/keys/jwt.keys. */
  jwtSecret: string | null;
  /** Older JWT secrets still accepted for verification while their tokens live (JWT_SECRET_PREVIOUS, comma-separated). */
  jwtSecretPrevious: string[];
  /** A key file: one secret a line, the first signs, the others verify (JWT_SECRET_FILE). */
  jwtSecretFile: string | null;
  /** Key for secrets at rest (ENCRYPTION_KEY); unset: ENCRYPTION_KEY_FILE or DATA_DIR/keys/encryption.keys. */
  encryptionKey: string | null;
  /** Older encryption keys still accepted for opening sealed values (ENCRYPTION_KEY_PREVIOUS, comma-separated). */
  encryptionKeyPrevious: string[];
  /** A key file: one key a line, the first seals, the others open (ENCRYPTION_KEY_FILE). */
  encryptionKeyFile: string | null;
  /** Browser origins allowed to call the API cross-origin (CORS_ORIGINS, comma-separated; `*` any, without credentials). Empty: same-origin only. */
  corsOrigins: string[];
  /** Bearer token that GET /metrics requires (METRICS_TOKEN); unset: /metrics is open. */
  metricsToken: string | null;
  /** Worker-only processes serve /metrics and /health on this port (METRICS_PORT); unset: none. */
  metricsPort: number | null;
  /** On SIGTERM/SIGINT: how long in-flight requests and running jobs get to finish, seconds. */
  shutdownTimeoutSeconds: number;
  logLevel: string;
  /** Run pg-boss workers in the API process. */
  runWorkers: boolean;
  /** SMTP URL (smtp://user:pass@host:port); unset: mail is written to DATA_DIR/mail. */
  smtpUrl: string | null;
  mailFrom: string;
  /** The SPF `include:` a workspace's e-mail domain publishes (MAIL_SPF_INCLUDE; default `_spf.` + MAIL_FROM's domain). */
  mailSpfInclude: string;
  /** HTTP SMS gateway (SMS_GATEWAY_URL, SMS_GATEWAY_KEY); unset: SMS deliveries fail as not configured. */
  smsGateway: { url: string; key: string | null } | null;
  /** Web Push VAPID keys (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT); unset: push deliveries are skipped. */
  vapid: { publicKey: string; privateKey: string; subject: string } | null;
  /** Detection score above which a file goes on without confirmation. */
  detectionThreshold: number;
  /** Login attempts per IP per window. */
  loginRateLimit: { max: number; windowSeconds: number };
  /** Sign-in attempts per account (e-mail address) per window, whatever address they come from. */
  accountRateLimit: { max: number; windowSeconds: number };
  /** Reset and sign-in-link e-mails per recipient address per window. */
  recipientRateLimit: { max: number; windowSeconds: number };
  /** Behind a reverse proxy: take the client address, host and scheme from X-Forwarded-* headers the trusted proxies add. */
  trustProxy: boolean;
  /** Which hops are trusted proxies: a hop count (1 = only the peer that connects) or addresses/CIDRs/presets (loopback, linklocal, uniquelocal). */
  trustedProxies: number | string[];
  /** Let workspaces register plain-http origins for e-mailed links (development only). */
  allowHttpRedirectOrigins: boolean;
  /** Postgres role the API and workers use for tenant data (no BYPASSRLS, not owner). */
  appRole: string;
  /** Password hashing cost (argon2 memory KiB); tests lower it. */
  passwordHashMemoryKiB: number;
  /** pg-boss polling interval, seconds. */
  queuePollSeconds: number;
  /** Let user-given URLs (media links) reach loopback/private addresses. Off in production. */
  allowPrivateOutbound: boolean;
  /** Plans, features and limits apply (BILLING=on): an install that sells plans. Off (default): every workspace has every feature and no limit. */
  billing: boolean;
  /** OAuth 2.0 providers for social login, keyed social_a | social_b | social_c; unset = off. */
  social: Partial<Record<SocialProvider, SocialProviderConfig>>;
  /** A file whose pipeline step has not moved for this long is handed to a new job (its worker died). */
  staleFileSeconds: number;
  /** Base URL of the payment processor's API (transfers); unset: payouts are recorded, not sent. */
  processorApiUrl: string | null;
  /** FX payout partner API base URL (FXPARTNER_API_URL); unset: the partner is not offered. */
  fxpartnerApiUrl: string | null;
  /** Invoicing partner (OAuth 2.0 client); null unless INVOICER_API_URL is set. */
  invoicer: InvoicerConfig | null;
  /** Distributor API base URL (DISTRIBUTOR_API_URL); unset: credentials are stored, not verified. */
  distributorApiUrl: string | null;
  /** Time limit of one call to a partner (PARTNER_TIMEOUT_MS), milliseconds. */
  partnerTimeoutMs: number;
  /** Outbound webhooks (docs/webhooks.md): per-request time limit, retry schedule factor, per-endpoint rate, disabling, outbox sweep. */
  webhooks: { timeoutMs: number; retryScale: number; ratePerMinute: number; disableAfterSeconds: number; sweepSeconds: number };
  /** Where stored files live: 'local' (DATA_DIR/objects) or 's3' (an S3-compatible bucket, `s3` below). */
  objectStore: 'local' | 's3';
  /** The S3-compatible bucket; set when objectStore is 's3'. */
  s3: S3Config | null;
  /** Signed upload URLs (Rondo's own or presigned S3 PUTs) live this long, seconds. */
  uploadUrlTtlSeconds: number;
  /**
   * Which engine sums the /royalty/* breakdowns (ANALYTICS_ENGINE): 'duckdb' (default; an
   * embedded replica of the analytics columns, following Postgres) or 'postgres' (Postgres alone).
   */
  analyticsEngine: 'duckdb' | 'postgres';
  /** The replica's file (ANALYTICS_REPLICA_PATH); unset: DATA_DIR/analytics/replica-<PORT>.duckdb. One file per process. */
  analyticsReplicaPath: string;
  /** The replica's memory limit (ANALYTICS_REPLICA_MEMORY, a DuckDB size such as 100MB) and threads (ANALYTICS_REPLICA_THREADS). */
  analyticsReplicaMemory: string;
  analyticsReplicaThreads: number;
  /** Reads the replica runs at once, the rest waiting their turn (ANALYTICS_REPLICA_READS). */
  analyticsReplicaReads: number;
  /** How long a request waits for the replica to catch up with its snapshot before Postgres answers (ANALYTICS_REPLICA_WAIT_MS). */
  analyticsReplicaWaitMs: number;
}

export interface InvoicerConfig {
  apiUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Where the partner sends the user back with ?code&state; default <PUBLIC_URL>/integrations/invoicer/callback. */
  redirectUri: string | null;
  scope: string;
}

/** INVOICER_API_URL, INVOICER_AUTHORIZE_URL, INVOICER_TOKEN_URL, INVOICER_CLIENT_ID, INVOICER_CLIENT_SECRET, INVOICER_REDIRECT_URI, INVOICER_SCOPE. */
function invoicerFromEnv(env: NodeJS.ProcessEnv): InvoicerConfig | null {
  const apiUrl = (env.INVOICER_API_URL || '').replace(/\/$/, '');
  if (!apiUrl) return null;
  const need = (n: string) => {
    const v = env[`INVOICER_${n}`];
    if (!v) throw new Error(`INVOICER_API_URL is set, so INVOICER_${n} is required`);
    return v;
  };
  return {
    apiUrl,
    authorizeUrl: need('AUTHORIZE_URL'),
    tokenUrl: need('TOKEN_URL'),
    clientId: need('CLIENT_ID'),
    clientSecret: need('CLIENT_SECRET'),
    redirectUri: env.INVOICER_REDIRECT_URI || null,
    scope: env.INVOICER_SCOPE || 'invoices',
  };
}

export const SOCIAL_PROVIDERS = ['social_a', 'social_b', 'social_c'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];
export interface SocialProviderConfig {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  scope: string;
}

/** SOCIAL_A_CLIENT_ID, SOCIAL_A_CLIENT_SECRET, SOCIAL_A_AUTHORIZE_URL, SOCIAL_A_TOKEN_URL, SOCIAL_A_USERINFO_URL, SOCIAL_A_SCOPE … */
function socialFromEnv(env: NodeJS.ProcessEnv): Config['social'] {
  const out: Config['social'] = {};
  for (const p of SOCIAL_PROVIDERS) {
    const k = p.toUpperCase();
    const clientId = env[`${k}_CLIENT_ID`];
    if (!clientId) continue;
    const need = (n: string) => {
      const v = env[`${k}_${n}`];
      if (!v) throw new Error(`${k}_CLIENT_ID is set, so ${k}_${n} is required`);
      return v;
    };
    out[p] = {
      clientId,
      clientSecret: need('CLIENT_SECRET'),
      authorizeUrl: need('AUTHORIZE_URL'),
      tokenUrl: need('TOKEN_URL'),
      userinfoUrl: need('USERINFO_URL'),
      scope: env[`${k}_SCOPE`] || 'openid email profile',
    };
  }
  return out;
}

/** OBJECT_STORE, S3_*: the S3 settings are read (and checked) only when OBJECT_STORE=s3. */
function s3FromEnv(env: NodeJS.ProcessEnv): Config['s3'] {
  if ((env.OBJECT_STORE || 'local') !== 's3') return null;
  const prefix = env.S3_PREFIX || '';
  return {
    endpoint: (env.S3_ENDPOINT || '').replace(/\/$/, '') || null,
    region: env.S3_REGION || 'us-east-1',
    bucket: env.S3_BUCKET || '',
    prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix,
    accessKeyId: env.S3_ACCESS_KEY_ID || null,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || null,
    forcePathStyle: bool(env.S3_FORCE_PATH_STYLE, !!env.S3_ENDPOINT),
  };
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

/** TRUSTED_PROXIES: unset = 1 hop; a number = that many hops; else a comma list of addresses, CIDRs or proxy-addr presets. */
function trustedProxies(value: string | undefined): number | string[] {
  if (value === undefined || value.trim() === '') return 1;
  if (/^\d+$/.test(value.trim())) return int('TRUSTED_PROXIES', value.trim(), 1);
  return value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}

/** A comma-separated list; blanks dropped. */
function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((v) => v.trim()).filter(Boolean);
}

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

/** The domain of an address such as `Rondo <no-reply@rondo.example>`. */
function mailDomain(from: string): string {
  return (/@([^>\s]+)/.exec(from)?.[1] ?? 'rondo.local').toLowerCase();
}

function vapidFromEnv(env: NodeJS.ProcessEnv): Config['vapid'] {
  const publicKey = env.VAPID_PUBLIC_KEY || '';
  const privateKey = env.VAPID_PRIVATE_KEY || '';
  if (!publicKey && !privateKey) return null;
  if (!publicKey || !privateKey) throw new Error('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together (generate both: npx web-push generate-vapid-keys)');
  return { publicKey, privateKey, subject: env.VAPID_SUBJECT || 'mailto:no-reply@rondo.local' };
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
    production: env.NODE_ENV === 'production',
    jwtSecret: env.JWT_SECRET || null,
    jwtSecretPrevious: list(env.JWT_SECRET_PREVIOUS),
    jwtSecretFile: env.JWT_SECRET_FILE ? path.resolve(env.JWT_SECRET_FILE) : null,
    encryptionKey: env.ENCRYPTION_KEY || null,
    encryptionKeyPrevious: list(env.ENCRYPTION_KEY_PREVIOUS),
    encryptionKeyFile: env.ENCRYPTION_KEY_FILE ? path.resolve(env.ENCRYPTION_KEY_FILE) : null,
    corsOrigins: list(env.CORS_ORIGINS).map((o) => o.replace(/\/$/, '')),
    metricsToken: env.METRICS_TOKEN || null,
    metricsPort: env.METRICS_PORT ? int('METRICS_PORT', env.METRICS_PORT, 0) : null,
    shutdownTimeoutSeconds: int('SHUTDOWN_TIMEOUT_SECONDS', env.SHUTDOWN_TIMEOUT_SECONDS, 25),
    logLevel: env.LOG_LEVEL || 'info',
    runWorkers: bool(env.RUN_WORKERS, true),
    smtpUrl: env.SMTP_URL || null,
    mailFrom: env.MAIL_FROM || 'Rondo <no-reply@rondo.local>',
    mailSpfInclude: env.MAIL_SPF_INCLUDE || `_spf.${mailDomain(env.MAIL_FROM || 'no-reply@rondo.local')}`,
    smsGateway: env.SMS_GATEWAY_URL ? { url: env.SMS_GATEWAY_URL.replace(/\/$/, ''), key: env.SMS_GATEWAY_KEY || null } : null,
    vapid: vapidFromEnv(env),
    detectionThreshold: num('DETECTION_THRESHOLD', env.DETECTION_THRESHOLD, 0.8),
    loginRateLimit: {
      max: int('LOGIN_RATE_MAX', env.LOGIN_RATE_MAX, 20),
      windowSeconds: int('LOGIN_RATE_WINDOW_SECONDS', env.LOGIN_RATE_WINDOW_SECONDS, 180),
    },
    accountRateLimit: {
      max: int('ACCOUNT_RATE_MAX', env.ACCOUNT_RATE_MAX, 10),
      windowSeconds: int('ACCOUNT_RATE_WINDOW_SECONDS', env.ACCOUNT_RATE_WINDOW_SECONDS, 900),
    },
    recipientRateLimit: {
      max: int('RECIPIENT_RATE_MAX', env.RECIPIENT_RATE_MAX, 5),
      windowSeconds: int('RECIPIENT_RATE_WINDOW_SECONDS', env.RECIPIENT_RATE_WINDOW_SECONDS, 900),
    },
    trustProxy: bool(env.TRUST_PROXY, false),
    trustedProxies: trustedProxies(env.TRUSTED_PROXIES),
    allowHttpRedirectOrigins: bool(env.ALLOW_HTTP_REDIRECT_ORIGINS, env.NODE_ENV === 'development'),
    appRole: env.APP_DB_ROLE || 'rondo_app',
    passwordHashMemoryKiB: int('PASSWORD_HASH_MEMORY_KIB', env.PASSWORD_HASH_MEMORY_KIB, 19456),
    queuePollSeconds: num('QUEUE_POLL_SECONDS', env.QUEUE_POLL_SECONDS, 1),
    social: socialFromEnv(env),
    allowPrivateOutbound: bool(env.ALLOW_PRIVATE_OUTBOUND, false),
    billing: bool(env.BILLING, false),
    staleFileSeconds: int('STALE_FILE_SECONDS', env.STALE_FILE_SECONDS, 120),
    processorApiUrl: (env.PROCESSOR_API_URL || '').replace(/\/$/, '') || null,
    fxpartnerApiUrl: (env.FXPARTNER_API_URL || '').replace(/\/$/, '') || null,
    invoicer: invoicerFromEnv(env),
    distributorApiUrl: (env.DISTRIBUTOR_API_URL || '').replace(/\/$/, '') || null,
    partnerTimeoutMs: int('PARTNER_TIMEOUT_MS', env.PARTNER_TIMEOUT_MS, 15000),
    webhooks: {
      timeoutMs: int('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10000),
      retryScale: num('WEBHOOK_RETRY_SCALE', env.WEBHOOK_RETRY_SCALE, 1),
      ratePerMinute: int('WEBHOOK_RATE_PER_MINUTE', env.WEBHOOK_RATE_PER_MINUTE, 300),
      disableAfterSeconds: int('WEBHOOK_DISABLE_AFTER_SECONDS', env.WEBHOOK_DISABLE_AFTER_SECONDS, 86400),
      sweepSeconds: num('WEBHOOK_SWEEP_SECONDS', env.WEBHOOK_SWEEP_SECONDS, 2),
    },
    objectStore: (env.OBJECT_STORE || 'local') as Config['objectStore'],
    s3: s3FromEnv(env),
    uploadUrlTtlSeconds: int('UPLOAD_URL_TTL_SECONDS', env.UPLOAD_URL_TTL_SECONDS, 3600),
    analyticsEngine: (env.ANALYTICS_ENGINE || 'duckdb') as Config['analyticsEngine'],
    analyticsReplicaPath: env.ANALYTICS_REPLICA_PATH ? path.resolve(env.ANALYTICS_REPLICA_PATH) : '',
    analyticsReplicaMemory: env.ANALYTICS_REPLICA_MEMORY || '100MB',
    analyticsReplicaThreads: int('ANALYTICS_REPLICA_THREADS', env.ANALYTICS_REPLICA_THREADS, 2),
    analyticsReplicaReads: int('ANALYTICS_REPLICA_READS', env.ANALYTICS_REPLICA_READS, 2),
    analyticsReplicaWaitMs: int('ANALYTICS_REPLICA_WAIT_MS', env.ANALYTICS_REPLICA_WAIT_MS, 2000),
    ...overrides,
  };
  if (cfg.detectionThreshold < 0 || cfg.detectionThreshold > 1) throw new Error('DETECTION_THRESHOLD must be between 0 and 1');
  if (!/^[a-z_][a-z0-9_]*$/.test(cfg.appRole)) throw new Error('APP_DB_ROLE must be a plain identifier');
  if (cfg.objectStore !== 'local' && cfg.objectStore !== 's3') throw new Error(`OBJECT_STORE must be "local" or "s3", got "${cfg.objectStore}"`);
  if (cfg.objectStore === 's3') {
    if (!cfg.s3?.bucket) throw new Error('OBJECT_STORE=s3 needs S3_BUCKET');
    if (!cfg.s3.accessKeyId !== !cfg.s3.secretAccessKey) throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
    if (cfg.s3.prefix && !/^[A-Za-z0-9._\-/]+\/$/.test(cfg.s3.prefix)) throw new Error('S3_PREFIX may hold letters, digits and ._-/ only');
  }
  if (cfg.analyticsEngine !== 'duckdb' && cfg.analyticsEngine !== 'postgres') throw new Error(`ANALYTICS_ENGINE must be "duckdb" or "postgres", got "${cfg.analyticsEngine}"`);
  if (!/^\d+(\.\d+)?\s*(B|KB|MB|GB|KiB|MiB|GiB)$/i.test(cfg.analyticsReplicaMemory)) throw new Error(`ANALYTICS_REPLICA_MEMORY is a size such as 200MB, got "${cfg.analyticsReplicaMemory}"`);
  if (cfg.analyticsReplicaThreads < 1) throw new Error('ANALYTICS_REPLICA_THREADS must be at least 1');
  if (cfg.analyticsReplicaReads < 1) throw new Error('ANALYTICS_REPLICA_READS must be at least 1');
  if (!cfg.analyticsReplicaPath) cfg.analyticsReplicaPath = path.join(cfg.dataDir, 'analytics', `replica-${cfg.port}.duckdb`);
  if (cfg.jwtSecret && cfg.jwtSecretFile) throw new Error('Set JWT_SECRET or JWT_SECRET_FILE, not both');
  if (cfg.encryptionKey && cfg.encryptionKeyFile) throw new Error('Set ENCRYPTION_KEY or ENCRYPTION_KEY_FILE, not both');
  for (const o of cfg.corsOrigins) {
    if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)) throw new Error(`CORS_ORIGINS holds origins like https://app.example.com (scheme and host, no path), got "${o}"`);
  }
  // S3 refuses presigned URLs valid for more than 7 days
  if (cfg.uploadUrlTtlSeconds < 60 || cfg.uploadUrlTtlSeconds > 7 * 24 * 3600) throw new Error('UPLOAD_URL_TTL_SECONDS must be between 60 and 604800');
  return cfg;
}

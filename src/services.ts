/**
 * What every service, route and job handler receives: the process's shared dependencies.
 * Types only: the composition root (src/compose.ts) builds them. The queue is seen through
 * its port (send and ping); only the composition root and jobs/ hold the pg-boss side.
 */
import type { Config } from './config';
import type { Db } from './db';
import type { Logger } from './lib/logger';
import type { Mailer } from './lib/mailer';
import type { TxtResolver } from './lib/dns';
import type { SecretBox } from './lib/crypto';
import type { Authenticator, PurposeSigner } from './lib/identity';
import type { JobQueue } from './pipeline/registry';
import type { Metrics } from './metrics';

export interface AppServices {
  cfg: Config;
  log: Logger;
  db: Db;
  /** The token port (src/modules/auth/tokens.ts implements it). */
  signer: PurposeSigner;
  /** The auth port (src/modules/auth/service.ts implements it; the auth module reads its own service with authOf). */
  auth: Authenticator;
  mailer: Mailer;
  queue: JobQueue & { ping(): Promise<boolean> };
  secrets: SecretBox;
  metrics: Metrics;
  /** DNS TXT lookups (domain verification); tests replace it with a fake. */
  dns: TxtResolver;
}

export interface Runtime<S extends AppServices = AppServices> {
  svc: S;
  shutdown(): Promise<void>;
}

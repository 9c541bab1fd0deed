/**
 * What every service, route and job handler receives: the process's shared dependencies.
 * Types only: the composition root (src/compose.ts) builds them. The queue is seen through
 * its port (send and ping); only the composition root and jobs/ hold the pg-boss side.
 */
import type { Config } from './config';
import type { Db } from './db';
import type { Logger } from './lib/logger';
import type { Mailer } from './lib/mailer';
import type { SecretBox } from './lib/crypto';
import type { AuthService } from './modules/auth/service';
import type { TokenSigner } from './modules/auth/tokens';
import type { JobQueue } from './pipeline/registry';
import type { Metrics } from './metrics';

export interface AppServices {
  cfg: Config;
  log: Logger;
  db: Db;
  signer: TokenSigner;
  auth: AuthService;
  mailer: Mailer;
  queue: JobQueue & { ping(): Promise<boolean> };
  secrets: SecretBox;
  metrics: Metrics;
}

export interface Runtime {
  svc: AppServices;
  shutdown(): Promise<void>;
}

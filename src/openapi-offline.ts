/**
 * The OpenAPI document built without a database: every module mounts its routes on a router
 * that never listens, with services whose database pools are never used (knex connects on
 * first query), so `npm run web:types` generates the web app's types from the server's own
 * schemas on any machine. Run it in a process of its own: mounting fills the route registry.
 * Part of the composition root (it mounts every module, as app.ts does).
 */
import Router from '@koa/router';
import { loadConfig } from './config';
import { connectDb } from './db';
import { mountModules } from './modules';
import { AuthService } from './modules/auth/service';
import { TokenSigner } from './modules/auth/tokens';
import { buildOpenApi } from './http/openapi';
import type { AppServices } from './services';

export async function offlineOpenApi(): Promise<Record<string, unknown>> {
  const cfg = loadConfig({}, { databaseUrl: 'postgres://offline@127.0.0.1:9/offline', jwtSecret: 'offline-document' });
  const db = connectDb(cfg.databaseUrl!);
  try {
    const signer = new TokenSigner(cfg.jwtSecret!);
    // Only what the modules touch while mounting: the handlers never run here.
    const svc = { cfg, db, signer, auth: new AuthService(db.owner, signer, cfg) } as unknown as AppServices;
    mountModules(new Router(), svc);
    return buildOpenApi()!;
  } finally {
    await db.close();
  }
}

/**
 * A real Rondo for a test file: its own database, the real Koa app on a real port, the
 * real pg-boss workers (optional), and a small HTTP client.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import { loadConfig, type Config } from '../../src/config';
import { boot, type BootedServices } from '../../src/compose';
import { createApp } from '../../src/app';
import { createTestDatabase } from './db';
import { createTenant, ensureGlobalUser, upsertMembership } from '../../src/modules/users/service';
import type { RoleName } from '../../src/http/schema';
import { clock } from '../../src/lib/clock';
import type { Logger } from '../../src/lib/logger';
import { attachProgressSocket } from '../../src/modules/files/progress-socket';

type FetchBody = NonNullable<NonNullable<Parameters<typeof fetch>[1]>['body']>;

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as X-Forwarded-For (the test app trusts proxy headers): one IP per test keeps rate limits apart. */
  ip?: string;
  raw?: FetchBody;
  /** 'manual' to see redirects (Location) instead of following them. */
  redirect?: 'manual' | 'follow';
}

export interface TestApp {
  url: string;
  svc: BootedServices;
  cfg: Config;
  dataDir: string;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

export async function startTestApp(opts: { workers?: boolean; config?: Partial<Config>; log?: Logger } = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'rondo-test-'));
  const cfg = loadConfig(
    {},
    {
      databaseUrl: db.url,
      dataDir,
      logLevel: process.env.TEST_LOG_LEVEL || 'silent',
      passwordHashMemoryKiB: 1024,
      queuePollSeconds: 0.5,
      // fake partner servers in tests listen on 127.0.0.1
      allowPrivateOutbound: true,
      // the suite tests plans and limits as a billing install applies them; test/platform/billing-off.test.ts the default
      billing: true,
      jwtSecret: 'test-secret-' + crypto.randomBytes(8).toString('hex'),
      ...opts.config,
    },
  );
  const rt = await boot(cfg, { workers: !!opts.workers, migrate: false, databaseUrl: db.url, log: opts.log });
  // proxy headers are trusted (one hop, the test client) unless a test's config says otherwise
  const app = createApp(rt.svc, { trustProxy: opts.config?.trustProxy ?? true });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  // The client reuses idle connections: a server closing one at its 5 s keep-alive timeout just as
  // a request is sent on it resets that request (ECONNRESET on a loaded machine). Tests close every
  // connection themselves.
  server.keepAliveTimeout = 10 * 60_000;
  // the reference clients' progress events (Socket.io), as src/server.ts attaches them
  const progressSocket = attachProgressSocket(server, rt.svc);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const defaultIp = `10.${crypto.randomInt(255)}.${crypto.randomInt(255)}.${crypto.randomInt(255)}`;
  return {
    url,
    svc: rt.svc,
    cfg,
    dataDir,
    async request(method, p, o = {}) {
      const headers: Record<string, string> = { 'x-forwarded-for': o.ip ?? defaultIp, ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: FetchBody | undefined = o.raw;
      if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(o.body);
      }
      const res = await fetch(url + p, { method, headers, body, redirect: o.redirect ?? 'follow' });
      const text = await res.text();
      let parsed: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      return { status: res.status, body: parsed as any, headers: res.headers, text };
    },
    async close() {
      clock.reset();
      await progressSocket.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await rt.shutdown();
      await db.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestTenant {
  tenantId: number;
  workspaceId: string;
  /** role → { email, password, tenantUserId, token (access) } */
  users: Record<string, { email: string; password: string; tenantUserId: string; token: string; refresh: string }>;
}

let seq = 0;
/** A workspace with one member of each role, each signed in (access tokens ready). */
export async function createTestTenant(app: TestApp, name = 'Label', roles: RoleName[] = ['owner', 'admin', 'user', 'guest']): Promise<TestTenant> {
  const owner = app.svc.db.owner;
  const t = await createTenant(owner, { name: `${name} ${++seq}` });
  const users: TestTenant['users'] = {};
  const password = 'correct horse battery';
  const hash = await app.svc.auth.hashPassword(password);
  for (const role of roles) {
    const email = `${role}.${t.id}.${seq}@${name.toLowerCase().replace(/\W/g, '')}.test`;
    const g = await ensureGlobalUser(owner, { email, passwordHash: hash });
    const tenantUserId = await upsertMembership(owner, t.id, g.id, role);
    const { refresh, token } = await signIn(app, email, password, t.uuid);
    users[role] = { email, password, tenantUserId, token, refresh };
  }
  return { tenantId: t.id, workspaceId: t.uuid, users };
}

export async function signIn(app: TestApp, email: string, password: string, workspaceId: string): Promise<{ refresh: string; token: string }> {
  // Direct service calls (not HTTP) so fixtures do not eat into the login rate limit.
  const { refreshToken } = await app.svc.auth.login(email, password, {});
  const who = await app.svc.auth.fromRefresh(refreshToken);
  const token = await app.svc.auth.accessTokenFor(who, workspaceId, undefined);
  return { refresh: refreshToken, token };
}

/** Makes `domain` the workspace's verified, active custom domain (as POST /domains/{id}/verify does), on a plan with custom domains. */
export async function activateCustomDomain(app: TestApp, tenantId: number, domain: string): Promise<void> {
  const owner = app.svc.db.owner;
  await owner('tenants').where({ id: tenantId }).update({ plan: 'pro', custom_domain: domain });
  await owner('custom_domains').insert({ tenant_id: tenantId, domain, verification_token: crypto.randomBytes(12).toString('hex'), status: 'active', verified_at: clock.now() });
}

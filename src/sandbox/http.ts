/**
 * The small HTTP kit every sandbox fake is built on: a router over node:http, JSON in and
 * out, and per-request failure injection.
 *
 * Faults are queued on a fake (`fake.inject({...})`, or `POST /_sandbox/faults` with the
 * same JSON) and consumed by the next requests that match them, so a test decides exactly
 * which call fails:
 *
 *   { "kind": "timeout", "match": "POST /v1/payouts", "times": 1 }   the request is processed, the answer never comes
 *   { "kind": "5xx", "match": "GET /v1/wallets", "status": 503 }    refused before anything is done
 *
 * `match` is "<METHOD> <path prefix>" (or a path prefix alone); unset matches every request
 * except the `/_sandbox/*` control routes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Fault {
  kind: 'timeout' | '5xx';
  match?: string;
  status?: number;
  times?: number;
}

export interface SandboxRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** Parsed JSON or form body ({} when empty). */
  body: Record<string, any>;
  params: Record<string, string>;
}

export interface SandboxReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Handler = (req: SandboxRequest) => SandboxReply | Promise<SandboxReply>;

export class SandboxError extends Error {
  constructor(
    public readonly status: number,
    public readonly body: unknown,
  ) {
    super(`sandbox ${status}`);
  }
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): SandboxReply => ({ status, body, headers });

export class FakeServer {
  url = '';
  /** Every request the fake received (control routes excluded), oldest first. */
  readonly requests: { method: string; path: string; headers: http.IncomingHttpHeaders; body: Record<string, any> }[] = [];
  private readonly routes: { method: string; re: RegExp; keys: string[]; h: Handler }[] = [];
  private readonly faults: Fault[] = [];
  private readonly hanging = new Set<http.ServerResponse>();
  private server: http.Server | null = null;

  constructor(readonly name: string) {
    this.on('POST', '/_sandbox/faults', (r) => {
      this.inject(r.body as Fault);
      return json(201, { ok: true });
    });
    this.on('DELETE', '/_sandbox/faults', () => {
      this.faults.length = 0;
      return json(200, { ok: true });
    });
  }

  on(method: string, pattern: string, h: Handler): this {
    const keys: string[] = [];
    const re = new RegExp(`^${pattern.replace(/:([a-zA-Z]+)/g, (_m, k) => (keys.push(k), '([^/]+)'))}$`);
    this.routes.push({ method, re, keys, h });
    return this;
  }

  inject(f: Fault): void {
    if (f.kind !== 'timeout' && f.kind !== '5xx') throw new SandboxError(400, { error: 'kind must be timeout or 5xx' });
    this.faults.push({ ...f, times: f.times ?? 1 });
  }

  private takeFault(method: string, path: string): Fault | null {
    const list = this.faults;
    const i = list.findIndex((f) => {
      if (!f.match) return true;
      const [m, p] = f.match.includes(' ') ? f.match.split(' ', 2) : [null, f.match];
      return (!m || m.toUpperCase() === method) && path.startsWith(p!);
    });
    if (i < 0) return null;
    const f = list[i]!;
    f.times = (f.times ?? 1) - 1;
    if (f.times <= 0) list.splice(i, 1);
    return f;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const u = new URL(req.url ?? '/', 'http://sandbox');
    const method = (req.method ?? 'GET').toUpperCase();
    let body: Record<string, any> = {};
    const type = String(req.headers['content-type'] ?? '');
    try {
      if (raw && type.includes('json')) body = JSON.parse(raw);
      else if (raw && type.includes('x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(raw));
    } catch {
      return send(res, json(400, { error: 'invalid_json' }));
    }
    const control = u.pathname.startsWith('/_sandbox/');
    if (!control) this.requests.push({ method, path: u.pathname + u.search, headers: req.headers, body });
    const fault = control ? null : this.takeFault(method, u.pathname);
    if (fault?.kind === '5xx') return send(res, json(fault.status ?? 503, { error: 'service_unavailable', message: 'Injected failure' }));
    let reply: SandboxReply = json(404, { error: 'not_found', message: `No route ${method} ${u.pathname}` });
    for (const r of this.routes) {
      if (r.method !== method) continue;
      const m = r.re.exec(u.pathname);
      if (!m) continue;
      const params = Object.fromEntries(r.keys.map((k, i) => [k, decodeURIComponent(m[i + 1]!)]));
      try {
        reply = await r.h({ method, path: u.pathname, query: u.searchParams, headers: req.headers, raw, body, params });
      } catch (err) {
        reply = err instanceof SandboxError ? json(err.status, err.body) : json(500, { error: 'internal', message: (err as Error).message });
      }
      break;
    }
    if (fault?.kind === 'timeout') {
      // processed, but the answer is never sent: the caller times out
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    send(res, reply);
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => send(res, json(500, { error: 'internal', message: String(err) })));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    this.url = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    if (!this.server) return;
    const s = this.server;
    this.server = null;
    await new Promise<void>((resolve) => s.close(() => resolve()));
    s.closeAllConnections?.();
  }
}

function send(res: http.ServerResponse, r: SandboxReply) {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  if (r.body !== undefined) headers['content-type'] ??= 'application/json';
  res.writeHead(r.status, headers);
  res.end(r.body === undefined ? undefined : JSON.stringify(r.body));
}

/** The bearer credential of a request, or a 401 in the provider's own error shape. */
export function bearer(req: SandboxRequest): string {
  const m = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
  if (!m || !m[1]!.trim()) throw new SandboxError(401, { error: 'unauthorized', message: 'Missing bearer credential' });
  return m[1]!.trim();
}

/** page/per_page paging of a list (per_page at most 100). */
export function pageOf<T>(req: SandboxRequest, items: T[], defaultSize = 20) {
  const page = Math.max(1, Number(req.query.get('page')) || 1);
  const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page')) || defaultSize));
  return { data: items.slice((page - 1) * perPage, page * perPage), meta: { page, per_page: perPage, total: items.length } };
}

/** POST a signed JSON body to a URL (callbacks); never throws: a lost callback is what polling is for. */
export async function postJson(url: string, raw: string, headers: Record<string, string>): Promise<number> {
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw, signal: AbortSignal.timeout(10_000) });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

/**
 * The public API, with the same tokens as any client: a refresh token (kept in localStorage, or
 * the httpOnly cookie after a social sign-in) buys a short access token for one workspace.
 */
import createClient, { createQuerySerializer } from 'openapi-fetch';
import type { paths } from './api-types';
import { inWords, statusWords, UNREACHABLE } from './words';

export interface Workspace { workspaceId: string; tenantId: number; name: string; role: string; status: string }
/** GET /settings/branding (docs/branding.md): applied only while `active`. */
export interface Branding { active: boolean; primaryColor: string | null; accentColor: string | null; senderName: string | null; logo: { url: string } | null }

export interface Me { id: string; userId: string; email: string; firstName?: string | null; lastName?: string | null; role: string; isSuperAdmin?: boolean; workspace: { workspaceId: string; name: string } }

const K = { refresh: 'rondo.refresh', cookie: 'rondo.cookieSession', ws: 'rondo.workspace', access: 'rondo.access' };

export class ApiError extends Error {
  constructor(public status: number, message: string, public details: string[] = [], public code?: string) {
    super(message);
  }
}

export const session = {
  get refresh(): string | null { return localStorage.getItem(K.refresh); },
  get cookie(): boolean { return localStorage.getItem(K.cookie) === '1'; },
  get workspace(): string | null { return localStorage.getItem(K.ws); },
  get access(): string | null { return sessionStorage.getItem(K.access); },
  signedIn(): boolean { return !!(this.refresh || this.cookie); },
  start(refresh: string | null, workspace?: string) {
    if (refresh) localStorage.setItem(K.refresh, refresh);
    else localStorage.setItem(K.cookie, '1');
    if (workspace) localStorage.setItem(K.ws, workspace);
    sessionStorage.removeItem(K.access);
  },
  setWorkspace(ws: string) {
    localStorage.setItem(K.ws, ws);
    sessionStorage.removeItem(K.access);
  },
  clear() {
    for (const k of [K.refresh, K.cookie, K.ws]) localStorage.removeItem(k);
    sessionStorage.removeItem(K.access);
  },
};

/** An error answer (either error shape, docs/errors.md) as an ApiError in people's words. */
function errorFrom(status: number, body: any): ApiError {
  const e = body?.error ?? body ?? {};
  return new ApiError(status, e.message ? inWords(e.message) : statusWords(status), Array.isArray(e.details) ? e.details.map((d: unknown) => inWords(String(d))) : [], e.code);
}

async function errorOf(res: Response): Promise<ApiError> {
  let body: any = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  return errorFrom(res.status, body);
}

/** fetch, with a network failure ("Failed to fetch") told in words; an abort stays an abort. */
async function reach(input: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, UNREACHABLE, [], 'UNREACHABLE');
  }
}

/** The renewal under way and its workspace: calls made together (the app's start-up, a page's lists) share one. */
let renewing: { ws: string | null; token: Promise<string> } | null = null;

/**
 * A new access token for the chosen workspace (refresh token as Bearer, or the session cookie);
 * calls that need one while a renewal for the same workspace is under way wait for it instead
 * of starting their own.
 */
export function renewAccess(): Promise<string> {
  const ws = session.workspace;
  if (renewing?.ws === ws) return renewing.token;
  const mine = { ws, token: renewOnce(ws).finally(() => { if (renewing === mine) renewing = null; }) };
  renewing = mine;
  return mine.token;
}

async function renewOnce(ws: string | null): Promise<string> {
  const headers: Record<string, string> = {};
  if (session.refresh) headers.authorization = `Bearer ${session.refresh}`;
  const res = await reach(`/auth/authtoken${ws ? `?currentWorkspace=${encodeURIComponent(ws)}` : ''}`, { headers, credentials: 'same-origin' });
  if (!res.ok) {
    const err = await errorOf(res);
    if (res.status === 401) session.clear();
    throw err;
  }
  const token = (await res.json()).data.access_token as string;
  sessionStorage.setItem(K.access, token);
  return token;
}

/** Sent by `anonymous` to call without the session's token (sign-in, links); never leaves the browser. */
const ANONYMOUS = 'x-rondo-anonymous';
/** Options of a typed call made without the session's token (sign-in, password links). */
export const anonymous = { headers: { [ANONYMOUS]: '1' } };

/**
 * Every call of the typed client: the session's access token unless the call brings its own
 * `authorization` (or is `anonymous`), renewed once on 401; a network failure told in words.
 */
async function sessionFetch(request: Request): Promise<Response> {
  const headers = new Headers(request.headers);
  const explicit = headers.has('authorization') || headers.has(ANONYMOUS);
  headers.delete(ANONYMOUS);
  // read once (a streamed request body needs HTTP/2 in Chromium), sent again after a renewal
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  const send = (token: string | null) => {
    const h = new Headers(headers);
    if (token && !h.has('authorization')) h.set('authorization', `Bearer ${token}`);
    return reach(request.url, { method: request.method, headers: h, body, credentials: 'same-origin', signal: request.signal });
  };
  let res = await send(explicit ? null : session.access ?? (session.signedIn() ? await renewAccess() : null));
  if (res.status === 401 && !explicit && session.signedIn()) res = await send(await renewAccess());
  return res;
}

/**
 * The typed client (openapi-fetch) over the types generated from the server's OpenAPI document
 * (web/src/api-types.ts, `npm run web:types`): a path, parameter, body or answer field the
 * server does not have does not compile. Pages call `ok(client.GET('/path/{id}', {...}))`.
 */
const serialize = createQuerySerializer();
export const client = createClient<paths>({
  credentials: 'same-origin',
  fetch: sessionFetch,
  // an empty search box sends no parameter (as qs() does): the server refuses an empty one
  querySerializer: (q) => serialize(Object.fromEntries(Object.entries(q).filter(([, v]) => v !== ''))),
});

/** The success answer of a typed call; an error answer becomes an ApiError in people's words. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const r = await call;
  if (!r.response.ok) throw errorFrom(r.response.status, r.error);
  return r.data as T;
}

/**
 * The JSON answer of a route that may also answer a file (`format=csv`): a call that asks for no
 * file gets JSON, so a text answer here is the server's mistake, told as one.
 */
export function json<T>(answer: T): Exclude<T, string> {
  if (typeof answer === 'string') throw new ApiError(500, statusWords(500));
  return answer as Exclude<T, string>;
}

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/**
 * The JSON success answer of a route, from the generated types: `Answer<'/file/{id}'>` (GET),
 * `Answer<'/statements/runs', 'post'>`. Pages name the shapes they keep in state with it.
 */
export type Answer<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'patch' | 'delete' = 'get'> =
  paths[P][M] extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201>]> : never;

/** The JSON request body of a route, from the generated types: `Body<'/user/', 'post'>`. */
export type Body<P extends keyof paths, M extends 'post' | 'put' | 'patch' | 'delete'> =
  paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The API's paths (the generated `paths`): what `download` and raw calls may name. */
export type ApiPath = keyof paths;

export interface CallOptions { body?: unknown; form?: FormData; token?: string | null; raw?: boolean; signal?: AbortSignal }

/** One API call; JSON in and out. On 401 the access token is renewed once. */
export async function api<T = any>(method: string, path: string, o: CallOptions = {}): Promise<T> {
  const go = async (token: string | null) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (o.form) body = o.form;
    else if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    return reach(path, { method, headers, body, credentials: 'same-origin', signal: o.signal });
  };
  const explicit = o.token !== undefined;
  let token = explicit ? o.token! : session.access ?? (session.signedIn() ? await renewAccess() : null);
  let res = await go(token);
  if (res.status === 401 && !explicit && session.signedIn()) {
    token = await renewAccess();
    res = await go(token);
  }
  if (!res.ok) throw await errorOf(res);
  if (o.raw) return res as unknown as T;
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** GET a file the API answers (CSV, PDF) and hand it to the browser as a download. */
export async function download(path: string, fallbackName: string, method = 'GET', body?: unknown): Promise<void> {
  const res = await api<Response>(method, path, { raw: true, body });
  const cd = res.headers.get('content-disposition') ?? '';
  const name = /filename="?([^";]+)"?/.exec(cd)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Server-sent events of one file (fetch, not EventSource: the stream needs the Bearer header). */
export async function fileEvents(id: string, onEvent: (type: string, data: any) => void, signal: AbortSignal): Promise<void> {
  const res = await api<Response>('GET', `/file/${id}/events`, { raw: true, signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const chunk = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let type = 'message';
      let data = '';
      for (const line of chunk.split('\n')) {
        if (line.startsWith('event:')) type = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (data) onEvent(type, JSON.parse(data));
      if (type === 'end' || type === 'deleted') return;
    }
  }
}

/** Query string of the non-empty values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

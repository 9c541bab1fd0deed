/**
 * The public API, with the same tokens as any client: a refresh token (kept in localStorage, or
 * the httpOnly cookie after a social sign-in) buys a short access token for one workspace.
 */
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

async function errorOf(res: Response): Promise<ApiError> {
  let body: any = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  const e = body?.error ?? body ?? {};
  return new ApiError(res.status, e.message ? inWords(e.message) : statusWords(res.status), Array.isArray(e.details) ? e.details.map((d: unknown) => inWords(String(d))) : [], e.code);
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

/** A new access token for the chosen workspace (refresh token as Bearer, or the session cookie). */
export async function renewAccess(): Promise<string> {
  const ws = session.workspace;
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

/**
 * The one JSON-over-HTTP call every partner adapter makes: a time limit, the partner's
 * answer parsed, and one error type that names the partner, the HTTP status and whether the
 * call timed out. Messages never carry a credential (headers are never echoed).
 */
export class PartnerApiError extends Error {
  constructor(
    readonly partner: string,
    message: string,
    /** null: no answer (unreachable or timed out). */
    readonly httpStatus: number | null,
    readonly timedOut = false,
    readonly partnerCode: string | null = null,
  ) {
    super(message);
    this.name = 'PartnerApiError';
  }

  /** Worth retrying later with the same idempotency key: no answer, or a 5xx/429. */
  get transient(): boolean {
    return this.httpStatus === null || this.httpStatus >= 500 || this.httpStatus === 429;
  }
}

export interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  /** JSON body, or a URLSearchParams sent form-encoded. */
  body?: unknown;
  timeoutMs: number;
}

export async function callPartner<T = any>(partner: string, url: string, init: CallInit): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: 'application/json', ...(init.headers ?? {}) };
  let body: string | undefined;
  if (init.body instanceof URLSearchParams) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = init.body.toString();
  } else if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  let res: Response;
  try {
    res = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual', signal: AbortSignal.timeout(init.timeoutMs) });
  } catch (err) {
    const e = err as Error;
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    throw new PartnerApiError(partner, timedOut ? `${partner} did not answer within ${init.timeoutMs} ms` : `${partner} unreachable`, null, timedOut);
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw new PartnerApiError(partner, `${partner} answer was cut off`, null, true);
  }
  let parsed: any = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new PartnerApiError(partner, `${partner} answered ${res.status} with a non-JSON body`, res.status);
    }
  }
  if (!res.ok) {
    const code = typeof parsed?.error === 'string' ? parsed.error : null;
    const msg = typeof parsed?.message === 'string' ? parsed.message : typeof parsed?.error_description === 'string' ? parsed.error_description : code;
    throw new PartnerApiError(partner, `${partner} answered ${res.status}${msg ? `: ${String(msg).slice(0, 200)}` : ''}`, res.status, false, code);
  }
  return { status: res.status, body: parsed as T };
}

/**
 * Text messages through an HTTP SMS gateway (SMS_GATEWAY_URL, SMS_GATEWAY_KEY):
 *
 *   POST <url>/messages   Authorization: Bearer <key>   {"to": "+4512345678", "text": "…", "reference": "<delivery id>"}
 *   2xx {"id": "<gateway message id>"}: accepted; anything else: a failed attempt (retried by the caller)
 *
 * The sandbox's fake gateway (src/sandbox/sms.ts) speaks the same protocol.
 */
import { guardedPost } from './outbound';

export interface SmsSender {
  /** Sends one message; resolves with the gateway's message id, throws on refusal. */
  send(to: string, text: string, reference: string): Promise<string>;
}

export class HttpSmsGateway implements SmsSender {
  constructor(
    private readonly url: string,
    private readonly key: string | null,
    private readonly timeoutMs: number,
  ) {}

  async send(to: string, text: string, reference: string): Promise<string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    // The gateway is the operator's own configuration (not a user's URL): private addresses are fine.
    const res = await guardedPost(`${this.url}/messages`, { headers, body: JSON.stringify({ to, text, reference }), signal: AbortSignal.timeout(this.timeoutMs) }, true);
    const body = await res.text();
    if (!res.ok) throw new Error(`SMS gateway answered ${res.status}: ${body.slice(0, 200)}`);
    try {
      return String((JSON.parse(body) as { id?: unknown }).id ?? '');
    } catch {
      return '';
    }
  }
}

/** Where no gateway is configured: every message fails, saying so. */
export class NoSmsGateway implements SmsSender {
  async send(): Promise<string> {
    throw new Error('no SMS gateway is configured (SMS_GATEWAY_URL)');
  }
}

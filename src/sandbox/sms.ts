/**
 * Sandbox SMS gateway: the HTTP gateway Rondo's SMS adapter speaks (src/lib/sms.ts).
 *
 *   Authorization: Bearer <key>      required when the fake was given a key (`new FakeSmsGateway(key)`)
 *   POST /messages {to, text, reference?}
 *        202 {id, status:"queued"}   to must be an international number (+ and 7–15 digits)
 *   GET  /messages                   {data:[{id, to, text, reference, at}]} every message accepted, oldest first
 *
 * Faults (`POST /_sandbox/faults {"kind":"5xx","match":"POST /messages"}`) make the next sends fail.
 */
import crypto from 'node:crypto';
import { FakeServer, SandboxError, bearer, json } from './http';

export interface SandboxSms {
  id: string;
  to: string;
  text: string;
  reference: string | null;
  at: string;
}

export class FakeSmsGateway extends FakeServer {
  readonly messages: SandboxSms[] = [];

  constructor(readonly key: string | null = 'sandbox-sms-key') {
    super('sms');
    this.on('POST', '/messages', (r) => {
      if (this.key && bearer(r) !== this.key) throw new SandboxError(401, { error: 'unauthorized', message: 'Unknown key' });
      const { to, text, reference } = r.body as { to?: unknown; text?: unknown; reference?: unknown };
      if (typeof to !== 'string' || !/^\+[1-9]\d{6,14}$/.test(to)) throw new SandboxError(400, { error: 'invalid_number', message: 'to must be +<7-15 digits>' });
      if (typeof text !== 'string' || !text) throw new SandboxError(400, { error: 'invalid_text', message: 'text is required' });
      const m: SandboxSms = { id: `sms_${crypto.randomBytes(6).toString('hex')}`, to, text, reference: typeof reference === 'string' ? reference : null, at: new Date().toISOString() };
      this.messages.push(m);
      return json(202, { id: m.id, status: 'queued' });
    });
    this.on('GET', '/messages', () => json(200, { data: this.messages }));
  }
}

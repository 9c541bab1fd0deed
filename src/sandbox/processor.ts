/**
 * Sandbox payment processor, speaking the protocol of src/modules/money/processor-client.ts:
 *
 *   POST /transfer   Authorization: Bearer <workspace processor secret> (any non-empty secret)
 *        {amount (minor units), currency, reference, reason, recipient}
 *        → {status:true, message, data:{id, transfer_code, reference, status:"pending"}}
 *        the reference deduplicates: the same reference answers the existing transfer
 *
 * Outcomes go to Rondo's `POST /processor/webhook` as signed events (hex HMAC-SHA512 of the
 * raw body with the same secret, header x-processor-signature): `settle(reference, event,
 * {duplicate})` / POST /_sandbox/transfers/{reference}/settle {event, duplicate?}. With
 * `webhookUrl` and `autoSettleMs` set, every transfer succeeds on its own after that delay.
 */
import crypto from 'node:crypto';
import { FakeServer, SandboxError, bearer, json, postJson } from './http';

export interface FakeTransfer {
  id: number;
  reference: string;
  amount: number;
  currency: string;
  reason: string;
  recipient: unknown;
  secret: string;
  /** The Authorization header it came with. */
  auth: string;
}

export class FakeProcessorServer extends FakeServer {
  readonly transfers: FakeTransfer[] = [];
  webhookUrl: string | null = null;
  autoSettleMs: number | null = null;
  /** Which secrets the fake knows (null: any non-empty one); others get 401 "Invalid key". */
  acceptSecret: ((secret: string) => boolean) | null = null;
  /** Set: every create is refused with 400 and this message (an empty balance at the processor). */
  refuseWith: string | null = null;
  private nextId = 1000;

  constructor() {
    super('processor');
    this.on('POST', '/transfer', (r) => {
      const secret = bearer(r);
      if (this.acceptSecret && !this.acceptSecret(secret)) throw new SandboxError(401, { status: false, message: 'Invalid key' });
      if (this.refuseWith) throw new SandboxError(400, { status: false, message: this.refuseWith });
      const b = r.body;
      if (typeof b.reference !== 'string' || !Number.isInteger(b.amount) || b.amount <= 0) throw new SandboxError(400, { status: false, message: 'reference and a positive integer amount are required' });
      const seen = this.transfers.find((t) => t.reference === b.reference);
      const t = seen ?? { id: this.nextId++, reference: b.reference, amount: b.amount, currency: String(b.currency), reason: String(b.reason ?? ''), recipient: b.recipient ?? null, secret, auth: `Bearer ${secret}` };
      if (!seen) {
        this.transfers.push(t);
        if (this.autoSettleMs !== null && this.webhookUrl) setTimeout(() => void this.settle(t.reference, 'transfer.success').catch(() => undefined), this.autoSettleMs).unref();
      }
      return json(200, { status: true, message: seen ? 'Transfer exists' : 'Transfer queued', data: { id: t.id, transfer_code: `TRF_${t.id}`, reference: t.reference, status: 'pending' } });
    });
    this.on('POST', '/_sandbox/transfers/:reference/settle', async (r) => json(200, { status: await this.settle(r.params.reference!, r.body.event, r.body) }));
  }

  async settle(reference: string, event: 'transfer.success' | 'transfer.failed' | 'transfer.reversed', opts: { duplicate?: boolean } = {}): Promise<number> {
    const t = this.transfers.find((x) => x.reference === reference);
    if (!t) throw new SandboxError(404, { status: false, message: 'No such transfer' });
    if (!this.webhookUrl) throw new SandboxError(400, { status: false, message: 'No webhook URL configured' });
    const body = {
      event,
      data: { id: t.id, reference: t.reference, transfer_code: `TRF_${t.id}`, amount: t.amount, currency: t.currency, status: event.split('.')[1], transferred_at: new Date().toISOString(), reason: event === 'transfer.success' ? 'Payout' : 'Declined by bank' },
    };
    const raw = JSON.stringify(body);
    const sig = crypto.createHmac('sha512', t.secret).update(raw).digest('hex');
    let status = await postJson(this.webhookUrl, raw, { 'x-processor-signature': sig });
    if (opts.duplicate) status = await postJson(this.webhookUrl, raw, { 'x-processor-signature': sig });
    return status;
  }
}

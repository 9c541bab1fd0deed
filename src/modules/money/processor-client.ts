/**
 * HTTP client of the payment processor (transfers out). One call: create a transfer.
 *
 *   POST {PROCESSOR_API_URL}/transfer
 *   Authorization: Bearer <workspace processor secret>
 *   { "amount": <integer, minor units>, "currency": "NGN", "reference": "rondo_…",
 *     "reason": "…", "recipient": { "method": "…", …payout details } | null }
 *   → 200/201 { "status": true, "message": "…", "data": { "id": 123, "transfer_code": "TRF_…",
 *                                                           "reference": "rondo_…", "status": "pending" } }
 *   → 4xx/5xx or "status": false: refused (message says why).
 *
 * The outcome arrives later as a signed event on POST /processor/webhook (transfer.success,
 * transfer.failed, transfer.reversed) carrying the same reference. The reference is unique
 * per payment, so a retried create is deduplicated by the processor.
 */
import { Decimal } from './common';

export interface TransferRequest {
  reference: string;
  /** Integer amount in the currency's minor unit (cents, kobo…). */
  amount: number;
  currency: string;
  reason: string;
  recipient: Record<string, unknown> | null;
}

export interface TransferResult {
  id: string;
  transferCode: string | null;
  status: string;
}

export class ProcessorApiError extends Error {
  constructor(
    message: string,
    public readonly httpStatus: number | null,
  ) {
    super(message);
    this.name = 'ProcessorApiError';
  }
}

/** Decimals of a currency's minor unit (USD 2, JPY 0, BHD 3), from ICU's ISO 4217 data. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Exact conversion to minor units; the caller guarantees no finer precision (requests are validated). */
export function toMinorUnits(amount: string, currency: string): number {
  const v = new Decimal(amount).mul(new Decimal(10).pow(minorDigits(currency)));
  if (!v.isInteger()) throw new ProcessorApiError(`amount ${amount} has more decimals than ${currency} allows`, null);
  return v.toNumber();
}

export class ProcessorClient {
  constructor(
    private readonly baseUrl: string,
    private readonly secret: string,
    private readonly timeoutMs = 15_000,
  ) {}

  async createTransfer(req: TransferRequest): Promise<TransferResult> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}/transfer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.secret}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(req),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new ProcessorApiError(`processor unreachable: ${(err as Error).message}`, null);
    }
    const text = await res.text();
    let body: { status?: unknown; message?: unknown; data?: Record<string, unknown> } = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      throw new ProcessorApiError(`processor answered ${res.status} with a non-JSON body`, res.status);
    }
    if (!res.ok || body.status === false || !body.data || body.data.id === undefined) {
      throw new ProcessorApiError(String(body.message ?? `processor answered ${res.status}`), res.status);
    }
    return { id: String(body.data.id), transferCode: body.data.transfer_code ? String(body.data.transfer_code) : null, status: String(body.data.status ?? 'pending') };
  }
}

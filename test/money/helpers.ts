/**
 * Money test helpers: allocated royalties inserted straight into royalty_earnings (standing
 * for the allocation step) and posted with postRoyaltiesForFile, a local fake payment
 * processor speaking the transfer protocol, and signed webhook deliveries.
 */
import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { withTenant } from '../../src/db';
import { postRoyaltiesForFile } from '../../src/modules/money/ledger';
import { signBody } from '../../src/modules/money/processor';
import type { TestApp } from '../helpers/app';

export interface EarningRow {
  payee: string;
  amount: string;
  period?: string; // YYYY-MM
  assetId?: string | null;
  productId?: string | null;
  artistId?: string | null;
  dsp?: string;
  quantity?: string | null;
}

let lineSeq = 1;

/** Allocated royalties of one file (current rows), then the ledger posting the allocation job does. */
export async function allocateFile(app: TestApp, tenantId: number, fileId: string, rows: EarningRow[], opts: { supersedePrevious?: boolean; post?: boolean } = {}) {
  return withTenant(app.svc.db.app, tenantId, async (trx) => {
    if (opts.supersedePrevious) await trx('royalty_earnings').where({ file_id: fileId }).whereNull('superseded_at').update({ superseded_at: new Date() });
    if (rows.length) {
      await trx('royalty_earnings').insert(
        rows.map((r) => ({
          tenant_id: tenantId,
          file_id: fileId,
          line_id: lineSeq++,
          tenant_user_id: r.payee,
          share: 100,
          amount: r.amount,
          currency: 'USD',
          accounting_period: `${r.period ?? '2026-10'}-01`,
          sale_month: `${r.period ?? '2026-10'}-01`,
          asset_id: r.assetId ?? null,
          product_id: r.productId ?? null,
          artist_id: r.artistId ?? null,
          dsp: r.dsp ?? 'Spotify',
          quantity: r.quantity ?? null,
        })),
      );
    }
    if (opts.post === false) return null;
    return postRoyaltiesForFile(trx, fileId);
  });
}

export interface FakeProcessor {
  url: string;
  transfers: { reference: string; amount: number; currency: string; recipient: unknown; auth: string; id: number }[];
  /** Next create-transfer answers: 'ok' (default) or an HTTP error. */
  mode: 'ok' | 'refuse';
  close(): Promise<void>;
}

/** A local processor: POST /transfer → {status:true, data:{id, transfer_code, reference, status:'pending'}}. */
export async function startFakeProcessor(expectedSecrets: () => string[]): Promise<FakeProcessor> {
  let nextId = 1000;
  const fp: FakeProcessor = { url: '', transfers: [], mode: 'ok', close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const authz = String(req.headers.authorization ?? '');
      if (req.method !== 'POST' || req.url !== '/transfer') return send(404, { status: false, message: 'not found' });
      if (!expectedSecrets().some((s) => authz === `Bearer ${s}`)) return send(401, { status: false, message: 'Invalid key' });
      if (fp.mode === 'refuse') return send(400, { status: false, message: 'Insufficient balance at processor' });
      const body = JSON.parse(raw);
      const existing = fp.transfers.find((t) => t.reference === body.reference);
      if (existing) return send(200, { status: true, message: 'Transfer exists', data: { id: existing.id, transfer_code: `TRF_${existing.id}`, reference: existing.reference, status: 'pending' } });
      const t = { reference: body.reference, amount: body.amount, currency: body.currency, recipient: body.recipient, auth: authz, id: nextId++ };
      fp.transfers.push(t);
      send(200, { status: true, message: 'Transfer queued', data: { id: t.id, transfer_code: `TRF_${t.id}`, reference: t.reference, status: 'pending' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fp.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fp.close = () => new Promise<void>((r) => server.close(() => r()));
  return fp;
}

export function transferEvent(event: string, t: { id: number; reference: string; amount: number; currency: string }, extra: Record<string, unknown> = {}) {
  return {
    event,
    data: {
      id: t.id,
      reference: t.reference,
      transfer_code: `TRF_${t.id}`,
      amount: t.amount,
      currency: t.currency,
      status: event.split('.')[1],
      transferred_at: '2026-11-05T10:00:00.000Z',
      reason: event === 'transfer.success' ? 'Payout' : 'Account closed',
      ...extra,
    },
  };
}

/** Deliver a webhook: exact raw bytes, signed with `secret` (or a given signature / none). */
export async function deliver(app: TestApp, body: unknown, secret: string | null, opts: { signature?: string | null; raw?: string } = {}) {
  const raw = opts.raw ?? JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const sig = opts.signature !== undefined ? opts.signature : secret ? signBody(raw, secret) : null;
  if (sig) headers['x-processor-signature'] = sig;
  return app.request('POST', '/processor/webhook', { raw, headers });
}

export const uuid = () => crypto.randomUUID();

/** Exact decimal compare of two decimal strings. */
export function same(a: string | null | undefined, b: string): boolean {
  return a !== null && a !== undefined && Number.isFinite(Number(a)) && normalise(a) === normalise(b);
}
function normalise(s: string): string {
  let [i, f = ''] = s.replace(/^\+/, '').split('.');
  f = f.replace(/0+$/, '');
  if (i === '-0') i = '0';
  const r = f ? `${i}.${f}` : i!;
  return r === '-0' ? '0' : r;
}

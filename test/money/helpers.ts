/**
 * Money test helpers: allocated royalties inserted straight as lines + share sets (standing
 * for the allocation step) and posted with postRoyaltiesForFile, the sandbox's fake payment
 * processor (src/sandbox/processor.ts), and signed webhook deliveries.
 */
import crypto from 'node:crypto';
import Decimal from 'decimal.js';
import { withTenant } from '../../src/db';
import { postRoyaltiesForFile } from '../../src/modules/money/ledger';
import { fileRow } from '../../src/repositories/files';
import { signBody } from '../../src/modules/money/processor';
import type { TestApp } from '../helpers/app';
import { FakeProcessorServer, type FakeTransfer } from '../../src/sandbox/processor';

export interface EarningRow {
  /** The line's only payee (a one-payee share set); or give `shareSetId` (see `shareSet`). */
  payee?: string;
  shareSetId?: string;
  /** The base amount; `net` and `currency` are the line's own (default: the amount, USD). */
  amount: string;
  net?: string;
  currency?: string;
  period?: string; // YYYY-MM
  assetId?: string | null;
  productId?: string | null;
  artistId?: string | null;
  dsp?: string;
  quantity?: string | null;
}

let lineSeq = 1;

/**
 * Allocated royalties of one file (current rows): one statement line per row, paid 100 % to
 * its payee through a one-payee share set; then the ledger posting the allocation job does.
 * supersedePrevious moves the file's current decisions to history first.
 */
export async function allocateFile(app: TestApp, tenantId: number, fileId: string, rows: EarningRow[], opts: { supersedePrevious?: boolean; post?: boolean } = {}) {
  return withTenant(app.svc.db.app, tenantId, async (trx) => {
    if (opts.supersedePrevious) {
      await trx.raw(
        `INSERT INTO royalty_allocation_history (tenant_id, file_id, line_id, share_set_id, base_amount, currency, accounting_period, created_at, superseded_at)
         SELECT tenant_id, file_id, line_no, share_set_id, base_amount, base_currency, accounting_period, now(), clock_timestamp()
           FROM royalty_lines WHERE file_id = ? AND share_set_id IS NOT NULL`,
        [fileId],
      );
      await trx('royalty_lines').where({ file_id: fileId }).whereNotNull('share_set_id').update({ share_set_id: null });
    }
    if (rows.length) {
      const sets = [...new Set(rows.filter((r) => !r.shareSetId).map((r) => r.payee!))].map((payee) => ({
        tenant_id: tenantId,
        share_set_id: uuidOf(`payee:${payee}`),
        tenant_user_id: payee,
        share: 100,
        gets_remainder: true,
      }));
      if (sets.length) await trx('royalty_share_sets').insert(sets).onConflict(['tenant_id', 'share_set_id', 'tenant_user_id']).ignore();
      const base = (await trx('tenants').where({ id: tenantId }).first('base_currency')).base_currency.trim() as string;
      await trx('royalty_lines').insert(
        rows.map((r) => ({
          tenant_id: tenantId,
          file_id: fileId,
          line_no: lineSeq++,
          net: r.net ?? r.amount,
          currency: r.currency ?? base,
          base_amount: r.amount,
          base_currency: base,
          share_set_id: r.shareSetId ?? uuidOf(`payee:${r.payee}`),
          accounting_period: `${r.period ?? '2026-10'}-01`,
          sale_month: `${r.period ?? '2026-10'}-01`,
          asset_id: r.assetId ?? null,
          product_id: r.productId ?? null,
          artist_id: r.artistId ?? null,
          dsp: r.dsp ?? 'Spotify',
          ...(r.quantity != null ? { quantity: r.quantity } : {}),
        })),
      );
    }
    if (opts.post === false) return null;
    // the row as the allocation step holds it (these lines have no file row: nothing allocated it)
    return postRoyaltiesForFile(trx, (await fileRow(trx, tenantId, fileId)) ?? { id: fileId, accounting_period: null });
  });
}

/**
 * A share set of several payees with any shares (6 decimals, adding up to 100), as the
 * allocation step writes it: the largest share (ties: the smallest tenant user id) gets the
 * line's remainder, `others` are the other payees' shares. Returns its id.
 */
export async function shareSet(app: TestApp, tenantId: number, shares: { payee: string; share: string }[]): Promise<string> {
  const id = crypto.randomUUID();
  const byId = [...shares].sort((a, b) => (a.payee < b.payee ? -1 : 1));
  const top = [...byId].sort((a, b) => new Decimal(b.share).cmp(a.share))[0]!.payee;
  await withTenant(app.svc.db.app, tenantId, (trx) =>
    trx('royalty_share_sets').insert(byId.map((s) => ({
      tenant_id: tenantId, share_set_id: id, tenant_user_id: s.payee, share: s.share, gets_remainder: s.payee === top,
      others: trx.raw('?::numeric[]', [s.payee === top ? byId.filter((o) => o.payee !== top).map((o) => o.share) : []]),
    }))),
  );
  return id;
}

/** A deterministic uuid of a text (share set ids of the fixtures). */
function uuidOf(text: string): string {
  const h = crypto.createHash('md5').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface FakeProcessor {
  url: string;
  transfers: FakeTransfer[];
  /** Next create-transfer answers: 'ok' (default) or an HTTP error. */
  mode: 'ok' | 'refuse';
  close(): Promise<void>;
}

/** The sandbox's processor fake (POST /transfer → {status:true, data:{id, transfer_code, reference, status:'pending'}}), knowing only these secrets. */
export async function startFakeProcessor(expectedSecrets: () => string[]): Promise<FakeProcessor> {
  const server = new FakeProcessorServer();
  server.acceptSecret = (s) => expectedSecrets().includes(s);
  await server.listen(0);
  return {
    url: server.url,
    transfers: server.transfers,
    get mode() {
      return server.refuseWith ? 'refuse' : 'ok';
    },
    set mode(m) {
      server.refuseWith = m === 'refuse' ? 'Insufficient balance at processor' : null;
    },
    close: () => server.close(),
  };
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

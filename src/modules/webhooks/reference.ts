/**
 * The reference service's webhook envelope (docs/webhooks.md, "The reference envelope"), for
 * endpoints whose `envelope` is `reference`. The body is built when the delivery is queued and
 * stored; `delivery: {attempt, maxAttempts, nextRetryAt}` differs per attempt, so it is added
 * to the stored body when each attempt is sent (and signed with it).
 */
import type { Trx } from '../../db';
import { familyOf, REFERENCE_NAMES } from './events';

export type Envelope = 'rondo' | 'reference';
export const ENVELOPES: readonly Envelope[] = ['rondo', 'reference'];

export interface WorkspaceFacts { id: string; name: string; domain: string | null }

/** The workspace as the envelope names it: public id, name, its active custom domain (or null). */
export async function workspaceFacts(trx: Trx, tenantId: number): Promise<WorkspaceFacts> {
  const t = await trx('tenants').where({ id: tenantId }).first('uuid', 'name');
  const d = await trx('custom_domains').where({ tenant_id: tenantId, status: 'active' }).first('domain');
  return { id: t.uuid, name: t.name, domain: d?.domain ?? null };
}

/** Events a receiver should look at first: money that did not move, work that failed, a workspace stopped. */
const HIGH = /\.(failed|reversed|suspended)$/;

/** The resource an event is about, from the id its data names. */
function resourceOf(type: string, data: Record<string, unknown>, workspaceId: string) {
  const s = (v: unknown) => (v == null ? null : String(v));
  if (data.requestId != null) return { type: 'payment_request', id: s(data.requestId), url: `/payment-request/${data.requestId}`, displayName: null };
  if (data.paymentId != null) return { type: 'payment', id: s(data.paymentId), url: `/payment/${data.paymentId}`, displayName: null };
  if (data.revenueId != null) return { type: 'revenue', id: s(data.revenueId), url: `/revenue/${data.revenueId}`, displayName: s(data.title) };
  if (data.expenseId != null) return { type: 'expense', id: s(data.expenseId), url: `/expense/${data.expenseId}`, displayName: s(data.title) };
  if (data.splitId != null) return { type: 'split', id: s(data.splitId), url: `/split/${data.splitId}`, displayName: s(data.name) };
  if (data.productId != null) return { type: 'product', id: s(data.productId), url: `/product/${data.productId}`, displayName: s(data.title) };
  if (data.artistId != null) return { type: 'artist', id: s(data.artistId), url: `/artist/${data.artistId}`, displayName: s(data.name) };
  if (data.userId != null) return { type: 'user', id: s(data.userId), url: `/user/${data.userId}`, displayName: s(data.email) };
  if (data.fileId != null) return { type: 'royalty_file', id: s(data.fileId), url: `/file/${data.fileId}`, displayName: s(data.name) };
  if (data.assetId != null) return { type: 'asset', id: s(data.assetId), url: `/asset/${data.assetId}`, displayName: s(data.title) };
  if (data.releaseId != null) return { type: 'release', id: s(data.releaseId), url: `/releases/${data.releaseId}`, displayName: s(data.title) };
  if (data.endpointId != null) return { type: 'webhook', id: s(data.endpointId), url: `/webhooks/${data.endpointId}`, displayName: null };
  return { type: familyOf(type) === 'billing' || familyOf(type) === 'royalty' ? 'workspace' : familyOf(type), id: workspaceId, url: null, displayName: null };
}

/**
 * The envelope without its `delivery` block. `id` is `whd_` + the delivery's id; `source.traceId`
 * is Rondo's event id (the same for every endpoint the event goes to). Rondo's events do not
 * record who acted: `actor` is the system.
 */
export function referenceEnvelope(deliveryId: string, ev: { id: string; type: string; createdAt: string; data: unknown }, ws: WorkspaceFacts, environment: string) {
  const data = (ev.data ?? {}) as Record<string, unknown>;
  const { previous, ...attributes } = data;
  return {
    id: `whd_${deliveryId}`,
    event: REFERENCE_NAMES[ev.type] ?? ev.type,
    timestamp: ev.createdAt,
    version: '1.0',
    tenant: { id: ws.id, name: ws.name, domain: ws.domain },
    source: { service: 'rondo', environment, traceId: ev.id },
    data: {
      event: { id: ev.id, type: REFERENCE_NAMES[ev.type] ?? ev.type, category: familyOf(ev.type), timestamp: ev.createdAt, importance: HIGH.test(ev.type) ? 'high' : 'normal' },
      actor: { id: null, type: 'system', name: 'Rondo', email: null },
      resource: resourceOf(ev.type, data, ws.id),
      attributes,
      ...((REFERENCE_NAMES[ev.type] ?? '').endsWith('_UPDATED') ? { previous: previous ?? null } : {}),
    },
  };
}

/** The stored body with this attempt's `delivery` block as its last member (the bytes sent and signed). */
export function withDeliveryBlock(stored: string, block: { attempt: number; maxAttempts: number; nextRetryAt: string | null }): string {
  return `${stored.slice(0, stored.lastIndexOf('}'))},"delivery":${JSON.stringify(block)}}`;
}

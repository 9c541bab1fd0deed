/**
 * Outbound event catalogue (docs/webhooks.md, "Events") and the one way to emit an event: `emitEvent(trx, …)`
 * writes a row of the transactional outbox (`outbound_events`) inside the transaction that
 * made the change, so a rolled-back change emits nothing and a committed one is never lost.
 * The dispatcher (dispatch.ts) fans pending rows out to the subscribed endpoints.
 * Imports nothing of the application: every area may call it (tenant transactions, and the
 * owner transactions of the super-admin's billing changes).
 */
import type { Knex } from 'knex';

/** Every event type, by family (docs/webhooks.md documents each payload). */
export const EVENT_FAMILIES = {
  payment: ['payment.created', 'payment.completed', 'payment.failed', 'payment.reversed'],
  royalty: ['royalty.file.processed', 'royalty.file.failed', 'royalty.reallocated'],
  asset: ['asset.created', 'asset.updated', 'asset.deleted'],
  release: ['release.submitted', 'release.reviewed'],
  billing: ['billing.subscription.updated', 'billing.workspace.suspended', 'billing.workspace.reactivated'],
} as const;

export type EventFamily = keyof typeof EVENT_FAMILIES;
export type EventType = (typeof EVENT_FAMILIES)[EventFamily][number];

/** Sent only by POST /webhooks/{id}/test, to that endpoint alone. */
export const TEST_EVENT = 'webhook.test';

export const EVENT_TYPES: readonly string[] = Object.values(EVENT_FAMILIES).flat();

/**
 * The reference service's name of each event Rondo sends (docs/webhooks.md, "The reference
 * envelope"). Seven have a counterpart among the reference's names; the others keep Rondo's
 * name in the reference's spelling (upper case, `_` for `.`).
 */
export const REFERENCE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  [...Object.values(EVENT_FAMILIES).flat(), TEST_EVENT].map((t) => [t, ({
    'payment.completed': 'PAYMENT_COMPLETED',
    'payment.failed': 'PAYMENT_MADE_FAILED',
    'royalty.file.processed': 'ROYALTY_FILE_PROCESSED',
    'royalty.file.failed': 'ROYALTY_FILE_PROCESSING_FAILED',
    'asset.created': 'ASSET_CREATED',
    'asset.updated': 'ASSET_UPDATED',
    'asset.deleted': 'ASSET_DELETED',
  } as Record<string, string>)[t] ?? t.toUpperCase().replace(/\./g, '_')]),
);

/** Rondo's event type of a reference name (undefined: Rondo sends no such event). */
export function rondoType(referenceName: string): string | undefined {
  return Object.keys(REFERENCE_NAMES).find((t) => REFERENCE_NAMES[t] === referenceName);
}

/** The reference service's event names that Rondo never sends (an endpoint subscribing to one is refused, naming it). */
export const REFERENCE_NOT_SENT: readonly string[] = [
  'PAYMENT_PROCESSING', 'PAYMENT_REQUEST_SENT', 'PAYMENT_REQUEST_APPROVED', 'PAYMENT_REQUEST_REJECTED', 'PAYMENT_DELETED',
  'REVENUE_CREATED', 'REVENUE_UPDATED', 'REVENUE_DELETED', 'EXPENSE_CREATED', 'EXPENSE_UPDATED', 'EXPENSE_DELETED',
  'PRODUCT_CREATED', 'PRODUCT_UPDATED', 'PRODUCT_DELETED', 'USER_CREATED', 'USER_UPDATED', 'USER_DELETED', 'USER_INVITATION_SENT',
  'ARTIST_CREATED', 'ARTIST_UPDATED', 'ARTIST_DELETED', 'ROYALTY_FILE_UPLOADED', 'USER_ADDED_TO_SPLIT', 'USER_REMOVED_FROM_SPLIT',
];

/** What an endpoint may subscribe to: an event type (Rondo's or its reference name), `<family>.*` or `*`. */
export const SUBSCRIPTION_PATTERNS: readonly string[] = [
  '*', ...Object.keys(EVENT_FAMILIES).map((f) => `${f}.*`), ...EVENT_TYPES,
  ...EVENT_TYPES.map((t) => REFERENCE_NAMES[t]!),
];

/** The family an event type belongs to (its first name part). */
export function familyOf(type: string): string {
  return type.split('.')[0]!;
}

/** Whether an endpoint subscribed to `patterns` receives `type`. */
export function subscribed(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === '*' || p === type || p === REFERENCE_NAMES[type] || (p.endsWith('.*') && familyOf(type) === p.slice(0, -2)));
}

/**
 * Records `type` with `data` in the outbox, in `trx` (the transaction of the change). The
 * event's id is the row's id; its time the transaction's. `tenantId` null: the tenant
 * transaction's own workspace. Returns the event id.
 */
export async function emitEvent(trx: Knex, tenantId: number | null, type: EventType, data: Record<string, unknown>): Promise<string> {
  const tenant = tenantId ?? trx.raw('app_tenant_id()'); // null: the tenant transaction's workspace
  const [row] = await trx('outbound_events').insert({ tenant_id: tenant, family: familyOf(type), type, payload: JSON.stringify(data) }).returning('id');
  return row.id;
}

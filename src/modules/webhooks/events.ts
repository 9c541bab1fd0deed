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
  payment: ['payment.created', 'payment.processing', 'payment.completed', 'payment.failed', 'payment.reversed', 'payment.deleted', 'payment.request.sent', 'payment.request.approved', 'payment.request.rejected'],
  royalty: ['royalty.file.uploaded', 'royalty.file.processed', 'royalty.file.failed', 'royalty.reallocated'],
  asset: ['asset.created', 'asset.updated', 'asset.deleted'],
  product: ['product.created', 'product.updated', 'product.deleted'],
  artist: ['artist.created', 'artist.updated', 'artist.deleted'],
  user: ['user.created', 'user.updated', 'user.deleted', 'user.invitation.sent'],
  revenue: ['revenue.created', 'revenue.updated', 'revenue.deleted'],
  expense: ['expense.created', 'expense.updated', 'expense.deleted'],
  split: ['split.user.added', 'split.user.removed'],
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
 * envelope"). Most are Rondo's name in the reference's spelling (upper case, `_` for `.`);
 * the map lists those spelt otherwise, and Rondo's own events with no reference counterpart
 * follow the same rule.
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
    'split.user.added': 'USER_ADDED_TO_SPLIT',
    'split.user.removed': 'USER_REMOVED_FROM_SPLIT',
  } as Record<string, string>)[t] ?? t.toUpperCase().replace(/\./g, '_')]),
);

/** Rondo's event type of a reference name (undefined: Rondo sends no such event). */
export function rondoType(referenceName: string): string | undefined {
  return Object.keys(REFERENCE_NAMES).find((t) => REFERENCE_NAMES[t] === referenceName);
}

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

/** One event per item of a bulk change (each with its own data), written in chunks; same transaction rule as emitEvent. */
export async function emitEvents(trx: Knex, tenantId: number | null, type: EventType, data: Record<string, unknown>[]): Promise<void> {
  const tenant = tenantId ?? trx.raw('app_tenant_id()');
  for (let i = 0; i < data.length; i += 1000) {
    await trx('outbound_events').insert(data.slice(i, i + 1000).map((d) => ({ tenant_id: tenant, family: familyOf(type), type, payload: JSON.stringify(d) })));
  }
}

/**
 * What an `*.updated` event carries besides the resource's id: `changed` (the fields whose
 * value differs between the two views, `updatedAt` aside) and `previous` (their former values).
 */
export function changesOf(before: object, after: object): { changed: string[]; previous: Record<string, unknown> } {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const changed = Object.keys(a).filter((k) => k !== 'updatedAt' && JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)).sort();
  return { changed, previous: Object.fromEntries(changed.map((k) => [k, b[k] ?? null])) };
}

/**
 * Notifications (docs/notifications.md). A notification is addressed to one member (tenant_user_id) or
 * to the whole workspace (NULL); read state of workspace-wide ones is kept per member in
 * notification_reads. Other modules create them with notify(), inside the transaction of the
 * change: the same transaction records one delivery per recipient and external channel the
 * recipient's preferences allow (deliveries.ts sends them). In-app visibility follows the
 * reader's `inApp` preference for the type.
 */
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { deliveriesOf, planDeliveries } from './deliveries';
import { DEFAULT_CHANNELS } from './preferences';
import { rowView } from '../../lib/row-view';
import { activeAdmins } from '../../repositories/members';

/** The member a notification route acts for: API workspace keys have none. */
export function memberOf(tuid: string | null): string {
  if (!tuid) throw new ForbiddenError('Notifications belong to members; API workspace keys have none');
  return tuid;
}

export { DEFAULT_CHANNELS };

export interface NewNotification {
  tenantId: number;
  tenantUserId?: string | null;
  type: string;
  title: string;
  content?: string;
  resourceType?: string | null;
  resourceId?: string | null;
  actionUrl?: string | null;
  isImportant?: boolean;
  metadata?: Record<string, unknown>;
  expiresAt?: Date | null;
}

export async function notify(trx: Trx, n: NewNotification): Promise<string> {
  const [row] = await trx('notifications')
    .insert({
      tenant_id: n.tenantId,
      tenant_user_id: n.tenantUserId ?? null,
      type: n.type,
      title: n.title,
      content: n.content ?? '',
      resource_type: n.resourceType ?? null,
      resource_id: n.resourceId ?? null,
      action_url: n.actionUrl ?? null,
      is_important: !!n.isImportant,
      metadata: JSON.stringify(n.metadata ?? {}),
      expires_at: n.expiresAt ?? null,
      created_at: clock.now(),
      updated_at: clock.now(),
    })
    .returning('id');
  await planDeliveries(trx, n.tenantId, row.id, n.tenantUserId ?? null, n.type);
  return row.id;
}

/** One notification per member in `to` (the same content). */
export async function notifyEach(trx: Trx, to: string[], n: Omit<NewNotification, 'tenantUserId'>): Promise<void> {
  for (const u of new Set(to)) await notify(trx, { ...n, tenantUserId: u });
}

/** Active admins and owners of the workspace (who hears about workspace matters). */
export async function adminsOf(trx: Trx, tenantId: number): Promise<string[]> {
  return (await activeAdmins(trx, tenantId)).map((r) => r.id);
}

/** The member's notifications: addressed to them or to everyone, not expired. */
function visible(trx: Trx, me: string | null) {
  return trx('notifications as n')
    .where((w) => {
      w.whereNull('n.tenant_user_id');
      if (me) w.orWhere('n.tenant_user_id', me);
    })
    .where((w) => w.whereNull('n.expires_at').orWhere('n.expires_at', '>', clock.now()))
    // the reader's in-app preference for the type (else their channel default, else on)
    .whereRaw(
      `NOT EXISTS (SELECT 1 FROM notification_preferences p WHERE p.tenant_user_id = ? AND COALESCE((p.types -> n.type ->> 'inApp')::boolean, (p.channels ->> 'inApp')::boolean, true) = false)`,
      [me],
    );
}

function readExpr(trx: Trx, me: string | null) {
  return trx.raw(`(n.is_read OR EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = n.id AND r.tenant_user_id = ?))`, [me]);
}

export async function listNotifications(
  trx: Trx,
  me: string | null,
  q: { page: number; pageSize: number; unread?: boolean; archived?: boolean; type?: string; important?: boolean },
) {
  const base = visible(trx, me).modify((b) => {
    b.where('n.is_archived', !!q.archived);
    if (q.type) b.where('n.type', q.type);
    if (q.important !== undefined) b.where('n.is_important', q.important);
    if (q.unread) b.whereRaw(`NOT ${readExpr(trx, me).toQuery()}`);
  });
  const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
  const rows = await base
    .clone()
    .select('n.*', readExpr(trx, me).wrap('', ' AS read'))
    .orderBy('n.created_at', 'desc')
    .orderBy('n.id')
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const total = Number(count);
  const deliveries = await deliveriesOf(trx, rows.map((r: { id: string }) => r.id), me);
  return {
    notifications: rows.map((r: Record<string, any>) => ({ ...toView(r), deliveries: deliveries.get(r.id) ?? [] })),
    total,
    page: q.page,
    pageSize: q.pageSize,
    totalPages: Math.ceil(total / q.pageSize),
  };
}

export async function unreadCount(trx: Trx, me: string | null): Promise<number> {
  const [{ count }] = await visible(trx, me).where('n.is_archived', false).whereRaw(`NOT ${readExpr(trx, me).toQuery()}`).count<{ count: string }[]>({ count: '*' });
  return Number(count);
}

export async function markRead(trx: Trx, tenantId: number, me: string | null, id: string): Promise<void> {
  const n = await visible(trx, me).where('n.id', id).first('n.id', 'n.tenant_user_id');
  if (!n) throw new NotFoundError('Notification');
  await markRows(trx, tenantId, me, [n]);
}

export async function markAllRead(trx: Trx, tenantId: number, me: string | null): Promise<number> {
  const rows = await visible(trx, me).whereRaw(`NOT ${readExpr(trx, me).toQuery()}`).select('n.id', 'n.tenant_user_id');
  await markRows(trx, tenantId, me, rows);
  return rows.length;
}

async function markRows(trx: Trx, tenantId: number, me: string | null, rows: { id: string; tenant_user_id: string | null }[]) {
  const own = rows.filter((r) => r.tenant_user_id).map((r) => r.id);
  const shared = rows.filter((r) => !r.tenant_user_id).map((r) => r.id);
  if (own.length) await trx('notifications').whereIn('id', own).update({ is_read: true, updated_at: clock.now() });
  if (shared.length && me) {
    await trx('notification_reads')
      .insert(shared.map((id) => ({ tenant_id: tenantId, notification_id: id, tenant_user_id: me, read_at: clock.now() })))
      .onConflict(['tenant_id', 'notification_id', 'tenant_user_id'])
      .ignore();
  }
}

function toView(r: Record<string, any>) {
  return {
    ...rowView(r, ['id', 'type', 'title', 'content', 'resource_type', 'resource_id', 'action_url']),
    isRead: !!r.read,
    ...rowView(r, ['is_important', 'is_archived', 'metadata', 'expires_at', ['TenantId', 'tenant_id'], ['TenantUserId', 'tenant_user_id'], 'created_at', 'updated_at']),
  };
}

export async function getPreferences(trx: Trx, me: string) {
  const row = await trx('notification_preferences').where({ tenant_user_id: me }).first();
  return { channels: { ...DEFAULT_CHANNELS, ...(row?.channels ?? {}) }, types: row?.types ?? {}, smsNumber: (row?.sms_number as string | null) ?? null };
}

const E164 = /^\+[1-9]\d{6,14}$/;

export async function setPreferences(
  trx: Trx,
  tenantId: number,
  me: string,
  p: { channels?: Record<string, boolean>; types?: Record<string, Record<string, boolean>>; smsNumber?: string | null },
) {
  const cur = await getPreferences(trx, me);
  const smsNumber = p.smsNumber === undefined ? cur.smsNumber : p.smsNumber ? p.smsNumber.replace(/[\s()-]/g, '') : null;
  if (smsNumber && !E164.test(smsNumber)) throw new ValidationError('Invalid SMS number', ['body.smsNumber must be an international number such as +4512345678']);
  const next = { channels: { ...cur.channels, ...(p.channels ?? {}) }, types: { ...cur.types, ...(p.types ?? {}) }, smsNumber };
  await trx('notification_preferences')
    .insert({ tenant_id: tenantId, tenant_user_id: me, channels: JSON.stringify(next.channels), types: JSON.stringify(next.types), sms_number: smsNumber, created_at: clock.now(), updated_at: clock.now() })
    .onConflict(['tenant_id', 'tenant_user_id'])
    .merge(['channels', 'types', 'sms_number', 'updated_at']);
  return next;
}

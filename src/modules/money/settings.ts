/**
 * Payment settings: a member's payout method and details. The details object (account
 * numbers, bank codes, e-mail addresses…) is sealed with AES-256-GCM (svc.secrets) as one
 * JSON document; reads show each value masked (at most its last 4 characters, fewer for
 * short values), never the plaintext. One default setting per member.
 */
import { sortedPage, whereSearch } from '../../http/list-sort';
import { SETTING_SORT } from './sorts';
import type { Trx } from '../../db';
import type { CrudService } from '../../http/crud';
import type { AuthContext } from '../auth/tokens';
import type { SecretBox } from '../../lib/crypto';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { assertCurrency, existingMembers, iso, isAdmin, oneDeleted } from './common';

export type PayoutMethod = 'processor' | 'bank_transfer' | 'paypal' | 'other';

export interface SettingInput {
  user?: string;
  method: PayoutMethod;
  label?: string | null;
  currency?: string | null;
  details: Record<string, string>;
  isDefault?: boolean;
}

/** Long values show their last 4 characters, 5–7 their last 2, shorter ones nothing. */
export function maskValue(v: string): string {
  if (v.length >= 8) return `…${v.slice(-4)}`;
  if (v.length >= 5) return `…${v.slice(-2)}`;
  return '…';
}

function view(r: Record<string, unknown>, box: SecretBox) {
  const details = JSON.parse(box.open(r.details_sealed as string)) as Record<string, string>;
  return {
    id: r.id,
    user: r.tenant_user_id,
    method: r.method,
    label: r.label ?? null,
    currency: r.currency ? String(r.currency).trim() : null,
    isDefault: r.is_default,
    details: Object.fromEntries(Object.entries(details).map(([k, v]) => [k, maskValue(String(v))])),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** Decrypted details for the processor client (never sent to API callers). */
export async function openSetting(trx: Trx, box: SecretBox, id: string): Promise<{ method: string; details: Record<string, string> } | null> {
  const r = await trx('payment_settings').where({ id }).first();
  if (!r) return null;
  return { method: r.method, details: JSON.parse(box.open(r.details_sealed)) };
}

function scoped(trx: Trx, auth: AuthContext) {
  const q = trx('payment_settings');
  if (!isAdmin(auth)) q.where('tenant_user_id', auth.tenantUserId);
  return q;
}

export async function createSetting(trx: Trx, box: SecretBox, auth: AuthContext, input: SettingInput) {
  const user = isAdmin(auth) ? input.user ?? auth.tenantUserId : auth.tenantUserId;
  if (!user) throw new ValidationError('Name the member (user) this setting belongs to', [], 'USER_REQUIRED');
  if (input.user && !isAdmin(auth) && input.user !== auth.tenantUserId) throw new ValidationError('You can only add your own payment settings', [], 'NOT_YOURS');
  if (!(await existingMembers(trx, [user])).has(user)) throw new NotFoundError('User');
  const currency = input.currency ? assertCurrency(input.currency) : null;
  const hasAny = await trx('payment_settings').where({ tenant_user_id: user }).first('id');
  const isDefault = input.isDefault ?? !hasAny;
  if (isDefault) await trx('payment_settings').where({ tenant_user_id: user, is_default: true }).update({ is_default: false });
  const [row] = await trx('payment_settings')
    .insert({
      tenant_id: trx.raw('app_tenant_id()'),
      tenant_user_id: user,
      method: input.method,
      label: input.label ?? null,
      currency,
      details_sealed: box.seal(JSON.stringify(input.details)),
      is_default: isDefault,
      created_at: clock.now(),
      updated_at: clock.now(),
    })
    .returning('*');
  return view(row, box);
}

export async function getSetting(trx: Trx, box: SecretBox, auth: AuthContext, id: string) {
  const r = await scoped(trx, auth).where({ id }).first();
  if (!r) throw new NotFoundError('Payment setting');
  return view(r, box);
}

export async function listSettings(trx: Trx, box: SecretBox, auth: AuthContext, o: { page: number; size: number; user?: string; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const q = scoped(trx, auth);
  if (isAdmin(auth) && o.user) q.where('tenant_user_id', o.user);
  const { rows, total } = await sortedPage(whereSearch(q, o.search, ['method', 'label']).select('*'), o, SETTING_SORT, 'createdAt');
  return { data: rows.map((r) => view(r, box)), total };
}

export async function updateSetting(trx: Trx, box: SecretBox, auth: AuthContext, id: string, patch: Partial<SettingInput>) {
  const cur = await scoped(trx, auth).where({ id }).forUpdate().first();
  if (!cur) throw new NotFoundError('Payment setting');
  const upd: Record<string, unknown> = { updated_at: clock.now() };
  if (patch.method !== undefined) upd.method = patch.method;
  if (patch.label !== undefined) upd.label = patch.label;
  if (patch.currency !== undefined) upd.currency = patch.currency ? assertCurrency(patch.currency) : null;
  if (patch.details !== undefined) upd.details_sealed = box.seal(JSON.stringify(patch.details));
  if (patch.isDefault === true) {
    await trx('payment_settings').where({ tenant_user_id: cur.tenant_user_id, is_default: true }).whereNot({ id }).update({ is_default: false });
    upd.is_default = true;
  } else if (patch.isDefault === false) upd.is_default = false;
  const [row] = await trx('payment_settings').where({ id }).update(upd).returning('*');
  return view(row, box);
}

export async function deleteSettings(trx: Trx, auth: AuthContext, ids: string[]) {
  const found = (await scoped(trx, auth).whereIn('id', ids).delete().returning('id')).map((r) => r.id as string);
  const set = new Set(found);
  return { message: `${found.length} payment setting(s) deleted`, processedCount: found.length, failedDeletions: ids.filter((i) => !set.has(i)).map((id) => ({ id, error: 'Payment setting not found' })) };
}

/** Delete one payment setting; 404 when absent (or not the caller's). */
export async function deleteSetting(trx: Trx, auth: AuthContext, id: string): Promise<void> {
  oneDeleted(await deleteSettings(trx, auth, [id]), 'Payment setting');
}

/** The payment setting area as the route factory calls it; details are sealed and opened with `box`. */
export function settingCrud(box: SecretBox): CrudService<Parameters<typeof listSettings>[3], SettingInput, Partial<SettingInput>> {
  return {
    list: (trx, auth, o) => listSettings(trx, box, auth, o),
    get: (trx, auth, id) => getSetting(trx, box, auth, id),
    create: (trx, auth, input) => createSetting(trx, box, auth, input),
    update: (trx, auth, id, patch) => updateSetting(trx, box, auth, id, patch),
    remove: deleteSetting,
    bulkRemove: deleteSettings,
  };
}

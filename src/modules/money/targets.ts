/**
 * The one place that knows where recoupment targets live. Expenses store target_type +
 * target_id without a foreign key (the catalogue is another module); existence is checked
 * here when an expense is written, inside the tenant transaction (RLS: another tenant's
 * artist is simply absent).
 */
import type { Trx } from '../../db';
import { isUuid } from './common';

export type TargetType = 'artist' | 'product' | 'asset';
export const TARGET_TABLE: Record<TargetType, string> = { artist: 'artists', product: 'products', asset: 'assets' };

/** The ids among `ids` that exist as `type` in this workspace's catalogue. */
export async function existingTargets(trx: Trx, type: TargetType, ids: string[]): Promise<Set<string>> {
  const valid = [...new Set(ids.filter(isUuid))];
  if (!valid.length) return new Set();
  const rows = await trx(TARGET_TABLE[type]).whereIn('id', valid).select('id');
  return new Set(rows.map((r) => r.id as string));
}

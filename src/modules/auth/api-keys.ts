/**
 * API keys of a workspace and of its members (the routes: api-key-routes.ts; docs/auth.md "API
 * keys"). The keys table is not granted to the application role: these reads go through the
 * owner pool, always filtered by the holder's workspace (and member), so another workspace's key
 * answers 404 as if absent. A key is made by a signed-in person, never by another key.
 */
import type { AppServices } from '../../services';
import type { AuthContext, KeyKind } from '../../lib/identity';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { KEY_PREFIX } from './tokens';

/** Active keys a workspace (workspace keys) or a person (their personal keys) may hold at once. */
export const MAX_ACTIVE_KEYS = 25;

interface KeyRow { id: string; kind: 'workspace' | 'user'; key_id: string; name: string | null; created_at: Date }
const view = (r: KeyRow) => ({ id: r.id, kind: r.kind, name: r.name, prefix: `${KEY_PREFIX[r.kind]}_${r.key_id}`, createdAt: new Date(r.created_at).toISOString() });

/** Whose keys a route manages: the workspace's, or the calling member's own. */
export interface Owner { kind: Exclude<KeyKind, 'god'>; tenantId: number; tenantUserId: string | null }

export function ownerOf(auth: AuthContext, kind: Owner['kind']): Owner {
  if (kind === 'workspace') return { kind, tenantId: auth.tenantId!, tenantUserId: null };
  if (!auth.tenantUserId) throw new ForbiddenError('A personal key belongs to a member of the workspace: sign in as that person', 'MEMBER_REQUIRED');
  return { kind, tenantId: auth.tenantId!, tenantUserId: auth.tenantUserId };
}

function activeKeys(svc: AppServices, o: Owner) {
  const q = svc.db.owner('api_keys').where({ kind: o.kind, tenant_id: o.tenantId }).whereNull('revoked_at');
  return o.tenantUserId ? q.where({ tenant_user_id: o.tenantUserId }) : q;
}

export async function listKeys(svc: AppServices, o: Owner) {
  const rows: KeyRow[] = await activeKeys(svc, o).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]).select('id', 'kind', 'key_id', 'name', 'created_at');
  return rows.map(view);
}

export async function createKey(svc: AppServices, auth: AuthContext, o: Owner, name: string) {
  // a key never makes another key: a leaked key must not be able to hand out more
  if (auth.kind !== 'access') throw new ForbiddenError('API keys are made by a signed-in person, not with an API key', 'SESSION_REQUIRED');
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationError('Invalid request', ['body.name: must not be blank']);
  if (/[\r\n]/.test(trimmed)) throw new ValidationError('Invalid request', ['body.name: must not hold line breaks']);
  // one key made at a time per holder (workspace or person): two requests at once cannot both
  // pass the count; the lock is held until the key is stored (its own statement) and counted
  const made = await svc.db.owner.transaction(async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('rondo api keys'), hashtext(?))`, [`${o.kind}:${o.tenantId}:${o.tenantUserId ?? ''}`]);
    const [{ count }] = await activeKeys(svc, o).transacting(trx).count<{ count: string }[]>({ count: '*' });
    if (Number(count) >= MAX_ACTIVE_KEYS) {
      throw new ValidationError(`At most ${MAX_ACTIVE_KEYS} keys may be active at once: revoke one you no longer use first`, [], 'TOO_MANY_KEYS');
    }
    return svc.auth.createApiKey(o.kind, { tenantId: o.tenantId, ...(o.tenantUserId ? { tenantUserId: o.tenantUserId } : {}), name: trimmed });
  });
  const row: KeyRow = await svc.db.owner('api_keys').where({ id: made.id }).first('id', 'kind', 'key_id', 'name', 'created_at');
  return { ...view(row), key: made.token };
}

export async function revokeKey(svc: AppServices, o: Owner, id: string) {
  const row = await activeKeys(svc, o).where({ id }).first('id');
  if (!row) throw new NotFoundError('API key', 'API_KEY_NOT_FOUND');
  await svc.auth.revokeApiKey(id);
  return { id, revoked: true as const };
}

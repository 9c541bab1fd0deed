/**
 * API keys in the web app (docs/auth.md "API keys", docs/decisions.md). The spec obtains keys
 * "through support"; in a self-hosted install the workspace's admins are that support, so
 * these routes live outside the spec's paths, under `/settings/api-keys`:
 * - workspace keys (`RWAK_…`, admin rights, no person): admins list, create and revoke them;
 * - personal keys (`RUAK_…`, the person's own role in this workspace): every member lists,
 *   creates and revokes their own, and no one else's.
 * A key is shown once, when created; only its secret's hash is stored. A key is made by a
 * signed-in person, never by another key. The keys table is not granted to the application
 * role: these reads go through the owner pool, always filtered by the caller's workspace
 * (and member), so another workspace's key answers 404 as if absent.
 */
import type Router from '@koa/router';
import { dataRoute, defineRoutes, type HandlerArgs } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import type { AuthContext, KeyKind } from '../../lib/identity';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors';
import { KEY_PREFIX } from './tokens';

/** Active keys a workspace (workspace keys) or a person (their personal keys) may hold at once. */
export const MAX_ACTIVE_KEYS = 25;

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);
const ApiKey = Type.Object({
  id: Uuid,
  kind: Type.Union([Type.Literal('workspace'), Type.Literal('user')], { description: 'workspace: RWAK (admin rights, no person); user: RUAK (its person, with their role)' }),
  name: Nullable(Type.String({ examples: ['Accounting export'] })),
  prefix: Type.String({ description: 'the start of the key (not secret): tells keys apart', examples: ['RWAK_3fZk9QbL0aXw'] }),
  createdAt: Type.String({ format: 'date-time' }),
});
const CreatedKey = Type.Intersect([ApiKey, Type.Object({ key: Type.String({ description: 'the whole key: shown this once, never again' }) })]);
const Revoked = Type.Object({ id: Uuid, revoked: Type.Literal(true) });
const KeyBody = Strict({ name: Type.String({ minLength: 1, maxLength: 100, examples: ['Accounting export'] }) });
const KeyParams = Type.Object({ keyId: Uuid });

interface KeyRow { id: string; kind: 'workspace' | 'user'; key_id: string; name: string | null; created_at: Date }
const view = (r: KeyRow) => ({ id: r.id, kind: r.kind, name: r.name, prefix: `${KEY_PREFIX[r.kind]}_${r.key_id}`, createdAt: new Date(r.created_at).toISOString() });

/** Whose keys a route manages: the workspace's, or the calling member's own. */
interface Owner { kind: Exclude<KeyKind, 'god'>; tenantId: number; tenantUserId: string | null }

function ownerOf(auth: AuthContext, kind: Owner['kind']): Owner {
  if (kind === 'workspace') return { kind, tenantId: auth.tenantId!, tenantUserId: null };
  if (!auth.tenantUserId) throw new ForbiddenError('A personal key belongs to a member of the workspace: sign in as that person', 'MEMBER_REQUIRED');
  return { kind, tenantId: auth.tenantId!, tenantUserId: auth.tenantUserId };
}

function activeKeys(svc: AppServices, o: Owner) {
  const q = svc.db.owner('api_keys').where({ kind: o.kind, tenant_id: o.tenantId }).whereNull('revoked_at');
  return o.tenantUserId ? q.where({ tenant_user_id: o.tenantUserId }) : q;
}

async function listKeys(svc: AppServices, o: Owner) {
  const rows: KeyRow[] = await activeKeys(svc, o).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]).select('id', 'kind', 'key_id', 'name', 'created_at');
  return rows.map(view);
}

async function createKey(svc: AppServices, auth: AuthContext, o: Owner, name: string) {
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

async function revokeKey(svc: AppServices, o: Owner, id: string) {
  const row = await activeKeys(svc, o).where({ id }).first('id');
  if (!row) throw new NotFoundError('API key', 'API_KEY_NOT_FOUND');
  await svc.auth.revokeApiKey(id);
  return { id, revoked: true as const };
}

export function registerApiKeyRoutes(router: Router, svc: AppServices): void {
  const mine = (a: HandlerArgs<unknown, unknown, unknown>) => ownerOf(a.auth, 'user');
  const workspace = (a: HandlerArgs<unknown, unknown, unknown>) => ownerOf(a.auth, 'workspace');
  defineRoutes(router, svc, { tag: 'API keys', errorShape: 'catalogue' }, [
    dataRoute({
      method: 'get', path: '/settings/api-keys', access: 'admin', data: Type.Array(ApiKey),
      summary: "The workspace's active API keys (RWAK: admin rights, no person), newest first (admin). Not in the spec: docs/decisions.md",
      run: (a) => listKeys(svc, workspace(a)),
    }),
    dataRoute({
      method: 'post', path: '/settings/api-keys', access: 'admin', status: 201, body: KeyBody, data: CreatedKey,
      summary: 'Create a workspace API key (admin, signed in): the answer holds the whole key, shown this once',
      run: (a) => createKey(svc, a.auth, workspace(a), a.body.name),
    }),
    dataRoute({
      method: 'delete', path: '/settings/api-keys/:keyId', access: 'admin', params: KeyParams, data: Revoked,
      summary: 'Revoke a workspace API key (admin): it stops working at once',
      run: (a) => revokeKey(svc, workspace(a), a.params.keyId),
    }),
    dataRoute({
      method: 'get', path: '/settings/my-api-keys', access: 'guest', scope: 'own', data: Type.Array(ApiKey),
      summary: "The caller's own active personal API keys in this workspace (RUAK: acts as them, with their role), newest first",
      run: (a) => listKeys(svc, mine(a)),
    }),
    dataRoute({
      method: 'post', path: '/settings/my-api-keys', access: 'guest', scope: 'own', status: 201, body: KeyBody, data: CreatedKey,
      summary: 'Create a personal API key for oneself (signed in): the answer holds the whole key, shown this once',
      run: (a) => createKey(svc, a.auth, mine(a), a.body.name),
    }),
    dataRoute({
      method: 'delete', path: '/settings/my-api-keys/:keyId', access: 'guest', scope: 'own', params: KeyParams, data: Revoked,
      summary: 'Revoke one of your own personal API keys: it stops working at once',
      run: (a) => revokeKey(svc, mine(a), a.params.keyId),
    }),
  ]);
}

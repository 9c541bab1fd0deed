/**
 * Data shares: a workspace grants read access to one resource of its own to another
 * workspace or to whoever holds a signed link (docs/data-shares.md).
 *
 * The share row belongs to the granting tenant (RLS). The two cross-tenant ways in (a
 * grantee workspace listing what it received, a link holder presenting a token) look the
 * share up first with one narrow query on the owner connection (by grantee or by token
 * hash, never expired); only then is a transaction opened on the *granting* tenant, and
 * the shared data is read inside it with that tenant's RLS in force.
 */
import { sortColumns, sortedPage, whereSearch } from '../../http/list-sort';
import type { AppServices } from '../../services';
import { withTenant, type Trx } from '../../db';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { randomToken, sha256 } from '../../lib/crypto';
import { iso } from '../catalogue/common';
import { memberMonthly, memberStats } from '../users/holdings';
import { assetViews, productViews } from '../catalogue/service';
import { memberIdsAmong } from '../../repositories/members';
import { existingIds, publishedItems } from '../../repositories/catalogue';

export const RESOURCES = ['payee-analytics', 'catalogue-export'] as const;
export type Resource = (typeof RESOURCES)[number];

export interface ShareInput {
  resource: Resource;
  scope: { userId?: string; from?: string; to?: string; artists?: string[] | 'all' };
  expiresAt?: string;
  granteeWorkspaceId?: string;
}

/** Rows exported per kind by a catalogue-export share. */
export const EXPORT_LIMIT = 5000;
const TOKEN_PREFIX = 'RDS_';

function view(r: Record<string, unknown>, granteeUuid: string | null) {
  return {
    id: r.id as string,
    resource: r.resource as Resource,
    scope: r.scope as Record<string, unknown>,
    grantee: granteeUuid ? { type: 'workspace', workspaceId: granteeUuid } : { type: 'link' },
    expiresAt: iso(r.expires_at),
    createdBy: (r.created_by as string) ?? null,
    createdAt: iso(r.created_at)!,
  };
}

const live = (q: import('knex').Knex.QueryBuilder) => q.where((w) => w.whereNull('expires_at').orWhere('expires_at', '>', clock.now()));

/** Check the scope against the granting workspace (in its transaction). */
async function checkScope(trx: Trx, input: ShareInput): Promise<Record<string, unknown>> {
  const s = input.scope;
  if (input.resource === 'payee-analytics') {
    if (s.artists !== undefined) throw new ValidationError('Invalid scope', ['scope.artists is not a field of payee-analytics'], 'INVALID_SCOPE');
    if (!s.userId) throw new ValidationError('Invalid scope', ['scope.userId is required for payee-analytics'], 'INVALID_SCOPE');
    if (!(await memberIdsAmong(trx, [s.userId])).length) throw new ValidationError('Invalid scope', [`scope.userId ${s.userId} is not a member of this workspace`], 'INVALID_SCOPE');
    if (s.from && s.to && s.from > s.to) throw new ValidationError('Invalid scope', ['scope.from is after scope.to'], 'INVALID_SCOPE');
    return { userId: s.userId, ...(s.from ? { from: s.from } : {}), ...(s.to ? { to: s.to } : {}) };
  }
  if (s.userId !== undefined || s.from !== undefined || s.to !== undefined) throw new ValidationError('Invalid scope', ['catalogue-export takes scope.artists only'], 'INVALID_SCOPE');
  const artists = s.artists ?? 'all';
  if (artists !== 'all') {
    const uniq = [...new Set(artists)];
    const found = await existingIds(trx, 'artists', uniq);
    const missing = uniq.filter((a) => !found.includes(a));
    if (missing.length) throw new ValidationError('Invalid scope', missing.map((a) => `scope.artists: ${a} is not an artist of this workspace`), 'INVALID_SCOPE');
    return { artists: uniq };
  }
  return { artists: 'all' };
}

/** POST /data-shares: the link token (when no grantee workspace) is in this answer only. */
export async function createShare(trx: Trx, svc: AppServices, tenantId: number, actor: string | null, input: ShareInput) {
  if (input.expiresAt && new Date(input.expiresAt) <= clock.now()) throw new ValidationError('Invalid request', ['body.expiresAt must be in the future'], 'INVALID_EXPIRY');
  const scope = await checkScope(trx, input);
  let granteeTenantId: number | null = null;
  if (input.granteeWorkspaceId) {
    // tenants is not a tenant table: another workspace is looked up by its public uuid
    const g = await svc.db.owner('tenants').where({ uuid: input.granteeWorkspaceId, status: 'active' }).first('id');
    if (!g) throw new ValidationError('Invalid request', ['body.granteeWorkspaceId is not an active workspace'], 'UNKNOWN_WORKSPACE');
    if (g.id === tenantId) throw new ValidationError('Invalid request', ['body.granteeWorkspaceId is this workspace'], 'SELF_SHARE');
    granteeTenantId = g.id;
  }
  const token = granteeTenantId ? null : TOKEN_PREFIX + randomToken(32);
  const [row] = await trx('data_shares')
    .insert({
      tenant_id: tenantId, resource: input.resource, scope, grantee_tenant_id: granteeTenantId,
      token_hash: token ? sha256(token) : null, expires_at: input.expiresAt ?? null, created_by: actor,
    })
    .returning('*');
  return { ...view(row, input.granteeWorkspaceId ?? null), ...(token ? { token } : {}) };
}

async function granteeUuids(svc: AppServices, rows: Record<string, unknown>[]) {
  const ids = [...new Set(rows.map((r) => r.grantee_tenant_id).filter((x): x is number => x != null))];
  const t = ids.length ? await svc.db.owner('tenants').whereIn('id', ids).select('id', 'uuid') : [];
  return (r: Record<string, unknown>) => (r.grantee_tenant_id == null ? null : (t.find((x) => x.id === r.grantee_tenant_id)?.uuid as string));
}

/** GET /data-shares: the shares this workspace granted (expired ones included, marked by expiresAt). */
export const SHARE_SORT = sortColumns({ createdAt: 'created_at', expiresAt: 'expires_at', resource: 'resource', scope: 'scope', createdBy: 'created_by' });

export async function listShares(trx: Trx, svc: AppServices, q: { page: number; size: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const { rows, total } = await sortedPage(whereSearch(trx('data_shares'), q.search, ['resource', 'scope']), q, SHARE_SORT, 'createdAt');
  const uuidOf = await granteeUuids(svc, rows);
  return { data: rows.map((r) => view(r, uuidOf(r))), total };
}

export async function getShare(trx: Trx, svc: AppServices, id: string) {
  const r = await trx('data_shares').where({ id }).first();
  if (!r) throw new NotFoundError('Data share', 'DATA_SHARE_NOT_FOUND');
  return view(r, (await granteeUuids(svc, [r]))(r));
}

/** DELETE /data-shares/{id}: permanent; the link or grant stops working at once. */
export async function deleteShare(trx: Trx, id: string): Promise<void> {
  const n = await trx('data_shares').where({ id }).delete();
  if (!n) throw new NotFoundError('Data share', 'DATA_SHARE_NOT_FOUND');
}

// ------------------------------------------------------------------------------ the grantee side

/** GET /data-shares/received: live shares granted to this workspace (one narrow owner query). */
export async function listReceived(svc: AppServices, granteeTenantId: number) {
  const rows = await live(svc.db.owner('data_shares as s').where({ 's.grantee_tenant_id': granteeTenantId }))
    .join('tenants as t', 't.id', 's.tenant_id')
    .where('t.status', 'active')
    .orderBy([{ column: 's.created_at', order: 'desc' }, 's.id'])
    .select('s.id', 's.resource', 's.scope', 's.expires_at', 's.created_at', 't.uuid as granter_uuid', 't.name as granter_name');
  return rows.map((r: Record<string, unknown>) => ({
    id: r.id as string, resource: r.resource as Resource, scope: r.scope, expiresAt: iso(r.expires_at), createdAt: iso(r.created_at)!,
    from: { workspaceId: r.granter_uuid as string, name: r.granter_name as string },
  }));
}

/** The shared data of a live share granted to this workspace; 404 when it is not (absent, another's, expired, revoked). */
export async function receivedData(svc: AppServices, granteeTenantId: number, id: string) {
  const s = await live(svc.db.owner('data_shares').where({ id, grantee_tenant_id: granteeTenantId })).first('tenant_id', 'id');
  if (!s) throw new NotFoundError('Data share', 'DATA_SHARE_NOT_FOUND');
  return readShared(svc, s.tenant_id, s.id);
}

/** GET /data-shares/access/{token}: the shared data for a link holder; 404 for an unknown, expired or revoked token. */
export async function linkData(svc: AppServices, token: string) {
  if (!token.startsWith(TOKEN_PREFIX)) throw new NotFoundError('Data share', 'DATA_SHARE_NOT_FOUND');
  const s = await live(svc.db.owner('data_shares').where({ token_hash: sha256(token) })).first('tenant_id', 'id');
  if (!s) throw new NotFoundError('Data share', 'DATA_SHARE_NOT_FOUND');
  return readShared(svc, s.tenant_id, s.id);
}

/** Read a share's data in a transaction of the granting tenant, re-checking the share there (a revocation in between wins). */
async function readShared(svc: AppServices, granterTenantId: number, shareId: string) {
  return withTenant(svc.db.app, granterTenantId, async (trx) => {
    const share = await live(trx('data_shares').where({ id: shareId })).first();
    if (!share) throw new NotFoundError('Data share', 'DATA_SHARE_NOT_FOUND');
    const tenant = await trx('tenants').where({ id: granterTenantId }).first('uuid', 'name', 'status');
    if (!tenant || tenant.status !== 'active') throw new NotFoundError('Data share', 'DATA_SHARE_NOT_FOUND');
    const scope = share.scope as { userId?: string; from?: string; to?: string; artists?: string[] | 'all' };
    const head = { shareId, resource: share.resource as Resource, scope, from: { workspaceId: tenant.uuid as string, name: tenant.name as string }, expiresAt: iso(share.expires_at) };
    if (share.resource === 'payee-analytics') {
      const totals = await memberStats(trx, granterTenantId, scope.userId!);
      const monthly = await memberMonthly(trx, granterTenantId, scope.userId!, scope.from, scope.to);
      return { ...head, data: { userId: scope.userId!, currency: totals.currency, earnings: totals.earnings, lines: totals.lines, months: monthly.months } };
    }
    return { ...head, data: await catalogueExport(trx, scope.artists ?? 'all') };
  });
}

async function catalogueExport(trx: Trx, artists: string[] | 'all') {
  const a = await publishedItems(trx, 'assets', artists, EXPORT_LIMIT + 1);
  const p = await publishedItems(trx, 'products', artists, EXPORT_LIMIT + 1);
  const strip = <T extends { splits?: unknown; split?: unknown }>(v: T) => {
    // shares of members are the granting workspace's own business: never exported
    const { splits: _s, split: _p, ...rest } = v as T & Record<string, unknown>;
    return rest;
  };
  return {
    assets: (await assetViews(trx, a.slice(0, EXPORT_LIMIT))).map(strip),
    products: (await productViews(trx, p.slice(0, EXPORT_LIMIT))).map(strip),
    truncated: a.length > EXPORT_LIMIT || p.length > EXPORT_LIMIT,
  };
}

/**
 * What a member is tied to: their own artists (artist_users), the recordings and products
 * of those artists, and what they earned (royalty_earnings). Queries for the routes in
 * entities.ts.
 */
import type { Knex } from 'knex';
import type { Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';
import { rankOf, ROLE_RANK } from '../../domain/roles';
import { ForbiddenError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { getUser } from './service';
import { assetListBase, assetViews, ASSET_SORT, productListBase, productViews, PRODUCT_SORT } from '../catalogue/service';
import { pageList } from '../catalogue/common';
import { existingIds } from '../../repositories/catalogue';

export async function assertMayRead(trx: Trx, auth: AuthContext, id: string) {
  if (rankOf(auth) < ROLE_RANK.admin && auth.tenantUserId !== id) throw new ForbiddenError('You can only see your own artists, recordings and earnings', 'INSUFFICIENT_ROLE');
  await getUser(trx, id); // 404 for another tenant's member
}

function ownedBy(trx: Trx, link: 'asset_artists' | 'product_artists', fk: string, alias: string, userId: string) {
  return (b: Knex.QueryBuilder) =>
    b.whereExists((e) =>
      e.select(trx.raw('1')).from(`${link} as l`).join('artist_users as au', 'au.artist_id', 'l.artist_id').whereRaw(`l.${fk} = ${alias}.id`).where('au.tenant_user_id', userId),
    );
}

/** The two catalogue lists a member owns through their artists, described once. */
const OWNED = {
  assets: { base: assetListBase, views: assetViews, sort: ASSET_SORT, link: 'asset_artists', fk: 'asset_id', alias: 'a' },
  products: { base: productListBase, views: productViews, sort: PRODUCT_SORT, link: 'product_artists', fk: 'product_id', alias: 'p' },
} as const;

/** A page of the recordings or products of a member's own artists. */
export async function ownedCatalogue(trx: Trx, what: 'assets' | 'products', userId: string, query: Record<string, any>) {
  const e = OWNED[what];
  const base = e.base(trx, query).modify(ownedBy(trx, e.link, e.fk, e.alias, userId));
  const page = await pageList(base, query, e.sort, 'createdAt', (b) => b.select(`${e.alias}.*`), `${e.alias}.id`, (r) => r);
  return { ...page, data: await e.views(trx, page.data) };
}

/** A member's totals: earnings (base currency), lines, own artists, recordings, products, splits held. */
export async function memberStats(trx: Trx, tenantId: number, userId: string) {
  const { rows } = await trx.raw(
    `SELECT
       (SELECT COALESCE(sum(amount), 0)::text FROM royalty_earnings WHERE tenant_user_id = :u AND superseded_at IS NULL) AS earnings,
       (SELECT count(*)::int FROM royalty_earnings WHERE tenant_user_id = :u AND superseded_at IS NULL) AS lines,
       (SELECT count(*)::int FROM artist_users WHERE tenant_user_id = :u) AS artists,
       (SELECT count(DISTINCT l.asset_id)::int FROM asset_artists l JOIN artist_users au ON au.artist_id = l.artist_id WHERE au.tenant_user_id = :u) AS assets,
       (SELECT count(DISTINCT l.product_id)::int FROM product_artists l JOIN artist_users au ON au.artist_id = l.artist_id WHERE au.tenant_user_id = :u) AS products,
       (SELECT count(*)::int FROM split_shares WHERE tenant_user_id = :u) AS splits,
       (SELECT base_currency FROM tenants WHERE id = :t) AS currency`,
    { u: userId, t: tenantId },
  );
  const r = rows[0];
  return { id: userId, currency: r.currency.trim(), earnings: r.earnings, lines: r.lines, artists: r.artists, assets: r.assets, products: r.products, splits: r.splits };
}

/** A member's earnings per sale month (base currency; optional from/to YYYY-MM). */
export async function memberMonthly(trx: Trx, tenantId: number, userId: string, from?: string, to?: string) {
  const { rows } = await trx.raw(
    `SELECT to_char(sale_month, 'YYYY-MM') AS month, sum(amount)::text AS earnings, count(*)::int AS lines
       FROM royalty_earnings
      WHERE tenant_user_id = ? AND superseded_at IS NULL
        AND (?::date IS NULL OR sale_month >= ?::date) AND (?::date IS NULL OR sale_month <= ?::date)
      GROUP BY 1 ORDER BY 1`,
    [userId, ...[from, from, to, to].map((m) => (m ? `${m}-01` : null))],
  );
  const t = await trx('tenants').where({ id: tenantId }).first('base_currency');
  return { id: userId, currency: t.base_currency.trim(), months: rows };
}

/** Ties members to artists, or unties them; unknown ids are reported, the rest processed. */
export async function linkMembersToArtists(trx: Trx, tenantId: number, userIds: string[], artistIds: string[], action: 'link' | 'unlink') {
  const users = new Set((await trx('tenant_users').whereIn('id', userIds).select('id')).map((r) => r.id as string));
  const artists = new Set(await existingIds(trx, 'artists', artistIds));
  const errors = [
    ...userIds.filter((u) => !users.has(u)).map((u) => `user ${u} is not a member of this workspace`),
    ...artistIds.filter((a) => !artists.has(a)).map((a) => `artist ${a} not found`),
  ];
  const pairs = [...users].flatMap((u) => [...artists].map((a) => ({ tenant_id: tenantId, tenant_user_id: u, artist_id: a })));
  let processed = 0;
  if (pairs.length && action === 'link') {
    const ins = await trx('artist_users').insert(pairs.map((p) => ({ ...p, created_at: clock.now() }))).onConflict(['tenant_id', 'artist_id', 'tenant_user_id']).ignore().returning('artist_id');
    processed = ins.length;
  } else if (pairs.length) {
    processed = await trx('artist_users').whereIn('tenant_user_id', [...users]).whereIn('artist_id', [...artists]).delete();
  }
  return { processed, errors };
}

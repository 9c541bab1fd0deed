/**
 * The catalogue the generated DistroKid lines name (bench/distrokid-gen.ts), written in SQL in
 * one transaction: 20,000 recordings with ISRCs, 2,000 releases with UPCs, one artist, and
 * splits paying the three `payees` (recording t: t % 4 = 1, 2, 3 → its own split, 60 / 25 / 15,
 * 33.333333 / 33.333333 / 33.333334, 40 / 40 / 20; t % 4 = 0 → the artist's default split,
 * 50 / 30 / 20). Shared by bench:ingest and bench:web.
 */
import type { AppServices } from '../src/services';
import { withTenant } from '../src/db';
import { DK_ARTIST, DK_RECORDINGS, dkIsrc, dkTitle, dkUpc } from './distrokid-gen';

export async function seedDistroKidCatalogue(svc: AppServices, tenantId: number, payees: string[]): Promise<{ releases: number }> {
  const releases = Math.ceil(DK_RECORDINGS / 10);
  await withTenant(svc.db.app, tenantId, async (trx) => {
    const [artist] = await trx('artists').insert({ tenant_id: tenantId, name: DK_ARTIST }).returning('id');
    const recs = Array.from({ length: DK_RECORDINGS }, (_, i) => i);
    await trx.raw(
      `INSERT INTO products (tenant_id, title, upc, display_artist, main_artist)
       SELECT ?, 'Release ' || (o - 1), lpad(u, 13, '0'), ?, ARRAY[?] FROM unnest(?::text[]) WITH ORDINALITY x(u, o)`,
      [tenantId, DK_ARTIST, DK_ARTIST, Array.from({ length: releases }, (_, r) => dkUpc(r))],
    );
    await trx.raw(
      `INSERT INTO assets (tenant_id, title, isrc, display_artist, main_artist)
       SELECT ?, ti, i, ?, ARRAY[?] FROM unnest(?::text[], ?::text[]) x(ti, i)`,
      [tenantId, DK_ARTIST, DK_ARTIST, recs.map(dkTitle), recs.map(dkIsrc)],
    );
    await trx.raw(`INSERT INTO asset_artists (tenant_id, asset_id, artist_id, position) SELECT ?, id, ?, 0 FROM assets WHERE tenant_id = ?`, [tenantId, artist.id, tenantId]);
    await trx.raw(`INSERT INTO product_artists (tenant_id, product_id, artist_id, position) SELECT ?, id, ?, 0 FROM products WHERE tenant_id = ?`, [tenantId, artist.id, tenantId]);
    await trx.raw(
      `INSERT INTO splits (tenant_id, target, asset_id) SELECT ?, 'asset', id FROM assets WHERE tenant_id = ? AND substr(isrc, 6)::int % 4 <> 0`,
      [tenantId, tenantId],
    );
    await trx.raw(`INSERT INTO splits (tenant_id, target, artist_id) VALUES (?, 'artist', ?)`, [tenantId, artist.id]);
    await trx.raw(
      `INSERT INTO split_shares (tenant_id, split_id, tenant_user_id, share)
       SELECT ?, s.id, (?::uuid[])[p.n], p.share
         FROM splits s LEFT JOIN assets a ON a.tenant_id = s.tenant_id AND a.id = s.asset_id
         CROSS JOIN LATERAL (SELECT CASE WHEN a.id IS NULL THEN 0 ELSE substr(a.isrc, 6)::int % 4 END AS m) k
         JOIN (VALUES (1, 1, 60::numeric), (1, 2, 25), (1, 3, 15), (3, 1, 40), (3, 2, 40), (3, 3, 20),
                      (2, 1, 33.333333), (2, 2, 33.333333), (2, 3, 33.333334),
                      (0, 1, 50), (0, 2, 30), (0, 3, 20)) p(m, n, share) ON p.m = k.m
        WHERE s.tenant_id = ?`,
      [tenantId, payees, tenantId],
    );
    await trx.raw(`DELETE FROM allocation_dirty WHERE tenant_id = ?`, [tenantId]);
  });
  await svc.db.owner.raw(`ANALYZE assets, products, splits, split_shares, asset_artists, product_artists`);
  return { releases };
}

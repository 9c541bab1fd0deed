/**
 * The analytics bench's workspace (issue 37), loaded in SQL (no per-row JS):
 * 1,000 artists, 20,000 recordings (recording a by artist a mod 1,000, on product a mod 5,000),
 * 5,000 products; 1,000 artist default splits and 5,000 recording splits (a mod 4 = 0): 6,000
 * share sets. Payees, from the broadest to the narrowest:
 * - `label`: on every split (every matched line);
 * - `half`: on the splits of even ordinal (about half the lines);
 * - `artist0` … `artist49`: artist r's payee is `artist<r mod 50>` (20 artists, 400 recordings each);
 * - `small`: on 20 recordings only (a mod 1,000 = 500, their own split with the label).
 * Lines: 96 files (24 sale months × 4 aggregators) at a statement's density (one line per
 * recording × DSP × country × sale type in a file), already matched and converted, then each
 * file's share sets by the allocation's rule (earningsOnly) and aggregateFile, as the jobs run.
 */
import type { Knex } from 'knex';
import { createTenant, ensureGlobalUser, upsertMembership } from '../src/modules/users/service';
import { gtinCheckDigit } from '../src/modules/catalogue/identifiers';
import { hashJoins, withTenant, type Trx } from '../src/db';
import { lockTenant, setAccountingPeriod } from '../src/modules/royalty/allocate';
import { aggregateFile } from '../src/modules/royalty/aggregate';
import type { BootedServices as Services } from '../src/compose';

export const RECORDINGS = 20_000;
export const ARTISTS = 1_000;
export const PRODUCTS = 5_000;
export const MONTHS = 24;
export const AGGREGATORS = ['DistroKid', 'CD Baby', 'TuneCore', 'Believe'];
export const FILES = MONTHS * AGGREGATORS.length;
/** The views measured: the admin and a payee of each breadth. */
export const VIEWS = ['admin', 'label', 'half', 'artist0', 'small'] as const;
export type View = (typeof VIEWS)[number];
const PAYEES = ['label', 'half', 'small', ...Array.from({ length: 50 }, (_, i) => `artist${i}`)];

export interface Workspace {
  id: number;
  uuid: string;
  tokens: Record<View, string>;
  /** tenant user id of each payee view */
  payee: Record<Exclude<View, 'admin'>, string>;
}

/** A new bench workspace, or (reuse) the last loaded one of this data directory; its members and their tokens. */
export async function openWorkspace(svc: Services, reuse: boolean): Promise<Workspace & { reused: boolean }> {
  const reused: { id: number; uuid: string } | undefined = reuse
    ? (await svc.db.owner.raw(`SELECT t.id, t.uuid FROM tenants t WHERE t.name LIKE 'Analytics bench %' AND EXISTS (SELECT 1 FROM files f WHERE f.tenant_id = t.id) ORDER BY t.id DESC LIMIT 1`)).rows[0]
    : undefined;
  if (reuse && !reused) throw new Error('--reuse: no loaded bench workspace in BENCH_DATA_DIR');
  const t = reused ?? (await createTenant(svc.db.owner, { name: `Analytics bench ${Date.now()}` }));
  const pw = 'bench password 123';
  const hash = await svc.auth.hashPassword(pw);
  const tokens = {} as Record<View, string>;
  const payee = {} as Record<string, string>;
  for (const name of ['admin', ...PAYEES]) {
    const email = `${name}.${t.id}@bench.test`;
    const g = await ensureGlobalUser(svc.db.owner, { email, passwordHash: hash });
    const tu = await upsertMembership(svc.db.owner, t.id, g.id, name === 'admin' ? 'admin' : 'user');
    if (name !== 'admin') payee[name] = tu;
    if ((VIEWS as readonly string[]).includes(name)) {
      const { refreshToken } = await svc.auth.login(email, pw, {});
      const who = await svc.auth.authenticate({ authorization: `Bearer ${refreshToken}` }, 'refresh');
      tokens[name as View] = await svc.auth.accessTokenFor(who, t.uuid, undefined);
    }
  }
  return { id: t.id, uuid: t.uuid, tokens, payee: payee as Workspace['payee'], reused: !!reused };
}

/** Catalogue, splits and rates, in one transaction. */
export async function loadCatalogue(db: Knex, tenantId: number, payee: Record<string, string>): Promise<void> {
  await withTenant(db, tenantId, async (trx) => {
    await trx.raw(`INSERT INTO artists (tenant_id, name) SELECT ?, 'Bench Artist ' || g FROM generate_series(0, ${ARTISTS - 1}) g`, [tenantId]);
    await trx.raw(
      `INSERT INTO assets (tenant_id, title, isrc, display_artist)
       SELECT ?, 'Recording ' || g, 'QZBEN2' || lpad(g::text, 6, '0'), 'Bench Artist ' || (g % ${ARTISTS}) FROM generate_series(0, ${RECORDINGS - 1}) g`,
      [tenantId],
    );
    const upcs = Array.from({ length: PRODUCTS }, (_, i) => {
      const body = `19${String(i).padStart(10, '0')}`;
      return body + gtinCheckDigit(body);
    });
    await trx.raw(`INSERT INTO products (tenant_id, title, upc) SELECT ?, 'Product ' || (o - 1), u FROM unnest(?::text[]) WITH ORDINALITY x(u, o)`, [tenantId, upcs]);
    await trx.raw(
      `INSERT INTO asset_artists (tenant_id, asset_id, artist_id, position)
       SELECT ?, a.id, r.id, 0 FROM assets a JOIN artists r ON r.tenant_id = a.tenant_id AND r.name = a.display_artist WHERE a.tenant_id = ?`,
      [tenantId, tenantId],
    );
    await trx.raw(`INSERT INTO splits (tenant_id, target, artist_id) SELECT ?, 'artist', id FROM artists WHERE tenant_id = ?`, [tenantId, tenantId]);
    await trx.raw(
      `INSERT INTO splits (tenant_id, target, asset_id) SELECT ?, 'asset', id FROM assets WHERE tenant_id = ? AND substr(isrc, 7)::int % 4 = 0`,
      [tenantId, tenantId],
    );
    // Each split: r = its artist (or its recording's artist), n = its ordinal, small = a recording
    // of the narrowest payee. Shares: small → label 50 + small 50; n even → label 40, half 20,
    // artist 40; else label 50, artist 50.
    const artistPayees = Array.from({ length: 50 }, (_, i) => payee[`artist${i}`]!);
    await trx.raw(
      `WITH s AS (
         SELECT sp.id, row_number() OVER (ORDER BY sp.id) AS n,
                substr(coalesce(r.name, ra.name), 14)::int AS r,
                coalesce(substr(a.isrc, 7)::int % 1000 = 500, false) AS small
           FROM splits sp
           LEFT JOIN artists r ON r.tenant_id = sp.tenant_id AND r.id = sp.artist_id
           LEFT JOIN assets a ON a.tenant_id = sp.tenant_id AND a.id = sp.asset_id
           LEFT JOIN artists ra ON ra.tenant_id = a.tenant_id AND ra.name = a.display_artist
          WHERE sp.tenant_id = ?
       )
       INSERT INTO split_shares (tenant_id, split_id, tenant_user_id, share)
       SELECT ?, s.id, x.tu, x.share FROM s, LATERAL (VALUES
         (?::uuid, CASE WHEN s.small THEN 50 WHEN s.n % 2 = 0 THEN 40 ELSE 50 END),
         (CASE WHEN s.small THEN ?::uuid ELSE (?::uuid[])[1 + s.r % 50] END, CASE WHEN s.small THEN 50 WHEN s.n % 2 = 0 THEN 40 ELSE 50 END),
         (CASE WHEN s.n % 2 = 0 AND NOT s.small THEN ?::uuid END, 20)
       ) x(tu, share)
       WHERE x.tu IS NOT NULL`,
      [tenantId, tenantId, payee.label, payee.small, artistPayees, payee.half],
    );
    await trx.raw(
      `INSERT INTO fx_rates (tenant_id, currency, month, rate)
       SELECT ?, 'EUR', m::date, 1.08 + (extract(month FROM m) / 100) FROM generate_series('2023-01-01'::date, '2024-12-01'::date, interval '1 month') m`,
      [tenantId],
    );
    await trx.raw(`DELETE FROM allocation_dirty WHERE tenant_id = ?`, [tenantId]);
  });
}

/**
 * One file's lines in SQL. Recording a = (g × 7919) mod 20,000 and k = g div 20,000: within
 * a file every line of a recording has its own (DSP, sale type) pair. 2 % of lines carry an
 * unknown ISRC. Matched: the lines carry what allocation's match + currency step writes.
 */
const GENERATE_LINES = `INSERT INTO royalty_lines (tenant_id, file_id, line_no, sale_month, dsp, country, isrc, upc, track_title, artist, sale_type, quantity, net, currency, aggregator,
            asset_id, product_id, artist_id, match_status, base_amount, base_currency, fx_rate)
    SELECT x.tenant, x.file, x.g + 1, x.sm,
           (ARRAY['Spotify','Apple Music','YouTube','Amazon','Deezer','Tidal','TikTok','Pandora'])[1 + (x.a + x.k) % 8],
           (ARRAY['US','GB','DE','FR','BR','JP','MX','CA','AU','SE','NL','ES','IT','PL','IN','KR','NO','DK','FI','AR'])[1 + (x.a / 7 + x.k / 8 + x.m) % 20],
           CASE WHEN x.unknown THEN 'QZZZZ2' || lpad((x.g % 997)::text, 6, '0') ELSE 'QZBEN2' || lpad(x.a::text, 6, '0') END,
           CASE WHEN x.unknown THEN NULL ELSE x.upcs[1 + x.a % ${PRODUCTS}] END,
           'Recording ' || x.a, 'Bench Artist ' || (x.a % ${ARTISTS}),
           (ARRAY['stream','stream','stream','download','ugc'])[1 + (x.a + x.k / 3) % 5],
           1 + x.g % 40, x.net, x.cur, x.agg,
           CASE WHEN x.unknown THEN NULL ELSE x.assets[1 + x.a] END, CASE WHEN x.unknown THEN NULL ELSE x.products[1 + x.a % ${PRODUCTS}] END,
           CASE WHEN x.unknown THEN NULL ELSE x.artists[1 + x.a % ${ARTISTS}] END, CASE WHEN x.unknown THEN 'unmatched' ELSE 'isrc' END,
           CASE WHEN x.cur = 'USD' THEN x.net ELSE round(x.net * r.rate, 12) END, 'USD', CASE WHEN x.cur = 'USD' THEN 1 ELSE r.rate END
      FROM (SELECT p.*, g, (g * 7919) % ${RECORDINGS} AS a, g / ${RECORDINGS} AS k, g % 50 = 7 AS unknown, round(((g % 1000) + 1) * 0.000731, 12) AS net,
                   CASE WHEN p.eur THEN 'EUR' ELSE 'USD' END AS cur
              FROM (SELECT ?::int AS tenant, ?::uuid AS file, ?::int AS m, ('2023-01-01'::date + make_interval(months => ?))::date AS sm, ?::uuid[] AS assets,
                           ?::uuid[] AS artists, ?::uuid[] AS products, ?::text[] AS upcs, ?::boolean AS eur, ?::text AS agg) p,
                   generate_series(0::bigint, ? - 1) g) x
      LEFT JOIN fx_rates r ON r.tenant_id = x.tenant AND r.currency = 'EUR' AND r.month = x.sm`;

/**
 * The allocation decision of one file's pre-matched lines, written in SQL by the allocation's
 * rule (no conditional or product splits: recording split, else the primary artist's
 * default): the share sets (computed once, the catalogue does not change during the load),
 * each line's share set and the file's accounting period.
 */
let shareSetOf: { assets: string[]; sets: string[] } | null = null;
/** Each recording's share set (its split's, by the allocation's rule); the share sets written (idempotent). */
export async function shareSetMap(trx: Trx, tenantId: number): Promise<{ assets: string[]; sets: string[] }> {
  const { rows } = await trx.raw(
    `WITH sp AS (
       SELECT a.id AS asset_id, coalesce(sa.id, sr.id) AS split_id
         FROM assets a JOIN asset_artists x ON x.tenant_id = a.tenant_id AND x.asset_id = a.id AND x.position = 0
         LEFT JOIN splits sa ON sa.tenant_id = a.tenant_id AND sa.asset_id = a.id
         LEFT JOIN splits sr ON sr.tenant_id = a.tenant_id AND sr.artist_id = x.artist_id
        WHERE a.tenant_id = ?
     ), sh AS (
       SELECT sp.asset_id, s.split_id, s.tenant_user_id, s.share,
              row_number() OVER (PARTITION BY sp.asset_id ORDER BY s.share DESC, s.tenant_user_id) = 1 AS rem,
              array_agg(s.share) OVER (PARTITION BY sp.asset_id ORDER BY s.tenant_user_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS all_shares,
              (row_number() OVER (PARTITION BY sp.asset_id ORDER BY s.tenant_user_id))::int AS pos
         FROM sp JOIN split_shares s ON s.tenant_id = ? AND s.split_id = sp.split_id
     ), sets AS (
       SELECT sh.*, md5(string_agg(coalesce(sh.split_id::text, '') || ':' || sh.tenant_user_id || ':' || sh.share::numeric(9,6)::text, ',')
                          OVER (PARTITION BY sh.asset_id ORDER BY sh.tenant_user_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))::uuid AS set_id
         FROM sh
     ), ins AS (
       INSERT INTO royalty_share_sets (tenant_id, share_set_id, tenant_user_id, split_id, share, gets_remainder, others)
       SELECT DISTINCT ON (set_id, tenant_user_id) ?, set_id, tenant_user_id, split_id, share, rem,
              all_shares[:pos - 1] || all_shares[pos + 1:]
         FROM sets
       ON CONFLICT DO NOTHING
     )
     SELECT DISTINCT asset_id, set_id FROM sets`,
    [tenantId, tenantId, tenantId],
  );
  return { assets: rows.map((r: { asset_id: string }) => r.asset_id), sets: rows.map((r: { set_id: string }) => r.set_id) };
}

async function earningsOnly(trx: Trx, tenantId: number, fileId: string): Promise<void> {
  const ap = await setAccountingPeriod(trx, tenantId, fileId, 'monthly');
  shareSetOf ??= await shareSetMap(trx, tenantId);
  const map = shareSetOf;
  await hashJoins(trx, () =>
    trx.raw(
      `UPDATE royalty_lines l SET share_set_id = x.set_id
         FROM unnest(?::uuid[], ?::uuid[]) x(asset_id, set_id)
        WHERE l.tenant_id = ? AND l.file_id = ? AND l.asset_id = x.asset_id AND l.base_amount IS NOT NULL AND ?::date IS NOT NULL`,
      [map.assets, map.sets, tenantId, fileId, ap],
    ),
  );
}

export interface LoadTiming { load: number; alloc: number; aggr: number }

/** One file: its lines generated in SQL, its share sets, its rollups (aggregateFile), as the jobs run them. */
export async function loadFile(db: Knex, tenantId: number, month: number, agg: string, n: number, timing: LoadTiming, prefix = ''): Promise<string> {
  const ids = await catalogueIds(db, tenantId);
  let s = performance.now();
  const id = await withTenant(db, tenantId, async (trx) => {
    const [row] = await trx('files')
      .insert({
        tenant_id: tenantId,
        original_name: `${prefix}${agg}-${month}.csv`,
        status: 'allocating',
        sale_period_start: trx.raw(`('2023-01-01'::date + make_interval(months => ?))::date`, [month]),
        sale_period_end: trx.raw(`('2023-01-01'::date + make_interval(months => ? + 1) - interval '1 day')::date`, [month]),
      })
      .returning('id');
    await trx.raw(GENERATE_LINES, [
      tenantId, row.id, month, month, ids.assets, ids.artists, ids.products.map((p) => p.id), ids.products.map((p) => p.upc), agg === 'Believe', agg, n,
    ]);
    return row.id as string;
  });
  timing.load += performance.now() - s;
  s = performance.now();
  await withTenant(db, tenantId, async (trx) => {
    await lockTenant(trx, tenantId);
    await earningsOnly(trx, tenantId, id);
  });
  timing.alloc += performance.now() - s;
  s = performance.now();
  await withTenant(db, tenantId, async (trx) => {
    await lockTenant(trx, tenantId);
    await aggregateFile(trx, tenantId, id);
    await trx('files').where({ id }).update({ status: 'processed' });
  });
  timing.aggr += performance.now() - s;
  return id;
}

let idsCache: { tenantId: number; assets: string[]; artists: string[]; products: { id: string; upc: string }[] } | null = null;
export async function catalogueIds(db: Knex, tenantId: number) {
  if (idsCache?.tenantId === tenantId) return idsCache;
  idsCache = await withTenant(db, tenantId, async (trx) => ({
    tenantId,
    assets: (await trx.raw(`SELECT id FROM assets ORDER BY isrc`)).rows.map((r: { id: string }) => r.id),
    artists: (await trx.raw(`SELECT id FROM artists ORDER BY substr(name, 14)::int`)).rows.map((r: { id: string }) => r.id),
    products: (await trx.raw(`SELECT id, upc FROM products ORDER BY substr(title, 9)::int`)).rows as { id: string; upc: string }[],
  }));
  return idsCache;
}

/** Every file of the workspace (LINES spread over FILES files), in order; ANALYZE after the first. */
export async function loadLines(db: Knex, owner: Knex, tenantId: number, lines: number, verbose: boolean): Promise<{ fileIds: string[]; timing: LoadTiming }> {
  const perFile = Math.ceil(lines / FILES);
  const fileIds: string[] = [];
  const timing: LoadTiming = { load: 0, alloc: 0, aggr: 0 };
  for (let f = 0; f < FILES; f++) {
    const n = Math.min(perFile, lines - f * perFile);
    if (n <= 0) break;
    fileIds.push(await loadFile(db, tenantId, f % MONTHS, AGGREGATORS[Math.floor(f / MONTHS)]!, n, timing));
    if (f === 0) await owner.raw('ANALYZE royalty_lines, royalty_share_sets, assets, products, splits, split_shares, asset_artists');
    if (verbose) console.log(`  file ${f + 1}/${FILES}: load ${(timing.load / 1000).toFixed(1)} s, earnings ${(timing.alloc / 1000).toFixed(1)} s, aggregate ${(timing.aggr / 1000).toFixed(1)} s`);
  }
  return { fileIds, timing };
}

/**
 * Summaries (`/{entity}/summary` → {message, summary}), checklists (`/checklist/*`, paged
 * lists of what needs fixing) and CSV downloads.
 *
 * Scope: admins and owners see the whole workspace; guests and users see only what is
 * tied to their own artists (artist_users): those artists, their recordings and products,
 * the splits of any of these, and the members tied to the same artists.
 *
 * CSV downloads stream: Postgres writes the CSV itself (COPY (query) TO STDOUT, through
 * pg-copy-streams, inside a tenant transaction so RLS applies) and the rows flow to the
 * client with back-pressure; nothing is loaded into memory.
 */
import { CHECKLIST_SORT } from './sorts';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pgCopy from 'pg-copy-streams';
import type { Knex } from 'knex';
import type { AppServices } from '../../services';
import type { AuthContext } from '../../lib/identity';
import { rawConnection, withTenant, type Trx } from '../../db';
import { ownScope as scope, pageList, seesAll, type Entity } from './common';
import { neutraliseSql } from '../../domain/csv';

function scoped(b: Knex.QueryBuilder, s: Knex.Raw | null) {
  if (s) b.whereRaw(s);
  return b;
}

const HAS_OWN_SPLIT = (alias: string, col: string) => `EXISTS (SELECT 1 FROM splits s WHERE s.${col} = ${alias}.id)`;
const NO_EFFECTIVE = `NOT EXISTS (SELECT 1 FROM splits s WHERE s.asset_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM product_assets pa JOIN splits s ON s.tenant_id = pa.tenant_id AND s.product_id = pa.product_id WHERE pa.asset_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM asset_artists aa JOIN splits s ON s.tenant_id = aa.tenant_id AND s.artist_id = aa.artist_id WHERE aa.asset_id = a.id
                  AND aa.artist_id = (SELECT x.artist_id FROM asset_artists x WHERE x.asset_id = a.id ORDER BY x.position, x.artist_id LIMIT 1))
  AND NOT EXISTS (SELECT 1 FROM product_assets pa JOIN product_artists pr ON pr.tenant_id = pa.tenant_id AND pr.product_id = pa.product_id
                  JOIN splits s ON s.tenant_id = pr.tenant_id AND s.artist_id = pr.artist_id WHERE pa.asset_id = a.id
                  AND pr.artist_id = (SELECT y.artist_id FROM product_artists y WHERE y.product_id = pa.product_id ORDER BY y.position, y.artist_id LIMIT 1))`;

async function one(q: Knex.QueryBuilder): Promise<Record<string, number>> {
  const r = (await q) as Record<string, string>[];
  return Object.fromEntries(Object.entries(r[0] ?? {}).map(([k, v]) => [k, Number(v)]));
}
async function groups(q: Knex.QueryBuilder): Promise<Record<string, number>> {
  const r = (await q) as { k: string | null; c: string }[];
  return Object.fromEntries(r.map((x) => [x.k ?? 'unknown', Number(x.c)]));
}

export async function summary(trx: Trx, auth: AuthContext, entity: Entity): Promise<Record<string, unknown>> {
  const scopeNote = { scope: seesAll(auth) ? 'workspace' : 'own artists' };
  switch (entity) {
    case 'asset': {
      const s = scope(trx, auth, 'asset', 'a');
      const base = () => scoped(trx('assets as a'), s);
      return {
        ...(await one(base().select(trx.raw(`count(*) AS total, count(*) FILTER (WHERE is_draft) AS drafts, count(isrc) AS "withIsrc",
          count(*) FILTER (WHERE ${HAS_OWN_SPLIT('a', 'asset_id')}) AS "withSplit", count(*) FILTER (WHERE NOT ${HAS_OWN_SPLIT('a', 'asset_id')}) AS "withoutSplit"`)))),
        byType: await groups(base().select('a.type as k').count({ c: '*' }).groupBy('a.type')),
        ...scopeNote,
      };
    }
    case 'product': {
      const s = scope(trx, auth, 'product', 'p');
      const base = () => scoped(trx('products as p'), s);
      return {
        ...(await one(base().select(trx.raw(`count(*) AS total, count(*) FILTER (WHERE is_draft) AS drafts, count(upc) AS "withUpc",
          count(*) FILTER (WHERE ${HAS_OWN_SPLIT('p', 'product_id')}) AS "withSplit", count(*) FILTER (WHERE NOT ${HAS_OWN_SPLIT('p', 'product_id')}) AS "withoutSplit",
          COALESCE(sum((SELECT count(*) FROM product_assets pa WHERE pa.product_id = p.id)), 0) AS tracks`)))),
        byType: await groups(base().select('p.type as k').count({ c: '*' }).groupBy('p.type')),
        byFormat: await groups(base().select('p.format as k').count({ c: '*' }).groupBy('p.format')),
        ...scopeNote,
      };
    }
    case 'artist': {
      const s = scope(trx, auth, 'artist', 'r');
      return {
        ...(await one(scoped(trx('artists as r'), s).select(trx.raw(`count(*) AS total,
          count(*) FILTER (WHERE ${HAS_OWN_SPLIT('r', 'artist_id')}) AS "withDefaultSplit",
          count(*) FILTER (WHERE NOT ${HAS_OWN_SPLIT('r', 'artist_id')}) AS "withoutDefaultSplit",
          count(*) FILTER (WHERE EXISTS (SELECT 1 FROM artist_users au WHERE au.artist_id = r.id)) AS "withUsers",
          COALESCE(sum((SELECT count(*) FROM asset_artists x WHERE x.artist_id = r.id)), 0) AS assets,
          COALESCE(sum((SELECT count(*) FROM product_artists x WHERE x.artist_id = r.id)), 0) AS products`)))),
        ...scopeNote,
      };
    }
    case 'split': {
      const s = scope(trx, auth, 'split', 'sp');
      const base = () => scoped(trx('splits as sp'), s);
      return {
        ...(await one(base().select(trx.raw(`count(*) AS total,
          count(*) FILTER (WHERE valid_from IS NOT NULL OR valid_to IS NOT NULL OR territories IS NOT NULL) AS conditional,
          (SELECT count(DISTINCT sh.tenant_user_id) FROM split_shares sh WHERE sh.split_id IN (${base().select('sp.id').toQuery()})) AS payees`)))),
        byTarget: await groups(base().select('sp.target as k').count({ c: '*' }).groupBy('sp.target')),
        byType: await groups(base().select('sp.type as k').count({ c: '*' }).groupBy('sp.type')),
        ...scopeNote,
      };
    }
    case 'user': {
      const s = scope(trx, auth, 'user', 'tu');
      const base = () => scoped(trx('tenant_users as tu'), s);
      return {
        ...(await one(base().select(trx.raw(`count(*) AS total,
          count(*) FILTER (WHERE EXISTS (SELECT 1 FROM split_shares sh WHERE sh.tenant_user_id = tu.id)) AS "withShares",
          count(*) FILTER (WHERE EXISTS (SELECT 1 FROM artist_users au WHERE au.tenant_user_id = tu.id)) AS "linkedToArtists"`)))),
        byRole: await groups(base().select('tu.role as k').count({ c: '*' }).groupBy('tu.role')),
        byStatus: await groups(base().select('tu.status as k').count({ c: '*' }).groupBy('tu.status')),
        ...scopeNote,
      };
    }
  }
}

/**
 * What each checklist item has to fix, and (HAS_ISSUE) the same test as one condition the
 * planner can read: the array is only built for the rows of the page, not for every row of
 * the workspace to learn which have an issue.
 */
const HAS_ISSUE = {
  asset: `(a.is_draft OR a.isrc IS NULL OR NOT EXISTS (SELECT 1 FROM asset_artists x WHERE x.asset_id = a.id))`,
  product: `(p.is_draft OR p.upc IS NULL OR NOT EXISTS (SELECT 1 FROM product_artists x WHERE x.product_id = p.id)
           OR NOT EXISTS (SELECT 1 FROM product_assets x WHERE x.product_id = p.id))`,
};
const ISSUES = {
  asset: `array_remove(ARRAY[CASE WHEN a.is_draft THEN 'draft' END, CASE WHEN a.isrc IS NULL THEN 'missing ISRC' END,
           CASE WHEN NOT EXISTS (SELECT 1 FROM asset_artists x WHERE x.asset_id = a.id) THEN 'no artist' END], NULL)`,
  product: `array_remove(ARRAY[CASE WHEN p.is_draft THEN 'draft' END, CASE WHEN p.upc IS NULL THEN 'missing UPC' END,
           CASE WHEN NOT EXISTS (SELECT 1 FROM product_artists x WHERE x.product_id = p.id) THEN 'no artist' END,
           CASE WHEN NOT EXISTS (SELECT 1 FROM product_assets x WHERE x.product_id = p.id) THEN 'no tracks' END], NULL)`,
};

/** Each checklist: what it lists, as a query over assets (a), products (p), artists (r) or both. */
export async function checklist(trx: Trx, auth: AuthContext, name: string, q: { page?: number; size?: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const assets = (where: string, issue: string) =>
    scoped(trx('assets as a'), scope(trx, auth, 'asset', 'a'))
      .whereRaw(where)
      .modify((b) => (q.search ? b.whereILike('a.title', `%${q.search}%`) : b))
      .select(trx.raw(`'asset' AS kind, a.id, a.title, a.isrc AS code, ${issue} AS issues, a.created_at`));
  const products = (where: string, issue: string) =>
    scoped(trx('products as p'), scope(trx, auth, 'product', 'p'))
      .whereRaw(where)
      .modify((b) => (q.search ? b.whereILike('p.title', `%${q.search}%`) : b))
      .select(trx.raw(`'product' AS kind, p.id, p.title, p.upc AS code, ${issue} AS issues, p.created_at`));
  let base: Knex.QueryBuilder;
  switch (name) {
    case 'royaltyassets': base = assets(HAS_ISSUE.asset, ISSUES.asset); break;
    case 'royaltyproducts': base = products(HAS_ISSUE.product, ISSUES.product); break;
    case 'assetsplits': base = assets(`NOT ${HAS_OWN_SPLIT('a', 'asset_id')}`, `ARRAY['no asset split']`); break;
    case 'productsplits': base = products(`NOT ${HAS_OWN_SPLIT('p', 'product_id')}`, `ARRAY['no product split']`); break;
    case 'allsplits':
      base = trx.queryBuilder().from(assets(`NOT ${HAS_OWN_SPLIT('a', 'asset_id')}`, `ARRAY['no asset split']`).unionAll(products(`NOT ${HAS_OWN_SPLIT('p', 'product_id')}`, `ARRAY['no product split']`)).as('u')).select('*');
      break;
    case 'missingroyaltysplits': base = assets(NO_EFFECTIVE, `ARRAY['no split at any level: royalties cannot be allocated']`); break;
    case 'artistsplits':
      base = scoped(trx('artists as r'), scope(trx, auth, 'artist', 'r'))
        .whereRaw(`NOT ${HAS_OWN_SPLIT('r', 'artist_id')}`)
        .modify((b) => (q.search ? b.whereILike('r.name', `%${q.search}%`) : b))
        .select(trx.raw(`'artist' AS kind, r.id, r.name AS title, NULL::text AS code, ARRAY['no default split'] AS issues, r.created_at`));
      break;
    default: throw new Error(name);
  }
  const wrapped = trx.queryBuilder().from(base.as('c'));
  return pageList(wrapped, { page: q.page, size: q.size, sort: q.sort, order: q.order }, CHECKLIST_SORT, 'title', (b) => b.select('c.*'), 'c.id', (r) => ({
    kind: r.kind, id: r.id, title: r.title, code: r.code ?? null, issues: r.issues,
  }), { oneScan: true });
}

export const CHECKLISTS = ['royaltyassets', 'royaltyproducts', 'assetsplits', 'productsplits', 'allsplits', 'missingroyaltysplits', 'artistsplits'] as const;

// ---------------------------------------------------------------------------------------- CSV
/** Postgres type oids of text, varchar and bpchar. */
const TEXT_TYPES = new Set([25, 1043, 1042]);

export type CsvKind = 'asset' | 'product' | 'metadata' | 'artist' | 'user';

function csvQuery(trx: Trx, auth: AuthContext, kind: CsvKind): Knex.QueryBuilder {
  const artistsOf = (link: string, fk: string, alias: string) =>
    `(SELECT string_agg(r.name, '; ' ORDER BY l.position) FROM ${link} l JOIN artists r ON r.tenant_id = l.tenant_id AND r.id = l.artist_id WHERE l.${fk} = ${alias}.id)`;
  switch (kind) {
    case 'asset':
      return scoped(trx('assets as a'), scope(trx, auth, 'asset', 'a'))
        .select(trx.raw(`a.id, a.title, a.isrc, a.type, a.version, a.display_artist, ${artistsOf('asset_artists', 'asset_id', 'a')} AS artists,
          array_to_string(a.main_genre, '; ') AS main_genre, a.iswc, a.external_id, a.is_draft, a.created_at`))
        .orderBy(['a.created_at', 'a.id']);
    case 'product':
      return scoped(trx('products as p'), scope(trx, auth, 'product', 'p'))
        .select(trx.raw(`p.id, p.upc, p.title, p.display_artist, ${artistsOf('product_artists', 'product_id', 'p')} AS artists, p.type, p.format,
          p.release_date, p.label, p.catalog_number, (SELECT count(*) FROM product_assets x WHERE x.product_id = p.id) AS tracks, p.is_draft, p.created_at`))
        .orderBy(['p.created_at', 'p.id']);
    case 'metadata':
      return scoped(trx('products as p'), scope(trx, auth, 'product', 'p'))
        .leftJoin('product_assets as pa', (j) => j.on('pa.tenant_id', 'p.tenant_id').andOn('pa.product_id', 'p.id'))
        .leftJoin('assets as a', (j) => j.on('a.tenant_id', 'pa.tenant_id').andOn('a.id', 'pa.asset_id'))
        .select(trx.raw(`p.upc, p.title AS product_title, p.display_artist AS product_artist, p.type, p.format, p.release_date, p.label, p.catalog_number,
          pa.disc_number, pa.track_number, a.isrc, a.title AS track_title, a.version, a.display_artist AS track_artist, a.iswc,
          array_to_string(a.main_genre, '; ') AS genre`))
        .orderBy(['p.created_at', 'p.id', 'pa.disc_number', 'pa.track_number']);
    case 'artist':
      return scoped(trx('artists as r'), scope(trx, auth, 'artist', 'r'))
        .select(trx.raw(`r.id, r.name, r.external_id, r.country, (SELECT count(*) FROM asset_artists x WHERE x.artist_id = r.id) AS assets,
          (SELECT count(*) FROM product_artists x WHERE x.artist_id = r.id) AS products,
          EXISTS (SELECT 1 FROM splits s WHERE s.artist_id = r.id) AS has_default_split, r.created_at`))
        .orderBy(['r.name', 'r.id']);
    case 'user':
      return trx('tenant_users as tu')
        .join('users as u', 'u.id', 'tu.user_id')
        .select(trx.raw(`tu.id, u.email, u.first_name, u.last_name, tu.role, tu.status,
          (SELECT string_agg(r.name, '; ') FROM artist_users au JOIN artists r ON r.tenant_id = au.tenant_id AND r.id = au.artist_id WHERE au.tenant_user_id = tu.id) AS artists,
          tu.created_at`))
        .orderBy(['tu.created_at', 'tu.id']);
  }
  throw new Error(kind);
}

/**
 * A CSV download as a stream. The route runs without a transaction; this opens the tenant
 * transaction and holds it until the last row has flowed to the reader. A failure after
 * the first byte ends the stream with that error (logged).
 */
export function openCsv(svc: Pick<AppServices, 'db' | 'log'>, tenantId: number, auth: AuthContext, kind: CsvKind): Readable {
  return copyCsv(svc, tenantId, (trx) => csvQuery(trx, auth, kind));
}

/** Any query of the workspace streamed as CSV with a header row, as openCsv does (its bindings are inlined: no caller text in it). */
export function copyCsv(svc: Pick<AppServices, 'db' | 'log'>, tenantId: number, query: (trx: Trx) => Knex.QueryBuilder | Knex.Raw): Readable {
  const out = new PassThrough();
  void withTenant(svc.db.app, tenantId, async (trx) => {
    const sql = query(trx).toQuery();
    // Text columns go through the export rule's formula guard (docs/exports.md); their names
    // and types come from the query itself, so a column added to a download is guarded too.
    const conn = await rawConnection(trx);
    const { fields } = await conn.query(`SELECT * FROM (${sql}) x LIMIT 0`);
    const cols = fields.map(({ name, dataTypeID }) => {
      const col = `x."${name.replace(/"/g, '""')}"`;
      return TEXT_TYPES.has(dataTypeID) ? `${neutraliseSql(col)} AS "${name.replace(/"/g, '""')}"` : col;
    });
    // COPY quotes only a cell with a comma, quote or line break: text columns are always quoted,
    // so a cell holding `;` or a tab stays whole in a spreadsheet that splits on them.
    const text = fields.filter(({ dataTypeID }) => TEXT_TYPES.has(dataTypeID)).map(({ name }) => `"${name.replace(/"/g, '""')}"`);
    const force = text.length ? `, FORCE_QUOTE (${text.join(', ')})` : '';
    const src = conn.query(pgCopy.to(`COPY (SELECT ${cols.join(', ')} FROM (${sql}) x) TO STDOUT WITH (FORMAT csv, HEADER${force})`));
    await pipeline(src, out);
  }).catch((err) => {
    svc.log.error({ err }, 'csv download failed');
    out.destroy(err);
  });
  return out;
}

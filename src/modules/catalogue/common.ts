/**
 * Shared catalogue plumbing: list paging/sorting/search (one convention for every list),
 * "own artists" scoping, the acting member for history, artist resolution.
 */
import type { Knex } from 'knex';
import type { Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';
import { NO_MEMBER, ownOnly, seesWorkspace } from '../../domain/roles';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { normaliseIsrc, normaliseUpc } from './identifiers';
import { orderSql, resolveSort, type SortColumns } from '../../http/list-sort';
import { emitEvent } from '../webhooks/events';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ListQuery {
  page?: number;
  size?: number;
  search?: string;
  sort?: string;
  order?: 'asc' | 'desc';
}

/**
 * One list convention: `page` (from 1), `size` (default 20, max 200), `sort` and `order`
 * (http/list-sort: a field of the item, from `sortable`; 400 naming any other), `search` (case-insensitive substring of title/name; a value that normalises
 * to an ISRC or UPC also matches those exactly; and artist names). Entity filters narrow
 * further. Ties break on id so pages never overlap.
 */
export async function pageList<T>(
  base: Knex.QueryBuilder,
  q: ListQuery,
  sortable: SortColumns,
  defaultSort: string,
  select: (b: Knex.QueryBuilder) => Knex.QueryBuilder,
  idColumn: string,
  map: (r: Record<string, unknown>) => T | Promise<T>,
  opts: { oneScan?: boolean } = {},
) {
  const page = q.page ?? 1;
  const size = q.size ?? 20;
  const sort = resolveSort(q, sortable, defaultSort);
  const count = async () => Number((await base.clone().clearSelect().count<{ count: string }[]>({ count: '*' }))[0]!.count);
  const rowsOf = select(base.clone())
    .orderByRaw(orderSql(sort))
    .orderBy(idColumn, sort.order)
    .limit(size)
    .offset((page - 1) * size);
  // `oneScan`: a costly base (every row tested) read once, the count a window over the same
  // rows; an empty first page has none, and only a page past the end counts apart
  const rows = (await (opts.oneScan ? rowsOf.select(base.client.raw('count(*) OVER () AS "__total"')) : rowsOf)) as Record<string, unknown>[];
  const total = !opts.oneScan ? await count() : rows.length ? Number(rows[0]!.__total) : page === 1 ? 0 : await count();
  const data: T[] = [];
  for (const r of rows) {
    delete r.__total;
    data.push(await map(r));
  }
  return { data, pagination: { page, size, total } };
}

/** Search across title (or name), ISRC, UPC and artist names, the same way for every entity. */
export function applySearch(
  b: Knex.QueryBuilder,
  search: string | undefined,
  cols: { text: string; isrc?: string; upc?: string; artistLink?: { table: string; fk: string; id: string } },
): void {
  const s = search?.trim();
  if (!s) return;
  const like = `%${s.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
  b.where((w) => {
    w.whereILike(cols.text, like);
    const isrc = cols.isrc ? normaliseIsrc(s) : null;
    if (isrc) w.orWhere(cols.isrc!, isrc);
    const upc = cols.upc && /^\s*\d[\d\s-]{5,}$/.test(s) ? normaliseUpc(s) : null;
    if (upc) w.orWhere(cols.upc!, upc);
    if (cols.artistLink) {
      const l = cols.artistLink;
      w.orWhereExists((e) =>
        e
          .select(e.client.raw('1'))
          .from(`${l.table} as al`)
          .join('artists as sa', (j) => j.on('sa.tenant_id', 'al.tenant_id').andOn('sa.id', 'al.artist_id'))
          .whereRaw(`al.${l.fk} = ${l.id}`)
          .whereILike('sa.name', like),
      );
    }
  });
}

/** Admins and owners see the whole workspace; others only what is tied to their own artists. */
export const seesAll = seesWorkspace;

export type Entity = 'asset' | 'product' | 'artist' | 'split' | 'user';

/**
 * WHERE fragment limiting `alias` rows of an entity to what the caller owns through their
 * artists (the `own` scope of the role matrix, docs/auth.md): those artists, their
 * recordings and products, the splits of any of these, and the members tied to the same
 * artists. null: everything (admins and owners).
 */
export function ownScope(trx: Trx, auth: AuthContext, entity: Entity, alias: string): Knex.Raw | null {
  const member = ownOnly(auth);
  if (member === null) return null;
  // inlined into the SQL text (the CSV COPY takes no bindings): only ever a uuid
  const me = UUID_RE.test(member) ? member : NO_MEMBER;
  const own = `(SELECT artist_id FROM artist_users WHERE tenant_user_id = '${me}'::uuid)`;
  const assets = `(SELECT asset_id FROM asset_artists WHERE artist_id IN ${own})`;
  const products = `(SELECT product_id FROM product_artists WHERE artist_id IN ${own})`;
  switch (entity) {
    case 'asset': return trx.raw(`${alias}.id IN ${assets}`);
    case 'product': return trx.raw(`${alias}.id IN ${products}`);
    case 'artist': return trx.raw(`${alias}.id IN ${own}`);
    case 'split': return trx.raw(`(${alias}.artist_id IN ${own} OR ${alias}.asset_id IN ${assets} OR ${alias}.product_id IN ${products})`);
    case 'user': return trx.raw(`(${alias}.id = '${me}'::uuid OR ${alias}.id IN (SELECT tenant_user_id FROM artist_users WHERE artist_id IN ${own}))`);
  }
}

const ENTITY_TABLE = { asset: ['assets', 'Asset', 'ASSET_NOT_FOUND'], product: ['products', 'Product', 'PRODUCT_NOT_FOUND'], artist: ['artists', 'Artist', 'ARTIST_NOT_FOUND'], split: ['splits', 'Split', 'SPLIT_NOT_FOUND'] } as const;

/** 404 (as if absent) for a catalogue item outside the caller's own scope. */
export async function assertOwnItem(trx: Trx, auth: AuthContext, entity: Exclude<Entity, 'user'>, id: string): Promise<void> {
  const s = ownScope(trx, auth, entity, 't');
  if (!s) return;
  const [table, what, code] = ENTITY_TABLE[entity];
  if (!(await trx(`${table} as t`).where('t.id', id).whereRaw(s).first('t.id'))) throw new NotFoundError(what, code);
}

/**
 * The ownership check of the catalogue's resource routes (checkingOwnership): the item a path
 * names (`/artist/:id…`, `/artist/stats/:id`, `/asset/:id…`, `/product/:id…`, `/split/:id…`).
 */
export async function assertOwnItemOfPath(trx: Trx, auth: AuthContext, path: string, params: Record<string, string>): Promise<void> {
  const m = /^\/(artist|asset|product|split)\/(?:stats\/)?:id(?:\/|$)/.exec(path);
  if (m) await assertOwnItem(trx, auth, m[1] as Exclude<Entity, 'user'>, params.id!);
}

/** Record who makes split changes in this transaction (read by the split_history trigger). */
export async function setActor(trx: Trx, auth: AuthContext | null, note?: string): Promise<void> {
  await trx.raw(`SELECT set_config('app.tenant_user_id', ?, true), set_config('app.change_note', ?, true)`, [auth?.tenantUserId ?? '', note ?? '']);
}

/**
 * Artists named in input: a uuid must be an artist of this workspace; any other string is
 * an artist name, reused case-insensitively or created. Returns ids in input order.
 */
export async function resolveArtists(trx: Trx, tenantId: number, refs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const raw of refs) {
    const ref = raw.trim();
    if (!ref) continue;
    if (UUID_RE.test(ref)) {
      const a = await trx('artists').where({ id: ref }).first('id');
      if (!a) throw new ValidationError('Unknown artist', [`artist ${ref} does not exist`], 'UNKNOWN_ARTIST');
      out.push(a.id);
    } else {
      let a = await trx('artists').whereRaw('lower(name) = lower(?)', [ref]).orderBy('created_at').first('id');
      if (!a) {
        [a] = await trx('artists').insert({ tenant_id: tenantId, name: ref }).returning('id');
        await emitEvent(trx, tenantId, 'artist.created', { artistId: a.id, name: ref, externalId: null, country: null });
      }
      out.push(a.id);
    }
  }
  return [...new Set(out)];
}

export async function setLinks(trx: Trx, tenantId: number, table: 'asset_artists' | 'product_artists', fk: 'asset_id' | 'product_id', id: string, artistIds: string[]) {
  await trx(table).where({ [fk]: id }).delete();
  if (artistIds.length) await trx(table).insert(artistIds.map((artist_id, position) => ({ tenant_id: tenantId, [fk]: id, artist_id, position })));
}

export function iso(d: unknown): string | null {
  return d == null ? null : new Date(d as string).toISOString();
}

export function dateOnly(d: unknown): string | null {
  if (d == null) return null;
  if (typeof d === 'string') return d.slice(0, 10);
  const x = d as Date;
  return `${x.getFullYear()}-${String(x.getMonth() + 1).padStart(2, '0')}-${String(x.getDate()).padStart(2, '0')}`;
}

export async function mustExist(trx: Trx, table: string, id: string, what: string): Promise<void> {
  if (!(await trx(table).where({ id }).first('id'))) throw new NotFoundError(what);
}

/**
 * The inheritance chain and effective values. Most specific first:
 *
 *   user → artist(s) → label(s) → catalog(s) → tenant → built-in default
 *
 * A user's artists are the artists the member is tied to (artist_users); an artist's label
 * comes from label_artists (one per artist), a label's catalog from labels.catalog_id. An
 * asset, product or release maps to its artists (by position; a release's own artist first,
 * then its product's), to the label named on it (products.label / releases.label, matched by
 * name) before its artists' labels, and to the acting member (or a named payee) as the user.
 * Where a level has several entities, the earlier one wins.
 */
import type { Trx } from '../../db';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { CATEGORIES, ENTITY_TYPES, KEYS, type Category, type EntityType } from './keys';
import { memberPeople } from '../../repositories/members';
import { catalogueRow, catalogueRows } from '../../repositories/catalogue';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ChainLink {
  level: EntityType;
  entityId: string;
  name: string | null;
}

export interface EffectiveValue {
  value: unknown;
  /** user | artist | label | catalog | tenant, or `default` (built in, no level sets it) */
  level: EntityType | 'default';
  entityId: string | null;
  settingId: string | null;
  /** Less specific values this one hides, nearest first. */
  overrides: { level: EntityType; entityId: string; settingId: string; value: unknown }[];
}

export type Effective = Record<Category, Record<string, EffectiveValue>>;

/** The row of `table` with this id, or a 404 naming `what` with `code` (an id that is no UUID is absent too). */
export async function rowOr404(trx: Trx, table: string, id: string, what: string, code: string) {
  const r = UUID_RE.test(id) ? await trx(table).where({ id }).first() : null;
  if (!r) throw new NotFoundError(what, code);
  return r;
}

function uuidOr404(id: string, what: string): string {
  if (!UUID_RE.test(id)) throw new NotFoundError(what, `${what.toUpperCase()}_NOT_FOUND`);
  return id.toLowerCase();
}

/** Look an entity up in the caller's workspace: its canonical id and display name; 404 when absent. */
export async function findEntity(trx: Trx, tenantId: number, type: EntityType, rawId: string): Promise<ChainLink> {
  if (!(ENTITY_TYPES as readonly string[]).includes(type)) {
    throw new ValidationError('Invalid entity type', [`entityType must be one of ${ENTITY_TYPES.join(', ')}`], 'INVALID_ENTITY_TYPE');
  }
  if (type === 'tenant') {
    const t = await trx('tenants').where({ id: tenantId }).first('uuid', 'name');
    // `current` stands for the caller's workspace; another workspace's id is simply not found
    if (!t || (rawId !== 'current' && rawId.toLowerCase() !== t.uuid)) throw new NotFoundError('Workspace', 'TENANT_NOT_FOUND');
    return { level: 'tenant', entityId: t.uuid, name: t.name };
  }
  if (type === 'user') {
    const id = uuidOr404(rawId, 'User');
    const [u] = await memberPeople(trx, [id]);
    if (!u) throw new NotFoundError('User', 'USER_NOT_FOUND');
    const name = [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email;
    return { level: 'user', entityId: u.id, name };
  }
  const table = { artist: 'artists', label: 'labels', catalog: 'catalogs' }[type];
  const what = type[0]!.toUpperCase() + type.slice(1);
  const id = uuidOr404(rawId, what);
  const r = await trx(table).where({ id }).first('id', 'name');
  if (!r) throw new NotFoundError(what, `${type.toUpperCase()}_NOT_FOUND`);
  return { level: type, entityId: r.id, name: r.name };
}

interface ChainStart {
  userId?: string | null;
  artistIds?: string[];
  labelIds?: string[];
  catalogIds?: string[];
}

/** Build the chain below the given starting points (each level deduplicated, order kept). */
export async function buildChain(trx: Trx, tenantId: number, start: ChainStart): Promise<ChainLink[]> {
  const chain: ChainLink[] = [];
  const artists = [...(start.artistIds ?? [])];
  if (start.userId) {
    chain.push(await findEntity(trx, tenantId, 'user', start.userId));
    const own = await trx('artist_users').where({ tenant_user_id: start.userId }).orderBy(['created_at', 'artist_id']).pluck('artist_id');
    artists.push(...own);
  }
  const artistIds = [...new Set(artists)];
  const artistRows = await catalogueRows(trx, 'artists', artistIds, ['id', 'name']);
  for (const id of artistIds) {
    const a = artistRows.find((r) => r.id === id);
    if (a) chain.push({ level: 'artist', entityId: a.id, name: a.name });
  }
  const labelIds = [...(start.labelIds ?? [])];
  if (artistIds.length) {
    const links = await trx('label_artists').whereIn('artist_id', artistIds).select('artist_id', 'label_id');
    for (const id of artistIds) for (const l of links) if (l.artist_id === id) labelIds.push(l.label_id);
  }
  const uniqLabels = [...new Set(labelIds)];
  const labelRows = uniqLabels.length ? await trx('labels').whereIn('id', uniqLabels).select('id', 'name', 'catalog_id') : [];
  const catalogIds = [...(start.catalogIds ?? [])];
  for (const id of uniqLabels) {
    const l = labelRows.find((r) => r.id === id);
    if (!l) continue;
    chain.push({ level: 'label', entityId: l.id, name: l.name });
    if (l.catalog_id) catalogIds.push(l.catalog_id);
  }
  const uniqCatalogs = [...new Set(catalogIds)];
  const catRows = uniqCatalogs.length ? await trx('catalogs').whereIn('id', uniqCatalogs).select('id', 'name') : [];
  for (const id of uniqCatalogs) {
    const c = catRows.find((r) => r.id === id);
    if (c) chain.push({ level: 'catalog', entityId: c.id, name: c.name });
  }
  chain.push(await findEntity(trx, tenantId, 'tenant', 'current'));
  return chain;
}

/** The chain of a settings entity: itself, then everything above it. */
export async function chainForEntity(trx: Trx, tenantId: number, type: EntityType, id: string): Promise<ChainLink[]> {
  const e = await findEntity(trx, tenantId, type, id);
  switch (type) {
    case 'user': return buildChain(trx, tenantId, { userId: e.entityId });
    case 'artist': return buildChain(trx, tenantId, { artistIds: [e.entityId] });
    case 'label': return buildChain(trx, tenantId, { labelIds: [e.entityId] });
    case 'catalog': return buildChain(trx, tenantId, { catalogIds: [e.entityId] });
    default: return buildChain(trx, tenantId, {});
  }
}

export async function labelsNamed(trx: Trx, name: unknown): Promise<string[]> {
  if (typeof name !== 'string' || !name.trim()) return [];
  return trx('labels').whereRaw('lower(name) = lower(?)', [name.trim()]).pluck('id');
}

/** The chain of a catalogue item (asset, product or release), with the acting member or a payee as the user. */
export async function chainForItem(trx: Trx, tenantId: number, kind: 'asset' | 'product' | 'release', id: string, userId: string | null): Promise<ChainLink[]> {
  const what = kind[0]!.toUpperCase() + kind.slice(1);
  if (!UUID_RE.test(id)) throw new NotFoundError(what, `${kind.toUpperCase()}_NOT_FOUND`);
  if (kind === 'asset') {
    if (!(await catalogueRow(trx, 'assets', id, ['id']))) throw new NotFoundError(what, 'ASSET_NOT_FOUND');
    const artistIds = await trx('asset_artists').where({ asset_id: id }).orderBy(['position', 'artist_id']).pluck('artist_id');
    return buildChain(trx, tenantId, { userId, artistIds });
  }
  if (kind === 'product') {
    const p = await catalogueRow(trx, 'products', id, ['id', 'label']);
    if (!p) throw new NotFoundError(what, 'PRODUCT_NOT_FOUND');
    const artistIds = await trx('product_artists').where({ product_id: id }).orderBy(['position', 'artist_id']).pluck('artist_id');
    return buildChain(trx, tenantId, { userId, artistIds, labelIds: await labelsNamed(trx, p.label) });
  }
  const r = await trx('releases').where({ id }).first('id', 'artist_id', 'product_id', 'label');
  if (!r) throw new NotFoundError(what, 'RELEASE_NOT_FOUND');
  const artistIds: string[] = r.artist_id ? [r.artist_id] : [];
  if (r.product_id) artistIds.push(...(await trx('product_artists').where({ product_id: r.product_id }).orderBy(['position', 'artist_id']).pluck('artist_id')));
  return buildChain(trx, tenantId, { userId, artistIds, labelIds: await labelsNamed(trx, r.label) });
}

/** Effective value of every key any level sets, plus the built-in defaults nobody overrides. */
export async function resolveChain(trx: Trx, chain: ChainLink[]): Promise<Effective> {
  const rows = chain.length
    ? await trx('default_settings')
        .where((w) => {
          for (const l of chain) w.orWhere({ entity_type: l.level, entity_id: l.entityId });
        })
        .select('id', 'entity_type', 'entity_id', 'category', 'key', 'value')
    : [];
  const rank = (r: { entity_type: string; entity_id: string }) => chain.findIndex((l) => l.level === r.entity_type && l.entityId === r.entity_id);
  rows.sort((a, b) => rank(a) - rank(b));
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, {} as Record<string, EffectiveValue>])) as Effective;
  for (const r of rows) {
    const cat = out[r.category as Category];
    const hit = cat[r.key];
    if (!hit) cat[r.key] = { value: r.value, level: r.entity_type, entityId: r.entity_id, settingId: r.id, overrides: [] };
    else hit.overrides.push({ level: r.entity_type, entityId: r.entity_id, settingId: r.id, value: r.value });
  }
  for (const c of CATEGORIES) {
    for (const [key, def] of Object.entries(KEYS[c])) {
      if (def.default !== undefined && !out[c][key]) out[c][key] = { value: def.default, level: 'default', entityId: null, settingId: null, overrides: [] };
    }
  }
  return out;
}

/** Plain values of one category (for services that only need the values). */
export function valuesOf(eff: Effective, c: Category): Record<string, unknown> {
  return Object.fromEntries(Object.entries(eff[c]).map(([k, v]) => [k, v.value]));
}

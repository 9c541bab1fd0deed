/**
 * Labels and catalogs: the two levels of the default-settings chain between artists and the
 * workspace. A catalog groups labels; a label groups artists (an artist is in at most one
 * label: adding it to another moves it).
 */
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { NotFoundError, ValidationError, PG, pgCode } from '../../lib/errors';
import { rowOr404, UUID_RE } from './chain';
import { existingIds } from '../../repositories/catalogue';

function iso(d: unknown): string | null {
  return d ? new Date(d as string).toISOString() : null;
}

async function uniqueName<T>(trx: Trx, what: string, name: string, fn: (sp: Trx) => Promise<T>): Promise<T> {
  try {
    return await trx.transaction((sp) => fn(sp));
  } catch (err) {
    if (pgCode(err) === PG.UNIQUE_VIOLATION) throw new ValidationError(`A ${what} named "${name}" already exists`, ['body.name must be unique in the workspace'], 'DUPLICATE_NAME');
    throw err;
  }
}

// ---------------------------------------------------------------------------------------
// Catalogs
// ---------------------------------------------------------------------------------------

/** For each parent row, the `pick` column of its children in `table` (joined by `fk`), in `order`. */
async function childrenOf(trx: Trx, rows: Record<string, unknown>[], table: string, fk: string, pick: string, order: string) {
  const ids = rows.map((r) => r.id as string);
  const kids = ids.length ? await trx(table).whereIn(fk, ids).orderByRaw(order).select(pick, fk) : [];
  return (r: Record<string, unknown>) => kids.filter((k) => k[fk] === r.id).map((k) => k[pick] as string);
}

async function catalogViews(trx: Trx, rows: Record<string, unknown>[]) {
  const labels = await childrenOf(trx, rows, 'labels', 'catalog_id', 'id', 'lower(name)');
  return rows.map((r) => ({
    id: r.id as string,
    name: r.name as string,
    description: (r.description as string) ?? null,
    labels: labels(r),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  }));
}

function catalogRow(trx: Trx, id: string) {
  return rowOr404(trx, 'catalogs', id, 'Catalog', 'CATALOG_NOT_FOUND');
}

export async function listCatalogs(trx: Trx) {
  return catalogViews(trx, await trx('catalogs').orderByRaw('lower(name)'));
}

export async function getCatalog(trx: Trx, id: string) {
  return (await catalogViews(trx, [await catalogRow(trx, id)]))[0]!;
}

export async function createCatalog(trx: Trx, tenantId: number, p: { name: string; description?: string | null }) {
  const [r] = await uniqueName(trx, 'catalog', p.name, (sp) => sp('catalogs').insert({ tenant_id: tenantId, name: p.name.trim(), description: p.description ?? null }).returning('*'));
  return getCatalog(trx, r.id);
}

export async function updateCatalog(trx: Trx, id: string, p: { name?: string; description?: string | null }) {
  await catalogRow(trx, id);
  const upd: Record<string, unknown> = { updated_at: clock.now() };
  if (p.name !== undefined) upd.name = p.name.trim();
  if (p.description !== undefined) upd.description = p.description;
  await uniqueName(trx, 'catalog', p.name ?? '', (sp) => sp('catalogs').where({ id }).update(upd));
  return getCatalog(trx, id);
}

export async function deleteCatalog(trx: Trx, id: string) {
  const c = await getCatalog(trx, id);
  if (c.labels.length) throw new ValidationError('The catalog still holds labels', [`move or remove its ${c.labels.length} label(s) first: ${c.labels.join(', ')}`], 'CATALOG_IN_USE');
  await trx('default_settings').where({ entity_type: 'catalog', entity_id: c.id }).delete();
  await trx('catalogs').where({ id: c.id }).delete();
}

// ---------------------------------------------------------------------------------------
// Labels
// ---------------------------------------------------------------------------------------

export interface LabelInput {
  name: string;
  catalogId?: string | null;
  artists?: string[];
}

async function labelViews(trx: Trx, rows: Record<string, unknown>[]) {
  const artists = await childrenOf(trx, rows, 'label_artists', 'label_id', 'artist_id', 'created_at, artist_id');
  return rows.map((r) => ({
    id: r.id as string,
    name: r.name as string,
    catalogId: (r.catalog_id as string) ?? null,
    artists: artists(r),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  }));
}

function labelRow(trx: Trx, id: string) {
  return rowOr404(trx, 'labels', id, 'Label', 'LABEL_NOT_FOUND');
}

async function checkCatalog(trx: Trx, id: string | null | undefined) {
  if (id && !(UUID_RE.test(id) && (await trx('catalogs').where({ id }).first('id')))) {
    throw new ValidationError('Unknown catalog', [`body.catalogId: catalog ${id} does not exist`], 'UNKNOWN_CATALOG');
  }
}

async function setArtists(trx: Trx, tenantId: number, labelId: string, artists: string[]) {
  const uniq = [...new Set(artists.map((a) => a.toLowerCase()))];
  const known = await existingIds(trx, 'artists', uniq);
  const unknown = uniq.filter((a) => !known.includes(a));
  if (unknown.length) throw new ValidationError('Unknown artists', unknown.map((a) => `body.artists: artist ${a} does not exist`), 'UNKNOWN_ARTIST');
  await trx('label_artists').where({ label_id: labelId }).whereNotIn('artist_id', uniq).delete();
  for (const a of uniq) {
    await trx.raw(
      `INSERT INTO label_artists (tenant_id, artist_id, label_id) VALUES (?, ?, ?)
       ON CONFLICT (tenant_id, artist_id) DO UPDATE SET label_id = EXCLUDED.label_id, created_at = CASE WHEN label_artists.label_id = EXCLUDED.label_id THEN label_artists.created_at ELSE now() END`,
      [tenantId, a, labelId],
    );
  }
}

export async function listLabels(trx: Trx, q: { catalogId?: string }) {
  const rows = await trx('labels').modify((b) => { if (q.catalogId) b.where({ catalog_id: q.catalogId }); }).orderByRaw('lower(name)');
  return labelViews(trx, rows);
}

export async function getLabel(trx: Trx, id: string) {
  return (await labelViews(trx, [await labelRow(trx, id)]))[0]!;
}

export async function createLabel(trx: Trx, tenantId: number, p: LabelInput) {
  await checkCatalog(trx, p.catalogId);
  const [r] = await uniqueName(trx, 'label', p.name, (sp) => sp('labels').insert({ tenant_id: tenantId, name: p.name.trim(), catalog_id: p.catalogId ?? null }).returning('*'));
  if (p.artists) await setArtists(trx, tenantId, r.id, p.artists);
  return getLabel(trx, r.id);
}

export async function updateLabel(trx: Trx, tenantId: number, id: string, p: Partial<LabelInput>) {
  await labelRow(trx, id);
  await checkCatalog(trx, p.catalogId);
  const upd: Record<string, unknown> = { updated_at: clock.now() };
  if (p.name !== undefined) upd.name = p.name.trim();
  if (p.catalogId !== undefined) upd.catalog_id = p.catalogId;
  await uniqueName(trx, 'label', p.name ?? '', (sp) => sp('labels').where({ id }).update(upd));
  if (p.artists) await setArtists(trx, tenantId, id, p.artists);
  return getLabel(trx, id);
}

export async function deleteLabel(trx: Trx, id: string) {
  const l = await labelRow(trx, id);
  await trx('default_settings').where({ entity_type: 'label', entity_id: l.id }).delete();
  await trx('labels').where({ id: l.id }).delete();
}

/**
 * Artists merged into `targetId` (catalogue merge): the target keeps its own settings and
 * takes each source setting it lacks (the first source wins); with no label of its own it
 * joins the first source's label. Call before the sources are deleted.
 */
export async function mergeArtistLevel(trx: Trx, tenantId: number, targetId: string, sources: string[]): Promise<void> {
  const have = new Set((await trx('default_settings').where({ entity_type: 'artist', entity_id: targetId }).select('category', 'key')).map((r) => `${r.category}.${r.key}`));
  for (const src of sources) {
    for (const s of await trx('default_settings').where({ entity_type: 'artist', entity_id: src }).select('id', 'category', 'key')) {
      if (have.has(`${s.category}.${s.key}`)) continue;
      await trx('default_settings').where({ id: s.id }).update({ entity_id: targetId, updated_at: clock.now() });
      have.add(`${s.category}.${s.key}`);
    }
  }
  await trx('default_settings').where({ entity_type: 'artist' }).whereIn('entity_id', sources).delete();
  if (!(await trx('label_artists').where({ artist_id: targetId }).first('label_id'))) {
    const links = await trx('label_artists').whereIn('artist_id', sources).select('artist_id', 'label_id');
    const first = sources.map((s) => links.find((l) => l.artist_id === s)).find(Boolean);
    if (first) await trx('label_artists').insert({ tenant_id: tenantId, artist_id: targetId, label_id: first.label_id });
  }
}

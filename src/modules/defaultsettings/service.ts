/**
 * Default settings: one `{category, key, value}` per entity and key; clone between entities;
 * templates (the workspace's own and built-in ones) applied to an entity; previews of the
 * effective values (chain.ts). Members may set their own user-level settings; every other
 * write needs an admin.
 */
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { ForbiddenError, NotFoundError, ValidationError, PG, pgCode } from '../../lib/errors';
import { chainForEntity, chainForItem, findEntity, resolveChain, rowOr404, UUID_RE, type ChainLink } from './chain';
import { checkSetting, type Category, type EntityType, type SettingInput } from './keys';

export type { SettingInput };
import { BUILTIN_TEMPLATES } from './templates';

export interface Actor {
  tenantUserId: string | null;
  isAdmin: boolean;
}
export interface EntityRef {
  entityType: EntityType;
  entityId: string;
}

function iso(d: unknown): string | null {
  return d ? new Date(d as string).toISOString() : null;
}

export function settingView(r: Record<string, unknown>) {
  return {
    id: r.id as string,
    entityType: r.entity_type as EntityType,
    entityId: r.entity_id as string,
    category: r.category as Category,
    key: r.key as string,
    value: r.value,
    createdBy: (r.created_by as string) ?? null,
    updatedBy: (r.updated_by as string) ?? null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

function assertCanWrite(actor: Actor, e: ChainLink): void {
  if (actor.isAdmin) return;
  if (e.level === 'user' && e.entityId === actor.tenantUserId) return;
  throw new ForbiddenError('Only admins change default settings other than their own user settings', 'INSUFFICIENT_ROLE');
}

export async function listSettings(trx: Trx, tenantId: number, ref: EntityRef, category?: Category) {
  const e = await findEntity(trx, tenantId, ref.entityType, ref.entityId);
  const rows = await trx('default_settings')
    .where({ entity_type: e.level, entity_id: e.entityId })
    .modify((b) => { if (category) b.where({ category }); })
    .orderBy(['category', 'key']);
  return { entity: { entityType: e.level, entityId: e.entityId, name: e.name }, settings: rows.map(settingView) };
}

export async function createSetting(trx: Trx, tenantId: number, actor: Actor, ref: EntityRef, s: SettingInput) {
  const e = await findEntity(trx, tenantId, ref.entityType, ref.entityId);
  assertCanWrite(actor, e);
  checkSetting(s.category, s.key, s.value);
  const clash = await trx('default_settings').where({ entity_type: e.level, entity_id: e.entityId, category: s.category, key: s.key }).first('id');
  if (clash) {
    throw new ValidationError(`${s.category}.${s.key} is already set on this ${e.level}`, [`change it with PUT /defaultsettings/${e.level}/${e.entityId}/${clash.id}`], 'DUPLICATE_SETTING');
  }
  const [r] = await trx('default_settings')
    .insert({ tenant_id: tenantId, entity_type: e.level, entity_id: e.entityId, category: s.category, key: s.key, value: JSON.stringify(s.value), created_by: actor.tenantUserId, updated_by: actor.tenantUserId })
    .returning('*');
  return settingView(r);
}

async function settingOf(trx: Trx, tenantId: number, ref: EntityRef, settingId: string) {
  const e = await findEntity(trx, tenantId, ref.entityType, ref.entityId);
  const r = UUID_RE.test(settingId) ? await trx('default_settings').where({ id: settingId, entity_type: e.level, entity_id: e.entityId }).first() : null;
  if (!r) throw new NotFoundError('Setting', 'SETTING_NOT_FOUND');
  return { e, r };
}

export async function updateSetting(trx: Trx, tenantId: number, actor: Actor, ref: EntityRef, settingId: string, value: unknown) {
  const { e, r } = await settingOf(trx, tenantId, ref, settingId);
  assertCanWrite(actor, e);
  checkSetting(r.category, r.key, value);
  const [u] = await trx('default_settings').where({ id: r.id }).update({ value: JSON.stringify(value), updated_by: actor.tenantUserId, updated_at: clock.now() }).returning('*');
  return settingView(u);
}

export async function deleteSetting(trx: Trx, tenantId: number, actor: Actor, ref: EntityRef, settingId: string) {
  const { e, r } = await settingOf(trx, tenantId, ref, settingId);
  assertCanWrite(actor, e);
  await trx('default_settings').where({ id: r.id }).delete();
}

export async function getSetting(trx: Trx, settingId: string) {
  const r = UUID_RE.test(settingId) ? await trx('default_settings').where({ id: settingId }).first() : null;
  if (!r) throw new NotFoundError('Setting', 'SETTING_NOT_FOUND');
  return settingView(r);
}

/** Write settings onto one entity: new keys are created; existing ones replaced only with `overwrite`. */
async function writeMany(trx: Trx, tenantId: number, actor: Actor, e: ChainLink, items: SettingInput[], overwrite: boolean) {
  const res = { created: [] as string[], updated: [] as string[], skipped: [] as string[] };
  const existing = await trx('default_settings').where({ entity_type: e.level, entity_id: e.entityId }).select('id', 'category', 'key', 'value');
  for (const s of items) {
    const name = `${s.category}.${s.key}`;
    const cur = existing.find((x) => x.category === s.category && x.key === s.key);
    if (!cur) {
      await trx('default_settings').insert({ tenant_id: tenantId, entity_type: e.level, entity_id: e.entityId, category: s.category, key: s.key, value: JSON.stringify(s.value), created_by: actor.tenantUserId, updated_by: actor.tenantUserId });
      res.created.push(name);
    } else if (overwrite) {
      await trx('default_settings').where({ id: cur.id }).update({ value: JSON.stringify(s.value), updated_by: actor.tenantUserId, updated_at: clock.now() });
      res.updated.push(name);
    } else res.skipped.push(name);
  }
  return res;
}

export async function cloneSettings(trx: Trx, tenantId: number, actor: Actor, p: { source: EntityRef; targets: EntityRef[]; categories?: Category[]; overwrite?: boolean }) {
  const src = await findEntity(trx, tenantId, p.source.entityType, p.source.entityId);
  const items = (await trx('default_settings').where({ entity_type: src.level, entity_id: src.entityId }).orderBy(['category', 'key']))
    .filter((r) => !p.categories || p.categories.includes(r.category))
    .map((r) => ({ category: r.category, key: r.key, value: r.value }) as SettingInput);
  const targets: ChainLink[] = [];
  for (const [i, t] of p.targets.entries()) {
    let e: ChainLink;
    try {
      e = await findEntity(trx, tenantId, t.entityType, t.entityId);
    } catch (err) {
      if (err instanceof NotFoundError) throw new ValidationError('Unknown clone target', [`body.targets[${i}]: ${t.entityType} ${t.entityId} not found`], 'UNKNOWN_TARGET');
      throw err;
    }
    if (e.level === src.level && e.entityId === src.entityId) throw new ValidationError('A clone target is the source', [`body.targets[${i}] is the source entity`], 'SAME_ENTITY');
    assertCanWrite(actor, e);
    targets.push(e);
  }
  const out = [];
  for (const e of targets) out.push({ entityType: e.level, entityId: e.entityId, ...(await writeMany(trx, tenantId, actor, e, items, !!p.overwrite)) });
  return { source: { entityType: src.level, entityId: src.entityId }, settings: items.length, targets: out };
}

// ---------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------

function checkItems(items: SettingInput[], where: string): void {
  const seen = new Set<string>();
  items.forEach((s, i) => {
    checkSetting(s.category, s.key, s.value, `${where}[${i}]`);
    const k = `${s.category}.${s.key}`;
    if (seen.has(k)) throw new ValidationError('Repeated setting in template', [`${where}[${i}]: ${k} appears twice`], 'DUPLICATE_SETTING');
    seen.add(k);
  });
}

async function useCounts(trx: Trx): Promise<Map<string, { uses: number; lastUsedAt: string | null }>> {
  const { rows } = await trx.raw<{ rows: { template_key: string; n: string; last: Date }[] }>(
    `SELECT template_key, count(*) AS n, max(applied_at) AS last FROM default_setting_template_uses GROUP BY template_key`,
  );
  return new Map(rows.map((r) => [r.template_key, { uses: Number(r.n), lastUsedAt: iso(r.last) }]));
}

function templateView(r: Record<string, unknown>, counts: Map<string, { uses: number; lastUsedAt: string | null }>) {
  const c = counts.get(r.id as string) ?? { uses: 0, lastUsedAt: null };
  return {
    id: r.id as string,
    name: r.name as string,
    description: (r.description as string) ?? null,
    builtin: !!r.builtin,
    settings: r.settings as SettingInput[],
    uses: c.uses,
    lastUsedAt: c.lastUsedAt,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export async function listTemplates(trx: Trx) {
  const counts = await useCounts(trx);
  const own = await trx('default_setting_templates').orderByRaw('lower(name)');
  return [...own.map((r) => templateView(r, counts)), ...BUILTIN_TEMPLATES.map((b) => templateView({ ...b, builtin: true }, counts))];
}

export async function popularTemplates(trx: Trx, limit: number) {
  const all = await listTemplates(trx);
  return all
    .sort((a, b) => b.uses - a.uses || (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? '') || Number(a.builtin) - Number(b.builtin) || a.name.localeCompare(b.name))
    .slice(0, limit);
}

async function templateRow(trx: Trx, id: string) {
  const b = BUILTIN_TEMPLATES.find((t) => t.id === id);
  if (b) return { ...b, builtin: true };
  return rowOr404(trx, 'default_setting_templates', id, 'Template', 'TEMPLATE_NOT_FOUND');
}

function ownOnly(r: Record<string, unknown>): void {
  if (r.builtin) throw new ValidationError('Built-in templates cannot be changed', ['create a template of your own (POST /defaultsettings/templates) instead'], 'BUILTIN_TEMPLATE');
}

export async function createTemplate(trx: Trx, tenantId: number, actor: Actor, p: { name: string; description?: string | null; settings?: SettingInput[]; from?: EntityRef & { categories?: Category[] } }) {
  let items = p.settings ?? [];
  if (p.from) {
    const e = await findEntity(trx, tenantId, p.from.entityType, p.from.entityId);
    items = (await trx('default_settings').where({ entity_type: e.level, entity_id: e.entityId }).orderBy(['category', 'key']))
      .filter((r) => !p.from!.categories || p.from!.categories.includes(r.category))
      .map((r) => ({ category: r.category, key: r.key, value: r.value }));
  }
  if (!items.length) throw new ValidationError('A template needs settings', ['give body.settings, or body.from naming an entity that has settings'], 'EMPTY_TEMPLATE');
  checkItems(items, 'body.settings');
  const counts = await useCounts(trx);
  const r = await savepoint(trx, p.name, (sp) =>
    sp('default_setting_templates').insert({ tenant_id: tenantId, name: p.name.trim(), description: p.description ?? null, settings: JSON.stringify(items), created_by: actor.tenantUserId }).returning('*'),
  );
  return templateView(r[0], counts);
}

async function savepoint<T>(trx: Trx, name: string, fn: (sp: Trx) => Promise<T>): Promise<T> {
  try {
    return await trx.transaction((sp) => fn(sp));
  } catch (err) {
    if (pgCode(err) === PG.UNIQUE_VIOLATION) throw new ValidationError(`A template named "${name}" already exists`, ['body.name must be unique in the workspace'], 'DUPLICATE_TEMPLATE');
    throw err;
  }
}

export async function updateTemplate(trx: Trx, id: string, p: { name?: string; description?: string | null; settings?: SettingInput[] }) {
  const r = await templateRow(trx, id);
  ownOnly(r);
  const upd: Record<string, unknown> = { updated_at: clock.now() };
  if (p.name !== undefined) upd.name = p.name.trim();
  if (p.description !== undefined) upd.description = p.description;
  if (p.settings !== undefined) {
    if (!p.settings.length) throw new ValidationError('A template needs settings', ['body.settings must not be empty'], 'EMPTY_TEMPLATE');
    checkItems(p.settings, 'body.settings');
    upd.settings = JSON.stringify(p.settings);
  }
  const [u] = await savepoint(trx, p.name ?? '', (sp) => sp('default_setting_templates').where({ id }).update(upd).returning('*'));
  return templateView(u, await useCounts(trx));
}

export async function deleteTemplate(trx: Trx, id: string) {
  const r = await templateRow(trx, id);
  ownOnly(r);
  await trx('default_setting_templates').where({ id }).delete();
}

export async function applyTemplate(trx: Trx, tenantId: number, actor: Actor, id: string, target: EntityRef, overwrite: boolean) {
  const t = await templateRow(trx, id);
  const e = await findEntity(trx, tenantId, target.entityType, target.entityId);
  assertCanWrite(actor, e);
  const res = await writeMany(trx, tenantId, actor, e, t.settings as SettingInput[], overwrite);
  await trx('default_setting_template_uses').insert({ tenant_id: tenantId, template_key: t.id, entity_type: e.level, entity_id: e.entityId, applied_by: actor.tenantUserId });
  return { template: { id: t.id as string, name: t.name as string }, entityType: e.level, entityId: e.entityId, ...res };
}

// ---------------------------------------------------------------------------------------
// Previews
// ---------------------------------------------------------------------------------------

export async function previewEntity(trx: Trx, tenantId: number, ref: EntityRef) {
  const chain = await chainForEntity(trx, tenantId, ref.entityType, ref.entityId);
  return { entityType: chain[0]!.level, entityId: chain[0]!.entityId, chain, settings: await resolveChain(trx, chain) };
}

export async function previewItem(trx: Trx, tenantId: number, kind: 'asset' | 'product' | 'release', id: string, userId: string | null) {
  const chain = await chainForItem(trx, tenantId, kind, id, userId);
  return { entityType: kind, entityId: id.toLowerCase(), chain, settings: await resolveChain(trx, chain) };
}

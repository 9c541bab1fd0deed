/**
 * Source patterns as data: global patterns (built-in, or posted by a super-admin; tenant_id
 * NULL) and tenant-owned ones, each with immutable versions. Built-ins are synced from
 * `builtinPatterns` (parsers/) automatically — at worker start and lazily before the first
 * detection or listing in any process — so a new or changed built-in lands without a manual
 * step: a content hash not seen before for that key becomes a new version.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { builtinPatterns, validatePattern, type SourcePattern } from '../../../parsers';
import type { Trx } from '../../db';
import { NotFoundError, ValidationError, ConflictError } from '../../lib/errors';
import { rowView } from '../../lib/row-view';

export interface LoadedPattern {
  id: string;
  tenantId: number | null;
  key: string;
  name: string;
  aggregator: string | null;
  builtin: boolean;
  active: boolean;
  version: number;
  definition: SourcePattern;
}

/** Canonical JSON (sorted keys): the same pattern always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
export function patternHash(def: unknown): string {
  return crypto.createHash('sha256').update(canonical(def)).digest('hex');
}

export function checkPattern(obj: unknown): SourcePattern {
  const v = validatePattern(obj);
  if (!v.ok) throw new ValidationError('Invalid source pattern', v.errors, 'INVALID_PATTERN');
  return v.pattern;
}

/** Insert or version the built-ins. Owner pool (global rows). Idempotent; safe to run concurrently. */
export async function syncBuiltinPatterns(owner: Knex): Promise<{ created: number; versioned: number }> {
  let created = 0, versioned = 0;
  for (const def of builtinPatterns) {
    const hash = patternHash(def);
    await owner.transaction(async (trx) => {
      await trx.raw(`select pg_advisory_xact_lock(hashtext('rondo.builtin_patterns'))`);
      const row = await trx('source_patterns').whereNull('tenant_id').where({ key: def.key }).first();
      if (!row) {
        const [p] = await trx('source_patterns')
          .insert({ tenant_id: null, key: def.key, name: def.name, aggregator: def.aggregator, builtin: true, current_version: 1 })
          .returning('id');
        await trx('source_pattern_versions').insert({ pattern_id: p.id, version: 1, tenant_id: null, definition: JSON.stringify(def), content_hash: hash });
        created++;
        return;
      }
      const seen = await trx('source_pattern_versions').where({ pattern_id: row.id, content_hash: hash }).first('version');
      if (seen) return;
      const version = row.current_version + 1;
      await trx('source_pattern_versions').insert({ pattern_id: row.id, version, tenant_id: null, definition: JSON.stringify(def), content_hash: hash });
      await trx('source_patterns').where({ id: row.id }).update({ current_version: version, name: def.name, aggregator: def.aggregator, builtin: true, updated_at: trx.fn.now() });
      versioned++;
    });
  }
  return { created, versioned };
}

const synced = new WeakMap<Knex, Promise<unknown>>();
/** Built-ins synced once per process and database (lazily). */
export function ensureBuiltinPatterns(owner: Knex): Promise<unknown> {
  let p = synced.get(owner);
  if (!p) {
    p = syncBuiltinPatterns(owner).catch((err) => {
      synced.delete(owner);
      throw err;
    });
    synced.set(owner, p);
  }
  return p;
}

function patternSelect(q: Knex.QueryBuilder): Knex.QueryBuilder {
  return q
    .join('source_pattern_versions as v', function () {
      this.on('v.pattern_id', '=', 'p.id').andOn('v.version', '=', 'p.current_version');
    })
    .select('p.id', 'p.tenant_id', 'p.key', 'p.name', 'p.aggregator', 'p.builtin', 'p.active', 'p.current_version as version', 'v.definition', 'p.created_at', 'p.updated_at');
}

function toLoaded(r: Record<string, any>): LoadedPattern {
  return {
    id: r.id, tenantId: r.tenant_id, key: r.key, name: r.name, aggregator: r.aggregator, builtin: r.builtin,
    active: r.active, version: r.version, definition: r.definition as SourcePattern,
  };
}

/**
 * The patterns detection scores for a tenant: active global patterns the tenant has not
 * deactivated, plus the tenant's own patterns with an active tenant source. A tenant's own
 * pattern wins over a global one with the same key.
 */
export async function patternsForDetection(trx: Trx): Promise<LoadedPattern[]> {
  const rows = await patternSelect(trx('source_patterns as p'))
    .leftJoin('tenant_sources as ts', 'ts.source_pattern_id', 'p.id')
    .select(trx.raw('ts.active as tenant_active'))
    .where((q) => q.where((g) => g.whereNull('p.tenant_id').where('p.active', true).where((x) => x.whereNull('ts.active').orWhere('ts.active', true))).orWhere((o) => o.whereNotNull('p.tenant_id').where('ts.active', true)));
  const byKey = new Map<string, LoadedPattern>();
  for (const r of rows) {
    const lp = toLoaded(r);
    const prev = byKey.get(lp.key);
    if (!prev || (prev.tenantId === null && lp.tenantId !== null)) byKey.set(lp.key, lp);
  }
  return [...byKey.values()];
}

/** One pattern version visible to the tenant (global or own), by id, or by key (own first). */
export async function findPattern(trx: Trx, ref: { id?: string; key?: string }, version?: number): Promise<LoadedPattern | null> {
  const q = trx('source_patterns as p')
    .join('source_pattern_versions as v', function () {
      this.on('v.pattern_id', '=', 'p.id');
    })
    .select('p.id', 'p.tenant_id', 'p.key', 'p.name', 'p.aggregator', 'p.builtin', 'p.active', 'v.version', 'v.definition');
  if (version !== undefined) q.where('v.version', version);
  else q.whereRaw('v.version = p.current_version');
  if (ref.id) q.where('p.id', ref.id);
  else if (ref.key) q.where('p.key', ref.key).orderByRaw('p.tenant_id IS NULL'); // own first
  else return null;
  const r = await q.first();
  return r ? toLoaded(r) : null;
}

export function publicPattern(p: LoadedPattern & { created_at?: Date; updated_at?: Date }, withDefinition = false) {
  return {
    id: p.id,
    key: p.key,
    name: p.name,
    aggregator: p.aggregator,
    scope: p.tenantId === null ? 'global' : 'tenant',
    builtin: p.builtin,
    active: p.active,
    version: p.version,
    ...(withDefinition ? { pattern: p.definition } : {}),
  };
}

// ---------------------------------------------------------------------------- global (super-admin)

export async function listGlobalPatterns(owner: Knex, opts: { includeInactive?: boolean } = {}) {
  await ensureBuiltinPatterns(owner);
  const q = patternSelect(owner('source_patterns as p')).whereNull('p.tenant_id').orderBy('p.key');
  if (!opts.includeInactive) q.where('p.active', true);
  return (await q).map((r: Record<string, any>) => publicPattern(toLoaded(r)));
}

export async function getGlobalPattern(owner: Knex, id: string) {
  await ensureBuiltinPatterns(owner);
  const r = await patternSelect(owner('source_patterns as p')).whereNull('p.tenant_id').where('p.id', id).first();
  if (!r) throw new NotFoundError('Source');
  const versions = await owner('source_pattern_versions').where({ pattern_id: id }).orderBy('version').select('version', 'content_hash', 'created_at', 'created_by');
  return { ...publicPattern(toLoaded(r), true), versions: versions.map((v) => ({ version: v.version, hash: v.content_hash, createdAt: v.created_at, createdBy: v.created_by })) };
}

/** GET /sources/builtin/{key}: an active global (built-in or posted) layout's current definition, for a workspace's admin to read. */
export async function builtinDefinition(owner: Knex, trx: Trx, key: string) {
  await ensureBuiltinPatterns(owner);
  const r = await patternSelect(trx('source_patterns as p')).whereNull('p.tenant_id').where({ 'p.key': key, 'p.active': true }).first();
  if (!r) throw new NotFoundError('Source');
  const p = toLoaded(r);
  return { id: p.id, key: p.key, name: p.name, aggregator: p.aggregator, builtin: p.builtin, version: p.version, pattern: p.definition };
}

/** New version of a pattern row (definition changed); the old versions stay. */
async function addVersion(trx: Knex | Trx, row: { id: string; tenant_id: number | null; current_version: number }, def: SourcePattern, by: string | null): Promise<number> {
  const hash = patternHash(def);
  const latest = await trx('source_pattern_versions').where({ pattern_id: row.id, version: row.current_version }).first('content_hash');
  if (latest?.content_hash === hash) return row.current_version;
  const version = row.current_version + 1;
  await trx('source_pattern_versions').insert({ pattern_id: row.id, version, tenant_id: row.tenant_id, definition: JSON.stringify(def), content_hash: hash, created_by: by });
  await trx('source_patterns').where({ id: row.id }).update({ current_version: version, key: def.key, name: def.name, aggregator: def.aggregator, updated_at: trx.fn.now() });
  return version;
}

export async function createGlobalPattern(owner: Knex, input: { pattern: unknown; active?: boolean }, by: string | null) {
  const def = checkPattern(input.pattern);
  await ensureBuiltinPatterns(owner);
  const id = await owner.transaction(async (trx) => {
    const clash = await trx('source_patterns').whereNull('tenant_id').where({ key: def.key }).first('id');
    if (clash) throw new ConflictError(`A global source with key "${def.key}" exists`, [], 'SOURCE_KEY_TAKEN');
    const [p] = await trx('source_patterns').insert({ tenant_id: null, key: def.key, name: def.name, aggregator: def.aggregator, builtin: false, active: input.active ?? true }).returning('id');
    await trx('source_pattern_versions').insert({ pattern_id: p.id, version: 1, tenant_id: null, definition: JSON.stringify(def), content_hash: patternHash(def), created_by: by });
    return p.id as string;
  });
  return getGlobalPattern(owner, id);
}

export async function updateGlobalPattern(owner: Knex, id: string, input: { pattern?: unknown; active?: boolean; name?: string }, by: string | null) {
  const def = input.pattern !== undefined ? checkPattern(input.pattern) : null;
  await owner.transaction(async (trx) => {
    const row = await trx('source_patterns').whereNull('tenant_id').where({ id }).forUpdate().first();
    if (!row) throw new NotFoundError('Source');
    if (def) {
      const clash = await trx('source_patterns').whereNull('tenant_id').where({ key: def.key }).whereNot({ id }).first('id');
      if (clash) throw new ConflictError(`A global source with key "${def.key}" exists`, [], 'SOURCE_KEY_TAKEN');
      await addVersion(trx, row, def, by);
    }
    const patch: Record<string, unknown> = {};
    if (input.active !== undefined) patch.active = input.active;
    if (input.name !== undefined) patch.name = input.name;
    if (Object.keys(patch).length) await trx('source_patterns').where({ id }).update({ ...patch, updated_at: trx.fn.now() });
  });
  return getGlobalPattern(owner, id);
}

/** Built-ins cannot be removed (they would come back with the next sync): they are deactivated. */
export async function deleteGlobalPattern(owner: Knex, id: string): Promise<'deleted' | 'deactivated'> {
  const row = await owner('source_patterns').whereNull('tenant_id').where({ id }).first();
  if (!row) throw new NotFoundError('Source');
  if (row.builtin) {
    await owner('source_patterns').where({ id }).update({ active: false, updated_at: owner.fn.now() });
    return 'deactivated';
  }
  await owner('source_patterns').where({ id }).delete();
  return 'deleted';
}

// ---------------------------------------------------------------------------- tenant sources

function tenantSourceQuery(trx: Trx) {
  return trx('tenant_sources as ts')
    .join('source_patterns as p', 'p.id', 'ts.source_pattern_id')
    .select('ts.id', 'ts.name', 'ts.active', 'ts.settings', 'ts.created_at', 'ts.updated_at', 'p.id as pattern_id', 'p.key', 'p.tenant_id as pattern_tenant_id', 'p.current_version', 'p.aggregator', 'p.builtin');
}

function publicTenantSource(r: Record<string, any>) {
  return {
    ...rowView(r, ['id', 'name', 'active', 'settings']),
    source: { id: r.pattern_id, key: r.key, aggregator: r.aggregator, scope: r.pattern_tenant_id === null ? 'global' : 'tenant', builtin: r.builtin, version: r.current_version },
    ...rowView(r, ['created_at', 'updated_at']),
  };
}

export async function listTenantSources(trx: Trx) {
  return (await tenantSourceQuery(trx).orderBy('ts.created_at')).map(publicTenantSource);
}

export async function getTenantSource(trx: Trx, id: string, withDefinition = false) {
  const r = await tenantSourceQuery(trx).where('ts.id', id).first();
  if (!r) throw new NotFoundError('Source');
  const out: Record<string, unknown> = publicTenantSource(r);
  if (withDefinition) {
    const p = await findPattern(trx, { id: r.pattern_id });
    out.pattern = p?.definition ?? null;
    if (r.pattern_tenant_id !== null) {
      out.versions = await trx('source_pattern_versions').where({ pattern_id: r.pattern_id }).orderBy('version').select('version', 'created_at as createdAt');
    }
  }
  return out;
}

/**
 * Configure a source for the tenant: either an existing global source (`sourceId` or
 * `sourceKey`), or the tenant's own pattern (`pattern`: a full definition).
 */
export async function createTenantSource(trx: Trx, tenantId: number, input: { sourceId?: string; sourceKey?: string; pattern?: unknown; name?: string; active?: boolean; settings?: Record<string, unknown> }, by: string | null) {
  let patternId: string;
  let name = input.name;
  if (input.pattern !== undefined) {
    const def = checkPattern(input.pattern);
    const clash = await trx('source_patterns').where({ tenant_id: tenantId, key: def.key }).first('id');
    if (clash) throw new ConflictError(`Your workspace already has a source with key "${def.key}"`, [], 'SOURCE_KEY_TAKEN');
    const [p] = await trx('source_patterns').insert({ tenant_id: tenantId, key: def.key, name: def.name, aggregator: def.aggregator, builtin: false }).returning('id');
    await trx('source_pattern_versions').insert({ pattern_id: p.id, version: 1, tenant_id: tenantId, definition: JSON.stringify(def), content_hash: patternHash(def), created_by: by });
    patternId = p.id;
    name ??= def.name;
  } else {
    const p = input.sourceId ? await findPattern(trx, { id: input.sourceId }) : input.sourceKey ? await findPattern(trx, { key: input.sourceKey }) : null;
    if (!p || (p.tenantId === null && !p.active)) throw new NotFoundError('Source');
    patternId = p.id;
    name ??= p.name;
  }
  const existing = await trx('tenant_sources').where({ source_pattern_id: patternId }).first('id');
  if (existing) throw new ConflictError('This source is already configured for the workspace', [String(existing.id)], 'SOURCE_ALREADY_CONFIGURED');
  const [row] = await trx('tenant_sources')
    .insert({ tenant_id: tenantId, source_pattern_id: patternId, name, active: input.active ?? true, settings: JSON.stringify(input.settings ?? {}), created_by: by })
    .returning('id');
  return getTenantSource(trx, row.id, true);
}

export async function updateTenantSource(trx: Trx, id: string, input: { name?: string; pattern?: unknown; settings?: Record<string, unknown> }, by: string | null) {
  const ts = await trx('tenant_sources').where({ id }).first();
  if (!ts) throw new NotFoundError('Source');
  if (input.pattern !== undefined) {
    const row = await trx('source_patterns').where({ id: ts.source_pattern_id }).first();
    // Only a tenant's own pattern can be changed from the workspace; global ones are the super-admin's.
    if (!row || row.tenant_id === null) throw new ValidationError('Only a workspace-owned source pattern can be changed here', [], 'GLOBAL_PATTERN_READ_ONLY');
    const def = checkPattern(input.pattern);
    const clash = await trx('source_patterns').where({ tenant_id: row.tenant_id, key: def.key }).whereNot({ id: row.id }).first('id');
    if (clash) throw new ConflictError(`Your workspace already has a source with key "${def.key}"`, [], 'SOURCE_KEY_TAKEN');
    await addVersion(trx, row, def, by);
  }
  const patch: Record<string, unknown> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.settings !== undefined) patch.settings = JSON.stringify(input.settings);
  if (Object.keys(patch).length) await trx('tenant_sources').where({ id }).update({ ...patch, updated_at: trx.fn.now() });
  return getTenantSource(trx, id, true);
}

export async function setTenantSourceActive(trx: Trx, id: string, active: boolean) {
  const n = await trx('tenant_sources').where({ id }).update({ active, updated_at: trx.fn.now() });
  if (!n) throw new NotFoundError('Source');
  return getTenantSource(trx, id);
}

/** GET /file/sources: all active public sources (includeAll) or the tenant's configured ones. */
export async function fileSources(svc: { db: { owner: Knex } }, trx: Trx, includeAll: boolean) {
  await ensureBuiltinPatterns(svc.db.owner);
  if (!includeAll) return listTenantSources(trx);
  const rows = await patternSelect(trx('source_patterns as p')).whereNull('p.tenant_id').where('p.active', true).orderBy('p.name');
  return rows.map((r: Record<string, any>) => publicPattern(toLoaded(r)));
}

/** Configure a source: exactly one of a global one (sourceId or sourceKey) or the workspace's own pattern. */
export async function configureSource(trx: Trx, owner: Knex, tenantId: number, input: Parameters<typeof createTenantSource>[2], by: string | null) {
  const n = [input.sourceId, input.sourceKey, input.pattern].filter((x) => x !== undefined).length;
  if (n !== 1) throw new ValidationError('Give exactly one of sourceId, sourceKey, pattern', [], 'SOURCE_REQUIRED');
  await ensureBuiltinPatterns(owner);
  return createTenantSource(trx, tenantId, input, by);
}

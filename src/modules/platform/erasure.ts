/**
 * Account erasure (docs/platform.md, "Account erasure"). preview() builds the canonical ErasurePlan from the
 * database catalogue and ERASURE_MAP and writes nothing; execute() rebuilds it inside one
 * transaction, checks the caller's planHash against it, then deletes or anonymises per the
 * plan and records the erasure in the audit log, all or nothing.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { AuthContext } from '../auth/tokens';
import { sha256 } from '../../lib/crypto';
import { ConflictError, NotFoundError } from '../../lib/errors';
import { writeAudit, type Actor } from './audit';
import { COPIES, ERASURE_MAP, type Anonymous, type Ref, type TableRule } from './erasure-map';
import { membershipIdsOfUser } from '../../repositories/members';

interface Subject {
  userId: string;
  email: string;
  /** "First Last" when both are set (searched in copies; a lone first name is too common to search). */
  fullName: string | null;
  tenantUserIds: string[];
  apiKeyIds: string[];
}

export interface ErasurePlan {
  userId: string;
  /** `redact`: rows that are not the person's own but quote their e-mail or name (COPIES); the quote is replaced with the pseudonym. */
  tables: Array<{ table: string; action: 'delete' | 'anonymise' | 'redact'; columns: string[]; rows: number }>;
  retained: Array<{ table: string; columns: string[]; rows: number; reason: string }>;
  cacheKeys: Array<{ pattern: string; entries: number }>;
  storedObjects: Array<{ table: string; key: string }>;
  apiKeys: Array<{ id: string; kind: string; tenantId: number | null; name: string | null }>;
  externalDeliveries: Array<{ kind: string; tenantId: number; id: string; family: string; type: string; status: string }>;
  /** True when nothing is left to erase (retained records aside). */
  empty: boolean;
  planHash: string;
}

/** Every base table of the public schema (the catalogue, not a list kept by hand). */
export async function catalogueTables(db: Knex): Promise<string[]> {
  const { rows } = await db.raw(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`);
  return rows.map((r: { table_name: string }) => r.table_name);
}

/** Tables of the catalogue that ERASURE_MAP does not declare (should be none). */
export async function undeclaredTables(db: Knex): Promise<string[]> {
  return (await catalogueTables(db)).filter((t) => !ERASURE_MAP[t]);
}

export function anonymousFor(userId: string): Anonymous {
  const hash = sha256(`rondo-erasure:${userId}`).slice(0, 10);
  return { hash, email: `erased-${hash}@erased.invalid`, name: `Erased user ${hash}` };
}

async function subjectOf(db: Knex, userId: string, lock = false): Promise<Subject> {
  const q = db('users').where({ id: userId });
  const u = await (lock ? q.forUpdate() : q).first('id', 'email', 'first_name', 'last_name');
  if (!u) throw new NotFoundError('User', 'USER_NOT_FOUND');
  const tus = await membershipIdsOfUser(db, userId);
  const fullName = u.first_name?.trim() && u.last_name?.trim() ? `${u.first_name.trim()} ${u.last_name.trim()}` : null;
  return { userId, email: u.email, fullName, tenantUserIds: tus, apiKeyIds: [] };
}

/** `(col::text = ANY(?) OR …)` for a rule's references. */
function refWhere(refs: Ref[], s: Subject): [string, Knex.RawBinding[]] {
  const parts: string[] = [];
  const binds: Knex.RawBinding[] = [];
  for (const r of refs) {
    const ids = r.kind === 'user' ? [s.userId] : r.kind === 'tenant_user' ? s.tenantUserIds : [s.userId, ...s.tenantUserIds];
    if (!ids.length) continue;
    parts.push(`??::text = ANY(?::text[])`);
    binds.push(r.column, ids);
  }
  return parts.length ? [`(${parts.join(' OR ')})`, binds] : ['false', []];
}

async function countWhere(db: Knex, table: string, where: [string, Knex.RawBinding[]], extra?: [string, Knex.RawBinding[]]): Promise<number> {
  const q = db(table).whereRaw(where[0], where[1]);
  if (extra) q.whereRaw(extra[0], extra[1]);
  const [{ n }] = await q.select(db.raw('count(*)::int AS n'));
  return n;
}

/** Rate-limit keys name an e-mail by its hash (`action:to:<sha256>`) or a person by id. */
function cachePatterns(s: Subject): string[] {
  return [`%:to:${sha256(s.email.trim().toLowerCase())}`, `%${s.userId}%`];
}

/** Webhook payloads (`column`: outbox payload or a delivery's signed body) that mention the person (their ids or e-mail address). */
function deliveryWhere(s: Subject, column = 'payload'): [string, Knex.RawBinding[]] {
  const needles = [s.userId, ...s.tenantUserIds, s.email.toLowerCase()];
  return [`lower(??::text) LIKE ANY (?::text[])`, [column, needles.map((n) => `%${n.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`)]];
}

const regexEscape = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a copy of the person looks like in a column (text as is, JSON as its escaped text), and what replaces it. */
function copyNeedles(s: Subject, a: Anonymous, json: boolean): Array<[RegExp | string, string]> {
  const form = (v: string) => (json ? JSON.stringify(v).slice(1, -1) : v);
  const pairs: Array<[string, string]> = [[s.email, a.email]];
  if (s.fullName) pairs.push([s.fullName, a.name]);
  return pairs.map(([from, to]) => [regexEscape(form(from)), form(to)]);
}

/** The COPIES columns of a table present in the catalogue, with whether each is JSON. */
async function copyColumns(db: Knex, table: string): Promise<Array<{ column: string; json: boolean }>> {
  const { rows } = await db.raw(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? AND column_name = ANY(?)`, [table, COPIES[table]!]);
  return (rows as Array<{ column_name: string; data_type: string }>).map((r) => ({ column: r.column_name, json: r.data_type === 'jsonb' || r.data_type === 'json' })).sort((x, y) => x.column.localeCompare(y.column));
}

/** `(col::text ~* 'needle' OR …)` over a table's copy columns. */
function copyWhere(cols: Array<{ column: string; json: boolean }>, s: Subject, a: Anonymous): [string, Knex.RawBinding[]] {
  const parts: string[] = [];
  const binds: Knex.RawBinding[] = [];
  for (const c of cols) for (const [re] of copyNeedles(s, a, c.json)) {
    parts.push(`??::text ~* ?`);
    binds.push(c.column, re as string);
  }
  return parts.length ? [`(${parts.join(' OR ')})`, binds] : ['false', []];
}

async function redactCopies(trx: Knex, table: string, s: Subject, a: Anonymous): Promise<number> {
  const cols = await copyColumns(trx, table);
  const ids = await trx(table).whereRaw(...copyWhere(cols, s, a)).select(trx.raw('ctid'));
  if (!ids.length) return 0;
  for (const c of cols) {
    for (const [re, to] of copyNeedles(s, a, c.json)) {
      const expr = c.json ? `regexp_replace(??::text, ?, ?, 'gi')::${'jsonb'}` : `regexp_replace(??, ?, ?, 'gi')`;
      await trx(table).whereRaw(`??::text ~* ?`, [c.column, re as string]).update({ [c.column]: trx.raw(expr, [c.column, re as string, to]) });
    }
  }
  return ids.length;
}

async function buildPlan(db: Knex, s: Subject): Promise<ErasurePlan> {
  const anon = anonymousFor(s.userId);
  const tables: ErasurePlan['tables'] = [];
  const retained: ErasurePlan['retained'] = [];
  const present = new Set(await catalogueTables(db));
  for (const [table, rule] of Object.entries(ERASURE_MAP).sort(([a], [b]) => a.localeCompare(b))) {
    if (!present.has(table) || rule.action === 'none' || rule.action === 'special') continue;
    const where = refWhere(rule.refs, s);
    const columns = rule.refs.map((r) => r.column);
    if (rule.action === 'retain') {
      const rows = await countWhere(db, table, where);
      if (rows) retained.push({ table, columns, rows, reason: rule.why });
      continue;
    }
    const rows = await countWhere(db, table, where, rule.action === 'anonymise' ? rule.pending(anon) : undefined);
    if (rows) tables.push({ table, action: rule.action, columns: rule.action === 'anonymise' ? Object.keys(rule.set(anon)) : columns, rows });
  }
  // copies of the e-mail or name in records that stay (other members' notifications, the audit log): redacted
  for (const table of Object.keys(COPIES).sort()) {
    if (!present.has(table)) continue;
    const cols = await copyColumns(db, table);
    const rule = ERASURE_MAP[table]!;
    // rows the erasure deletes anyway are not counted twice
    const own: [string, Knex.RawBinding[]] = rule.action === 'delete' ? refWhere(rule.refs, s) : ['false', []];
    const rows = await countWhere(db, table, copyWhere(cols, s, anon), [`NOT ${own[0]}`, own[1]]);
    if (rows) tables.push({ table, action: 'redact', columns: cols.map((c) => c.column), rows });
  }
  const cacheKeys: ErasurePlan['cacheKeys'] = [];
  for (const pattern of cachePatterns(s)) {
    const [{ n }] = await db('rate_limit_hits').whereLike('key', pattern).select(db.raw('count(*)::int AS n'));
    if (n) cacheKeys.push({ pattern: `rate_limit_hits.key LIKE '${pattern}'`, entries: n });
  }
  const apiKeys = (await db('api_keys').whereRaw(...refWhere((ERASURE_MAP.api_keys as { refs: Ref[] }).refs, s)).orderBy('id').select('id', 'kind', 'tenant_id', 'name')).map((k) => ({
    id: k.id as string,
    kind: k.kind as string,
    tenantId: k.tenant_id as number | null,
    name: k.name as string | null,
  }));
  const externalDeliveries = (await db('outbound_events').whereRaw(...deliveryWhere(s)).orderBy(['tenant_id', 'id']).select('tenant_id', 'id', 'family', 'type', 'status')).map((e) => ({
    kind: 'outbound_event',
    tenantId: e.tenant_id as number,
    id: e.id as string,
    family: e.family as string,
    type: e.type as string,
    status: e.status as string,
  }));
  const webhookDeliveries = (await db('webhook_deliveries').whereRaw(...deliveryWhere(s, 'body')).orderBy(['tenant_id', 'id']).select('tenant_id', 'id', 'event_id', 'event_type', 'status')).map((d) => ({
    kind: 'webhook_delivery',
    tenantId: d.tenant_id as number,
    id: d.id as string,
    eventId: d.event_id as string,
    family: (d.event_type as string).split('.')[0]!,
    type: d.event_type as string,
    status: d.status as string,
  }));
  externalDeliveries.push(...webhookDeliveries.map(({ eventId: _e, ...d }) => d));
  // Stored objects: no object in the store belongs to a person (statement files and media are the workspace's).
  const storedObjects: ErasurePlan['storedObjects'] = [];
  const body = { userId: s.userId, tables, retained, cacheKeys, storedObjects, apiKeys, externalDeliveries, empty: !tables.length && !cacheKeys.length && !apiKeys.length && !externalDeliveries.length && !storedObjects.length };
  // The hash covers what the erasure decides on, not what moves on its own: the events that
  // name the person (a delivery counts as its event: the dispatcher's fan-out and status flips
  // change nothing), and no rate-limit counters (deleted by pattern, whatever they hold then).
  const events = [...new Set([...externalDeliveries.filter((e) => e.kind === 'outbound_event').map((e) => `${e.tenantId}:${e.id}`), ...webhookDeliveries.map((d) => `${d.tenantId}:${d.eventId}`)])].sort();
  const hashed = { userId: s.userId, tables, retained, storedObjects, apiKeys, events };
  return { ...body, planHash: crypto.createHash('sha256').update(JSON.stringify(hashed)).digest('hex') };
}

export async function previewErasure(owner: Knex, userId: string): Promise<ErasurePlan> {
  // REPEATABLE READ, read only: every count of the plan from one snapshot, and nothing written.
  return owner.transaction((trx) => subjectOf(trx, userId).then((s) => buildPlan(trx, s)), { isolationLevel: 'repeatable read', readOnly: true });
}

export const planChanged = (current: string) =>
  new ConflictError('The data changed since the preview: preview again and execute the new plan', [`body.planHash does not match the current plan (${current})`], 'PLAN_CHANGED');

/**
 * Erase per the plan whose hash the caller previewed, inside the caller's owner transaction
 * (the erasure job's: src/modules/platform/erasure-jobs.ts); 400 PLAN_CHANGED when the data
 * moved since. Writes the `account.erase` audit record in the same transaction.
 */
export async function executeErasure(trx: Knex.Transaction, by: AuthContext | Actor, userId: string, planHash: string) {
  const s = await subjectOf(trx, userId, true);
  const plan = await buildPlan(trx, s);
  if (plan.planHash !== planHash) throw planChanged(plan.planHash);
  const anon = anonymousFor(userId);
  const done: Record<string, number> = {};
  // children before parents: deletes first, the person's own row last
  const order = [...plan.tables].sort((a, b) => Number(a.table === 'users') - Number(b.table === 'users') || Number(a.action === 'anonymise') - Number(b.action === 'anonymise'));
  for (const t of order) {
    if (t.action === 'redact') {
      done[`${t.table}.redacted`] = await redactCopies(trx, t.table, s, anon);
      continue;
    }
    const rule = ERASURE_MAP[t.table] as Extract<TableRule, { refs: Ref[] }>;
    const q = trx(t.table).whereRaw(...refWhere(rule.refs, s));
    if (rule.action === 'delete') done[t.table] = await q.delete();
    else if (rule.action === 'anonymise') done[t.table] = await q.whereRaw(...rule.pending(anon)).update(rule.set(anon));
  }
  for (const pattern of cachePatterns(s)) await trx('rate_limit_hits').whereLike('key', pattern).delete();
  if (plan.externalDeliveries.length) done.outbound_events = await trx('outbound_events').whereRaw(...deliveryWhere(s)).delete();
  if (plan.externalDeliveries.length) done.webhook_deliveries = await trx('webhook_deliveries').whereRaw(...deliveryWhere(s, 'body')).delete();
  await writeAudit(trx, by, { action: 'account.erase', targetType: 'user', targetId: userId, details: { planHash, rows: done, retained: plan.retained.map((r) => ({ table: r.table, rows: r.rows })) } });
  return { userId, planHash, erased: done, retained: plan.retained };
}

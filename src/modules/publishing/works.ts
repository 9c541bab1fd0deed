/**
 * Musical works (docs/publishing.md): title, ISWC (check digit verified, unique in the
 * workspace), alternate titles, writers and publishers with their shares (shares.ts),
 * linked recordings. Create, change (a change replaces each list it names and re-checks the
 * shares), delete, bulk create with per-item errors, and the works of a recording.
 */
import crypto from 'node:crypto';
import type { Trx } from '../../db';
import type { CrudService } from '../../http/crud';
import type { AuthContext } from '../../lib/identity';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { iso } from '../money/common';
import { formatIswc, normaliseIswc } from './identifiers';
import { DEFAULT_SPLITS, partyShares, shareProblems, type Split } from './shares';
import { likeOf, pageOf } from './paging';
import { WORK_SORT } from './sorts';
import { existingIds } from '../../repositories/catalogue';

type Num = string | number;
export interface WorkInput {
  title: string;
  iswc?: string | null;
  code?: string;
  language?: string | null;
  duration?: number | null;
  alternateTitles?: { title: string; type?: string; language?: string | null }[];
  writers: { writer: string; role: string; share: Num; publisher?: string | null }[];
  publishers?: { publisher: string; share: Num; role?: string }[];
  performanceSplit?: { writers: Num; publishers: Num };
  mechanicalSplit?: { writers: Num; publishers: Num };
  recordings?: string[];
}

interface Prepared {
  id: string;
  row: Record<string, unknown>;
  titles: Record<string, unknown>[];
  writers: Record<string, unknown>[];
  publishers: Record<string, unknown>[];
  recordings: string[];
}

const dec = (v: unknown) => String(Number(v) === 0 ? '0' : String(v).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''));
const str = (v: Num) => String(v);

/** Ids named by the inputs that exist in this workspace (RLS scopes every query). */
async function knownRefs(trx: Trx, inputs: Partial<WorkInput>[]) {
  const ids = (f: (w: Partial<WorkInput>) => (string | null | undefined)[]) => [...new Set(inputs.flatMap(f).filter((x): x is string => !!x))];
  const writerIds = ids((w) => (w.writers ?? []).map((x) => x.writer));
  const publisherIds = ids((w) => [...(w.publishers ?? []).map((x) => x.publisher), ...(w.writers ?? []).map((x) => x.publisher)]);
  const assetIds = ids((w) => w.recordings ?? []);
  // one query at a time: a transaction has one connection
  const writers = writerIds.length ? await trx('writers').whereIn('id', writerIds).select('id') : [];
  const publishers = publisherIds.length ? await trx('publishers').whereIn('id', publisherIds).select('id') : [];
  const set = (rows: { id: string }[]) => new Set(rows.map((r) => r.id));
  return { writers: set(writers), publishers: set(publishers), assets: new Set(await existingIds(trx, 'assets', assetIds)) };
}
type Refs = Awaited<ReturnType<typeof knownRefs>>;

/** One work's rows, or the problems that stop it (each naming its field under `where`). */
function prepare(input: WorkInput, refs: Refs, where: string, id: string = crypto.randomUUID()): { ok: Prepared } | { problems: string[] } {
  const problems: string[] = [];
  let iswc: string | null = null;
  if (input.iswc) {
    iswc = normaliseIswc(input.iswc);
    if (!iswc) problems.push(`${where}.iswc ${JSON.stringify(input.iswc)} is not a valid ISWC (T-ddd.ddd.ddd-c with its check digit)`);
  }
  const publishers = input.publishers ?? [];
  const defaults = publishers.length ? DEFAULT_SPLITS.withPublishers : DEFAULT_SPLITS.writersOnly;
  const perf: Split = input.performanceSplit ? { writers: str(input.performanceSplit.writers), publishers: str(input.performanceSplit.publishers) } : defaults.performance;
  const mech: Split = input.mechanicalSplit ? { writers: str(input.mechanicalSplit.writers), publishers: str(input.mechanicalSplit.publishers) } : defaults.mechanical;
  problems.push(...shareProblems(input.writers, publishers, perf, mech, where));
  input.writers.forEach((w, i) => {
    if (!refs.writers.has(w.writer)) problems.push(`${where}.writers[${i}].writer ${w.writer} is not a writer of this workspace`);
    if (w.publisher && !publishers.some((p) => p.publisher === w.publisher)) problems.push(`${where}.writers[${i}].publisher ${w.publisher} is not one of the work's publishers`);
  });
  publishers.forEach((p, i) => {
    if (!refs.publishers.has(p.publisher)) problems.push(`${where}.publishers[${i}].publisher ${p.publisher} is not a publisher of this workspace`);
  });
  const recordings = [...new Set(input.recordings ?? [])];
  recordings.forEach((a) => {
    if (!refs.assets.has(a)) problems.push(`${where}.recordings: ${a} is not a recording (asset) of this workspace`);
  });
  if (problems.length) return { problems };
  const shares = partyShares(input.writers, publishers, perf, mech);
  const t = { work_id: id };
  return {
    ok: {
      id,
      row: {
        id, title: input.title, iswc, language: input.language ? input.language.toUpperCase() : null, duration: input.duration ?? null,
        ...(input.code ? { code: input.code.toUpperCase() } : {}),
        performance_writers: perf.writers, performance_publishers: perf.publishers, mechanical_writers: mech.writers, mechanical_publishers: mech.publishers,
      },
      titles: (input.alternateTitles ?? []).map((a, i) => ({ ...t, position: i, title: a.title, type: a.type ?? 'AT', language: a.language ? a.language.toUpperCase() : null })),
      writers: input.writers.map((w, i) => ({
        ...t, writer_id: w.writer, position: i, role: w.role, share: str(w.share), performance_share: shares.writers[i]!.performanceShare,
        mechanical_share: shares.writers[i]!.mechanicalShare, publisher_id: w.publisher ?? null,
      })),
      publishers: publishers.map((p, i) => ({
        ...t, publisher_id: p.publisher, position: i, role: p.role ?? 'original', share: str(p.share), performance_share: shares.publishers[i]!.performanceShare,
        mechanical_share: shares.publishers[i]!.mechanicalShare,
      })),
      recordings,
    },
  };
}

/** Identifier clashes with the workspace and inside the batch: ISWC and work number. */
async function clashes(trx: Trx, items: { where: string; p: Prepared }[], except?: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const add = (where: string, msg: string) => out.set(where, [...(out.get(where) ?? []), msg]);
  for (const [col, label] of [['iswc', 'ISWC'], ['code', 'work number']] as const) {
    const values = items.map((x) => x.p.row[col] as string | null | undefined).filter((v): v is string => !!v);
    if (!values.length) continue;
    const q = trx('works').whereIn(col, values);
    if (except) q.whereNot({ id: except });
    const taken = new Set((await q.select(col)).map((r) => r[col] as string));
    const seen = new Set<string>();
    for (const { where, p } of items) {
      const v = p.row[col] as string | undefined;
      if (!v) continue;
      if (taken.has(v)) add(where, `${where}.${col}: ${label} ${v} already exists in this workspace`);
      else if (seen.has(v)) add(where, `${where}.${col}: ${label} ${v} appears more than once in this request`);
      seen.add(v);
    }
  }
  return out;
}

async function insert(trx: Trx, auth: AuthContext, items: Prepared[]): Promise<void> {
  const tenant = trx.raw('app_tenant_id()');
  const withTenant = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, tenant_id: tenant }));
  const chunks = <T>(xs: T[], n = 500) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));
  for (const c of chunks(items)) await trx('works').insert(c.map((p) => ({ ...p.row, tenant_id: tenant, created_by: auth.tenantUserId })));
  for (const [table, rows] of [
    ['work_titles', items.flatMap((p) => p.titles)],
    ['work_writers', items.flatMap((p) => p.writers)],
    ['work_publishers', items.flatMap((p) => p.publishers)],
    ['work_recordings', items.flatMap((p) => p.recordings.map((asset_id) => ({ work_id: p.id, asset_id })))],
  ] as const) {
    for (const c of chunks(rows as Record<string, unknown>[])) await trx(table).insert(withTenant(c));
  }
}

/** The works with these ids, as the API shows them, in the given order. */
export async function workViews(trx: Trx, ids: string[]) {
  if (!ids.length) return [];
  const works = await trx('works').whereIn('id', ids);
  const titles = await trx('work_titles').whereIn('work_id', ids).orderBy('position');
  const writers = await trx('work_writers as ww').join('writers as w', 'w.id', 'ww.writer_id').whereIn('ww.work_id', ids).orderBy('ww.position')
    .select('ww.*', 'w.first_name', 'w.last_name', 'w.ipi');
  const publishers = await trx('work_publishers as wp').join('publishers as p', 'p.id', 'wp.publisher_id').whereIn('wp.work_id', ids).orderBy('wp.position').select('wp.*', 'p.name', 'p.ipi');
  const recordings = await trx('work_recordings').whereIn('work_id', ids).orderBy('asset_id');
  const of = <T extends { work_id: string }>(rows: T[], id: string) => rows.filter((r) => r.work_id === id);
  const byId = new Map(works.map((w: Record<string, unknown>) => [w.id as string, w]));
  return ids.filter((id) => byId.has(id)).map((id) => {
    const w = byId.get(id)!;
    return {
      id, code: w.code as string, title: w.title as string, iswc: w.iswc ? formatIswc(w.iswc as string) : null, language: (w.language as string | null) ?? null,
      duration: (w.duration as number | null) ?? null,
      alternateTitles: of(titles, id).map((t) => ({ title: t.title as string, type: t.type as string, language: (t.language as string | null) ?? null })),
      writers: of(writers, id).map((x) => ({
        writer: x.writer_id as string, name: [x.first_name, x.last_name].filter(Boolean).join(' '), ipi: (x.ipi as string | null) ?? null, role: x.role as string,
        share: dec(x.share), performanceShare: String(x.performance_share), mechanicalShare: String(x.mechanical_share), publisher: (x.publisher_id as string | null) ?? null,
      })),
      publishers: of(publishers, id).map((x) => ({
        publisher: x.publisher_id as string, name: x.name as string, ipi: (x.ipi as string | null) ?? null, role: x.role as string, share: dec(x.share),
        performanceShare: String(x.performance_share), mechanicalShare: String(x.mechanical_share),
      })),
      performanceSplit: { writers: String(w.performance_writers), publishers: String(w.performance_publishers) },
      mechanicalSplit: { writers: String(w.mechanical_writers), publishers: String(w.mechanical_publishers) },
      recordings: of(recordings, id).map((r) => r.asset_id as string),
      createdAt: iso(w.created_at), updatedAt: iso(w.updated_at),
    };
  });
}

async function one(trx: Trx, id: string) {
  const [v] = await workViews(trx, [id]);
  if (!v) throw new NotFoundError('Work');
  return v;
}

/** The input a stored work would be created from (a change merges its patch into this). */
function asInput(v: Awaited<ReturnType<typeof one>>): WorkInput {
  return {
    title: v.title, iswc: v.iswc, code: v.code, language: v.language, duration: v.duration, alternateTitles: v.alternateTitles,
    writers: v.writers.map((w) => ({ writer: w.writer, role: w.role, share: w.share, publisher: w.publisher })),
    publishers: v.publishers.map((p) => ({ publisher: p.publisher, share: p.share, role: p.role })),
    performanceSplit: v.performanceSplit, mechanicalSplit: v.mechanicalSplit, recordings: v.recordings,
  };
}

async function createOne(trx: Trx, auth: AuthContext, input: WorkInput) {
  const r = prepare(input, await knownRefs(trx, [input]), 'body');
  if ('problems' in r) throw new ValidationError('Invalid work', r.problems);
  const clash = await clashes(trx, [{ where: 'body', p: r.ok }]);
  if (clash.size) throw new ValidationError('Invalid work', [...clash.values()].flat(), 'DUPLICATE');
  await insert(trx, auth, [r.ok]);
  return one(trx, r.ok.id);
}

async function updateOne(trx: Trx, _auth: AuthContext, id: string, patch: Partial<WorkInput>) {
  const current = asInput(await one(trx, id));
  const merged: WorkInput = { ...current, ...patch };
  // A new publisher list without new splits keeps the splits only when they still fit it.
  if (patch.publishers && !patch.performanceSplit && !(patch.publishers.length && current.publishers?.length)) delete merged.performanceSplit;
  if (patch.publishers && !patch.mechanicalSplit && !(patch.publishers.length && current.publishers?.length)) delete merged.mechanicalSplit;
  const r = prepare(merged, await knownRefs(trx, [merged]), 'body', id);
  if ('problems' in r) throw new ValidationError('Invalid work', r.problems);
  const clash = await clashes(trx, [{ where: 'body', p: r.ok }], id);
  if (clash.size) throw new ValidationError('Invalid work', [...clash.values()].flat(), 'DUPLICATE');
  const { id: _id, ...row } = r.ok.row;
  await trx('works').where({ id }).update({ ...row, updated_at: trx.fn.now() });
  for (const t of ['work_titles', 'work_writers', 'work_publishers', 'work_recordings']) await trx(t).where({ work_id: id }).delete();
  const tenant = trx.raw('app_tenant_id()');
  const rows = (xs: Record<string, unknown>[]) => xs.map((x) => ({ ...x, tenant_id: tenant }));
  if (r.ok.titles.length) await trx('work_titles').insert(rows(r.ok.titles));
  await trx('work_writers').insert(rows(r.ok.writers));
  if (r.ok.publishers.length) await trx('work_publishers').insert(rows(r.ok.publishers));
  if (r.ok.recordings.length) await trx('work_recordings').insert(rows(r.ok.recordings.map((asset_id) => ({ work_id: id, asset_id }))));
  return one(trx, id);
}

/** Bulk create: each valid item checked against the workspace and the rest of the batch; the good ones inserted. */
async function bulkCreate(trx: Trx, auth: AuthContext, valid: { i: number; item: WorkInput }[], total: number) {
  const refs = await knownRefs(trx, valid.map((v) => v.item));
  const errors: string[] = [];
  const ready: { where: string; i: number; p: Prepared }[] = [];
  for (const { i, item } of valid) {
    const r = prepare(item, refs, `works[${i}]`);
    if ('problems' in r) errors.push(...r.problems);
    else ready.push({ where: `works[${i}]`, i, p: r.ok });
  }
  const clash = await clashes(trx, ready);
  for (const v of clash.values()) errors.push(...v);
  const good = ready.filter((x) => !clash.has(x.where));
  await insert(trx, auth, good.map((x) => x.p));
  return {
    message: `${good.length} of ${total} works created`,
    created: good.map((x) => x.p.row.title as string),
    ids: good.map((x) => x.p.id),
    processedCount: good.length,
    errors,
  };
}

async function list(trx: Trx, _auth: AuthContext, q: { page: number; size: number; search?: string; writer?: string; publisher?: string; iswc?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const base = trx('works').modify((b) => {
    if (q.search) {
      const like = likeOf(q.search);
      b.where((w) => w.whereRaw('lower(title) LIKE ?', [like]).orWhereExists(trx('work_titles as t').whereRaw('t.work_id = works.id').whereRaw('lower(t.title) LIKE ?', [like])));
    }
    if (q.writer) b.whereExists(trx('work_writers as x').whereRaw('x.work_id = works.id').where('x.writer_id', q.writer));
    if (q.publisher) b.whereExists(trx('work_publishers as x').whereRaw('x.work_id = works.id').where('x.publisher_id', q.publisher));
    if (q.iswc) b.where('iswc', normaliseIswc(q.iswc) ?? q.iswc);
  });
  const { rows, total } = await pageOf(base.select('id'), q, { cols: WORK_SORT, default: 'title' });
  return { data: await workViews(trx, rows.map((r) => r.id as string)), total };
}

async function bulkRemove(trx: Trx, _auth: AuthContext, ids: string[]) {
  const found = new Set((await trx('works').whereIn('id', ids).delete().returning('id')).map((r: { id: string }) => r.id));
  return {
    message: `${found.size} work(s) deleted`, processedCount: found.size,
    failedDeletions: ids.filter((id) => !found.has(id)).map((id) => ({ id, error: 'Work not found' })),
  };
}

/** The works a recording is linked to; 404 when the recording is absent (or another workspace's). */
export async function assetWorks(trx: Trx, assetId: string) {
  if (!(await existingIds(trx, 'assets', [assetId])).length) throw new NotFoundError('Asset');
  const ids = (await trx('work_recordings as r').join('works as w', 'w.id', 'r.work_id').where('r.asset_id', assetId).orderBy('w.title').select('w.id')).map((r: { id: string }) => r.id);
  return workViews(trx, ids);
}

export const workCrud: CrudService<{ search?: string; writer?: string; publisher?: string; iswc?: string }, WorkInput, Partial<WorkInput>> = {
  list,
  get: (trx, _auth, id) => one(trx, id),
  create: createOne,
  update: updateOne,
  async remove(trx, auth, id) {
    const r = await bulkRemove(trx, auth, [id]);
    if (r.failedDeletions.length) throw new NotFoundError('Work');
  },
  bulkRemove,
  bulkCreate,
};

/** The works CSV (POST /works/download/csv): one row per work, its parties and recordings in one cell each. */
export function worksCsvQuery(trx: Trx) {
  return trx.raw(`SELECT w.id, w.code, w.title,
      CASE WHEN w.iswc IS NULL THEN NULL ELSE 'T-' || substr(w.iswc, 2, 3) || '.' || substr(w.iswc, 5, 3) || '.' || substr(w.iswc, 8, 3) || '-' || substr(w.iswc, 11, 1) END AS iswc,
      w.language, w.duration,
      (SELECT string_agg(concat_ws(' ', x.first_name, x.last_name) || ' (' || ww.role || ', ' || trim_scale(ww.share) || '%; performance ' || ww.performance_share
         || '%, mechanical ' || ww.mechanical_share || '%)', '; ' ORDER BY ww.position) FROM work_writers ww JOIN writers x ON x.id = ww.writer_id WHERE ww.work_id = w.id) AS writers,
      (SELECT string_agg(p.name || ' (' || wp.role || ', ' || trim_scale(wp.share) || '%; performance ' || wp.performance_share
         || '%, mechanical ' || wp.mechanical_share || '%)', '; ' ORDER BY wp.position) FROM work_publishers wp JOIN publishers p ON p.id = wp.publisher_id WHERE wp.work_id = w.id) AS publishers,
      (SELECT string_agg(t.title, '; ' ORDER BY t.position) FROM work_titles t WHERE t.work_id = w.id) AS alternate_titles,
      (SELECT string_agg(coalesce(a.isrc, a.id::text), '; ' ORDER BY a.isrc) FROM work_recordings r JOIN assets a ON a.id = r.asset_id WHERE r.work_id = w.id) AS recordings,
      w.created_at
    FROM works w ORDER BY w.title, w.id`);
}

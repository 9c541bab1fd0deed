/**
 * Catalogue import (docs/catalogue-import.md, "The flow").
 *
 *   POST /fetch   → a batch (queued) and a `catalogue.import.fetch` job, in one transaction
 *   the job       → fetches from the provider (no transaction open meanwhile), then stages
 *                   every item `pending` and the batch `staged` in one transaction. It never
 *                   writes assets or products (rule 3).
 *   POST /apply   → each pending item of the batch (or item set) in its own transaction:
 *                   written through the catalogue services → `imported`, or `failed` with the
 *                   reason (counted). Items not pending are not touched: a second apply
 *                   reports imported 0, failed 0 (rule 2).
 *   POST /reject  → pending → rejected.
 */
import type { AppServices } from '../../services';
import { withTenant, type Trx } from '../../db';
import type { AuthContext } from '../auth/tokens';
import { AppError, NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { iso } from '../catalogue/common';
import { rowView } from '../../lib/row-view';
import { PartnerApiError } from '../partners/http-client';
import { PROVIDERS, cleanData, distributorItems, fileItems, type DistributorQuery, type FileQuery, type ItemKind, type ProviderId, type StagedItem } from './providers';
import { applyItem, currentOf, diffOf } from './apply';

export interface FetchInput {
  provider: ProviderId;
  query: FileQuery & DistributorQuery;
}

const tx = <T>(svc: AppServices, tenantId: number, fn: (trx: Trx) => Promise<T>) => withTenant(svc.db.app, tenantId, fn);

const ITEM_COLUMNS = ['id', 'batch_id', 'position', 'kind', 'external_ref', 'status', 'data', 'target_id', 'error', 'updated_at'];
const itemView = (r: Record<string, unknown>) => rowView(r, ITEM_COLUMNS);

async function counts(trx: Trx, batchId: string) {
  const rows = await trx('catalogue_import_items').where({ batch_id: batchId }).groupBy('status').select('status', trx.raw('count(*)::int as n'));
  const c: Record<string, number> = { pending: 0, imported: 0, failed: 0, rejected: 0 };
  for (const r of rows) c[r.status] = r.n;
  return c;
}

function batchView(r: Record<string, unknown>, c: Record<string, number>) {
  return {
    id: r.id as string, jobId: (r.job_id as string) ?? null, provider: r.provider as string, status: r.status as string,
    error: (r.error as string) ?? null, itemCount: r.item_count as number, counts: c,
    createdBy: (r.created_by as string) ?? null, createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)!,
  };
}

/** POST /fetch: check the query (a file is parsed here, so a bad one is a 400 now), queue the job. */
/** GET /providers: each provider and whether this workspace can use it (the distributor needs its adapter and enabled credentials). */
export async function listProviders(svc: Pick<AppServices, 'cfg'>, trx: Trx) {
  const dist = !!svc.cfg.distributorApiUrl && !!(await trx('distributor_credentials').where({ is_enabled: true }).first('tenant_id'));
  return PROVIDERS.map((p) => ({ ...p, available: p.id === 'file' ? true : dist }));
}

export async function startFetch(svc: AppServices, tenantId: number, actor: string | null, input: FetchInput) {
  let query: Record<string, unknown>;
  if (input.provider === 'file') {
    fileItems(input.query); // every row checked; nothing staged yet
    query = { ...input.query };
  } else {
    if (input.query.csv !== undefined || input.query.json !== undefined || input.query.rows !== undefined) throw new ValidationError('Invalid request', ['body.query: the distributor provider takes query and limit only'], 'INVALID_QUERY');
    query = { query: input.query.query ?? '', limit: input.query.limit ?? 200 };
  }
  return tx(svc, tenantId, async (trx) => {
    if (input.provider === 'distributor' && !(await trx('distributor_credentials').where({ is_enabled: true }).first('tenant_id'))) {
      throw new NotFoundError('Distributor credentials');
    }
    const [b] = await trx('catalogue_import_batches').insert({ tenant_id: tenantId, provider: input.provider, query, created_by: actor }).returning('id');
    const jobId = await svc.queue.send('catalogue.import.fetch', { tenantId, batchId: b.id }, { trx });
    await trx('catalogue_import_batches').where({ id: b.id }).update({ job_id: jobId });
    return { jobId, batchId: b.id as string };
  });
}

/**
 * The job: fetch from the provider, then stage. Safe to run twice (a staged or failed batch is
 * left alone). A provider that does not answer (or answers 5xx) is retried by the queue; on the
 * job's last attempt (`lastAttempt`) the batch ends `failed` with the error instead.
 */
export async function runFetchJob(svc: AppServices, tenantId: number, batchId: string, opts: { lastAttempt?: boolean } = {}): Promise<void> {
  const batch = await tx(svc, tenantId, async (trx) => {
    const b = await trx('catalogue_import_batches').where({ id: batchId }).forUpdate().first();
    if (!b || (b.status !== 'queued' && b.status !== 'fetching')) return null;
    await trx('catalogue_import_batches').where({ id: batchId }).update({ status: 'fetching', updated_at: clock.now() });
    return b;
  });
  if (!batch) return;
  let items: StagedItem[];
  try {
    items = batch.provider === 'file' ? fileItems(batch.query) : await distributorItems(svc, tenantId, batch.query);
  } catch (err) {
    // no answer or a 5xx: throw, pg-boss retries; a refusal or bad input: the batch fails now
    const known = err instanceof PartnerApiError || err instanceof AppError;
    const retryable = (err instanceof PartnerApiError && err.transient) || !known;
    if (retryable && !opts.lastAttempt) throw err;
    if (!known) svc.log.error({ err, batchId }, 'catalogue import: the fetch failed on its last attempt');
    const message = !known
      ? 'The fetch failed unexpectedly on every attempt (logged)'
      : err instanceof PartnerApiError
        ? err.transient
          ? `The ${err.partner} partner did not answer after every retry (${err.httpStatus ?? 'no answer'})`
          : `The ${err.partner} partner refused the request (${err.httpStatus ?? 'no answer'})`
        : (err as AppError).message;
    await tx(svc, tenantId, (trx) => trx('catalogue_import_batches').where({ id: batchId }).update({ status: 'failed', error: message, updated_at: clock.now() }));
    return;
  }
  await tx(svc, tenantId, async (trx) => {
    const b = await trx('catalogue_import_batches').where({ id: batchId }).forUpdate().first('status');
    if (!b || b.status !== 'fetching') return;
    for (let i = 0; i < items.length; i += 500) {
      await trx('catalogue_import_items').insert(items.slice(i, i + 500).map((it, j) => ({ tenant_id: tenantId, batch_id: batchId, position: i + j, kind: it.kind, external_ref: it.externalRef, data: it.data })));
    }
    await trx('catalogue_import_batches').where({ id: batchId }).update({ status: 'staged', item_count: items.length, updated_at: clock.now() });
  });
}

/** GET /job/{jobId}: the fetch job's state, read from its batch. */
export async function getJob(trx: Trx, jobId: string) {
  const b = await trx('catalogue_import_batches').where({ job_id: jobId }).first();
  if (!b) throw new NotFoundError('Import job', 'IMPORT_JOB_NOT_FOUND');
  return { jobId, batchId: b.id as string, status: b.status as string, error: (b.error as string) ?? null, itemCount: b.item_count as number, counts: await counts(trx, b.id) };
}

async function mustBatch(trx: Trx, batchId: string) {
  const b = await trx('catalogue_import_batches').where({ id: batchId }).first();
  if (!b) throw new NotFoundError('Import batch', 'IMPORT_BATCH_NOT_FOUND');
  return b;
}

/** GET /batch/{batchId}: the batch, its counts and a page of its items. */
export async function getBatch(trx: Trx, batchId: string, q: { page: number; size: number; status?: string }) {
  const b = await mustBatch(trx, batchId);
  const base = trx('catalogue_import_items').where({ batch_id: batchId }).modify((x) => q.status && x.where({ status: q.status }));
  const [{ n }] = await base.clone().count('* as n');
  const rows = await base.orderBy('position').limit(q.size).offset((q.page - 1) * q.size);
  return { ...batchView(b, await counts(trx, batchId)), items: rows.map(itemView), pagination: { page: q.page, size: q.size, total: Number(n) } };
}

/** GET /batch/{batchId}/diff: each item against the current catalogue, field by field. */
export async function batchDiff(trx: Trx, batchId: string, q: { page: number; size: number }) {
  await mustBatch(trx, batchId);
  const [{ n }] = await trx('catalogue_import_items').where({ batch_id: batchId }).count('* as n');
  const rows = await trx('catalogue_import_items').where({ batch_id: batchId }).orderBy('position').limit(q.size).offset((q.page - 1) * q.size);
  const out = [];
  for (const r of rows) {
    const current = await currentOf(trx, r.kind, r.data);
    out.push({ itemId: r.id as string, kind: r.kind as ItemKind, status: r.status as string, ...diffOf(r.kind, r.data, current) });
  }
  return { batchId, items: out, pagination: { page: q.page, size: q.size, total: Number(n) } };
}

/** PUT /items/{id}: edit a pending item's staged fields (re-checked as a whole). */
export async function updateItem(trx: Trx, id: string, patch: Record<string, unknown>) {
  const r = await trx('catalogue_import_items').where({ id }).forUpdate().first();
  if (!r) throw new NotFoundError('Import item', 'IMPORT_ITEM_NOT_FOUND');
  if (r.status !== 'pending') throw new ValidationError('Only a pending item can be edited', [`item ${id} is ${r.status}`], 'ITEM_NOT_PENDING');
  if (r.kind === 'asset' && (patch.upc !== undefined || patch.tracks !== undefined || patch.label !== undefined || patch.releaseDate !== undefined || patch.format !== undefined || patch.catalogNumber !== undefined)) {
    throw new ValidationError('Invalid request', ['body: upc, tracks, label, releaseDate, format and catalogNumber are product fields'], 'INVALID_FIELD');
  }
  if (r.kind === 'product' && (patch.isrc !== undefined || patch.version !== undefined)) throw new ValidationError('Invalid request', ['body: isrc and version are asset fields'], 'INVALID_FIELD');
  const problems: string[] = [];
  const data = cleanData(r.kind, { ...r.data, ...patch }, 'body', problems);
  if (problems.length) throw new ValidationError('Invalid request', problems, 'INVALID_FIELD');
  const [row] = await trx('catalogue_import_items').where({ id }).update({ data, updated_at: clock.now() }).returning('*');
  return itemView(row);
}

export interface Selection { batchId?: string; itemIds?: string[] }

async function selectPending(trx: Trx, sel: Selection): Promise<string[]> {
  if ((sel.batchId === undefined) === (sel.itemIds === undefined)) throw new ValidationError('Invalid request', ['body needs exactly one of batchId or itemIds'], 'INVALID_SELECTION');
  if (sel.batchId) await mustBatch(trx, sel.batchId);
  const rows = await trx('catalogue_import_items')
    .where({ status: 'pending' })
    .modify((q) => (sel.batchId ? q.where({ batch_id: sel.batchId }) : q.whereIn('id', [...new Set(sel.itemIds)])))
    // recordings before releases, so a release finds its tracks
    .orderByRaw(`CASE kind WHEN 'asset' THEN 0 ELSE 1 END, batch_id, position`)
    .select('id');
  return rows.map((r: { id: string }) => r.id);
}

/** POST /apply: every pending item of the selection, one transaction each. */
export async function apply(svc: AppServices, tenantId: number, auth: AuthContext, sel: Selection) {
  const ids = await tx(svc, tenantId, (trx) => selectPending(trx, sel));
  let imported = 0;
  let failed = 0;
  for (const id of ids) {
    const outcome = await tx(svc, tenantId, async (trx) => {
      const r = await trx('catalogue_import_items').where({ id, status: 'pending' }).forUpdate().first();
      if (!r) return null; // applied or rejected meanwhile: not touched
      try {
        const targetId = await trx.transaction((sp) => applyItem(sp, tenantId, auth, r.kind, r.data));
        await trx('catalogue_import_items').where({ id }).update({ status: 'imported', target_id: targetId, error: null, updated_at: clock.now() });
        return 'imported' as const;
      } catch (err) {
        if (!(err instanceof AppError)) svc.log.error({ err, itemId: id }, 'catalogue import: an item failed unexpectedly');
        const message = err instanceof AppError ? [err.message, ...err.details].filter(Boolean).join('; ') : 'unexpected error (logged)';
        await trx('catalogue_import_items').where({ id }).update({ status: 'failed', error: message, updated_at: clock.now() });
        return 'failed' as const;
      }
    });
    if (outcome === 'imported') imported++;
    else if (outcome === 'failed') failed++;
  }
  return { imported, failed };
}

/** POST /reject: pending → rejected. */
export async function reject(trx: Trx, sel: Selection) {
  const ids = await selectPending(trx, sel);
  const n = ids.length ? await trx('catalogue_import_items').whereIn('id', ids).where({ status: 'pending' }).update({ status: 'rejected', updated_at: clock.now() }) : 0;
  return { rejected: n };
}

/**
 * The publisher's view of publishing income: unmatched lines (grouped), title + writers
 * suggestions and their acceptance (a rule, then the lines are matched and shared again).
 */
import { sortColumns, sortedPage, whereSearch } from '../../http/list-sort';
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { Decimal } from '../money/common';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { allocatePublishing, RIGHT_TYPE, TITLE_NORM, WRITERS_NORM, type PublishingAllocation } from './allocate';

const PUB_LINES = `l.file_id IN (SELECT f.id FROM files f WHERE f.tenant_id = l.tenant_id AND f.income = 'publishing')`;

/**
 * The fields the unmatched list sorts by: the group's columns (`g`, below). By default the
 * largest amount first, ties by title; every sort groups the unmatched lines first, so each
 * costs the same as the default.
 */
export const UNMATCHED_SORT = sortColumns({
  amount: 'g.amount', title: 'g.title', writers: 'g.writers', iswc: 'g.iswc', societyWorkId: 'g.society_work_id',
  rightType: 'g.right_type', lines: 'g.lines', currency: 'g.currency', files: 'g.files',
});

/** Publishing lines matched to no work, grouped by title, writers, ISWC and right; `search` over title, writers, ISWC and society work id. */
export async function unmatched(trx: Trx, tenantId: number, q: { page: number; size: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const groups = trx.raw(
    `(SELECT min(coalesce(l.extra->>'workTitle', l.track_title)) AS title, min(l.extra->>'writers') AS writers, min(l.extra->>'iswc') AS iswc,
             min(l.extra->>'societyWorkId') AS society_work_id, ${RIGHT_TYPE} AS right_type, count(*)::int AS lines,
             sum(l.base_amount) AS amount, min(l.base_currency) AS currency, count(DISTINCT l.file_id)::int AS files,
             ${TITLE_NORM} AS k_title, ${WRITERS_NORM} AS k_writers, coalesce(l.extra->>'iswc', '') AS k_iswc
        FROM royalty_lines l WHERE l.tenant_id = ? AND ${PUB_LINES} AND l.work_id IS NULL
       GROUP BY ${TITLE_NORM}, ${WRITERS_NORM}, coalesce(l.extra->>'iswc', ''), ${RIGHT_TYPE}) AS g`,
    [tenantId],
  );
  const base = trx.queryBuilder().from(groups).select('g.*');
  whereSearch(base, q.search, ['g.title', 'g.writers', 'g.iswc', 'g.society_work_id']);
  const { rows, total } = await sortedPage(base, q, UNMATCHED_SORT, 'amount', ['g.title', 'g.k_title', 'g.k_writers', 'g.k_iswc', 'g.right_type'], 'desc', 'asc');
  return {
    rows: rows.map((r) => ({
      title: r.title, writers: r.writers, iswc: r.iswc, societyWorkId: r.society_work_id, rightType: r.right_type, lines: r.lines,
      amount: r.amount == null ? '0' : String(r.amount), currency: r.currency ? String(r.currency).trim() : null, files: r.files,
    })),
    total,
  };
}

/** The fields the suggestion list sorts by (`work` by the work's title); by default the best score first. */
export const INCOME_SUGGESTION_SORT = sortColumns({ score: 's.score', title: 's.title', writers: 's.writers', work: 'w.title', status: 's.status', createdAt: 's.created_at' });

export async function listSuggestions(trx: Trx, status: string, q: { page: number; size: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const base = trx('publishing_match_suggestions as s').join('works as w', function () {
    this.on('w.tenant_id', 's.tenant_id').andOn('w.id', 's.work_id');
  }).where('s.status', status);
  whereSearch(base, q.search, ['s.title', 's.writers', 'w.title']);
  const { rows, total: n } = await sortedPage(
    base.select('s.id', 's.title', 's.writers', 's.work_id', 'w.title as work_title', 'w.iswc', 's.score', 's.status', 's.created_at'),
    q, INCOME_SUGGESTION_SORT, 'score', 's.id', 'desc',
  ) as { rows: Record<string, any>[]; total: number };
  return {
    rows: rows.map((r) => ({ id: r.id, title: r.title, writers: r.writers, work: { id: r.work_id, title: r.work_title, iswc: r.iswc }, score: new Decimal(r.score).toFixed(), status: r.status, createdAt: new Date(r.created_at).toISOString() })),
    total: Number(n),
  };
}

/** Accepting a suggestion saves a rule (title + writers → work), rejects the key's other open suggestions and matches again. */
export async function acceptSuggestion(trx: Trx, tenantId: number, id: string, by: string | null): Promise<PublishingAllocation & { ruleId: string }> {
  const s = await trx('publishing_match_suggestions').where({ id }).forUpdate().first();
  if (!s) throw new NotFoundError('Suggestion');
  if (s.status !== 'open') throw new ValidationError(`This suggestion is already ${s.status}`, [`status: ${s.status}`]);
  const now = clock.now();
  const [rule] = await trx('publishing_match_rules')
    .insert({ tenant_id: tenantId, title_norm: s.title_norm, writers_norm: s.writers_norm, work_id: s.work_id, created_by: by })
    .onConflict(['tenant_id', 'title_norm', 'writers_norm']).merge({ work_id: s.work_id, created_by: by, created_at: now })
    .returning('id');
  await trx('publishing_match_suggestions').where({ id }).update({ status: 'accepted', decided_at: now, decided_by: by });
  await trx('publishing_match_suggestions').where({ title_norm: s.title_norm, writers_norm: s.writers_norm, status: 'open' })
    .update({ status: 'rejected', decided_at: now, decided_by: by });
  const r = await allocatePublishing(trx, tenantId);
  return { ...r, ruleId: rule.id };
}

export async function rejectSuggestion(trx: Trx, id: string, by: string | null): Promise<void> {
  const s = await trx('publishing_match_suggestions').where({ id }).forUpdate().first('status');
  if (!s) throw new NotFoundError('Suggestion');
  if (s.status !== 'open') throw new ValidationError(`This suggestion is already ${s.status}`, [`status: ${s.status}`]);
  await trx('publishing_match_suggestions').where({ id }).update({ status: 'rejected', decided_at: clock.now(), decided_by: by });
}

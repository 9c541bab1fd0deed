/**
 * Publishing income: matching society lines to works and deciding who shares them
 * (docs/publishing.md, "Publishing income"). Set-based: the distinct keys of the scoped lines
 * are resolved once each, never line by line.
 *
 *   1. ISWC (extra.iswc, compact form) → the work with that ISWC;
 *   2. else an accepted title + writers rule (publishing_match_rules);
 *   3. else nothing: title + writers candidates are stored as SUGGESTIONS, never applied.
 *
 * A matched line's share set: its work's shares for the line's right (performance or
 * mechanical), the publishers' part passed on to the writers they represent under an ACTIVE
 * agreement covering the line's territory and sale month (writerShare %). Shares are
 * percentages of the line with 12 decimals; the payee with the largest share gets 100 − Σ
 * the others, so a line's payees' amounts add up to its base amount exactly
 * (royalty_share_amount, as for recording splits). Only the decision is stored.
 */
import { createHash } from 'node:crypto';
import type { Trx } from '../../db';
import { payeeShares, type AgreementRow, type PayeeShare, type PublisherRow, type WriterRow } from './shares';

/** The scoped publishing lines (`l`): a tenant's publishing files, or one of them. */
function scopeSql(fileId?: string): { sql: string; bindings: string[] } {
  return fileId
    ? { sql: `l.file_id = ? AND EXISTS (SELECT 1 FROM files f WHERE f.tenant_id = l.tenant_id AND f.id = l.file_id AND f.income = 'publishing')`, bindings: [fileId] }
    : { sql: `l.file_id IN (SELECT f.id FROM files f WHERE f.tenant_id = l.tenant_id AND f.income = 'publishing')`, bindings: [] };
}

const ISWC_OF = `upper(regexp_replace(coalesce(l.extra->>'iswc', ''), '[^0-9A-Za-z]', '', 'g'))`;
export const TITLE_NORM = `rondo_norm(coalesce(l.extra->>'workTitle', l.track_title))`;
export const WRITERS_NORM = `publishing_writers_norm(l.extra->>'writers')`;
export const RIGHT_TYPE = `CASE WHEN l.extra->>'rightType' = 'mechanical' THEN 'mechanical' ELSE 'performance' END`;

export interface PublishingAllocation {
  lines: number;
  matched: number;
  paid: number;
  suggestions: number;
}

/** Matches, suggests and decides the share sets of the scoped publishing lines. */
export async function allocatePublishing(trx: Trx, tenantId: number, fileId?: string): Promise<PublishingAllocation> {
  await matchWorks(trx, tenantId, fileId);
  const suggestions = await suggestWorks(trx, tenantId, fileId);
  await assignPublishingShares(trx, tenantId, fileId);
  const s = scopeSql(fileId);
  const { rows } = await trx.raw(
    `SELECT count(*)::int AS lines, count(l.work_id)::int AS matched, count(l.pub_share_set_id)::int AS paid
       FROM royalty_lines l WHERE l.tenant_id = ? AND ${s.sql}`,
    [tenantId, ...s.bindings],
  );
  return { ...rows[0], suggestions };
}

/** Steps 1 and 2: each scoped line's work (by ISWC, else an accepted rule), rewritten only where it changes. */
export async function matchWorks(trx: Trx, tenantId: number, fileId?: string): Promise<number> {
  const s = scopeSql(fileId);
  const r = await trx.raw(
    `WITH k AS (
       SELECT DISTINCT ${ISWC_OF} AS iswc, ${TITLE_NORM} AS title_norm, ${WRITERS_NORM} AS writers_norm
         FROM royalty_lines l WHERE l.tenant_id = ? AND ${s.sql}
     ), t AS (
       SELECT k.*, coalesce(w.id, r.work_id) AS work_id, CASE WHEN w.id IS NOT NULL THEN 'iswc' WHEN r.work_id IS NOT NULL THEN 'rule' END AS how
         FROM k
         LEFT JOIN works w ON w.tenant_id = ? AND k.iswc <> '' AND w.iswc = k.iswc
         LEFT JOIN publishing_match_rules r ON r.tenant_id = ? AND r.title_norm = k.title_norm AND r.writers_norm = k.writers_norm
     )
     UPDATE royalty_lines l SET work_id = t.work_id, work_match = t.how
       FROM t
      WHERE l.tenant_id = ? AND ${s.sql} AND ${ISWC_OF} = t.iswc AND ${TITLE_NORM} IS NOT DISTINCT FROM t.title_norm AND ${WRITERS_NORM} = t.writers_norm
        AND (l.work_id, l.work_match) IS DISTINCT FROM (t.work_id, t.how)`,
    [tenantId, ...s.bindings, tenantId, tenantId, tenantId, ...s.bindings],
  );
  return r.rowCount ?? 0;
}

/**
 * Step 3: for unmatched title + writers keys, up to 3 works whose title (or an alternate
 * title) is the same in normal form and at least one of whose writers' last names appears in
 * the statement's writers; score = the share of the work's writers found. Stored, never applied.
 */
export async function suggestWorks(trx: Trx, tenantId: number, fileId?: string): Promise<number> {
  const s = scopeSql(fileId);
  const r = await trx.raw(
    `WITH k AS (
       SELECT ${TITLE_NORM} AS title_norm, ${WRITERS_NORM} AS writers_norm,
              min(coalesce(l.extra->>'workTitle', l.track_title)) AS title, min(l.extra->>'writers') AS writers
         FROM royalty_lines l WHERE l.tenant_id = ? AND ${s.sql} AND l.work_id IS NULL AND ${TITLE_NORM} IS NOT NULL
        GROUP BY 1, 2
     ), c AS (
       SELECT k.*, w.id AS work_id,
              (SELECT count(*) FROM work_writers ww JOIN writers wr ON wr.tenant_id = ww.tenant_id AND wr.id = ww.writer_id
                WHERE ww.tenant_id = w.tenant_id AND ww.work_id = w.id AND rondo_norm(wr.last_name) IS NOT NULL
                  AND position(rondo_norm(wr.last_name) IN k.writers_norm) > 0)::numeric
              / greatest((SELECT count(*) FROM work_writers ww WHERE ww.tenant_id = w.tenant_id AND ww.work_id = w.id), 1) AS score
         FROM k JOIN works w ON w.tenant_id = ?
          AND (rondo_norm(w.title) = k.title_norm
               OR EXISTS (SELECT 1 FROM work_titles t WHERE t.tenant_id = w.tenant_id AND t.work_id = w.id AND rondo_norm(t.title) = k.title_norm))
     ), best AS (
       SELECT c.*, row_number() OVER (PARTITION BY c.title_norm, c.writers_norm ORDER BY c.score DESC, c.work_id) AS rn FROM c WHERE c.score > 0
     )
     INSERT INTO publishing_match_suggestions (tenant_id, title_norm, writers_norm, title, writers, work_id, score)
     SELECT ?, title_norm, writers_norm, title, writers, work_id, round(score, 4) FROM best WHERE rn <= 3
     ON CONFLICT (tenant_id, title_norm, writers_norm, work_id) DO NOTHING`,
    [tenantId, ...s.bindings, tenantId, tenantId],
  );
  return r.rowCount ?? 0;
}

interface Key { work_id: string; right_type: 'performance' | 'mechanical'; country: string; month: string }
const MONTH = `coalesce(to_char(coalesce(l.sale_month, l.sale_period_start), 'YYYY-MM-DD'), '')`;

/** The share set of every scoped matched line with a base amount; lines whose work shares do not add up to 100 get none. */
export async function assignPublishingShares(trx: Trx, tenantId: number, fileId?: string): Promise<void> {
  const s = scopeSql(fileId);
  const { rows: keys } = await trx.raw(
    `SELECT DISTINCT l.work_id, ${RIGHT_TYPE} AS right_type, coalesce(l.country, '') AS country,
            ${MONTH} AS month
       FROM royalty_lines l WHERE l.tenant_id = ? AND ${s.sql} AND l.work_id IS NOT NULL AND l.base_amount IS NOT NULL`,
    [tenantId, ...s.bindings],
  ) as { rows: Key[] };
  const works = [...new Set(keys.map((k) => k.work_id))];
  const writers = works.length
    ? ((await trx.raw(`SELECT work_id, writer_id, share::text, performance_share::text, mechanical_share::text, publisher_id FROM work_writers WHERE work_id = ANY(?::uuid[])`, [works])).rows as WriterRow[])
    : [];
  const publishers = works.length
    ? ((await trx.raw(`SELECT work_id, publisher_id, performance_share::text, mechanical_share::text FROM work_publishers WHERE work_id = ANY(?::uuid[])`, [works])).rows as PublisherRow[])
    : [];
  const agreements = works.length
    ? ((await trx.raw(
        `SELECT a.publisher_id, a.writer_id, a.territories, to_char(a.start_date, 'YYYY-MM-DD') AS start_date, to_char(a.end_date, 'YYYY-MM-DD') AS end_date, a.writer_share::text
           FROM publishing_agreements a WHERE a.status = 'active' AND a.writer_id IN (SELECT writer_id FROM work_writers WHERE work_id = ANY(?::uuid[]))`,
        [works],
      )).rows as AgreementRow[])
    : [];

  const decided: { key: Key; set: string | null }[] = [];
  const sets = new Map<string, PayeeShare[]>();
  for (const key of keys) {
    const shares = payeeShares(key, writers.filter((w) => w.work_id === key.work_id), publishers.filter((p) => p.work_id === key.work_id), agreements);
    if (!shares) {
      decided.push({ key, set: null });
      continue;
    }
    const id = setId(shares);
    sets.set(id, shares);
    decided.push({ key, set: id });
  }
  for (const [id, shares] of sets) {
    const rows = shares.map((p) => ({
      tenant_id: tenantId, share_set_id: id, payee_kind: p.kind, payee_id: p.id, share: p.share.toFixed(12), gets_remainder: p.getsRemainder,
      others: trx.raw('?::numeric[]', [shares.filter((o) => o !== p).map((o) => o.share.toFixed(12))]),
    }));
    await trx('publishing_share_sets').insert(rows).onConflict(['tenant_id', 'share_set_id', 'payee_kind', 'payee_id']).ignore();
  }
  await trx.raw(`DROP TABLE IF EXISTS pi_keys`);
  await trx.raw(`CREATE TEMP TABLE pi_keys (work_id uuid, right_type text, country text, month text, set_id uuid) ON COMMIT DROP`);
  for (let i = 0; i < decided.length; i += 1000) {
    const part = decided.slice(i, i + 1000);
    await trx('pi_keys').insert(part.map((d) => ({ ...d.key, set_id: d.set })));
  }
  // Lines whose decision changes (another set, none): rewritten, nothing else.
  await trx.raw(`ANALYZE pi_keys`);
  await trx.raw(
    `UPDATE royalty_lines l SET pub_share_set_id = k.set_id FROM pi_keys k
      WHERE l.tenant_id = ? AND ${s.sql} AND l.work_id IS NOT NULL AND l.base_amount IS NOT NULL
        AND k.work_id = l.work_id AND k.right_type = ${RIGHT_TYPE} AND k.country = coalesce(l.country, '') AND k.month = ${MONTH}
        AND l.pub_share_set_id IS DISTINCT FROM k.set_id`,
    [tenantId, ...s.bindings],
  );
  await trx.raw(
    `UPDATE royalty_lines l SET pub_share_set_id = NULL
      WHERE l.tenant_id = ? AND ${s.sql} AND l.pub_share_set_id IS NOT NULL AND (l.work_id IS NULL OR l.base_amount IS NULL)`,
    [tenantId, ...s.bindings],
  );
}

/** A share set's id: md5 of its (kind, payee, share) rows in order. */
function setId(shares: PayeeShare[]): string {
  const text = shares.map((p) => `${p.kind}:${p.id}:${p.share.toFixed(12)}`).sort().join(',');
  const h = createHash('md5').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}


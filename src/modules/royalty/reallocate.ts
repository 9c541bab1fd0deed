/**
 * Re-matching and re-allocation after the catalogue, the splits or the matching rules
 * changed (marks written by triggers into allocation_dirty, see migration 20261123300100).
 *
 * Only lines the change can affect are looked at, and only lines whose result changes are
 * re-written:
 *   - re-match: lines without a recording or product, lines of changed recordings/products
 *     (every line when a matching rule changed: a rule outranks ISRC matches);
 *   - re-allocate: re-matched lines + lines of recordings/products whose split (or primary
 *     artist's default split) changed + lines currently paid by a changed split. Their new
 *     allocation (the share set of their effective split) is computed set-based; lines whose
 *     share set changes keep the earlier one in royalty_allocation_history and get the new
 *     one. Nothing else is touched.
 * Only files whose allocation has committed take part (`processed`): a file
 * before it is allocated by its own job, which sees every change committed before it
 * (docs/engine.md, "Decided while stored"); a change committed while that job ran is taken
 * here, after it (this job waits for the workspace lock the allocation holds).
 */
import { hashJoins, type Trx } from '../../db';
import { clock } from '../../lib/clock';
import { assignShareSets, KEY_JOIN, lockTenant, prepareSplitKeys } from './allocate';
import { applyDspRules, resolveMatchKeys, suggestMatches, MATCH_STATUS_SQL, type Scope } from './match';

export interface ReallocationResult {
  marks: number;
  rematched: number;
  reallocated: number;
  files: string[];
}

export async function reallocateTenant(trx: Trx, tenantId: number, opts: { force?: boolean } = {}): Promise<ReallocationResult> {
  await lockTenant(trx, tenantId);
  const { rows: marks } = await trx.raw(
    `DELETE FROM allocation_dirty WHERE tenant_id = ? RETURNING kind, split_id, asset_id, product_id, artist_id`,
    [tenantId],
  );
  const result: ReallocationResult = { marks: marks.length, rematched: 0, reallocated: 0, files: [] };
  if (!marks.length && !opts.force) return result;
  const list = marks as Record<string, string | null>[];
  const ids = (kind: string | null, col: string): string[] => [
    ...new Set(list.filter((m) => (kind === null || m.kind === kind) && m[col]).map((m) => m[col] as string)),
  ];
  const rulesChanged = opts.force || marks.some((m: { kind: string }) => m.kind === 'rules');
  const catAssets = ids(null, 'asset_id');
  const catProducts = ids(null, 'product_id');
  const splitAssets = ids('split', 'asset_id');
  const splitProducts = ids('split', 'product_id');
  const artists = ids(null, 'artist_id');
  const splitIds = ids('split', 'split_id');

  const processed = `l.file_id IN (SELECT f.id FROM files f WHERE f.tenant_id = l.tenant_id AND f.status = 'processed')`;
  const files = new Set<string>();

  if (rulesChanged) {
    const { rows } = await trx.raw(
      `UPDATE royalty_lines l SET dsp_source = COALESCE(l.dsp_source, l.dsp), dsp = r.dsp_target
         FROM matching_rules r
        WHERE l.tenant_id = ? AND ${processed} AND r.tenant_id = l.tenant_id AND r.kind = 'dsp'
          AND r.store_norm = rondo_norm(l.dsp) AND l.dsp IS DISTINCT FROM r.dsp_target
        RETURNING l.file_id`,
      [tenantId],
    );
    for (const r of rows) files.add(r.file_id);
  }
  void applyDspRules; // per-file form, used by allocateFile

  await trx.raw(`DROP TABLE IF EXISTS rr_touched`);
  await trx.raw(`CREATE TEMP TABLE rr_touched (file_id uuid, line_id bigint, PRIMARY KEY (file_id, line_id)) ON COMMIT DROP`);

  // 1. Re-match.
  const rematchScope: Scope = rulesChanged
    ? { sql: processed, bindings: [] }
    : {
        sql: `${processed} AND (l.asset_id IS NULL OR l.product_id IS NULL OR l.asset_id = ANY(?::uuid[]) OR l.product_id = ANY(?::uuid[]))`,
        bindings: [catAssets, catProducts],
      };
  await resolveMatchKeys(trx, tenantId, rematchScope, { autoCreate: false });
  const re = await hashJoins(trx, () => trx.raw(
    `WITH u AS (
       UPDATE royalty_lines l SET asset_id = k.asset_id, product_id = k.product_id, artist_id = k.artist_id, match_status = ${MATCH_STATUS_SQL}
         FROM rm_keys k
        WHERE l.tenant_id = ? AND (${rematchScope.sql}) AND ${KEY_JOIN}
          AND (l.asset_id, l.product_id, l.artist_id, l.match_status) IS DISTINCT FROM (k.asset_id, k.product_id, k.artist_id, ${MATCH_STATUS_SQL})
        RETURNING l.file_id, l.line_no
     ) INSERT INTO rr_touched SELECT file_id, line_no FROM u ON CONFLICT DO NOTHING`,
    [tenantId, ...rematchScope.bindings],
  ));
  result.rematched = re.rowCount ?? 0;
  if (result.rematched) {
    const { rows } = await trx.raw(`SELECT DISTINCT file_id FROM rr_touched WHERE ? > 0`, [tenantId]);
    for (const r of rows) files.add(r.file_id);
  }
  // Suggestions made stale by the new matches go; new ones are offered.
  await trx.raw(
    `DELETE FROM match_suggestions s USING rm_keys k
      WHERE s.tenant_id = ? AND s.status = 'open'
        AND ((s.kind = 'asset' AND k.asset_id IS NOT NULL AND coalesce(s.isrc, '') = k.isrc_n AND s.title_norm = k.title_n)
          OR (s.kind = 'product' AND k.product_id IS NOT NULL AND coalesce(s.upc, '') = k.upc_n AND s.title_norm = k.release_n))
        AND s.artist_norm IS NOT DISTINCT FROM k.artist_n`,
    [tenantId],
  );
  await suggestMatches(trx, tenantId);

  // 2. Lines whose effective split may have changed.
  if (splitAssets.length || splitProducts.length || artists.length || splitIds.length || catAssets.length || catProducts.length) {
    await trx.raw(
      `INSERT INTO rr_touched
       SELECT l.file_id, l.line_no FROM royalty_lines l
        WHERE l.tenant_id = ? AND ${processed}
          AND (l.asset_id = ANY(?::uuid[]) OR l.product_id = ANY(?::uuid[])
               OR l.asset_id IN (SELECT aa.asset_id FROM asset_artists aa WHERE aa.tenant_id = ? AND aa.artist_id = ANY(?::uuid[]))
               OR l.product_id IN (SELECT pa.product_id FROM product_artists pa WHERE pa.tenant_id = ? AND pa.artist_id = ANY(?::uuid[])))
       UNION
       SELECT l.file_id, l.line_no FROM royalty_lines l
        WHERE l.tenant_id = ? AND l.share_set_id IN (SELECT s.share_set_id FROM royalty_share_sets s WHERE s.tenant_id = l.tenant_id AND s.split_id = ANY(?::uuid[]))
       ON CONFLICT DO NOTHING`,
      [tenantId, [...splitAssets, ...catAssets], [...splitProducts, ...catProducts], tenantId, artists, tenantId, artists, tenantId, splitIds],
    );
  }

  // 3. Compare and re-write what changed.
  const now = clock.now();
  const touchedScope = { sql: `(l.file_id, l.line_no) IN (SELECT file_id, line_id FROM rr_touched)`, bindings: [] };
  await trx.raw(`ANALYZE rr_touched`);
  await prepareSplitKeys(trx, tenantId, touchedScope);
  const done = await assignShareSets(trx, tenantId, touchedScope, now, 'lines');
  result.reallocated = done.changed;
  for (const f of done.files) files.add(f);
  result.files = [...files].sort();
  return result;
}

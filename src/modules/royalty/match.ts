/**
 * Matching statement lines to the catalogue, set-based: the distinct match keys of a set of
 * lines (ISRC, UPC, track title, artist, release title, DSP) go into a temporary table
 * `rm_keys`, are resolved there (a few thousand keys, not millions of lines), and the caller
 * writes the result back onto the lines with one UPDATE … FROM rm_keys.
 *
 * Order, first hit wins (recording and product are resolved independently):
 *   recording: saved rule (DSP-specific before any-DSP, ISRC rule before title rule)
 *              → ISRC (normalised) → title + artist when exactly ONE recording fits
 *              (only when the line has no ISRC or the recording has none, so a line whose
 *              ISRC differs is never moved silently);
 *   product:   saved rule → UPC (as GTIN-13) → release title + artist, exactly one.
 * Lines the rules cannot place get fuzzy suggestions (pg_trgm similarity when installed,
 * else equal normalised titles) that wait for a person: nothing fuzzy is applied.
 * With the workspace setting `autoCreateCatalogue`, recordings (by ISRC, else as drafts by
 * title + artist), products (by UPC) and their artists are created from statement data.
 */
import type { Trx } from '../../db';
import { createFromMatchKeys } from '../../repositories/catalogue';

export interface Scope {
  /** SQL predicate over royalty_lines aliased `l` (tenant_id is added by the caller). */
  sql: string;
  bindings: any[];
}

/** `normalise(text)` as SQL on the key table. */
const ISRC_N = `upper(regexp_replace(isrc, '[^A-Za-z0-9]', '', 'g'))`;
const UPC_N = `CASE WHEN regexp_replace(upc, '\\D', '', 'g') ~ '^\\d{6,13}$' THEN lpad(regexp_replace(upc, '\\D', '', 'g'), 13, '0')
  WHEN regexp_replace(upc, '\\D', '', 'g') ~ '^0\\d{13}$' THEN substr(regexp_replace(upc, '\\D', '', 'g'), 2) ELSE '' END`;

let trgm: boolean | null = null;
async function hasTrgm(trx: Trx): Promise<boolean> {
  if (trgm === null) {
    const { rows } = await trx.raw(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`);
    trgm = rows.length > 0;
  }
  return trgm;
}

/** "Treat store name A as DSP B": rewrite `dsp` of the scoped lines, keeping the original in dsp_source. */
export async function applyDspRules(trx: Trx, tenantId: number, scope: Scope): Promise<number> {
  const r = await trx.raw(
    `UPDATE royalty_lines l SET dsp_source = COALESCE(l.dsp_source, l.dsp), dsp = r.dsp_target
       FROM matching_rules r
      WHERE l.tenant_id = ? AND (${scope.sql}) AND r.tenant_id = l.tenant_id AND r.kind = 'dsp'
        AND r.store_norm = rondo_norm(l.dsp) AND l.dsp IS DISTINCT FROM r.dsp_target`,
    [tenantId, ...scope.bindings],
  );
  return r.rowCount ?? 0;
}

/**
 * Build and resolve `rm_keys` for the scoped lines. `keysFrom`: a query that already yields
 * the distinct keys (isrc, upc, track_title, artist, release_title, dsp; '' for NULL), e.g.
 * from a per-file key table, instead of scanning the lines.
 */
export async function resolveMatchKeys(
  trx: Trx,
  tenantId: number,
  scope: Scope,
  opts: { autoCreate: boolean; keysFrom?: string; keysHaveId?: boolean },
): Promise<void> {
  await trx.raw(`DROP TABLE IF EXISTS rm_keys`);
  // keysHaveId: the source also yields `kid` (integer, unique), kept as the key's id.
  if (opts.keysFrom)
    await trx.raw(
      `CREATE TEMP TABLE rm_keys ON COMMIT DROP AS SELECT ${opts.keysHaveId ? 'kid, ' : ''}isrc, upc, track_title, artist, release_title, dsp FROM (${opts.keysFrom}) src`,
    );
  else
    await trx.raw(
      `CREATE TEMP TABLE rm_keys ON COMMIT DROP AS
       SELECT DISTINCT coalesce(l.isrc, '') AS isrc, coalesce(l.upc, '') AS upc, coalesce(l.track_title, '') AS track_title,
              coalesce(l.artist, '') AS artist, coalesce(l.release_title, '') AS release_title, coalesce(l.dsp, '') AS dsp
         FROM royalty_lines l WHERE l.tenant_id = ? AND (${scope.sql})`,
      [tenantId, ...scope.bindings],
    );
  if (!opts.keysHaveId) await trx.raw(`ALTER TABLE rm_keys ADD COLUMN kid serial`);
  await trx.raw(`ALTER TABLE rm_keys ADD COLUMN isrc_n text, ADD COLUMN upc_n text, ADD COLUMN title_n text,
    ADD COLUMN artist_n text, ADD COLUMN release_n text, ADD COLUMN dsp_n text, ADD COLUMN asset_id uuid, ADD COLUMN asset_how text,
    ADD COLUMN product_id uuid, ADD COLUMN product_how text, ADD COLUMN artist_id uuid`);
  await trx.raw(`UPDATE rm_keys SET isrc_n = ${ISRC_N}, upc_n = ${UPC_N}, title_n = rondo_norm(track_title), artist_n = rondo_norm(artist),
    release_n = rondo_norm(release_title), dsp_n = rondo_norm(dsp)`);
  await trx.raw(`ANALYZE rm_keys`);

  await applyRules(trx, tenantId);
  await exactPasses(trx, tenantId, 'isrc', 'upc', 'title');
  if (opts.autoCreate) {
    await createFromMatchKeys(trx, tenantId);
    await exactPasses(trx, tenantId, 'auto', 'auto', 'auto');
  }
  await trx.raw(
    `UPDATE rm_keys k SET artist_id = COALESCE(
       (SELECT aa.artist_id FROM asset_artists aa WHERE aa.tenant_id = ? AND aa.asset_id = k.asset_id ORDER BY aa.position, aa.artist_id LIMIT 1),
       (SELECT pa.artist_id FROM product_artists pa WHERE pa.tenant_id = ? AND pa.product_id = k.product_id ORDER BY pa.position, pa.artist_id LIMIT 1))
     WHERE k.asset_id IS NOT NULL OR k.product_id IS NOT NULL`,
    [tenantId, tenantId],
  );
}

/** The match_status a line gets: how its recording (else its product) was found. */
export const MATCH_STATUS_SQL = `COALESCE(k.asset_how, k.product_how, 'unmatched')`;

async function applyRules(trx: Trx, tenantId: number): Promise<void> {
  // Per kind: its rules by code (ISRC / UPC) or by title (+ artist); DSP-specific first.
  const kinds = [
    { kind: 'asset', id: 'asset_id', code: 'isrc', codeN: 'isrc_n', titleN: 'title_n' },
    { kind: 'product', id: 'product_id', code: 'upc', codeN: 'upc_n', titleN: 'release_n' },
  ];
  for (const p of kinds) {
    await trx.raw(
      `UPDATE rm_keys k SET ${p.id} = (
         SELECT r.${p.id} FROM matching_rules r
          WHERE r.tenant_id = ? AND r.kind = '${p.kind}' AND (r.dsp_norm IS NULL OR r.dsp_norm = k.dsp_n)
            AND ((r.${p.code} IS NOT NULL AND r.${p.code} = k.${p.codeN})
                 OR (r.${p.code} IS NULL AND r.title_norm = k.${p.titleN} AND (r.artist_norm IS NULL OR r.artist_norm = k.artist_n)))
          ORDER BY (r.dsp_norm IS NOT NULL) DESC, (r.${p.code} IS NOT NULL) DESC, (r.artist_norm IS NOT NULL) DESC, r.created_at DESC, r.id LIMIT 1)`,
      [tenantId],
    );
  }
  await trx.raw(`UPDATE rm_keys SET asset_how = CASE WHEN asset_id IS NOT NULL THEN 'rule' END, product_how = CASE WHEN product_id IS NOT NULL THEN 'rule' END`);
}

/** Artist-name test of a catalogue row `x` (assets or products) against key `k`. */
function artistFits(table: 'assets' | 'products'): string {
  const link = table === 'assets' ? ['asset_artists', 'asset_id'] : ['product_artists', 'product_id'];
  return `(rondo_norm(x.display_artist) = k.artist_n
    OR EXISTS (SELECT 1 FROM unnest(x.main_artist) m WHERE rondo_norm(m) = k.artist_n)
    OR EXISTS (SELECT 1 FROM ${link[0]} xa JOIN artists ar ON ar.tenant_id = xa.tenant_id AND ar.id = xa.artist_id
                WHERE xa.tenant_id = x.tenant_id AND xa.${link[1]} = x.id AND rondo_norm(ar.name) = k.artist_n))`;
}

async function exactPasses(trx: Trx, tenantId: number, isrcHow: string, upcHow: string, titleHow: string): Promise<void> {
  // recordings by ISRC, products by UPC; then, for what is still unmatched, by title + artist
  // where exactly one candidate fits (and the candidate has no code the line contradicts)
  const passes = [
    { table: 'assets' as const, id: 'asset_id', code: 'isrc', codeN: 'isrc_n', titleN: 'title_n', codeHow: isrcHow },
    { table: 'products' as const, id: 'product_id', code: 'upc', codeN: 'upc_n', titleN: 'release_n', codeHow: upcHow },
  ];
  for (const p of passes) {
    await trx.raw(
      `UPDATE rm_keys k SET ${p.id} = x.id, ${p.id.replace('_id', '_how')} = ? FROM ${p.table} x
        WHERE k.${p.id} IS NULL AND k.${p.codeN} <> '' AND x.tenant_id = ? AND x.${p.code} = k.${p.codeN}`,
      [p.codeHow, tenantId],
    );
    await trx.raw(
      `WITH cand AS (
         SELECT k.kid, x.id FROM rm_keys k JOIN ${p.table} x ON x.tenant_id = ? AND rondo_norm(x.title) = k.${p.titleN}
          WHERE k.${p.id} IS NULL AND k.${p.titleN} IS NOT NULL AND k.artist_n IS NOT NULL
            AND (k.${p.codeN} = '' OR x.${p.code} IS NULL) AND ${artistFits(p.table)}
       ), one AS (SELECT kid, (array_agg(id))[1] AS id FROM cand GROUP BY kid HAVING count(*) = 1)
       UPDATE rm_keys k SET ${p.id} = one.id, ${p.id.replace('_id', '_how')} = ? FROM one WHERE k.kid = one.kid`,
      [tenantId, titleHow],
    );
  }
}

/**
 * The lowest title similarity that can still reach a fuzzy suggestion's score (0.45): with an
 * artist 0.7 · title + 0.3 · artist ≥ 0.45 needs title ≥ 0.15 / 0.7 ≈ 0.2143 (without one the
 * score is the title's similarity itself). A little below it, so no suggestion is lost to
 * rounding; the exact score is computed on the candidates the `%` prefilter lets through.
 */
export const SUGGEST_TITLE_THRESHOLD = 0.21;

/**
 * The INSERT of one kind's suggestions from `rm_keys` (bindings: suggestionBindings). With
 * `fuzzy` it expects pg_trgm.similarity_threshold at SUGGEST_TITLE_THRESHOLD (suggestMatches
 * sets it).
 */
export function suggestionInsertSql(kind: 'asset' | 'product', fuzzy: boolean): string {
  const table = kind === 'asset' ? 'assets' : 'products';
  const titleN = kind === 'asset' ? 'title_n' : 'release_n';
  const title = kind === 'asset' ? 'track_title' : 'release_title';
  const ident = kind === 'asset' ? 'isrc' : 'upc';
  const score = fuzzy
    ? `CASE WHEN k.artist_n IS NULL THEN similarity(lower(x.title), lower(k.${title}))
            ELSE 0.7 * similarity(lower(x.title), lower(k.${title})) + 0.3 * similarity(lower(COALESCE(x.display_artist, '')), lower(k.artist)) END`
    : `CASE WHEN rondo_norm(x.title) = k.${titleN} THEN CASE WHEN rondo_norm(x.display_artist) = k.artist_n THEN 1 ELSE 0.8 END ELSE 0 END`;
  // the candidates by index (migration title_search_indexes): every row that can reach the score
  const candidates = fuzzy ? `rondo_${table}_titled_like(k.${title})` : `rondo_${table}_titled(k.${titleN})`;
  return `INSERT INTO match_suggestions (tenant_id, kind, ${ident}, title, artist, title_norm, artist_norm, ${kind}_id, score, reason)
     SELECT ?, ?, NULLIF(k.${ident}_n, ''), NULLIF(k.${title}, ''), NULLIF(k.artist, ''), k.${titleN}, k.artist_n, c.id, c.score, c.reason
       FROM (SELECT DISTINCT ON (${ident}_n, ${titleN}, artist_n) * FROM rm_keys
              WHERE ${kind}_id IS NULL AND ${titleN} IS NOT NULL
                -- keys already offered (open, accepted or rejected) are not searched again
                AND NOT EXISTS (SELECT 1 FROM match_suggestions s WHERE s.tenant_id = ? AND s.kind = ? AND coalesce(s.${ident}, '') = rm_keys.${ident}_n
                                  AND s.title_norm = rm_keys.${titleN} AND s.artist_norm IS NOT DISTINCT FROM rm_keys.artist_n)
              ORDER BY ${ident}_n, ${titleN}, artist_n) k
       CROSS JOIN LATERAL (
         SELECT x.id, round(s.score::numeric, 4) AS score,
                CASE WHEN rondo_norm(x.title) = k.${titleN} AND x.${ident} IS NOT NULL AND k.${ident}_n <> '' AND x.${ident} <> k.${ident}_n
                       THEN 'same title; the statement ${ident.toUpperCase()} differs'
                     WHEN rondo_norm(x.title) = k.${titleN} THEN 'same title; several candidates or a different artist'
                     ELSE 'similar title' END AS reason
           FROM ${candidates} cand(id) JOIN ${table} x ON x.tenant_id = ? AND x.id = cand.id
          CROSS JOIN LATERAL (SELECT (${score}) AS score) s
          WHERE s.score >= 0.45
          ORDER BY s.score DESC, x.id LIMIT 3) c
     ON CONFLICT DO NOTHING`;
}

export const suggestionBindings = (tenantId: number, kind: 'asset' | 'product') => [tenantId, kind, tenantId, kind, tenantId];

/**
 * Fuzzy suggestions for the keys left without a recording / product. Stored once per
 * (statement key, candidate); a rejected suggestion stays rejected.
 * Candidates are found by index, not by scoring the whole catalogue for each key: with pg_trgm
 * the titles `%`-similar at SUGGEST_TITLE_THRESHOLD (rondo_assets_titled_like: trigram GIN
 * index on lower(title)), without it the equal normalised titles (rondo_assets_titled: index on
 * rondo_norm(title)); the products' likewise.
 */
export async function suggestMatches(trx: Trx, tenantId: number): Promise<number> {
  const fuzzy = await hasTrgm(trx);
  let previous: string | null = null;
  if (fuzzy) {
    const { rows } = await trx.raw(
      `SELECT current_setting('pg_trgm.similarity_threshold', true) AS previous, set_config('pg_trgm.similarity_threshold', ?, true)`,
      [String(SUGGEST_TITLE_THRESHOLD)],
    );
    previous = rows[0].previous;
  }
  let n = 0;
  for (const kind of ['asset', 'product'] as const) {
    const r = await trx.raw(suggestionInsertSql(kind, fuzzy), suggestionBindings(tenantId, kind));
    n += r.rowCount ?? 0;
  }
  // the transaction's later statements see the threshold they had before
  if (fuzzy) await trx.raw(`SELECT set_config('pg_trgm.similarity_threshold', ?, true)`, [previous ?? '0.3']);
  return n;
}

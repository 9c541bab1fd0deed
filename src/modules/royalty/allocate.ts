/**
 * Allocation: statement lines → which split pays each line (its share set), set-based.
 *
 * Per file (allocateFile, run by the `royalty.allocate` job after ingest):
 *   1. "store A is DSP B" rules rewrite `dsp` (original kept in dsp_source);
 *   2. match keys resolved (match.ts), catalogue auto-created when the workspace asks;
 *   3. currency: each line keeps `net` + `currency`; `base_amount`, `base_currency`,
 *      `fx_rate` (1 unit of currency = fx_rate base units) are set. Rate order: 1 for the
 *      base currency; the statement's own rate when it converts to the base currency
 *      (gross_currency = base: base_amount = net / exchange_rate); else the workspace's
 *      monthly rate for the line's sale month. No rate → a StepFailure (`missing_rates`) naming the
 *      currency and month: the file fails, nothing is guessed;
 *   4. one UPDATE writes match + currency onto the lines;
 *   5. the file's accounting period: the cadence period containing its reporting month
 *      (the source's own reporting month, else the statement period end, else the last sale
 *      month);
 *   6. the decision: each matched line gets the share set of its effective split
 *      (effective_split_shares called once per DISTINCT (asset, product, sale month,
 *      country, sale type), joined back to the lines); no per-payee row is written.
 *
 * Earnings are read, not stored: the royalty_earnings VIEW is lines ⋈ share sets. Rounding
 * rule (royalty_share_amount in SQL): each payee gets round(base_amount × share / 100, 12);
 * the payee with the LARGEST share (ties: the smallest tenant_user_id) gets base_amount −
 * Σ the others' rounded amounts, so a line's current earnings always sum to its base amount
 * exactly. The share set row carries that flag and the other shares.
 */
import { hashJoins, type Trx } from '../../db';
import { allocatePublishing } from '../publishing-income/allocate';
import { clock } from '../../lib/clock';
import { getSettings } from '../settings/service';
import { accountingPeriodEnd, accountingPeriodSql } from '../settings/periods';
import { applyDspRules, resolveMatchKeys, suggestMatches, MATCH_STATUS_SQL, type Scope } from './match';
import { dayOf, setAccountingPeriodTo, updateFile, type FileRow } from '../../repositories/files';
import { StepFailure } from '../../pipeline/run-step';

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Join of royalty_lines `l` to rm_keys `k` (nullable text keys compared through ''). */
export const KEY_JOIN = `coalesce(l.isrc, '') = k.isrc AND coalesce(l.upc, '') = k.upc AND coalesce(l.track_title, '') = k.track_title
  AND coalesce(l.artist, '') = k.artist AND coalesce(l.release_title, '') = k.release_title AND coalesce(l.dsp, '') = k.dsp`;

const Z = `'${ZERO_UUID}'::uuid`;

/**
 * Split keys for the scoped lines, in two temporary tables (planned with real statistics):
 *   al_pf  one row per distinct (recording, product): which split conditions can matter
 *          (any candidate split — own, product's, linked artists' — with territories, a
 *          sale type or dates). Conditions no candidate has are dropped from the key, so
 *          effective_split_shares runs once per distinct (recording, product) in the
 *          common case, never once per line;
 *   al_ks  the effective split's shares per distinct key, the remainder payee flagged
 *          (largest share, ties: smallest tenant_user_id).
 */
export async function prepareSplitKeys(trx: Trx, tenantId: number, scope: Scope, opts: { pairsFromKeys?: boolean; unconditionalOnly?: boolean } = {}): Promise<{ conditional: boolean }> {
  const matched = `l.tenant_id = ? AND (${scope.sql}) AND l.base_amount IS NOT NULL AND (l.asset_id IS NOT NULL OR l.product_id IS NOT NULL)`;
  // pairsFromKeys: the scoped lines carry exactly rm_keys' matches and all have a base amount
  // (allocateFile, after its update): the distinct pairs come from the keys, not the lines.
  const pairs = opts.pairsFromKeys
    ? `SELECT DISTINCT coalesce(k.asset_id, ${Z}) AS a_key, coalesce(k.product_id, ${Z}) AS p_key FROM rm_keys k WHERE k.asset_id IS NOT NULL OR k.product_id IS NOT NULL`
    : `SELECT DISTINCT coalesce(l.asset_id, ${Z}) AS a_key, coalesce(l.product_id, ${Z}) AS p_key FROM royalty_lines l WHERE ${matched}`;
  const pairBindings = opts.pairsFromKeys ? [] : [tenantId, ...scope.bindings];
  await trx.raw(`DROP TABLE IF EXISTS al_pf, al_ks`);
  await hashJoins(trx, () => trx.raw(
    `CREATE TEMP TABLE al_pf ON COMMIT DROP AS
     WITH pairs AS (${pairs}), cand AS (
       SELECT p.a_key, p.p_key, s.territories, s.type, s.valid_from, s.valid_to
         FROM pairs p JOIN splits s ON s.tenant_id = ? AND s.asset_id = p.a_key
       UNION ALL
       SELECT p.a_key, p.p_key, s.territories, s.type, s.valid_from, s.valid_to
         FROM pairs p JOIN splits s ON s.tenant_id = ? AND s.product_id = p.p_key
       UNION ALL
       SELECT p.a_key, p.p_key, s.territories, s.type, s.valid_from, s.valid_to
         FROM pairs p JOIN asset_artists x ON x.tenant_id = ? AND x.asset_id = p.a_key JOIN splits s ON s.tenant_id = ? AND s.artist_id = x.artist_id
       UNION ALL
       SELECT p.a_key, p.p_key, s.territories, s.type, s.valid_from, s.valid_to
         FROM pairs p JOIN product_artists x ON x.tenant_id = ? AND x.product_id = p.p_key JOIN splits s ON s.tenant_id = ? AND s.artist_id = x.artist_id
     )
     SELECT p.a_key, p.p_key,
            coalesce(bool_or(c.valid_from IS NOT NULL OR c.valid_to IS NOT NULL), false) AS by_date,
            coalesce(bool_or(c.territories IS NOT NULL), false) AS by_territory,
            coalesce(bool_or(c.type <> 'all'), false) AS by_type
       FROM pairs p LEFT JOIN cand c ON c.a_key = p.a_key AND c.p_key = p.p_key
      GROUP BY p.a_key, p.p_key`,
    [...pairBindings, tenantId, tenantId, tenantId, tenantId, tenantId, tenantId],
  ));
  await trx.raw(`ANALYZE al_pf`);
  await trx.raw(`DROP TABLE IF EXISTS al_keys`);
  const { rows: cond } = await trx.raw(`SELECT EXISTS (SELECT 1 FROM al_pf WHERE by_date OR by_territory OR by_type) AS c`);
  const conditional: boolean = cond[0].c;
  if (opts.unconditionalOnly) {
    // The ingest's in-flight decision (prefill.ts): only pairs whose split no line's month,
    // country or sale type can change; the others are decided by the allocation step.
    await trx.raw(`CREATE TEMP TABLE al_keys ON COMMIT DROP AS SELECT a_key, p_key, '-infinity'::date AS km, ''::text AS kc, ''::text AS kt FROM al_pf
      WHERE NOT (by_date OR by_territory OR by_type)`);
  } else if (!conditional) {
    // No candidate split has a condition: a line's key is its (recording, product) pair.
    await trx.raw(`CREATE TEMP TABLE al_keys ON COMMIT DROP AS SELECT a_key, p_key, '-infinity'::date AS km, ''::text AS kc, ''::text AS kt FROM al_pf`);
  } else {
    await hashJoins(trx, () => trx.raw(
      `CREATE TEMP TABLE al_keys ON COMMIT DROP AS
         SELECT DISTINCT pf.a_key, pf.p_key, ${KEY_MONTH} AS km, ${KEY_COUNTRY} AS kc, ${KEY_TYPE} AS kt
           FROM royalty_lines l JOIN al_pf pf ON pf.a_key = coalesce(l.asset_id, ${Z}) AND pf.p_key = coalesce(l.product_id, ${Z})
          WHERE ${matched}`,
      [tenantId, ...scope.bindings],
    ));
  }
  await trx.raw(`ANALYZE al_keys`);
  await trx.raw(
    `CREATE TEMP TABLE al_ks ON COMMIT DROP AS
     SELECT k.a_key, k.p_key, k.km, k.kc, k.kt, e.split_id, e.tenant_user_id, e.share,
            row_number() OVER (PARTITION BY k.a_key, k.p_key, k.km, k.kc, k.kt ORDER BY e.share DESC, e.tenant_user_id) = 1 AS gets_remainder
       FROM al_keys k
       CROSS JOIN LATERAL effective_split_shares(?, NULLIF(k.a_key, ${Z}), NULLIF(k.p_key, ${Z}),
            NULLIF(k.km, '-infinity'::date), NULLIF(k.kc, ''), NULLIF(k.kt, '')) e`,
    [tenantId],
  );
  // The remainder payee's row carries the other payees' shares: its amount is
  // base − Σ round(base × other share / 100, 12), the same as rounded + (base − Σ rounded),
  // without a window over every earnings row of the file.
  await trx.raw(`ALTER TABLE al_ks ADD COLUMN others numeric[]`);
  await trx.raw(
    `UPDATE al_ks r SET others = o.others
       FROM (SELECT a_key, p_key, km, kc, kt, array_agg(share ORDER BY tenant_user_id) AS others FROM al_ks WHERE NOT gets_remainder
              GROUP BY a_key, p_key, km, kc, kt) o
      WHERE r.gets_remainder AND o.a_key = r.a_key AND o.p_key = r.p_key AND o.km = r.km AND o.kc = r.kc AND o.kt = r.kt`,
  );
  await trx.raw(`UPDATE al_ks SET others = '{}' WHERE gets_remainder AND others IS NULL`);
  await trx.raw(`ANALYZE al_ks`);
  return { conditional };
}

// A line's split key (sentinels instead of NULL so the joins hash).
const KEY_MONTH = `CASE WHEN pf.by_date THEN coalesce(l.sale_month, '-infinity'::date) ELSE '-infinity'::date END`;
const KEY_COUNTRY = `CASE WHEN pf.by_territory THEN coalesce(l.country, '') ELSE '' END`;
const KEY_TYPE = `CASE WHEN pf.by_type THEN coalesce(l.sale_type, '') ELSE '' END`;

/**
 * The share sets of al_ks's keys: `al_set` (key → set id, md5 of its (split, payee, share)
 * rows in payee order) and their rows in royalty_share_sets (content-addressed: a set written
 * once is never written again).
 */
export async function writeShareSets(trx: Trx, tenantId: number): Promise<void> {
  await trx.raw(`DROP TABLE IF EXISTS al_set`);
  await trx.raw(
    `CREATE TEMP TABLE al_set ON COMMIT DROP AS
     SELECT a_key, p_key, km, kc, kt,
            md5(string_agg(coalesce(split_id::text, '') || ':' || tenant_user_id || ':' || share::numeric(9,6)::text, ',' ORDER BY tenant_user_id))::uuid AS set_id
       FROM al_ks GROUP BY 1, 2, 3, 4, 5`,
  );
  // Each row's `others`: the set's shares in payee order without its own (one hash join of
  // the keys' share lists, not a sub-SELECT per row: quadratic in the keys of a large catalogue).
  await hashJoins(trx, () => trx.raw(
    `INSERT INTO royalty_share_sets (tenant_id, share_set_id, tenant_user_id, split_id, share, gets_remainder, others)
     SELECT DISTINCT ON (st.set_id, ks.tenant_user_id) ?, st.set_id, ks.tenant_user_id, ks.split_id, ks.share, ks.gets_remainder,
            g.shares[:array_position(g.users, ks.tenant_user_id) - 1] || g.shares[array_position(g.users, ks.tenant_user_id) + 1:]
       FROM al_ks ks JOIN al_set st USING (a_key, p_key, km, kc, kt)
       JOIN (SELECT a_key, p_key, km, kc, kt, array_agg(share ORDER BY tenant_user_id) AS shares, array_agg(tenant_user_id ORDER BY tenant_user_id) AS users
               FROM al_ks GROUP BY 1, 2, 3, 4, 5) g USING (a_key, p_key, km, kc, kt)
     ON CONFLICT DO NOTHING`,
    [tenantId],
  ));
}

/**
 * The allocation decision of the scoped lines (after prepareSplitKeys with the same scope):
 * each paid line gets the share set of its effective split (al_ks rows of its key). A share
 * set's id is md5 of its (split, payee, share) rows in payee order, so equal splits share one
 * set and royalty_share_sets grows with split versions, never with lines. A line whose
 * decision changes (another set, none, or — `prev` given — another base amount) keeps its
 * earlier decision in royalty_allocation_history. Lines without base amount, match or split
 * get none. Returns the paid lines of the scope and the lines whose decision changed, with
 * their files.
 */
export async function assignShareSets(trx: Trx, tenantId: number, scope: Scope, now: Date, prev: 'al_prev' | 'lines' | null, file?: Pick<FileRow, 'income' | 'created_at'>) {
  // Publishing lines are shared by allocatePublishing: the one file's income when the caller
  // holds its row (`file`: the scope is that file), else each line's file's.
  const notPublishing = !file
    ? `AND NOT EXISTS (SELECT 1 FROM files pf WHERE pf.tenant_id = l.tenant_id AND pf.id = l.file_id AND pf.income = 'publishing')`
    : file.income === 'publishing' ? 'AND false' : '';
  await writeShareSets(trx, tenantId);
  await trx.raw(`DROP TABLE IF EXISTS al_new`);
  await hashJoins(trx, () => trx.raw(
    `CREATE TEMP TABLE al_new ON COMMIT DROP AS
     SELECT l.file_id, l.line_no, st.set_id
       FROM royalty_lines l
       JOIN al_pf pf ON pf.a_key = coalesce(l.asset_id, ${Z}) AND pf.p_key = coalesce(l.product_id, ${Z})
       JOIN al_set st ON st.a_key = pf.a_key AND st.p_key = pf.p_key AND st.km = ${KEY_MONTH} AND st.kc = ${KEY_COUNTRY} AND st.kt = ${KEY_TYPE}
      WHERE l.tenant_id = ? AND (${scope.sql}) AND l.base_amount IS NOT NULL ${notPublishing}`,
    [tenantId, ...scope.bindings],
  ));
  await trx.raw(`ANALYZE al_new`);
  let changed: { file_id: string; n: number }[] = [];
  if (prev) {
    // Earlier decisions that change go to history (created_at: when that decision was made).
    const before = prev === 'al_prev'
      ? `SELECT p.file_id, p.line_no, p.share_set_id, p.base_amount, p.base_currency, p.accounting_period FROM al_prev p`
      : `SELECT l.file_id, l.line_no, l.share_set_id, l.base_amount, l.base_currency, f.accounting_period
           FROM royalty_lines l JOIN files f ON f.tenant_id = l.tenant_id AND f.id = l.file_id
          WHERE l.tenant_id = ${Number(tenantId)} AND (${scope.sql}) AND l.share_set_id IS NOT NULL`;
    const bindings = prev === 'al_prev' ? [] : scope.bindings;
    // when that decision was made: its line's last history row's end, else the file's upload
    const uploaded = file ? ['?::timestamptz', [file.created_at]] as const : ['(SELECT f.created_at FROM files f WHERE f.tenant_id = ? AND f.id = b.file_id)', [tenantId]] as const;
    await hashJoins(trx, () => trx.raw(
      `INSERT INTO royalty_allocation_history (tenant_id, file_id, line_id, share_set_id, base_amount, currency, accounting_period, created_at, superseded_at)
       SELECT ?, b.file_id, b.line_no, b.share_set_id, b.base_amount, b.base_currency, b.accounting_period,
              coalesce((SELECT max(h.superseded_at) FROM royalty_allocation_history h WHERE h.tenant_id = ? AND h.file_id = b.file_id AND h.line_id = b.line_no),
                       ${uploaded[0]}), ?
         FROM (${before}) b
         JOIN royalty_lines l ON l.tenant_id = ? AND l.file_id = b.file_id AND l.line_no = b.line_no
         LEFT JOIN al_new n ON n.file_id = b.file_id AND n.line_no = b.line_no
        WHERE (n.set_id, l.base_amount) IS DISTINCT FROM (b.share_set_id, b.base_amount)`,
      [tenantId, tenantId, ...uploaded[1], now, ...bindings, tenantId],
    ));
  }
  // Lines that lose their share set (a forced re-run, or a decision of the ingest made in
  // flight, prefill.ts, that a change since then undid).
  const { rows: unset } = await hashJoins(trx, () => trx.raw(
    `WITH u AS (
       UPDATE royalty_lines l SET share_set_id = NULL
        WHERE l.tenant_id = ? AND (${scope.sql}) AND l.share_set_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM al_new n WHERE n.file_id = l.file_id AND n.line_no = l.line_no)
        RETURNING l.file_id
     ) SELECT file_id, count(*)::int AS n FROM u GROUP BY 1`,
    [tenantId, ...scope.bindings],
  ));
  changed = unset;
  const { rows } = await hashJoins(trx, () => trx.raw(
    `WITH u AS (
       UPDATE royalty_lines l SET share_set_id = n.set_id FROM al_new n
        WHERE l.tenant_id = ? AND l.file_id = n.file_id AND l.line_no = n.line_no AND l.share_set_id IS DISTINCT FROM n.set_id
        RETURNING l.file_id
     ) SELECT file_id, count(*)::int AS n FROM u GROUP BY 1`,
    [tenantId],
  ));
  changed = changed.concat(rows);
  const { rows: cnt } = await trx.raw(`SELECT count(*)::int AS n FROM al_new`);
  return { lines: cnt[0].n as number, changed: changed.reduce((s, r) => s + r.n, 0), files: [...new Set(changed.map((r) => r.file_id))] };
}

export interface FileAllocationResult {
  lines: number;
  matched: number;
  unmatched: number;
  unsplit: number;
  earnings: number;
  suggestions: number;
  accountingPeriod: string;
  /** The last day of that period under the workspace's cadence (the `ap_end` of the file's rollup rows). */
  accountingPeriodEnd: string;
  /** Milliseconds per step (logged by the job; bench:ingest prints them). */
  timings: Record<string, number>;
  /** The allocation rewrote no line (it took the ingest's decisions): the lines as committed are final. */
  linesUnchanged?: boolean;
}

/** Serialises allocation work of one workspace (file allocation, re-allocation, aggregation). */
export async function lockTenant(trx: Trx, tenantId: number): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('rondo.allocation'), ?)`, [tenantId]);
}

/** Memory for the batch statements of one file (hash aggregates over a file's keys, hash joins). */
export const BATCH_WORK_MEM = '128MB';
/** The rollup shapes hash a file's lines by their keys (one aggregate per shape): more. */
export const ROLLUP_WORK_MEM = '256MB';

/** work_mem for the rest of this transaction (SET LOCAL): with the default 4MB, a file's hash aggregates and sorts spill to disk. */
export async function setWorkMem(trx: Trx, size: string): Promise<void> {
  await trx.raw(`SET LOCAL work_mem = '${size}'`);
}

/** The first day of the month a file's lines without a sale month are converted at (its statement period's, else its upload's, in UTC as the sessions count days). */
function fallbackMonth(f: FileRow): string {
  const day = dayOf(f.sale_period_start) ?? dayOf(f.sale_period_end) ?? f.created_at.toISOString().slice(0, 10);
  return `${day.slice(0, 7)}-01`;
}

/** A line's match key (6 columns, '' for NULL) and currency key, as grouped in al_src. */
const SOURCE_KEY = `coalesce(l.isrc, '') AS isrc, coalesce(l.upc, '') AS upc, coalesce(l.track_title, '') AS track_title,
  coalesce(l.artist, '') AS artist, coalesce(l.release_title, '') AS release_title, coalesce(l.dsp, '') AS dsp,
  l.currency, coalesce(l.gross_currency, '') AS gross_currency, coalesce(l.exchange_rate, 0) AS exchange_rate, coalesce(l.sale_month, ?::date) AS month`;
const SOURCE_STORED = `l.asset_id, l.product_id, l.artist_id, l.match_status, l.base_currency, l.fx_rate, l.share_set_id`;

/**
 * ONE pass over a file's lines: per distinct (match key, currency key) and what the lines
 * carry (match, base currency, rate), the line count and how many lack a base amount, in
 * `al_src` (a hash aggregate: thousands of groups, not millions of lines). Matching,
 * currency, the check of what the lines carry and the counts then work on it.
 */
async function buildSource(trx: Trx, tenantId: number, fileId: string, month: string): Promise<void> {
  await trx.raw(`DROP TABLE IF EXISTS al_src`);
  await trx.raw(`SET LOCAL enable_sort = off`); // freshly loaded lines have stale statistics: hash, never sort a file
  await trx.raw(
    `CREATE TEMP TABLE al_src ON COMMIT DROP AS
     SELECT ${SOURCE_KEY}, ${SOURCE_STORED}, count(*)::bigint AS n, count(*) FILTER (WHERE l.base_amount IS NULL)::bigint AS n_unconverted
       FROM royalty_lines l WHERE l.tenant_id = ? AND l.file_id = ?
      GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17`,
    [month, tenantId, fileId],
  );
  await trx.raw(`SET LOCAL enable_sort = on`);
  await trx.raw(`ANALYZE al_src`);
}

const KEYS_FROM_SOURCE = `SELECT DISTINCT isrc, upc, track_title, artist, release_title, dsp FROM al_src`;
/** al_src row `s` ↔ rm_keys row `k`. */
const SOURCE_KEY_JOIN = `s.isrc = k.isrc AND s.upc = k.upc AND s.track_title = k.track_title AND s.artist = k.artist
  AND s.release_title = k.release_title AND s.dsp = k.dsp`;
const SOURCE_FX_JOIN = `x.currency = s.currency AND x.gross_currency = s.gross_currency AND x.exchange_rate = s.exchange_rate AND x.month = s.month`;

/**
 * Currency: `rm_fx` from `source` (rows of currency, gross_currency ('' for none),
 * exchange_rate (0 for none), month, plus any id columns), with the rate and the statement
 * rate to divide by. Returns the keys without a rate.
 */
async function buildFx(trx: Trx, tenantId: number, base: string, source: string, bindings: any[] = []): Promise<{ currency: string; month: string }[]> {
  await trx.raw(`DROP TABLE IF EXISTS rm_fx`);
  await trx.raw(`CREATE TEMP TABLE rm_fx ON COMMIT DROP AS ${source}`, bindings);
  await trx.raw(`ALTER TABLE rm_fx ADD COLUMN rate numeric, ADD COLUMN divide_by numeric`);
  await trx.raw(`ANALYZE rm_fx`);
  await trx.raw(
    `UPDATE rm_fx x SET
       rate = CASE WHEN x.currency = ? THEN 1
                   WHEN x.gross_currency = ? AND x.exchange_rate > 0 THEN round(1 / x.exchange_rate, 20)
                   ELSE (SELECT r.rate FROM fx_rates r WHERE r.tenant_id = ? AND r.currency = x.currency AND r.month = x.month) END,
       divide_by = CASE WHEN x.currency <> ? AND x.gross_currency = ? AND x.exchange_rate > 0 THEN x.exchange_rate END`,
    [base, base, tenantId, base, base],
  );
  const missing = await trx.raw(`SELECT DISTINCT currency, to_char(month, 'YYYY-MM') AS month FROM rm_fx WHERE rate IS NULL ORDER BY currency, month`);
  return missing.rows;
}

/** Join of a line `l` to its rm_fx row `x` (`?` = the file's fallback month). */
const FX_JOIN = `x.currency = l.currency AND x.gross_currency = coalesce(l.gross_currency, '') AND x.exchange_rate = coalesce(l.exchange_rate, 0)
  AND x.month = coalesce(l.sale_month, ?::date)`;
/**
 * A line's base amount: net × rate (or net ÷ the statement's rate) rounded half away from zero
 * to at least 20 decimals and never fewer than the net as written, so a line in the base
 * currency keeps its amount exactly; stored without trailing zeros (multiplyRound in
 * prefill.ts is the same rule).
 */
const BASE_AMOUNT = `trim_scale(CASE WHEN x.divide_by IS NOT NULL THEN round(l.net / x.divide_by, greatest(20, scale(l.net)))
                                     ELSE round(l.net * x.rate, greatest(20, scale(l.net))) END)`;

/**
 * The checked allocation of the file `f` (its row as the step locked it): matching, currency,
 * the decision of every key group (or line), counts.
 */
export async function allocateFile(trx: Trx, f: FileRow): Promise<FileAllocationResult> {
  const { tenant_id: tenantId, id: fileId } = f;
  const settings = await getSettings(trx, tenantId);
  const base = settings.baseCurrency;
  const scope: Scope = { sql: 'l.file_id = ?', bindings: [fileId] };
  const now = clock.now();
  const timings: Record<string, number> = {};
  let t0 = Date.now();
  const lap = (step: string) => {
    const t = Date.now();
    timings[step] = (timings[step] ?? 0) + t - t0;
    t0 = t;
  };
  await setWorkMem(trx, BATCH_WORK_MEM);

  await applyDspRules(trx, tenantId, scope);
  lap('dspRules');
  // One pass over the lines: their distinct keys and what they carry (al_src).
  const month = fallbackMonth(f);
  await buildSource(trx, tenantId, fileId, month);
  lap('keys');
  // Publishing income (society statements) names works, not recordings: it creates no catalogue
  // rows and gets no recording suggestions; it is matched to works and shared at the end.
  const publishing = f.income === 'publishing';
  await resolveMatchKeys(trx, tenantId, scope, { autoCreate: settings.autoCreateCatalogue && !publishing, keysFrom: KEYS_FROM_SOURCE });
  lap('match');

  // Currency: one row per distinct (currency, statement rate, month).
  const missing = await buildFx(trx, tenantId, base, `SELECT DISTINCT currency, gross_currency, exchange_rate, month FROM al_src`);
  lap('fx');
  if (missing.length) {
    const rates = missing.map((r) => ({ currency: r.currency.trim(), month: r.month }));
    const list = rates.map((r) => `${r.currency} ${r.month}`).join(', ');
    throw new StepFailure(
      'missing_rates',
      `No exchange rate to ${base} for ${list}: add the monthly rate of each to the workspace's exchange rates, then run the file again`,
      { missing_rates: JSON.stringify(rates) }, // the currency-months to add a rate for, kept on the file
    );
  }

  // A file allocated before (a forced re-run): its lines' decisions and amounts, for history.
  // (files.allocated_at: the lines' share sets may also be the ingest's in-flight decision.)
  const previouslyAllocated = f.allocated_at != null;
  await updateFile(trx, tenantId, fileId, { allocated_at: now, updated_at: trx.raw('updated_at') });
  if (previouslyAllocated) {
    await trx.raw(`DROP TABLE IF EXISTS al_prev`);
    await trx.raw(
      `CREATE TEMP TABLE al_prev ON COMMIT DROP AS
       SELECT l.file_id, l.line_no, l.share_set_id, l.base_amount, l.base_currency, ?::date AS accounting_period
         FROM royalty_lines l
        WHERE l.tenant_id = ? AND l.file_id = ? AND l.share_set_id IS NOT NULL`,
      [dayOf(f.accounting_period), tenantId, fileId],
    );
  }

  // Match + currency onto the lines, only when some key's lines carry something else than its
  // result (normally the ingest step wrote them matched and converted: then nothing is written).
  const { rows: stale } = await hashJoins(trx, () => trx.raw(
    `SELECT coalesce(sum(s.n), 0)::int AS n,
            coalesce(sum(s.n) FILTER (WHERE s.match_status IS NOT NULL AND s.fx_rate IS NOT NULL), 0)::int AS changed
       FROM al_src s JOIN rm_keys k ON ${SOURCE_KEY_JOIN} JOIN rm_fx x ON ${SOURCE_FX_JOIN}
      WHERE s.n_unconverted > 0
         OR (s.asset_id, s.product_id, s.artist_id, s.match_status, s.base_currency, s.fx_rate)
            IS DISTINCT FROM (k.asset_id, k.product_id, k.artist_id, ${MATCH_STATUS_SQL}, ?::char(3), x.rate)`,
    [base],
  ));
  let rewritten = 0;
  if (stale[0].n > 0) {
    // Only lines the ingest left without a match or a base amount (keys first seen in flight,
    // a statement rate): just those are looked at. Otherwise every line's result is compared.
    const onlyMissing = stale[0].changed === 0 ? 'AND (l.match_status IS NULL OR l.base_amount IS NULL)' : '';
    const upd = await hashJoins(trx, () => trx.raw(
      `UPDATE royalty_lines l SET asset_id = k.asset_id, product_id = k.product_id, artist_id = k.artist_id, match_status = ${MATCH_STATUS_SQL},
              base_currency = ?, fx_rate = x.rate, base_amount = ${BASE_AMOUNT}
         FROM rm_keys k, rm_fx x
        WHERE l.tenant_id = ? AND l.file_id = ? ${onlyMissing} AND ${KEY_JOIN} AND ${FX_JOIN}
          AND (l.asset_id, l.product_id, l.artist_id, l.match_status, l.base_currency, l.fx_rate, l.base_amount)
              IS DISTINCT FROM (k.asset_id, k.product_id, k.artist_id, ${MATCH_STATUS_SQL}, ?::char(3), x.rate, ${BASE_AMOUNT})`,
      [base, tenantId, fileId, month, base],
    ));
    rewritten = upd.rowCount ?? 0;
  }
  lap('updateLines');

  const ap = await setAccountingPeriod(trx, tenantId, fileId, settings.accountingCadence);
  lap('accountingPeriod');
  const suggestions = publishing ? 0 : await suggestMatches(trx, tenantId);
  lap('suggestions');

  // THE allocation decision: each paid line's share set (earlier decisions kept as history).
  const { conditional } = await prepareSplitKeys(trx, tenantId, scope, { pairsFromKeys: true });
  lap('splitKeys');
  // The lines already carry the decision when nothing was rewritten, no split condition makes
  // it per line and every key group's share set (al_src) is its pair's: checked per group, not
  // per line. Otherwise (or when a group differs) every line's decision is computed and written.
  const decided = !conditional && !previouslyAllocated && !publishing && stale[0].n === 0 ? await decidedInSource(trx, tenantId) : null;
  const assigned = decided ?? (await assignShareSets(trx, tenantId, scope, now, previouslyAllocated ? 'al_prev' : null, f));
  lap('earnings');

  // Counts from the key table (every line is counted there); lines paid = lines whose key has
  // split shares, read from the lines only when split conditions make that per line.
  const { rows } = decided ? { rows: [decided] } : await hashJoins(trx, () => trx.raw(
    `SELECT coalesce(sum(s.n), 0)::int AS lines,
            coalesce(sum(s.n) FILTER (WHERE k.asset_how IS NOT NULL OR k.product_how IS NOT NULL), 0)::int AS matched,
            ${conditional
              ? `(SELECT count(*)::int FROM royalty_lines l WHERE l.tenant_id = ? AND l.file_id = ? AND l.share_set_id IS NOT NULL)`
              : `coalesce(sum(s.n) FILTER (WHERE ks.a_key IS NOT NULL), 0)::int`} AS paid
       FROM al_src s JOIN rm_keys k ON ${SOURCE_KEY_JOIN}
       ${conditional ? '' : `LEFT JOIN (SELECT DISTINCT a_key, p_key FROM al_ks) ks ON ks.a_key = coalesce(k.asset_id, ${Z}) AND ks.p_key = coalesce(k.product_id, ${Z})`}`,
    conditional ? [tenantId, fileId] : [],
  ));
  const r = rows[0];
  lap('counts');
  if (publishing) {
    timings.publishing = (await allocatePublishing(trx, tenantId, fileId)).paid;
    lap('publishing');
  }
  timings.linesRewritten = rewritten;
  return { lines: r.lines, matched: r.matched, unmatched: r.lines - r.matched, unsplit: r.matched - r.paid, earnings: decided ? decided.paid : assigned.lines, suggestions, accountingPeriod: ap, accountingPeriodEnd: accountingPeriodEnd(ap, settings.accountingCadence), timings };
}

/**
 * The decision check from a file's key groups (al_src; no split condition): each group's
 * share set against its (recording, product) pair's (al_set). Returns the counts, or null
 * when a group differs (then assignShareSets decides line by line).
 */
async function decidedInSource(trx: Trx, tenantId: number): Promise<{ lines: number; matched: number; paid: number } | null> {
  await writeShareSets(trx, tenantId);
  const { rows } = await hashJoins(trx, () => trx.raw(
    `SELECT coalesce(sum(s.n) FILTER (WHERE s.share_set_id IS DISTINCT FROM st.set_id), 0)::bigint AS differ,
            coalesce(sum(s.n), 0)::int AS lines, coalesce(sum(s.n) FILTER (WHERE s.match_status <> 'unmatched'), 0)::int AS matched,
            coalesce(sum(s.n) FILTER (WHERE st.set_id IS NOT NULL), 0)::int AS paid
       FROM al_src s LEFT JOIN al_set st ON (s.asset_id IS NOT NULL OR s.product_id IS NOT NULL)
            AND st.a_key = coalesce(s.asset_id, ${Z}) AND st.p_key = coalesce(s.product_id, ${Z})`,
  ));
  return Number(rows[0].differ) === 0 ? { lines: rows[0].lines, matched: rows[0].matched, paid: rows[0].paid } : null;
}

/** Sets files.accounting_period from the statement's reporting month and the cadence; returns it. */
export async function setAccountingPeriod(trx: Trx, tenantId: number, fileId: string, cadence: string): Promise<string> {
  const reporting = `COALESCE(f.accounting_period,
      (SELECT max(l.accounting_period) FROM royalty_lines l WHERE l.tenant_id = f.tenant_id AND l.file_id = f.id),
      f.sale_period_end,
      (SELECT max(l.sale_month) FROM royalty_lines l WHERE l.tenant_id = f.tenant_id AND l.file_id = f.id),
      f.created_at::date)`;
  return setAccountingPeriodTo(trx, tenantId, fileId, accountingPeriodSql(reporting, '?'), [cadence, cadence]);
}

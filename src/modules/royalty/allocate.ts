/**
 * Allocation: statement lines → who earned what (royalty_earnings), set-based.
 *
 * Per file (allocateFile, run by the `royalty.allocate` job after ingest):
 *   1. "store A is DSP B" rules rewrite `dsp` (original kept in dsp_source);
 *   2. match keys resolved (match.ts), catalogue auto-created when the workspace asks;
 *   3. currency: each line keeps `net` + `currency`; `base_amount`, `base_currency`,
 *      `fx_rate` (1 unit of currency = fx_rate base units) are set. Rate order: 1 for the
 *      base currency; the statement's own rate when it converts to the base currency
 *      (gross_currency = base: base_amount = net / exchange_rate); else the workspace's
 *      monthly rate for the line's sale month. No rate → AllocationFailed naming the
 *      currency and month: the file fails, nothing is guessed;
 *   4. one UPDATE writes match + currency onto the lines;
 *   5. the file's accounting period: the cadence period containing its reporting month
 *      (the source's own reporting month, else the statement period end, else the last sale
 *      month);
 *   6. ONE INSERT … SELECT writes the earnings: each matched line × the shares of its
 *      effective split (effective_split_shares called once per DISTINCT (asset, product,
 *      sale month, country, sale type), joined back to the lines).
 *
 * Rounding rule: each payee gets round(base_amount × share / 100, 12) (12 = the stored
 * scale); the payee with the LARGEST share (ties: the smallest tenant_user_id) also gets
 * the remainder base_amount − Σ rounded amounts, so a line's current earnings always sum to
 * its base amount exactly. Computed per row (no window over the file's earnings): that
 * payee's amount is base_amount − Σ round(base_amount × other share / 100, 12), the other
 * shares of its split key being carried on its al_ks row.
 */
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { getSettings } from '../settings/service';
import { accountingPeriodSql } from '../settings/periods';
import { applyDspRules, resolveMatchKeys, suggestMatches, MATCH_STATUS_SQL, type Scope } from './match';

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Runs batch statements with hash joins instead of nested loops. Statement lines are often
 * planned with stale statistics (just COPYed; base_amount / asset_id filled a moment ago),
 * and a nested loop over a misestimated "1 row" is quadratic; hash joins are linear either way.
 */
export async function hashJoins<T>(trx: Trx, fn: () => Promise<T>): Promise<T> {
  await trx.raw(`SET LOCAL enable_nestloop = off`);
  await trx.raw(`SET LOCAL enable_mergejoin = off`); // a merge join sorts both sides: the file's lines too
  try {
    return await fn();
  } finally {
    await trx.raw(`SET LOCAL enable_nestloop = on`);
    await trx.raw(`SET LOCAL enable_mergejoin = on`);
  }
}

/** An expected failure: the file is marked failed with this message (no retry). */
export class AllocationFailed extends Error {}

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
export async function prepareSplitKeys(trx: Trx, tenantId: number, scope: Scope, opts: { pairsFromKeys?: boolean } = {}): Promise<{ conditional: boolean }> {
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
  if (!conditional) {
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

/** round(base × share / 100, 12) of the first INLINE_OTHERS other shares inline; a subquery beyond. */
const INLINE_OTHERS = 4;
const ROUNDED = (b: string, s: string) => `round(${b} * ${s} / 100, 12)`;
const REMAINDER_AMOUNT = (b: string) =>
  `CASE WHEN cardinality(ks.others) <= ${INLINE_OTHERS} THEN ${b}${Array.from({ length: INLINE_OTHERS }, (_, i) => ` - coalesce(${ROUNDED(b, `ks.others[${i + 1}]`)}, 0)`).join('')}
        ELSE ${b} - (SELECT coalesce(sum(${ROUNDED(b, 'o')}), 0) FROM unnest(ks.others) o) END`;

// A line's split key (sentinels instead of NULL so the joins hash).
const KEY_MONTH = `CASE WHEN pf.by_date THEN coalesce(l.sale_month, '-infinity'::date) ELSE '-infinity'::date END`;
const KEY_COUNTRY = `CASE WHEN pf.by_territory THEN coalesce(l.country, '') ELSE '' END`;
const KEY_TYPE = `CASE WHEN pf.by_type THEN coalesce(l.sale_type, '') ELSE '' END`;

/**
 * The allocation of the scoped lines as a SELECT (after prepareSplitKeys with the same
 * scope): line_id (the line's line_no: a line is (file_id, line_no)), file_id, tenant_user_id, split_id, share, amount + the dimensions
 * earnings carry. Lines without base amount, match or split yield no row.
 */
export function allocationSelect(tenantId: number, scope: Scope): { sql: string; bindings: any[] } {
  const sql = `
    SELECT l.line_no AS line_id, l.file_id, ks.tenant_user_id, ks.split_id, ks.share,
           CASE WHEN ks.gets_remainder THEN ${REMAINDER_AMOUNT('l.base_amount')} ELSE ${ROUNDED('l.base_amount', 'ks.share')} END AS amount,
           l.base_currency AS currency, l.sale_month, l.asset_id, l.product_id, l.artist_id, l.dsp, l.country, l.sale_type,
           l.quantity, l.aggregator
      FROM royalty_lines l
      JOIN al_pf pf ON pf.a_key = coalesce(l.asset_id, ${Z}) AND pf.p_key = coalesce(l.product_id, ${Z})
      JOIN al_ks ks ON ks.a_key = pf.a_key AND ks.p_key = pf.p_key AND ks.km = ${KEY_MONTH} AND ks.kc = ${KEY_COUNTRY} AND ks.kt = ${KEY_TYPE}
     WHERE l.tenant_id = ? AND (${scope.sql}) AND l.base_amount IS NOT NULL`;
  return { sql, bindings: [tenantId, ...scope.bindings] };
}

export const EARNING_COLUMNS = `tenant_id, file_id, line_id, tenant_user_id, split_id, share, amount, currency, accounting_period, sale_month,
  asset_id, product_id, artist_id, dsp, country, sale_type, quantity, aggregator, created_at`;

export interface FileAllocationResult {
  lines: number;
  matched: number;
  unmatched: number;
  unsplit: number;
  earnings: number;
  suggestions: number;
  accountingPeriod: string;
  /** Milliseconds per step (logged by the job; bench:ingest prints them). */
  timings: Record<string, number>;
}

/** Serialises allocation work of one workspace (file allocation, re-allocation, aggregation). */
export async function lockTenant(trx: Trx, tenantId: number): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('rondo.allocation'), ?)`, [tenantId]);
}

/** Memory for the batch statements of one file (hash aggregates over a file's keys, hash joins). */
export const BATCH_WORK_MEM = '128MB';
/** The rollup pass groups a file's lines AND its earnings in one hashed pass: more. */
export const ROLLUP_WORK_MEM = '256MB';

/** work_mem for the rest of this transaction (SET LOCAL): with the default 4MB, a file's hash aggregates and sorts spill to disk. */
export async function setWorkMem(trx: Trx, size: string): Promise<void> {
  await trx.raw(`SET LOCAL work_mem = '${size}'`);
}

/** The first day of the month a file's lines without a sale month are converted at. */
async function fallbackMonth(trx: Trx, tenantId: number, fileId: string): Promise<string> {
  const { rows } = await trx.raw(
    `SELECT to_char(date_trunc('month', coalesce(f.sale_period_start, f.sale_period_end, f.created_at::date)), 'YYYY-MM-DD') AS m
       FROM files f WHERE f.tenant_id = ? AND f.id = ?`,
    [tenantId, fileId],
  );
  return rows[0].m;
}

/** A line's match key (6 columns, '' for NULL) and currency key, as grouped in al_src. */
const SOURCE_KEY = `coalesce(l.isrc, '') AS isrc, coalesce(l.upc, '') AS upc, coalesce(l.track_title, '') AS track_title,
  coalesce(l.artist, '') AS artist, coalesce(l.release_title, '') AS release_title, coalesce(l.dsp, '') AS dsp,
  l.currency, coalesce(l.gross_currency, '') AS gross_currency, coalesce(l.exchange_rate, 0) AS exchange_rate, coalesce(l.sale_month, ?::date) AS month`;
const SOURCE_STORED = `l.asset_id, l.product_id, l.artist_id, l.match_status, l.base_currency, l.fx_rate`;

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
      GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16`,
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
const BASE_AMOUNT = `CASE WHEN x.divide_by IS NOT NULL THEN round(l.net / x.divide_by, 12) ELSE round(l.net * x.rate, 12) END`;

export async function allocateFile(trx: Trx, tenantId: number, fileId: string): Promise<FileAllocationResult> {
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
  const month = await fallbackMonth(trx, tenantId, fileId);
  await buildSource(trx, tenantId, fileId, month);
  lap('keys');
  await resolveMatchKeys(trx, tenantId, scope, { autoCreate: settings.autoCreateCatalogue, keysFrom: KEYS_FROM_SOURCE });
  lap('match');

  // Currency: one row per distinct (currency, statement rate, month).
  const missing = await buildFx(trx, tenantId, base, `SELECT DISTINCT currency, gross_currency, exchange_rate, month FROM al_src`);
  lap('fx');
  if (missing.length) {
    const list = missing.map((r) => `${r.currency.trim()} ${r.month}`).join(', ');
    throw new AllocationFailed(
      `No exchange rate to ${base} for ${list}: set the monthly rate with PUT /currency/rates, then reprocess the file (POST /royalty/files/${fileId}/allocate)`,
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
  const suggestions = await suggestMatches(trx, tenantId);
  lap('suggestions');

  // THE allocation statement: supersede what the file had, write the new earnings.
  const { conditional } = await prepareSplitKeys(trx, tenantId, scope, { pairsFromKeys: true });
  lap('splitKeys');
  const sel = allocationSelect(tenantId, scope);
  const ins = await hashJoins(trx, () => trx.raw(
    `WITH sup AS (
       UPDATE royalty_earnings SET superseded_at = ? WHERE tenant_id = ? AND file_id = ? AND superseded_at IS NULL RETURNING 1
     ), n AS (${sel.sql})
     INSERT INTO royalty_earnings (${EARNING_COLUMNS})
     SELECT ?, n.file_id, n.line_id, n.tenant_user_id, n.split_id, n.share, n.amount, n.currency, ?::date, n.sale_month,
            n.asset_id, n.product_id, n.artist_id, n.dsp, n.country, n.sale_type, n.quantity, n.aggregator, ? FROM n`,
    [now, tenantId, fileId, ...sel.bindings, tenantId, ap, now],
  ));
  lap('earnings');

  // Counts from the key table (every line is counted there); lines paid = lines whose key has
  // split shares, read from the earnings only when split conditions make that per line.
  const { rows } = await trx.raw(
    `SELECT coalesce(sum(s.n), 0)::int AS lines,
            coalesce(sum(s.n) FILTER (WHERE k.asset_how IS NOT NULL OR k.product_how IS NOT NULL), 0)::int AS matched,
            ${conditional
              ? `(SELECT count(*)::int FROM (SELECT DISTINCT e.line_id FROM royalty_earnings e WHERE e.tenant_id = ? AND e.file_id = ? AND e.superseded_at IS NULL) d)`
              : `coalesce(sum(s.n) FILTER (WHERE EXISTS (SELECT 1 FROM al_ks ks WHERE ks.a_key = coalesce(k.asset_id, ${Z}) AND ks.p_key = coalesce(k.product_id, ${Z}))), 0)::int`} AS paid
       FROM al_src s JOIN rm_keys k ON ${SOURCE_KEY_JOIN}`,
    conditional ? [tenantId, fileId] : [],
  );
  const r = rows[0];
  lap('counts');
  timings.linesRewritten = rewritten;
  return { lines: r.lines, matched: r.matched, unmatched: r.lines - r.matched, unsplit: r.matched - r.paid, earnings: ins.rowCount ?? 0, suggestions, accountingPeriod: ap, timings };
}

/** Sets files.accounting_period from the statement's reporting month and the cadence; returns it. */
export async function setAccountingPeriod(trx: Trx, tenantId: number, fileId: string, cadence: string): Promise<string> {
  const reporting = `COALESCE(f.accounting_period,
      (SELECT max(l.accounting_period) FROM royalty_lines l WHERE l.tenant_id = f.tenant_id AND l.file_id = f.id),
      f.sale_period_end,
      (SELECT max(l.sale_month) FROM royalty_lines l WHERE l.tenant_id = f.tenant_id AND l.file_id = f.id),
      f.created_at::date)`;
  const { rows } = await trx.raw(
    `UPDATE files f SET accounting_period = ${accountingPeriodSql(reporting, '?')}
      WHERE f.tenant_id = ? AND f.id = ? RETURNING to_char(f.accounting_period, 'YYYY-MM-DD') AS ap`,
    [cadence, cadence, tenantId, fileId],
  );
  return rows[0].ap;
}

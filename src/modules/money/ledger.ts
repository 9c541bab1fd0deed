/**
 * The money ledger (table `ledger_entries`, append-only).
 *
 * Every derived entry is posted as a DIFFERENCE: for a key (payee, source_type, source_id,
 * accounting_period) we compute what the ledger should hold from the source rows
 * ("desired") and insert desired − already posted when it is not zero. So posting is
 * idempotent (re-posting changes nothing), corrections are new rows, and
 * /accounting/refresh is the same code run over every source.
 *
 * Sources and kinds:
 *   file     → royalty         current royalty_earnings rows of the file, per payee and period
 *   revenue  → revenue_share   revenue_shares rows
 *   expense  → expense_recoup  recoupment of recoupable expenses (see RECOUPMENT below)
 *   payment  → payment | reversal | adjustment   −base_amount while the payment counts
 *              (pending, processing, completed); 0 once failed, reversed or deleted.
 *              First posting of a key: payment; back to 0: reversal; anything else: adjustment.
 *
 * Locks (transaction-scoped advisory locks, always in this order, so no deadlock):
 *   1. tenant ledger lock: shared by every writer, exclusive for /accounting/refresh;
 *   2. one file (postRoyaltiesForFile);
 *   3. payees, sorted (approvals, payments, recoupment): "what is due" cannot change
 *      between reading it and spending it.
 */
import { hashJoins, type Knex, type Trx } from "../../db";
import { clock } from '../../lib/clock';
import { baseCurrency } from './common';
import { apportionSql, minorDigits } from './rounding';
import { dayOf, type FileRow } from '../../repositories/files';

/** Minor-unit digits of the workspace's base currency (USD 2, JPY 0): every ledger amount has at most these. */
export async function ledgerDigits(trx: Trx): Promise<number> {
  return minorDigits(await baseCurrency(trx));
}

/** Accounting period of an earnings row (allocation fills accounting_period; older rows fall back to the sale month). */
export const EARNINGS_PERIOD = (a: string) =>
  `coalesce(${a}.accounting_period, date_trunc('month', coalesce(${a}.sale_month, ${a}.created_at::date))::date)`;

export async function lockLedger(trx: Trx, mode: 'shared' | 'exclusive' = 'shared'): Promise<void> {
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await trx.raw(`SELECT ${fn}(hashtextextended('rondo.ledger:' || app_tenant_id(), 0))`);
}

async function lockKey(trx: Trx, what: string, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const sorted = [...new Set(ids)].sort();
  await trx.raw(
    `SELECT pg_advisory_xact_lock(hashtextextended(?::text || app_tenant_id() || ':' || k, 0)) FROM unnest(?::text[]) AS k ORDER BY k`,
    [`rondo.${what}:`, sorted],
  );
}

/** Serialise money movements of these payees (sorted; call after lockLedger). */
export async function lockPayees(trx: Trx, payees: string[]): Promise<void> {
  await lockKey(trx, 'payee', payees);
}

interface DiffSpec {
  /** SELECT tenant_user_id, source_type, source_id, accounting_period, amount (one row per key). */
  desired: string;
  desiredBindings: Knex.RawBinding[];
  /** WHERE clause on ledger_entries choosing what the desired set replaces. */
  postedWhere: string;
  postedBindings: Knex.RawBinding[];
  /** SQL expression over diff columns (delta, amt_before, amt_after) giving the kind. */
  kind: string;
}

/** Insert desired − posted for every key where it differs; returns the number of entries posted and their payees. */
async function postDiffPayees(trx: Trx, spec: DiffSpec): Promise<{ count: number; payees: string[] }> {
  const r = await trx.raw(
    `WITH desired AS (${spec.desired}),
     posted AS (
       SELECT tenant_user_id, source_type, source_id, accounting_period, sum(amount) AS amount
       FROM ledger_entries WHERE ${spec.postedWhere}
       GROUP BY 1, 2, 3, 4
     ),
     diff AS (
       SELECT coalesce(d.tenant_user_id, p.tenant_user_id) AS tenant_user_id,
              coalesce(d.source_type, p.source_type) AS source_type,
              coalesce(d.source_id, p.source_id) AS source_id,
              coalesce(d.accounting_period, p.accounting_period) AS accounting_period,
              coalesce(d.amount, 0) - coalesce(p.amount, 0) AS delta,
              coalesce(p.amount, 0) AS amt_before,
              coalesce(d.amount, 0) AS amt_after
       FROM desired d
       FULL JOIN posted p ON p.tenant_user_id = d.tenant_user_id AND p.source_type = d.source_type
                         AND p.source_id = d.source_id AND p.accounting_period = d.accounting_period
     )
     INSERT INTO ledger_entries (tenant_id, tenant_user_id, kind, amount, currency, accounting_period, source_type, source_id, created_at)
     SELECT app_tenant_id(), tenant_user_id, ${spec.kind}, delta,
            (SELECT base_currency FROM tenants WHERE id = app_tenant_id()), accounting_period, source_type, source_id, ?
     FROM diff WHERE delta <> 0
     RETURNING tenant_user_id`,
    [...spec.desiredBindings, ...spec.postedBindings, clock.now()],
  );
  return { count: r.rowCount ?? 0, payees: [...new Set((r.rows as { tenant_user_id: string }[]).map((x) => x.tenant_user_id))] };
}

async function postDiff(trx: Trx, spec: DiffSpec): Promise<number> {
  return (await postDiffPayees(trx, spec)).count;
}

// ---------------------------------------------------------------- royalties

/**
 * The current earnings of the given files per payee and period (`?`, `?`: the file ids and,
 * in the same order, their accounting periods as the caller holds their rows), equal to
 * summing their royalty_earnings rows, for files whose accounting period is set (every
 * allocated file): such a file has one period, and a line's amount depends only on its base
 * amount and share set row, so its lines are first counted per share set — one pass over the
 * lines, not lines × payees rows of the view. A payee without the remainder gets
 * Σ round(base × share / 100, 12) over the set's lines; the remainder payee of a share set
 * gets the set's Σ base minus the others' sums (the per-line rule summed: exact; a window
 * over the set's few payee rows, no sub-SELECT over the other shares per group).
 *
 * Where the rounding cannot bite, lines are not told apart by amount: base × share / 100 has
 * at most scale(base) + scale(share) + 2 decimals, so when that is ≤ 12 (the lines' scale)
 * for every share of the set, each line's rounded amount IS its exact product and the
 * group's Σ base × share × 0.01 equals the sum of the rounded amounts. Only the other lines
 * (a 6-decimal amount under a 33.333333 % share) are grouped per base amount, each amount
 * rounded once.
 */
export const FILES_EXACT = `
  WITH sc AS (
    SELECT tenant_id, share_set_id, max(scale(trim_scale(share))) AS sc FROM royalty_share_sets GROUP BY 1, 2
  ), g AS (
    SELECT l.tenant_id, l.file_id, f.accounting_period, l.share_set_id,
           CASE WHEN scale(trim_scale(l.base_amount)) + sc.sc <= 10 THEN NULL ELSE l.base_amount END AS each,
           sum(l.base_amount) AS total, count(*) AS n
      FROM unnest(?::uuid[], ?::date[]) AS f(id, accounting_period) JOIN royalty_lines l ON l.file_id = f.id
      JOIN sc ON sc.tenant_id = l.tenant_id AND sc.share_set_id = l.share_set_id
     WHERE l.share_set_id IS NOT NULL
     GROUP BY 1, 2, 3, 4, 5
  ), part AS (
    SELECT s.tenant_user_id, s.gets_remainder, g.file_id, g.accounting_period, g.share_set_id,
           sum(CASE WHEN s.gets_remainder THEN g.total
                    WHEN g.each IS NULL THEN g.total * s.share * 0.01
                    ELSE g.n * round(g.each * s.share / 100, 12) END) AS amount
      FROM g JOIN royalty_share_sets s ON s.tenant_id = g.tenant_id AND s.share_set_id = g.share_set_id
     GROUP BY 1, 2, 3, 4, 5
  )
  SELECT tenant_user_id, file_id, accounting_period, sum(CASE WHEN gets_remainder THEN amount - coalesce(others, 0) ELSE amount END) AS exact
    FROM (SELECT part.*, sum(amount) FILTER (WHERE NOT gets_remainder) OVER (PARTITION BY file_id, share_set_id) AS others FROM part) p
   GROUP BY 1, 2, 3`;

/**
 * A file's royalties per payee and period, in minor units: per (file, period) the payees'
 * exact sums are apportioned by largest remainder (rounding.ts), so they add up to the
 * file's rounded total exactly.
 */
/** The royalty postings of `file` (summed from its lines when its accounting period is set: FILES_EXACT), or of every file (null). */
function royaltySpec(file: Pick<FileRow, 'id' | 'accounting_period'> | null, digits: number): DiffSpec {
  const fileIds = file ? [file.id] : null;
  const period = file ? dayOf(file.accounting_period) : null;
  const exact = period ? FILES_EXACT : `SELECT e.tenant_user_id, e.file_id, ${EARNINGS_PERIOD('e')} AS accounting_period, sum(e.amount) AS exact
                 FROM royalty_earnings e WHERE e.superseded_at IS NULL ${fileIds ? 'AND e.file_id = ANY(?::uuid[])' : ''} GROUP BY 1, 2, 3`;
  return {
    desired: `SELECT r.tenant_user_id, 'file'::text AS source_type, r.file_id AS source_id, r.accounting_period, r.rounded AS amount
              FROM (${apportionSql(exact, ['file_id', 'accounting_period'], 'tenant_user_id', digits)}) r`,
    desiredBindings: period ? [fileIds, [period]] : fileIds ? [fileIds] : [],
    postedWhere: `source_type = 'file' ${fileIds ? 'AND source_id = ANY(?::uuid[])' : ''}`,
    postedBindings: fileIds ? [fileIds] : [],
    kind: `'royalty'`,
  };
}

/**
 * THE function the allocation job calls after (re-)allocating a file, in its tenant
 * transaction, once the file's royalty_earnings rows are current:
 *
 *   await postRoyaltiesForFile(trx, file)
 *
 * Posts, per (payee, accounting period), the difference between the file's current
 * earnings (superseded_at IS NULL) and the royalty entries already posted for it; then
 * re-derives recoupment for the file's payees that have recoupable expenses. Idempotent:
 * calling it twice, or after a re-allocation, never duplicates money. One set-based
 * statement per step, whatever the file's size. `file`: its row as the caller holds it (the
 * allocation's); with its accounting period set (allocated) it is summed from its lines
 * (FILES_EXACT) under that period.
 */
export async function postRoyaltiesForFile(trx: Trx, file: Pick<FileRow, 'id' | 'accounting_period'>): Promise<{ royaltyEntries: number; recoupEntries: number }> {
  const fileId = file.id;
  await lockLedger(trx, 'shared');
  await lockKey(trx, 'file', [fileId]);
  // The file's lines are freshly written (stale statistics): grouped and joined by hashing,
  // whatever the planner estimates (a misestimated nested loop or sort took minutes at 1M lines).
  const digits = await ledgerDigits(trx);
  const royalty = await hashJoins(trx, () => postDiffPayees(trx, royaltySpec(file, digits)), { hashAggregates: true });
  // Only payees with recoupable expenses can have their recoupment changed by new earnings.
  const rows = await trx.raw(
    `SELECT DISTINCT x.tenant_user_id FROM expenses x
     WHERE x.recoupable AND x.tenant_user_id IN (SELECT tenant_user_id FROM ledger_entries WHERE source_type = 'file' AND source_id = ?)`,
    [fileId],
  );
  const payees = rows.rows.map((r: { tenant_user_id: string }) => r.tenant_user_id);
  // Every payee this posting may touch, locked in one sorted batch (recoupment re-locks a subset).
  const touched = [...new Set([...royalty.payees, ...payees])];
  await lockPayees(trx, touched);
  const recoupEntries = payees.length ? await reconcileRecoupment(trx, payees) : 0;
  await reconcileRecovery(trx, royalty.payees);
  return { royaltyEntries: royalty.count, recoupEntries };
}

// ---------------------------------------------------------------- revenues

export async function reconcileRevenues(trx: Trx, revenueIds: string[] | null): Promise<number> {
  await lockLedger(trx, 'shared');
  if (revenueIds) {
    // The revenues' payees, before and after, locked once (the caller's recoupment re-locks a subset).
    const who = await trx.raw(
      `SELECT tenant_user_id FROM revenue_shares WHERE revenue_id = ANY(?::uuid[])
       UNION SELECT tenant_user_id FROM ledger_entries WHERE source_type = 'revenue' AND source_id = ANY(?::uuid[])`,
      [revenueIds, revenueIds],
    );
    await lockPayees(trx, who.rows.map((r: { tenant_user_id: string }) => r.tenant_user_id));
  }
  const r = await postDiffPayees(trx, {
    desired: `SELECT s.tenant_user_id, 'revenue'::text AS source_type, s.revenue_id AS source_id, r.accounting_period, sum(s.amount) AS amount
              FROM revenue_shares s JOIN revenues r ON r.tenant_id = s.tenant_id AND r.id = s.revenue_id
              ${revenueIds ? 'WHERE r.id = ANY(?::uuid[])' : ''}
              GROUP BY 1, 2, 3, 4`,
    desiredBindings: revenueIds ? [revenueIds] : [],
    postedWhere: `source_type = 'revenue' ${revenueIds ? 'AND source_id = ANY(?::uuid[])' : ''}`,
    postedBindings: revenueIds ? [revenueIds] : [],
    kind: `'revenue_share'`,
  });
  await reconcileRecovery(trx, r.payees);
  return r.count;
}

// ---------------------------------------------------------------- payments

/** Statuses in which a payment takes money out of the payee's balance. */
export const COUNTING_STATUSES = ['pending', 'processing', 'completed'];

export async function reconcilePayments(trx: Trx, paymentIds: string[] | null): Promise<number> {
  await lockLedger(trx, 'shared');
  const d = await ledgerDigits(trx);
  // Callers hold the payments' payee locks (payments.ts, requests.ts), or the exclusive tenant lock.
  const r = await postDiffPayees(trx, {
    desired: `SELECT p.tenant_user_id, 'payment'::text AS source_type, p.id AS source_id,
                     date_trunc('month', p.transaction_date)::date AS accounting_period, -sum(round(p.base_amount, ${d})) AS amount
              FROM payments p
              WHERE p.status IN ('pending','processing','completed') ${paymentIds ? 'AND p.id = ANY(?::uuid[])' : ''}
              GROUP BY 1, 2, 3, 4`,
    desiredBindings: paymentIds ? [paymentIds] : [],
    postedWhere: `source_type = 'payment' ${paymentIds ? 'AND source_id = ANY(?::uuid[])' : ''}`,
    postedBindings: paymentIds ? [paymentIds] : [],
    kind: `CASE WHEN amt_after = 0 THEN 'reversal' WHEN amt_before = 0 THEN 'payment' ELSE 'adjustment' END`,
  });
  await reconcileRecovery(trx, r.payees);
  return r.count;
}

// ---------------------------------------------------------------- recoupment

/**
 * RECOUPMENT (documented in the README, "Recoupment order"):
 *  1. A recoupable expense with a target (asset, product or artist) is recouped only from its
 *     payee's royalty earnings on that target. Each earnings line of a payee is claimed by the
 *     most specific target among that payee's recoupable expenses: asset, else product, else
 *     artist, so one line never recoups two targets.
 *  2. Within a target, expenses are recouped oldest first (expense_date, created_at, id),
 *     earnings taken in accounting-period order: cumulative recouped of an expense through
 *     period k = clamp(cumulative pool through k − earlier expenses' amounts, 0, amount).
 *     The targets together never take more than the payee's cumulative credit through k
 *     (royalty and revenue_share entries; nothing when it is negative): where they would, the
 *     payee's targeted expenses are served oldest first (expense_date, created_at, id) across
 *     targets, each up to what its own pool allows, until the credit is used up.
 *  3. Recoupable expenses without a target are then recouped, oldest first, from everything
 *     else the payee earned (royalties and revenue shares, minus what step 1 took).
 *  4. The recouped amount of period k is booked in period max(k, month of the expense), so a
 *     closed period's statement never gains a recoupment of an expense recorded later.
 * Recoupment works on what the ledger credited, never on a finer figure: the untargeted pool
 * is the payee's `royalty` and `revenue_share` entries (minor units) minus what step 1 took,
 * and a targeted pool counts the payee's earnings on the target per file and period floored
 * to the minor unit (Σ of floors ≤ the floor of the file's sum ≤ what the file credited).
 * So cumulative recouped never exceeds cumulative credited earnings: recoupment alone never
 * makes what is due negative, and a payee credited 0.00 has nothing recouped however the
 * sub-unit remainders add up. An expense larger than the earnings stays partly unrecouped
 * (carried forward) until more earnings arrive.
 */
export async function reconcileRecoupment(trx: Trx, payees: string[] | null): Promise<number> {
  await lockLedger(trx, 'shared');
  if (payees) await lockPayees(trx, payees);
  const d = await ledgerDigits(trx);
  const unit = 10 ** d;
  const pf = payees ? 'AND x.tenant_user_id = ANY(?::uuid[])' : '';
  const desired = `
    WITH exp AS (
      SELECT x.id, x.tenant_user_id, round(x.base_amount, ${d}) AS amount, x.target_type, x.target_id,
             date_trunc('month', x.expense_date)::date AS exp_period, x.expense_date, x.created_at
      FROM expenses x WHERE x.recoupable ${pf}
    ),
    tgt AS (SELECT DISTINCT tenant_user_id, target_type, target_id FROM exp WHERE target_type IS NOT NULL),
    -- a targeted pool: the payee's earnings on the target, per file and period floored to the
    -- minor unit (never more than the ledger credited for that file: Σ floor ≤ floor Σ ≤ credited)
    pool AS (
      SELECT tenant_user_id, target_type, target_id, period,
             sum(sum(amount)) OVER (PARTITION BY tenant_user_id, target_type, target_id ORDER BY period) AS cum
      FROM (SELECT tenant_user_id, file_id, period, target_type, target_id, floor(sum(amount) * ${unit}) / ${unit} AS amount
            FROM (SELECT e.tenant_user_id, e.file_id, ${EARNINGS_PERIOD('e')} AS period, e.amount,
                         CASE WHEN ta.target_id IS NOT NULL THEN 'asset' WHEN tp.target_id IS NOT NULL THEN 'product'
                              WHEN tr.target_id IS NOT NULL THEN 'artist' END AS target_type,
                         coalesce(ta.target_id, tp.target_id, tr.target_id) AS target_id
                  FROM royalty_earnings e
                  LEFT JOIN tgt ta ON ta.tenant_user_id = e.tenant_user_id AND ta.target_type = 'asset' AND ta.target_id = e.asset_id
                  LEFT JOIN tgt tp ON tp.tenant_user_id = e.tenant_user_id AND tp.target_type = 'product' AND tp.target_id = e.product_id
                  LEFT JOIN tgt tr ON tr.tenant_user_id = e.tenant_user_id AND tr.target_type = 'artist' AND tr.target_id = e.artist_id
                  WHERE e.superseded_at IS NULL AND e.tenant_user_id IN (SELECT tenant_user_id FROM tgt)) l
            WHERE target_id IS NOT NULL
            GROUP BY 1, 2, 3, 4, 5) f
      GROUP BY 1, 2, 3, 4
    ),
    -- what the ledger credited the payee (royalties and revenue shares, in minor units) per period
    credited AS (
      SELECT tenant_user_id, accounting_period AS period, sum(amount) AS amount
      FROM ledger_entries WHERE kind IN ('royalty', 'revenue_share') AND tenant_user_id IN (SELECT tenant_user_id FROM exp)
      GROUP BY 1, 2
    ),
    t_exp AS (
      SELECT exp.*, coalesce(sum(amount) OVER (PARTITION BY tenant_user_id, target_type, target_id
                    ORDER BY expense_date, created_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
      FROM exp WHERE target_type IS NOT NULL
    ),
    -- every period in which a payee's credit or a targeted pool changes, with the cap on what
    -- targets may take through it: the payee's cumulative credit, never below zero
    grid AS (
      SELECT tenant_user_id, period FROM credited WHERE tenant_user_id IN (SELECT tenant_user_id FROM tgt)
      UNION SELECT tenant_user_id, period FROM pool
    ),
    cap AS (
      SELECT g.tenant_user_id, g.period,
             greatest(0, sum(coalesce(c.amount, 0)) OVER (PARTITION BY g.tenant_user_id ORDER BY g.period)) AS cap
      FROM grid g LEFT JOIN credited c ON c.tenant_user_id = g.tenant_user_id AND c.period = g.period
    ),
    -- what each targeted expense would take from its own pool through the period…
    t_want AS (
      SELECT x.id, x.tenant_user_id, x.exp_period, x.expense_date, x.created_at, g.period, g.cap,
             trunc(least(x.amount, greatest(0, coalesce(pc.cum, 0) - x.before)), ${d}) AS want
      FROM t_exp x JOIN cap g ON g.tenant_user_id = x.tenant_user_id
      LEFT JOIN LATERAL (SELECT p.cum FROM pool p
                         WHERE p.tenant_user_id = x.tenant_user_id AND p.target_type = x.target_type AND p.target_id = x.target_id AND p.period <= g.period
                         ORDER BY p.period DESC LIMIT 1) pc ON true
    ),
    -- …capped, all the payee's targets together, oldest expense first (date, creation, id):
    -- an expense gets min(W, cap) − min(W − want, cap), W = running Σ want in that order
    t_cum AS (
      SELECT id, tenant_user_id, exp_period, period, least(w, cap) - least(w - want, cap) AS cum_rec
      FROM (SELECT t_want.*, sum(want) OVER (PARTITION BY tenant_user_id, period ORDER BY expense_date, created_at, id) AS w FROM t_want) z
    ),
    t_per AS (
      SELECT id, tenant_user_id, exp_period, period, cum_rec - coalesce(lag(cum_rec) OVER (PARTITION BY id ORDER BY period), 0) AS rec FROM t_cum
    ),
    g_pool AS (
      SELECT tenant_user_id, period, sum(sum(amt)) OVER (PARTITION BY tenant_user_id ORDER BY period) AS cum
      FROM (SELECT tenant_user_id, period, amount AS amt FROM credited
            UNION ALL SELECT tenant_user_id, period, -rec FROM t_per) u
      GROUP BY 1, 2
    ),
    g_exp AS (
      SELECT exp.*, coalesce(sum(amount) OVER (PARTITION BY tenant_user_id
                    ORDER BY expense_date, created_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
      FROM exp WHERE target_type IS NULL
    ),
    g_cum AS (
      SELECT x.id, x.tenant_user_id, x.exp_period, p.period, trunc(least(x.amount, greatest(0, p.cum - x.before)), ${d}) AS cum_rec
      FROM g_exp x JOIN g_pool p ON p.tenant_user_id = x.tenant_user_id
    ),
    g_per AS (
      SELECT id, tenant_user_id, exp_period, period, cum_rec - coalesce(lag(cum_rec) OVER (PARTITION BY id ORDER BY period), 0) AS rec FROM g_cum
    )
    SELECT tenant_user_id, 'expense'::text AS source_type, id AS source_id,
           greatest(period, exp_period) AS accounting_period, -sum(rec) AS amount
    FROM (SELECT * FROM t_per UNION ALL SELECT * FROM g_per) a
    GROUP BY 1, 2, 3, 4
    HAVING sum(rec) <> 0`;
  const r = await postDiffPayees(trx, {
    desired,
    desiredBindings: payees ? [payees] : [],
    postedWhere: `source_type = 'expense' ${payees ? 'AND tenant_user_id = ANY(?::uuid[])' : ''}`,
    postedBindings: payees ? [payees] : [],
    kind: `'expense_recoup'`,
  });
  await reconcileRecovery(trx, r.payees);
  return r.count;
}

// ---------------------------------------------------------------- overpayment recovery

/** The ledger kind and source of the overpayment receivable (source id = the payee). */
export const RECOVERY_KIND = 'overpayment_recovery';

/**
 * OVERPAYMENT RECOVERY (docs/money.md, "Overpayment recovery"). When a payee has been paid
 * (or charged) more than they earned — a split change or a lowered file after a payout, a
 * negative statement, a payment beyond what was due — the shortfall is not left as a
 * negative balance: it is held as a receivable and recouped from the payee's later earnings.
 *
 * Per payee and accounting period k, with B(k) = Σ the payee's other entries through k:
 *   receivable through k = max(0, −B(k))
 * and the period's `overpayment_recovery` entry is its change from the period before
 * (+ when an overpayment is set aside, − when later earnings recoup it). So the balance
 * through every period, B(k) + receivable(k) = max(0, B(k)), is never negative, and the
 * amounts are sums of minor-unit entries (no rounding of their own).
 *
 * Posted as a difference like every entry; the caller holds the payees' locks (or the
 * exclusive tenant lock), and calls it after the payees' other entries are posted.
 */
export async function reconcileRecovery(trx: Trx, payees: string[] | null): Promise<number> {
  if (payees && !payees.length) return 0;
  const pf = payees ? 'AND tenant_user_id = ANY(?::uuid[])' : '';
  const desired = `
    SELECT tenant_user_id, 'recovery'::text AS source_type, tenant_user_id AS source_id, accounting_period,
           rec - coalesce(lag(rec) OVER (PARTITION BY tenant_user_id ORDER BY accounting_period), 0) AS amount
    FROM (SELECT tenant_user_id, accounting_period,
                 greatest(0, -sum(sum(amount)) OVER (PARTITION BY tenant_user_id ORDER BY accounting_period)) AS rec
          FROM ledger_entries WHERE kind <> '${RECOVERY_KIND}' ${pf}
          GROUP BY 1, 2) c`;
  return postDiff(trx, {
    desired: `SELECT * FROM (${desired}) d WHERE amount <> 0`,
    desiredBindings: payees ? [payees] : [],
    postedWhere: `source_type = 'recovery' ${payees ? 'AND tenant_user_id = ANY(?::uuid[])' : ''}`,
    postedBindings: payees ? [payees] : [],
    kind: `'${RECOVERY_KIND}'`,
  });
}

// ---------------------------------------------------------------- refresh

/**
 * Re-derive every ledger entry of the tenant from its source rows (exclusive tenant lock):
 * posts only differences, so when nothing changed it posts nothing and balances are identical.
 */
export async function refreshLedger(trx: Trx): Promise<{ royalty: number; revenue: number; payment: number; recoupment: number; recovery: number }> {
  await lockLedger(trx, 'exclusive');
  const royalty = await postDiff(trx, royaltySpec(null, await ledgerDigits(trx)));
  const revenue = await reconcileRevenues(trx, null);
  const payment = await reconcilePayments(trx, null);
  const recoupment = await reconcileRecoupment(trx, null);
  const recovery = await reconcileRecovery(trx, null);
  return { royalty, revenue, payment, recoupment, recovery };
}

// ---------------------------------------------------------------- balances

/** Sum of the ledger for one payee: what is due to them now (never negative: see reconcileRecovery). */
export async function balanceOf(trx: Trx, payee: string): Promise<string> {
  const r = await trx.raw(`SELECT coalesce(sum(amount), 0)::text AS due FROM ledger_entries WHERE tenant_user_id = ?`, [payee]);
  return r.rows[0].due as string;
}

/** Every ledger kind, in the order the read side lists them. */
export const LEDGER_KINDS = ['royalty', 'revenue_share', 'expense_recoup', 'payment', 'reversal', 'adjustment', RECOVERY_KIND] as const;

export interface KindTotals {
  royalty: string;
  revenue_share: string;
  expense_recoup: string;
  payment: string;
  reversal: string;
  adjustment: string;
  overpayment_recovery: string;
  due: string;
}

/** Totals per kind (and the due = their sum), tenant-wide or for one payee, optionally within periods. */
export async function totalsByKind(trx: Trx, opts: { payee?: string | null; from?: string; to?: string } = {}): Promise<KindTotals> {
  const where: string[] = [];
  const b: Knex.RawBinding[] = [];
  if (opts.payee) (where.push('tenant_user_id = ?'), b.push(opts.payee));
  if (opts.from) (where.push('accounting_period >= ?'), b.push(opts.from));
  if (opts.to) (where.push('accounting_period < ?'), b.push(opts.to));
  const r = await trx.raw(
    `SELECT ${LEDGER_KINDS
      .map((k) => `coalesce(sum(amount) FILTER (WHERE kind = '${k}'), 0)::text AS ${k}`)
      .join(', ')}, coalesce(sum(amount), 0)::text AS due
     FROM ledger_entries ${where.length ? 'WHERE ' + where.join(' AND ') : ''}`,
    b,
  );
  return r.rows[0] as KindTotals;
}

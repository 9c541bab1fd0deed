/**
 * Expenses from statements (docs/money.md, "Expenses from statements"). A statement's cost,
 * recharge and fee rows that its pattern reads as `expense` are kept with the file
 * (file_expense_lines, written by its ingest); after each allocation of the file they are made
 * the file's expenses again, and deleting the file removes them:
 *
 * - the row's recording (its ISRC) or product (its UPC) in the catalogue names whose cost it
 *   is: the payees of the split that pays that recording's sales (the effective split for the
 *   row's month) bear it by their shares, each as a recoupable expense targeted at the
 *   recording (or product);
 * - what no payee bears (no recording or product found, or no split) is the label's own cost: one expense, not recoupable, of the person who uploaded the file (else
 *   the workspace's first owner).
 *
 * Money is exact: each share is the amount × share / 100 cut at the table's 12 decimal places,
 * the split's last payee takes what is left, so the file's expenses add up to its rows exactly. An
 * amount in another currency than the workspace's is converted at the workspace's rate for the
 * row's month; a missing rate fails the file naming it, as its lines do.
 */
import type { Trx } from '../../db';
import { StepFailure } from '../../pipeline/run-step';
import { firstOwnerId, memberIdsAmong } from '../../repositories/members';
import { idsByCodes } from '../../repositories/catalogue';
import type { FileRow } from '../../repositories/files';
import { clock } from '../../lib/clock';
import { baseCurrency, dateOnly, dec, toBase, type Decimal } from './common';
import { reconcileRecoupment } from './ledger';

const SCALE = 12;

interface ExpenseRow {
  tenant_user_id: string;
  title: string;
  description: string;
  category: string;
  amount: string;
  currency: string;
  conversion_rate: string;
  base_amount: string;
  expense_date: string;
  recoupable: boolean;
  target_type: string | null;
  target_id: string | null;
  file_line_no: number;
}

/** A stable comparison key: the same rows give the same expenses (nothing rewritten). */
const keyOf = (r: Pick<ExpenseRow, 'file_line_no' | 'tenant_user_id' | 'amount' | 'currency' | 'base_amount' | 'recoupable' | 'target_type' | 'target_id' | 'expense_date'>) =>
  [r.file_line_no, r.tenant_user_id, dec(r.amount).toFixed(SCALE), String(r.currency).trim(), dec(r.base_amount).toFixed(SCALE), r.recoupable, r.target_type ?? '', r.target_id ?? '', r.expense_date].join('|');

/** POST-ALLOCATION HOOK: makes (or removes) the file's expenses from its expense rows; reconciles the payees' recoupment. `f`: the file's row as the allocation holds it. */
export async function syncFileExpenses(trx: Trx, f: Pick<FileRow, 'id' | 'original_name' | 'uploaded_by' | 'sale_period_end'>): Promise<void> {
  const fileId = f.id;
  const rows = await trx('file_expense_lines').where({ file_id: fileId }).orderBy('line_no')
    .select('line_no', 'isrc', 'upc', 'title', trx.raw(`to_char(sale_month, 'YYYY-MM-DD') AS sale_month`), trx.raw('amount::text AS amount'), 'currency');
  const existing = await trx('expenses').where({ file_id: fileId })
    .select('id', 'file_line_no', 'tenant_user_id', trx.raw('amount::text AS amount'), 'currency', trx.raw('base_amount::text AS base_amount'), 'recoupable', 'target_type', 'target_id', trx.raw(`to_char(expense_date, 'YYYY-MM-DD') AS expense_date`));
  if (!rows.length && !existing.length) return;

  const desired: ExpenseRow[] = [];
  if (rows.length) {
    const file = { ...f, period_end: dateOnly(f.sale_period_end) };
    const base = await baseCurrency(trx);
    const label = await labelMember(trx, file.uploaded_by ?? null);
    const missing = new Map<string, { currency: string; month: string }>();
    for (const r of rows) {
      const currency = String(r.currency).trim();
      const date: string = r.sale_month ?? file.period_end ?? dateOnly(clock.now().toISOString())!;
      const month = date.slice(0, 8) + '01';
      let rate: Decimal = dec(1);
      if (currency !== base) {
        const fx = await trx('fx_rates').where({ currency, month }).first(trx.raw('rate::text AS rate'));
        if (!fx) {
          missing.set(`${currency}|${month}`, { currency, month: month.slice(0, 7) });
          continue;
        }
        rate = dec(fx.rate);
      }
      const upc13 = r.upc ? (r.upc.length === 12 ? '0' + r.upc : r.upc) : null;
      const { assetId, productId } = await idsByCodes(trx, r.isrc, upc13);
      const shares = assetId || productId
        ? (await trx.raw(`SELECT tenant_user_id, share::text AS share FROM effective_split_shares(app_tenant_id(), ?, ?, ?::date, NULL, NULL) ORDER BY tenant_user_id`, [assetId, productId, date])).rows as { tenant_user_id: string; share: string }[]
        : [];
      const title = r.title ? `${r.title}` : 'Statement cost';
      const description = `From the statement "${file.original_name ?? fileId}", line ${r.line_no}`;
      const amount = dec(r.amount);
      let left = amount;
      const push = (payee: string, part: Decimal, recoupable: boolean) => {
        desired.push({
          tenant_user_id: payee, title, description, category: 'statement', amount: part.toFixed(), currency, conversion_rate: rate.toFixed(),
          base_amount: toBase(part, rate).toFixed(), expense_date: date, recoupable,
          target_type: recoupable ? (assetId ? 'asset' : 'product') : null, target_id: recoupable ? (assetId ?? productId) : null, file_line_no: r.line_no,
        });
      };
      const whole = shares.reduce((t, s) => t.plus(s.share), dec(0)).eq(100);
      shares.forEach((s, i) => {
        // each share cut at the table's scale; a split of 100 % gives its last payee what is left, so nothing is lost
        const part = whole && i === shares.length - 1 ? left : amount.mul(s.share).div(100).toDecimalPlaces(SCALE, 1 /* ROUND_DOWN */);
        if (part.lte(0)) return;
        push(s.tenant_user_id, part, true);
        left = left.minus(part);
      });
      if (left.gt(0)) push(label, left, false);
    }
    if (missing.size) {
      const list = [...missing.values()];
      throw new StepFailure(
        'missing_rates',
        `No exchange rate for the statement's expense rows: ${list.map((m) => `${m.currency} ${m.month}`).join(', ')}`,
        { missing_rates: JSON.stringify(list) }, // the currency-months to add a rate for, kept on the file
      );
    }
  }

  // Only what changed is rewritten (a re-allocation with the same rows and splits leaves them be).
  const want = new Map<string, ExpenseRow[]>();
  for (const d of desired) {
    const k = keyOf(d);
    want.set(k, [...(want.get(k) ?? []), d]);
  }
  const stale: string[] = [];
  for (const e of existing) {
    const k = keyOf(e);
    const same = want.get(k);
    if (same?.length) same.pop();
    else stale.push(e.id);
  }
  const fresh = [...want.values()].flat();
  if (!stale.length && !fresh.length) return;
  if (stale.length) await trx('expenses').whereIn('id', stale).delete();
  const now = clock.now();
  for (let i = 0; i < fresh.length; i += 500)
    await trx('expenses').insert(fresh.slice(i, i + 500).map((d) => ({ ...d, tenant_id: trx.raw('app_tenant_id()'), file_id: fileId, created_at: now, updated_at: now })));
  const payees = [...new Set([...existing.filter((e) => stale.includes(e.id) && e.recoupable).map((e) => e.tenant_user_id as string), ...fresh.filter((d) => d.recoupable).map((d) => d.tenant_user_id)])];
  if (payees.length) await reconcileRecoupment(trx, payees);
}

/** The member a label's own statement costs are recorded for: the uploader when still a member, else the first owner. */
async function labelMember(trx: Trx, uploadedBy: string | null): Promise<string> {
  if (uploadedBy) {
    const [m] = await memberIdsAmong(trx, [uploadedBy]);
    if (m) return m;
  }
  const owner = await firstOwnerId(trx);
  if (!owner) throw new StepFailure('refused', 'The statement has expense rows but the workspace has no owner to record them for');
  return owner;
}

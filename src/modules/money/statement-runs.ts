/**
 * Statement runs and frozen statements (docs/statements.md).
 *
 * A run computes one statement per payee for an accounting period; it stays a draft while
 * the period is open and a re-run supersedes it (with a per-payee diff). Issuing a run
 * numbers its statements and freezes them: figures, CSV, PDF and content hash are stored and
 * a trigger refuses any later UPDATE/DELETE. Changes that later touch periods an issued
 * statement accounted for are posted once, as statement_adjustments, into the period of the
 * next statement, which shows them in their own section.
 */
import { sortedPage, whereSearch } from '../../http/list-sort';
import { STATEMENT_SORT } from './sorts';
import crypto from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { PdfBrand } from '../branding/service';
import type { Trx } from '../../db';
import { notify } from '../notifications/service';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { baseCurrency, dec, Decimal, existingMembers } from './common';
import { ledgerDigits, lockLedger } from './ledger';
import { buildFigures, contentHash, figuresCsv, figuresPdf, parsePeriod, payeeAddress, type Figures, type PayeeDetails, type PeriodSpan, type StatementState } from './statement-build';
import { payeeById, recordStatementPayee, withPayeeDetails } from './statement-payee';
import { memberPeople } from '../../repositories/members';

async function lockStatements(trx: Trx): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended('rondo.statements:' || app_tenant_id(), 0))`);
}

/** Whether a closed period overlaps [start, end). */
export async function isClosed(trx: Trx, start: string, end: string): Promise<boolean> {
  return !!(await trx('accounting_period_closes').where('period_start', '<', end).where('period_end', '>', start).first('period_start'));
}

/** Issued statements of a payee before this period, oldest first. */
async function issuedBefore(trx: Trx, payee: string, start: string) {
  return trx('statements').where({ tenant_user_id: payee }).whereNotNull('number').where('period_end', '<=', start).orderBy('period_start').select('figures', 'period_start', 'created_at') as Promise<{ figures: Figures; period_start: Date; created_at: Date }[]>;
}

/**
 * A payee's display details on a statement: name (else the e-mail), e-mail and the address
 * lines printed under the name. The one place statements read who a payee is: a live
 * statement prints them; a run records them in statement_payees, apart from the stored
 * bodies, which name the payee by id (statement-payee.ts).
 */
export async function payeeDetails(trx: Trx, ids: string[]): Promise<Map<string, PayeeDetails>> {
  const rows = await memberPeople(trx, ids);
  return new Map(
    rows.map((w) => {
      const name = [w.first_name, w.last_name].filter(Boolean).join(' ');
      const shown = name || (w.email as string);
      return [w.id as string, { id: w.id as string, name: shown, email: (w.email as string) ?? '', address: payeeAddress(shown, (w.email as string) ?? '') }];
    }),
  );
}

const ORIGIN: Record<string, string> = { revenue: 'revenue', expense: 'expense', payment: 'payment', recovery: 'recovery' };

/**
 * What this payee's issued statements before `p` accounted for, per ledger source: every
 * issued statement's `sources`, plus the part of the first one's opening balance each
 * source made up (its ledger entries before that period as the statement read them: up to
 * its `openingLedgerMark`, or for statements issued without one, created no later than it).
 * Adjustments posted by drafts that were never issued count for nothing (docs/statements.md,
 * "Drafts").
 */
async function accountedFor(trx: Trx, payee: string, issued: { figures: Figures; created_at: Date }[]): Promise<Map<string, Decimal>> {
  const accounted = new Map<string, Decimal>();
  const add = (k: string, v: Decimal.Value) => accounted.set(k, (accounted.get(k) ?? new Decimal(0)).plus(v));
  const first = issued[0];
  if (!first) return accounted;
  const mark = first.figures.openingLedgerMark;
  const opening = (
    await trx.raw(
      `SELECT source_type, source_id::text AS source_id, sum(amount)::text AS amount FROM ledger_entries
       WHERE tenant_user_id = ? AND accounting_period < ? AND ${mark ? 'id <= ?' : 'created_at <= ?'} GROUP BY 1, 2`,
      [payee, first.figures.periodStart, mark ?? first.created_at],
    )
  ).rows as { source_type: string; source_id: string; amount: string }[];
  for (const r of opening) add(`${r.source_type}:${r.source_id}`, r.amount);
  for (const s of issued) for (const x of s.figures.sources) add(`${x.type}:${x.id}`, x.amount);
  return accounted;
}

/**
 * The adjustments of `p`: per ledger source, what the ledger now holds for periods before `p`
 * beyond what this payee's issued statements accounted for. Nothing without an issued
 * statement before `p` (the opening balance is then the ledger's). With `post`, a run records
 * them in statement_adjustments (once: a re-run of `p` posts only the difference to what
 * earlier drafts of `p` posted).
 */
async function adjustmentsFor(trx: Trx, payee: string, p: PeriodSpan, issued: { figures: Figures; created_at: Date }[], post: boolean) {
  const out: { origin: string; reason: string; source_type: string; source_id: string; amount: string }[] = [];
  if (!issued.length) return out;
  const accounted = await accountedFor(trx, payee, issued);
  const current = (
    await trx.raw(
      `SELECT g.source_type, g.source_id::text AS source_id, g.amount::text AS amount, f.id IS NOT NULL AS file_exists, f.original_name AS file_name
       FROM (SELECT l.source_type, l.source_id, sum(l.amount) AS amount FROM ledger_entries l
             WHERE l.tenant_user_id = ? AND l.accounting_period < ? GROUP BY 1, 2) g
       LEFT JOIN files f ON g.source_type = 'file' AND f.tenant_id = app_tenant_id() AND f.id = g.source_id`,
      [payee, p.start],
    )
  ).rows as { source_type: string; source_id: string; amount: string; file_exists: boolean; file_name: string | null }[];
  const byKey = new Map(current.map((c) => [`${c.source_type}:${c.source_id}`, c]));
  const keys = new Set([...accounted.keys(), ...byKey.keys()]);
  for (const k of [...keys].sort()) {
    const [type, id] = k.split(':') as [string, string];
    const c = byKey.get(k);
    const delta = dec(c?.amount ?? '0').minus(accounted.get(k) ?? 0);
    if (delta.isZero()) continue;
    const wasStated = accounted.has(k) && !accounted.get(k)!.isZero();
    const origin = type === 'file' ? (wasStated && dec(c?.amount ?? '0').isZero() && !c?.file_exists ? 'deleted_file' : wasStated ? 'split_change' : 'late_file') : ORIGIN[type]!;
    const name = c?.file_name ? ` ${c.file_name}` : '';
    const reason = { split_change: `Re-allocation of file${name}`, late_file: `Late file${name}`, deleted_file: `Deleted file${name}`, revenue: 'Revenue change', expense: 'Recoupment change', payment: 'Payment change', recovery: 'Overpayment recovery change' }[origin]!;
    out.push({ origin, reason, source_type: type, source_id: id, amount: delta.toFixed() });
  }
  if (post) {
    const posted = (await trx('statement_adjustments').where({ tenant_user_id: payee, posted_period: p.start })
      .select('source_type', trx.raw('source_id::text AS source_id')).sum({ amount: 'amount' }).groupBy('source_type', 'source_id')) as unknown as { source_type: string; source_id: string; amount: string }[];
    const before = new Map(posted.map((r) => [`${r.source_type}:${r.source_id}`, dec(r.amount)]));
    const rows: Record<string, unknown>[] = [];
    for (const k of [...new Set([...before.keys(), ...out.map((o) => `${o.source_type}:${o.source_id}`)])].sort()) {
      const o = out.find((x) => `${x.source_type}:${x.source_id}` === k);
      const diff = dec(o?.amount ?? '0').minus(before.get(k) ?? 0);
      if (diff.isZero()) continue;
      const [type, id] = k.split(':') as [string, string];
      rows.push({ tenant_id: trx.raw('app_tenant_id()'), tenant_user_id: payee, source_type: type, source_id: id, origin: o?.origin ?? (type === 'file' ? 'split_change' : ORIGIN[type]!), reason: o?.reason ?? 'Withdrawn', amount: diff.toFixed(), posted_period: p.start, created_at: clock.now() });
    }
    if (rows.length) await trx('statement_adjustments').insert(rows);
  }
  return out;
}

export interface Letterhead { workspace: string; currency: string; digits: number; brand?: PdfBrand | null }

async function letterheadOf(trx: Trx, brand?: PdfBrand | null): Promise<Letterhead> {
  const ws = await trx('tenants').whereRaw('id = app_tenant_id()').first('name');
  return { workspace: ws.name as string, currency: await baseCurrency(trx), digits: await ledgerDigits(trx), brand };
}

/**
 * A payee's statement of `p`: opening balance (the last issued statement's closing, else the
 * ledger before the period), the period's ledger, the adjustments to closed periods.
 * `post`: a run's draft records its adjustments; a live statement only reads.
 */
async function figuresFor(trx: Trx, letterhead: Letterhead, payee: PayeeDetails, p: PeriodSpan, post: boolean): Promise<Figures> {
  const issued = await issuedBefore(trx, payee.id, p.start);
  const adjustments = await adjustmentsFor(trx, payee.id, p, issued, post);
  if (issued.length) {
    const last = issued[issued.length - 1]!.figures;
    return buildFigures(trx, letterhead, payee, p, dec(last.closingBalance), adjustments);
  }
  const o = (await trx.raw(`SELECT coalesce(sum(amount), 0)::text AS s, max(id)::text AS mark FROM ledger_entries WHERE tenant_user_id = ? AND accounting_period < ?`, [payee.id, p.start])).rows[0];
  return buildFigures(trx, letterhead, payee, p, dec(o.s), adjustments, o.mark ?? '0');
}

/** The JSON, CSV, PDF and content hash of a statement in a state. */
async function rendered(figures: Figures, letterhead: Letterhead, st: StatementState) {
  const json = JSON.stringify(figures);
  const csv = figuresCsv(figures, letterhead.digits, st);
  const pdf = await figuresPdf(figures, letterhead.digits, st, letterhead.brand);
  return { figures, json, csv, pdf, hash: contentHash(json, csv, pdf) };
}

/**
 * The live statement of a payee for a period with nothing issued: computed now, never
 * stored, the same figures a run would draft (without posting its adjustments), drawn by the
 * same renderer and marked as not issued.
 */
export async function liveStatement(trx: Trx, payee: string, period: string, brand?: PdfBrand | null) {
  const p = parsePeriod(period);
  const who = (await payeeDetails(trx, [payee])).get(payee);
  if (!who) throw new NotFoundError('User');
  const letterhead = await letterheadOf(trx, brand);
  const figures = await figuresFor(trx, letterhead, who, p, false);
  const st: StatementState = { state: 'live', number: null };
  return {
    figures,
    csv: () => figuresCsv(figures, letterhead.digits, st),
    pdf: () => figuresPdf(figures, letterhead.digits, st, letterhead.brand),
  };
}

export interface RunInput { period: string; payees?: string[] }

/** A new run for the period (admin): drafts for every payee with ledger entries up to its end, or the given ones. */
/**
 * `brand`: the workspace's branding now (branding/service.ts pdfBrand); drafts are drawn with
 * it and issuing freezes them, so a statement keeps the branding it was issued with.
 */
export async function createRun(trx: Trx, input: RunInput, by: string | null, brand?: PdfBrand) {
  const p = parsePeriod(input.period);
  await lockLedger(trx, 'shared');
  await lockStatements(trx);
  if (await isClosed(trx, p.start, p.end)) throw new ConflictError(`Period ${p.label} is closed`, [], 'PERIOD_CLOSED');
  // Statements of one workspace tile time: no period overlapping issued statements of another length.
  const overlap = await trx('statements').whereNotNull('number').where('period_start', '<', p.end).where('period_end', '>', p.start).whereNot({ label: p.label }).first('label');
  if (overlap) throw new ConflictError(`Period ${p.label} overlaps issued statements of ${overlap.label}`, [], 'PERIOD_OVERLAPS');
  let payees: string[];
  if (input.payees?.length) {
    const found = await existingMembers(trx, input.payees);
    const missing = input.payees.filter((x) => !found.has(x));
    if (missing.length) throw new ValidationError('Unknown payees', missing.map((x) => `payees: ${x} is not a member of this workspace`), 'UNKNOWN_PAYEE');
    payees = [...found];
  } else {
    payees = (await trx.raw(`SELECT DISTINCT tenant_user_id::text AS id FROM ledger_entries WHERE accounting_period < ?`, [p.end])).rows.map((r: { id: string }) => r.id);
  }
  const already = new Set((await trx('statements').whereNotNull('number').where({ period_start: p.start, period_end: p.end }).whereIn('tenant_user_id', payees).select('tenant_user_id')).map((r) => r.tenant_user_id as string));
  const todo = payees.filter((x) => !already.has(x)).sort();
  const previous = await trx('statement_runs').where({ period_start: p.start, period_end: p.end, status: 'draft' }).orderBy('created_at', 'desc').first('id');
  if (previous) await trx('statement_runs').where({ id: previous.id }).update({ status: 'superseded' });
  const id = crypto.randomUUID();
  await trx('statement_runs').insert({ tenant_id: trx.raw('app_tenant_id()'), id, period_start: p.start, period_end: p.end, label: p.label, payees: input.payees?.length ? todo : null, previous_run_id: previous?.id ?? null, created_by: by, created_at: clock.now() });
  const letterhead = await letterheadOf(trx, brand);
  const who = await payeeDetails(trx, todo);
  for (const x of todo) {
    const payee = who.get(x) ?? { id: x, name: x, email: '', address: [] };
    // the stored, hashed bodies name the payee by id only; their name and e-mail are kept apart (statement-payee.ts)
    const s = await rendered(await figuresFor(trx, letterhead, payeeById(x), p, true), letterhead, { state: 'draft', number: null });
    const statementId = crypto.randomUUID();
    await trx('statements').insert({ tenant_id: trx.raw('app_tenant_id()'), id: statementId, run_id: id, tenant_user_id: x, period_start: p.start, period_end: p.end, label: p.label, figures: s.json, csv: s.csv, pdf: s.pdf, content_hash: s.hash, created_at: clock.now() });
    await recordStatementPayee(trx, statementId, x, { name: payee.name, email: payee.email || null });
  }
  return getRun(trx, id, { skipped: [...already].sort() });
}

/** The run, its statements (no bytes) and the per-payee diff against the run it superseded. */
export async function getRun(trx: Trx, id: string, extra: Record<string, unknown> = {}) {
  const run = await trx('statement_runs').where({ id }).first();
  if (!run) throw new NotFoundError('Statement run');
  const mine = await trx('statements').where({ run_id: id }).orderBy('tenant_user_id').select('id', 'tenant_user_id', 'number', 'content_hash', 'figures');
  const prev = run.previous_run_id ? await trx('statements').where({ run_id: run.previous_run_id }).select('tenant_user_id', 'content_hash', 'figures') : null;
  const view = (s: { id: string; tenant_user_id: string; number: number | null; content_hash: string; figures: Figures }) => ({
    id: s.id, user: s.tenant_user_id, number: s.number, contentHash: s.content_hash,
    openingBalance: s.figures.openingBalance, royaltiesTotal: s.figures.royaltiesTotal, adjustmentsTotal: s.figures.adjustmentsTotal, closingBalance: s.figures.closingBalance,
  });
  const diff = prev
    ? [...new Set([...mine.map((s) => s.tenant_user_id as string), ...prev.map((s) => s.tenant_user_id as string)])].sort().map((u) => {
        const a = prev.find((s) => s.tenant_user_id === u);
        const b = mine.find((s) => s.tenant_user_id === u);
        const f = (s: { figures: Figures } | undefined, k: 'closingBalance' | 'royaltiesTotal' | 'adjustmentsTotal') => (s ? s.figures[k] : null);
        const delta = (k: 'closingBalance' | 'royaltiesTotal' | 'adjustmentsTotal') => dec(f(b, k) ?? '0').minus(f(a, k) ?? '0').toFixed();
        return {
          user: u, status: !a ? 'added' : !b ? 'removed' : a.content_hash === b.content_hash ? 'unchanged' : 'changed',
          previousHash: a?.content_hash ?? null, contentHash: b?.content_hash ?? null,
          previousClosingBalance: f(a, 'closingBalance'), closingBalance: f(b, 'closingBalance'),
          change: { royaltiesTotal: delta('royaltiesTotal'), adjustmentsTotal: delta('adjustmentsTotal'), closingBalance: delta('closingBalance') },
        };
      })
    : null;
  return {
    id: run.id, period: run.label, periodStart: iso(run.period_start), periodEnd: iso(run.period_end), status: run.status,
    previousRunId: run.previous_run_id, createdAt: new Date(run.created_at).toISOString(), issuedAt: run.issued_at ? new Date(run.issued_at).toISOString() : null,
    sentAt: run.sent_at ? new Date(run.sent_at).toISOString() : null,
    statements: mine.map(view), diff, ...extra,
  };
}

const iso = (d: Date | string) => (typeof d === 'string' ? d.slice(0, 10) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`);

/** The payee hears of their issued statement (docs/notifications.md; e-mail etc. by their preferences). */
async function announceStatement(trx: Trx, id: string): Promise<void> {
  const s = await trx('statements').where({ id }).first('id', 'tenant_id', 'tenant_user_id', 'number', 'label', 'figures');
  const f = s.figures as Figures;
  await notify(trx, {
    tenantId: s.tenant_id, tenantUserId: s.tenant_user_id, type: 'statement.issued', title: `Statement issued: ${s.label}`, content: `Statement no. ${s.number}, closing balance ${f.closingBalance} ${f.currency}`,
    resourceType: 'statement', resourceId: s.id, actionUrl: `/statements/${s.id}`,
    metadata: { number: s.number, period: s.label, closingBalance: f.closingBalance, currency: f.currency },
  });
}

/**
 * Issue a draft: its statements get their numbers and are drawn once more with them (CSV and
 * PDF say "No. n", the workspace's branding of now), then frozen. A draft the ledger has
 * moved past (its figures are no longer what a run would compute) is refused with
 * RUN_STALE: run the period again and issue that draft.
 */
export async function issueRun(trx: Trx, id: string, brand?: PdfBrand | null) {
  await lockLedger(trx, 'shared');
  await lockStatements(trx);
  const run = await trx('statement_runs').where({ id }).forUpdate().first();
  if (!run) throw new NotFoundError('Statement run');
  if (run.status !== 'draft') throw new ConflictError(`Run is ${run.status}; only the latest draft of a period can be issued`, [], 'RUN_NOT_DRAFT');
  if (await isClosed(trx, iso(run.period_start), iso(run.period_end))) throw new ConflictError(`Period ${run.label} is closed`, [], 'PERIOD_CLOSED');
  const p = parsePeriod(run.label);
  const letterhead = await letterheadOf(trx, brand);
  const rows = (await trx('statements').where({ run_id: id }).orderBy('tenant_user_id').select('id', 'tenant_user_id', 'figures')) as { id: string; tenant_user_id: string; figures: Figures }[];
  for (const r of rows) {
    // the draft names its payee by id (statement-payee.ts): only the money is compared
    const now = await figuresFor(trx, letterhead, r.figures.payee, p, false);
    if (!isDeepStrictEqual(now, r.figures)) throw new ConflictError(`The ledger has changed since this draft of ${run.label}; run the period again and issue the new draft`, [], 'RUN_STALE');
  }
  const next = Number((await trx('statements').max({ n: 'number' }).first())?.n ?? 0);
  const at = clock.now();
  let n = next;
  for (const r of rows) {
    const number = ++n;
    const s = await rendered(r.figures, letterhead, { state: 'issued', number });
    // drawn by id only: the hash covers the bodies as stored (a draft made before the payee's details were kept apart too)
    await trx('statements').where({ id: r.id }).update({ number, issued_at: at, csv: s.csv, pdf: s.pdf, content_hash: s.hash, hash_scope: 'without_payee' });
    await trx('statement_payees').where({ statement_id: r.id }).update({ legacy_pdf: null });
  }
  await trx('statement_runs').where({ id }).update({ status: 'issued', issued_at: at });
  return getRun(trx, id);
}

/**
 * Send an issued run's statements (its own step, after issuing): each payee is told theirs is
 * ready, by e-mail and in Rondo, as their notification settings say (statement.issued). Sending
 * again tells them again; the run keeps when it was last sent (`sentAt`).
 */
export async function sendRun(trx: Trx, id: string) {
  const run = await trx('statement_runs').where({ id }).forUpdate().first();
  if (!run) throw new NotFoundError('Statement run');
  if (run.status !== 'issued') throw new ConflictError(`Run is ${run.status}; only an issued run's statements can be sent`, [], 'RUN_NOT_ISSUED');
  const ids = (await trx('statements').where({ run_id: id }).orderBy('number').pluck('id')) as string[];
  for (const s of ids) await announceStatement(trx, s);
  await trx('statement_runs').where({ id }).update({ sent_at: clock.now() });
  return getRun(trx, id, { sent: ids.length });
}

/** A run's statements for its archive: id, number and the payee's id, in number order (drafts: payee order). */
export async function runStatementIds(trx: Trx, id: string): Promise<{ run: { label: string; status: string }; statements: { id: string; number: number | null }[] }> {
  const run = await trx('statement_runs').where({ id }).first('label', 'status');
  if (!run) throw new NotFoundError('Statement run');
  const statements = await trx('statements').where({ run_id: id }).orderBy([{ column: 'number' }, { column: 'tenant_user_id' }]).select('id', 'number');
  return { run, statements };
}

/** Issued statements (admins: any payee; members: their own). */
export async function listStatements(trx: Trx, o: { payee: string | null; period?: string; page: number; size: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const q = trx('statements').whereNotNull('number');
  if (o.payee) q.where({ tenant_user_id: o.payee });
  if (o.period) q.where({ period_start: parsePeriod(o.period).start });
  whereSearch(q, o.search, ['label']);
  const { rows, total } = await sortedPage(q.select('id', 'number', 'tenant_user_id', 'label', 'content_hash', 'issued_at', 'run_id', 'figures'), o, STATEMENT_SORT, 'number', 'id', 'desc');
  return { rows: rows.map(meta), total };
}

function meta(s: Record<string, unknown>) {
  const f = s.figures as Figures;
  return { id: s.id, number: s.number, user: s.tenant_user_id, period: s.label, runId: s.run_id, contentHash: s.content_hash, issuedAt: s.issued_at ? new Date(s.issued_at as string).toISOString() : null, currency: f.currency, closingBalance: f.closingBalance };
}

/** One statement (issued; admins may also read drafts); `payee` limits to a member's own. */
export async function getStatement(trx: Trx, id: string, payee: string | null) {
  const q = trx('statements').where({ id });
  if (payee) q.where({ tenant_user_id: payee }).whereNotNull('number');
  const s = await q.first();
  if (!s) throw new NotFoundError('Statement');
  return served(trx, s);
}

/** The stored bodies with the payee's display details joined in (statement-payee.ts); the PDF is built on demand. */
async function served(trx: Trx, s: Record<string, any>) {
  const st: StatementState = s.number === null ? { state: 'draft', number: null } : { state: 'issued', number: s.number as number };
  const r = await withPayeeDetails(trx, s as Parameters<typeof withPayeeDetails>[1], async (f) => figuresPdf(f, await ledgerDigits(trx), st));
  return { meta: meta(s), figures: r.figures, csv: r.csv, pdf: r.pdf };
}

/** The issued statement of a payee for a period label, if any (the legacy statement route shows it). */
export async function issuedFor(trx: Trx, payee: string, period: string) {
  const s = await trx('statements').whereNotNull('number').where({ tenant_user_id: payee, label: period }).first();
  return s ? served(trx, s) : null;
}

/** Close an accounting period (admin): no new run or issue for it. Idempotent. */
export async function closePeriod(trx: Trx, period: string, by: string | null) {
  const p = parsePeriod(period);
  await lockStatements(trx);
  await trx('accounting_period_closes').insert({ tenant_id: trx.raw('app_tenant_id()'), period_start: p.start, period_end: p.end, label: p.label, closed_by: by, closed_at: clock.now() }).onConflict(['tenant_id', 'period_start']).ignore();
  return periodView(trx, p);
}

/** Reopen a closed period: refused once it has issued statements. */
export async function reopenPeriod(trx: Trx, period: string) {
  const p = parsePeriod(period);
  await lockStatements(trx);
  if (await trx('statements').whereNotNull('number').where({ period_start: p.start, period_end: p.end }).first('id')) throw new ConflictError(`Period ${p.label} has issued statements and stays closed`, [], 'PERIOD_HAS_ISSUED_STATEMENTS');
  await trx('accounting_period_closes').where({ period_start: p.start, period_end: p.end }).delete();
  return periodView(trx, p);
}

/** An accounting period's state: closed or not, and its issued statements. */
export async function getPeriod(trx: Trx, period: string) {
  return periodView(trx, parsePeriod(period));
}

async function periodView(trx: Trx, p: PeriodSpan) {
  const c = await trx('accounting_period_closes').where({ period_start: p.start, period_end: p.end }).first();
  const issued = Number((await trx('statements').whereNotNull('number').where({ period_start: p.start, period_end: p.end }).count({ n: '*' }).first())?.n ?? 0);
  return { period: p.label, periodStart: p.start, periodEnd: p.end, closed: !!c, closedAt: c ? new Date(c.closed_at).toISOString() : null, issuedStatements: issued };
}

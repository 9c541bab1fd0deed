/**
 * Publisher-writer agreements (docs/publishing.md, "Agreement states"). Created `draft`;
 * the status moves only along AGREEMENT_MOVES, in the order draft → pending → active
 * → expired | terminated, with one step back (pending → draft) while it is negotiated. Terms
 * change only in draft and pending.
 */
import type { Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { dateOnly as day, iso } from '../money/common';
import { isIso4217 } from '../../http/limits';
import { clock } from '../../lib/clock';
import Decimal from 'decimal.js';
import { pageOf } from './paging';
import { AGREEMENT_SORT } from './sorts';
import { likeText } from '../../http/list-sort';

export type AgreementStatus = 'draft' | 'pending' | 'active' | 'expired' | 'terminated';

/** Every allowed move; anything else is refused with 400. */
export const AGREEMENT_MOVES: Record<AgreementStatus, AgreementStatus[]> = {
  draft: ['pending'],
  pending: ['draft', 'active'],
  active: ['expired', 'terminated'],
  expired: [],
  terminated: [],
};
const EDITABLE: AgreementStatus[] = ['draft', 'pending'];

export interface AgreementInput {
  publisher: string;
  writer: string;
  territories: string[];
  startDate: string;
  endDate?: string | null;
  writerShare: string | number;
  advance?: string | number | null;
  currency?: string | null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : new Decimal(String(v)).toString());

export function agreementView(r: Record<string, unknown>) {
  return {
    id: r.id as string, publisher: r.publisher_id as string, writer: r.writer_id as string, territories: r.territories as string[], startDate: day(r.start_date)!,
    endDate: day(r.end_date), writerShare: num(r.writer_share)!, advance: num(r.advance), currency: (r.currency as string | null) ?? null, status: r.status as AgreementStatus,
    statusChangedAt: iso(r.status_changed_at), createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}

async function row(trx: Trx, id: string) {
  const r = await trx('publishing_agreements').where({ id }).first();
  if (!r) throw new NotFoundError('Agreement');
  return r as Record<string, unknown>;
}

async function check(trx: Trx, a: AgreementInput): Promise<Record<string, unknown>> {
  const problems: string[] = [];
  const w = await trx('writers').where({ id: a.writer }).first('id');
  const p = await trx('publishers').where({ id: a.publisher }).first('id');
  if (!w) problems.push(`body.writer ${a.writer} is not a writer of this workspace`);
  if (!p) problems.push(`body.publisher ${a.publisher} is not a publisher of this workspace`);
  if (new Decimal(String(a.writerShare)).gt(100)) problems.push('body.writerShare must be at most 100');
  if (a.endDate && a.endDate < a.startDate) problems.push('body.endDate must not be before body.startDate');
  if (a.advance !== null && a.advance !== undefined && new Decimal(String(a.advance)).isNeg()) problems.push('body.advance must not be negative');
  const currency = a.currency ? a.currency.toUpperCase() : null;
  if (currency && !isIso4217(currency)) problems.push('body.currency must be an ISO 4217 currency code');
  if (a.advance !== null && a.advance !== undefined && !currency) problems.push('body.currency is required with an advance');
  if (problems.length) throw new ValidationError('Invalid agreement', problems);
  return {
    publisher_id: a.publisher, writer_id: a.writer, territories: [...new Set(a.territories)], start_date: a.startDate, end_date: a.endDate ?? null,
    writer_share: String(a.writerShare), advance: a.advance === null || a.advance === undefined ? null : String(a.advance), currency,
  };
}

export async function createAgreement(trx: Trx, auth: AuthContext, input: AgreementInput) {
  const cols = await check(trx, input);
  const [r] = await trx('publishing_agreements').insert({ ...cols, tenant_id: trx.raw('app_tenant_id()'), status: 'draft', created_by: auth.tenantUserId }).returning('*');
  return agreementView(r);
}

export async function listAgreements(trx: Trx, q: { page: number; size: number; writer?: string; publisher?: string; status?: string; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const base = trx('publishing_agreements').modify((b) => {
    if (q.search?.trim()) {
      // the writer's or the publisher's name
      const like = likeText(q.search);
      b.where((w) => w
        .whereExists(trx('writers as x').whereRaw('x.id = publishing_agreements.writer_id').whereRaw("(coalesce(x.first_name, '') || ' ' || x.last_name) ILIKE ?", [like]))
        .orWhereExists(trx('publishers as x').whereRaw('x.id = publishing_agreements.publisher_id').whereILike('x.name', like)));
    }
    if (q.writer) b.where({ writer_id: q.writer });
    if (q.publisher) b.where({ publisher_id: q.publisher });
    if (q.status) b.where({ status: q.status });
  });
  const { rows, total } = await pageOf(base, q, { cols: AGREEMENT_SORT, default: 'createdAt' });
  return { data: rows.map(agreementView), total };
}

export async function getAgreement(trx: Trx, id: string) {
  return agreementView(await row(trx, id));
}

export async function updateAgreement(trx: Trx, id: string, patch: Partial<AgreementInput>) {
  const cur = agreementView(await row(trx, id));
  if (!EDITABLE.includes(cur.status)) throw new ValidationError(`An ${cur.status} agreement cannot be changed (terms change only in draft or pending)`, [], 'NOT_EDITABLE');
  const merged: AgreementInput = {
    publisher: cur.publisher, writer: cur.writer, territories: cur.territories, startDate: cur.startDate, endDate: cur.endDate, writerShare: cur.writerShare,
    advance: cur.advance, currency: cur.currency, ...patch,
  };
  const cols = await check(trx, merged);
  const [r] = await trx('publishing_agreements').where({ id }).update({ ...cols, updated_at: trx.fn.now() }).returning('*');
  return agreementView(r);
}

export async function setAgreementStatus(trx: Trx, id: string, status: AgreementStatus) {
  const cur = await row(trx, id);
  const from = cur.status as AgreementStatus;
  if (!AGREEMENT_MOVES[from].includes(status)) {
    const allowed = AGREEMENT_MOVES[from];
    throw new ValidationError(`An agreement cannot move from ${from} to ${status} (from ${from}: ${allowed.length ? allowed.join(', ') : 'no move'})`, [], 'INVALID_TRANSITION');
  }
  const [r] = await trx('publishing_agreements').where({ id }).update({ status, status_changed_at: clock.now(), updated_at: trx.fn.now() }).returning('*');
  return agreementView(r);
}

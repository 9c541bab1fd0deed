/**
 * Conflicting claims on works (docs/publishing.md): another party claims a share of one of
 * our works, recorded by hand (POST /claims) or from a society's acknowledgement (status
 * CO). A claim is open, disputed (we contest it), resolved or withdrawn; CLAIM_MOVES lists
 * the allowed moves, and a resolved or withdrawn claim is final.
 */
import type { Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { iso } from '../money/common';
import { normaliseIpi } from './identifiers';
import { pageOf } from './paging';
import { CLAIM_SORT } from './sorts';
import { whereSearch } from '../../http/list-sort';

export type ClaimStatus = 'open' | 'disputed' | 'resolved' | 'withdrawn';
export const CLAIM_MOVES: Record<ClaimStatus, ClaimStatus[]> = {
  open: ['disputed', 'resolved', 'withdrawn'],
  disputed: ['open', 'resolved', 'withdrawn'],
  resolved: [],
  withdrawn: [],
};

export interface ClaimInput {
  work: string;
  claimant: string;
  claimantIpi?: string | null;
  society?: string | null;
  right?: string;
  share?: string | number | null;
  note?: string | null;
  registration?: string | null;
}

function view(r: Record<string, unknown>) {
  return {
    id: r.id as string, work: r.work_id as string, registration: (r.registration_id as string | null) ?? null, claimant: r.claimant as string,
    claimantIpi: (r.claimant_ipi as string | null) ?? null, society: (r.society as string | null) ?? null, right: r.right as string,
    share: r.share === null || r.share === undefined ? null : String(Number(r.share)), status: r.status as ClaimStatus, note: (r.note as string | null) ?? null,
    createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}

async function row(trx: Trx, id: string) {
  const r = await trx('work_claims').where({ id }).first();
  if (!r) throw new NotFoundError('Claim');
  return r as Record<string, unknown>;
}

function columns(input: Partial<ClaimInput>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input.claimant !== undefined) out.claimant = input.claimant;
  if (input.claimantIpi !== undefined) {
    const ipi = input.claimantIpi === null ? null : normaliseIpi(input.claimantIpi);
    if (input.claimantIpi !== null && !ipi) throw new ValidationError('Invalid claim', ['body.claimantIpi must be an IPI name number: 11 digits whose last two are the check digits of the first nine']);
    out.claimant_ipi = ipi;
  }
  if (input.society !== undefined) out.society = input.society;
  if (input.right !== undefined) out.right = input.right;
  if (input.share !== undefined) {
    if (input.share !== null && Number(input.share) > 100) throw new ValidationError('Invalid claim', ['body.share must be at most 100']);
    out.share = input.share === null ? null : String(input.share);
  }
  if (input.note !== undefined) out.note = input.note;
  return out;
}

export async function createClaim(trx: Trx, auth: AuthContext, input: ClaimInput) {
  const problems: string[] = [];
  if (!(await trx('works').where({ id: input.work }).first('id'))) problems.push(`body.work ${input.work} is not a work of this workspace`);
  if (input.registration && !(await trx('work_registrations').where({ id: input.registration, work_id: input.work }).first('id'))) {
    problems.push(`body.registration ${input.registration} is not a registration of that work`);
  }
  if (problems.length) throw new ValidationError('Invalid claim', problems);
  const [r] = await trx('work_claims').insert({
    ...columns(input), tenant_id: trx.raw('app_tenant_id()'), work_id: input.work, registration_id: input.registration ?? null, status: 'open', created_by: auth.tenantUserId,
  }).returning('*');
  return view(r);
}

export async function listClaims(trx: Trx, q: { page: number; size: number; work?: string; status?: string; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const base = trx('work_claims').modify((b) => {
    whereSearch(b, q.search, ['claimant', 'claimant_ipi', 'note']);
    if (q.work) b.where({ work_id: q.work });
    if (q.status) b.where({ status: q.status });
  });
  const { rows, total } = await pageOf(base, q, { cols: CLAIM_SORT, default: 'createdAt' });
  return { data: rows.map(view), total };
}

export async function getClaim(trx: Trx, id: string) {
  return view(await row(trx, id));
}

export async function updateClaim(trx: Trx, id: string, patch: Partial<ClaimInput>) {
  await row(trx, id);
  const [r] = await trx('work_claims').where({ id }).update({ ...columns(patch), updated_at: trx.fn.now() }).returning('*');
  return view(r);
}

export async function setClaimStatus(trx: Trx, id: string, status: ClaimStatus, note?: string | null) {
  const from = (await row(trx, id)).status as ClaimStatus;
  if (!CLAIM_MOVES[from].includes(status)) {
    throw new ValidationError(`A claim cannot move from ${from} to ${status} (from ${from}: ${CLAIM_MOVES[from].join(', ') || 'no move'})`, [], 'INVALID_TRANSITION');
  }
  const [r] = await trx('work_claims').where({ id }).update({ status, ...(note !== undefined ? { note } : {}), updated_at: trx.fn.now() }).returning('*');
  return view(r);
}

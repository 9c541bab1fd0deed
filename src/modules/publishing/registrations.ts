/**
 * Work registrations with rights societies (docs/publishing.md, "Registration states"):
 * created `pending`, queued for submission, written to a CWR file by the export (which marks
 * them `submitted`), then `registered` or `rejected` by the society's acknowledgement file.
 * A conflict the society reports (ACK status CO) registers the work and records a claim.
 */
import type { Trx } from '../../db';
import type { AuthContext } from '../../lib/identity';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { iso } from '../money/common';
import { societyOfCisac } from './cwr/societies';
import { readCwr } from './cwr/reader';
import { writeCwr } from './cwr/writer';
import { CwrError } from './cwr/codec';
import type { Version } from './cwr/layouts';
import { cwrWorks } from './cwr-works';
import { pageOf } from './paging';
import { REGISTRATION_SORT, SUBMISSION_SORT } from './sorts';
import { whereSearch } from '../../http/list-sort';

export type RegistrationStatus = 'pending' | 'queued' | 'submitted' | 'registered' | 'rejected';
/** Moves and what makes them: queue (POST …/queue), export (GET /registrations/export), ack (POST /registrations/ack). */
export const REGISTRATION_MOVES: Record<RegistrationStatus, { to: RegistrationStatus; by: 'queue' | 'export' | 'ack' }[]> = {
  pending: [{ to: 'queued', by: 'queue' }],
  queued: [{ to: 'submitted', by: 'export' }],
  submitted: [{ to: 'registered', by: 'ack' }, { to: 'rejected', by: 'ack' }],
  registered: [],
  rejected: [{ to: 'queued', by: 'queue' }],
};
const OPEN: RegistrationStatus[] = ['pending', 'queued', 'submitted'];
/** ACK transaction statuses that mean the society took the work (CO: taken, with a conflicting claim). */
const ACCEPTED = new Set(['AS', 'AC', 'RA', 'SR', 'CR', 'CO']);

function view(r: Record<string, unknown>) {
  return {
    id: r.id as string, work: r.work_id as string, workTitle: r.work_title as string, society: r.society as string, status: r.status as RegistrationStatus,
    transactionType: (r.transaction_type as string | null) ?? null, submission: (r.submission_id as string | null) ?? null, transactionSeq: (r.transaction_seq as number | null) ?? null,
    societyWorkId: (r.society_work_id as string | null) ?? null, message: (r.message as string | null) ?? null, queuedAt: iso(r.queued_at), submittedAt: iso(r.submitted_at),
    acknowledgedAt: iso(r.acknowledged_at), createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
  };
}
const withTitle = (trx: Trx) => trx('work_registrations as r').join('works as w', 'w.id', 'r.work_id').select('r.*', 'w.title as work_title');

async function one(trx: Trx, id: string) {
  const r = await withTitle(trx).where('r.id', id).first();
  if (!r) throw new NotFoundError('Registration');
  return view(r);
}
export const getRegistration = one;

export async function createRegistration(trx: Trx, auth: AuthContext, input: { work: string; society: string }) {
  if (!(await trx('works').where({ id: input.work }).first('id'))) throw new ValidationError('Invalid registration', [`body.work ${input.work} is not a work of this workspace`]);
  const open = await trx('work_registrations').where({ work_id: input.work, society: input.society }).whereIn('status', OPEN).first('id', 'status');
  if (open) throw new ValidationError(`This work already has a ${open.status} registration with ${input.society} (${open.id})`, [], 'DUPLICATE');
  const [r] = await trx('work_registrations').insert({ tenant_id: trx.raw('app_tenant_id()'), work_id: input.work, society: input.society, status: 'pending', created_by: auth.tenantUserId }).returning('id');
  return one(trx, r.id);
}

export async function listRegistrations(trx: Trx, q: { page: number; size: number; work?: string; society?: string; status?: string; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const base = withTitle(trx).modify((b) => {
    whereSearch(b, q.search, ['w.title', 'r.society_work_id', 'r.message']);
    if (q.work) b.where('r.work_id', q.work);
    if (q.society) b.where('r.society', q.society);
    if (q.status) b.where('r.status', q.status);
  });
  const { rows, total } = await pageOf(base, q, { cols: REGISTRATION_SORT, default: 'createdAt' }, 'r.id');
  return { data: rows.map(view), total };
}

export async function queueRegistration(trx: Trx, id: string) {
  const cur = await one(trx, id);
  if (!REGISTRATION_MOVES[cur.status].some((m) => m.by === 'queue')) {
    throw new ValidationError(`A ${cur.status} registration cannot be queued (only pending or rejected ones are)`, [], 'INVALID_TRANSITION');
  }
  await trx('work_registrations').where({ id }).update({ status: 'queued', queued_at: clock.now(), message: null, updated_at: trx.fn.now() });
  return one(trx, id);
}

/** The sender of a CWR file: the publisher asked for, or the oldest controlled publisher with an IPI. */
async function sender(trx: Trx, id?: string) {
  const q = trx('publishers').where({ controlled: true }).whereNotNull('ipi');
  const p = await (id ? q.where({ id }) : q.orderBy('created_at').orderBy('id')).first('name', 'ipi', 'code');
  if (!p) {
    throw new ValidationError('A CWR file needs a sender: a controlled publisher of this workspace with an IPI name number', [
      id ? `query.sender ${id} is not a controlled publisher with an IPI` : 'query.sender: no controlled publisher has an IPI name number',
    ]);
  }
  return p as { name: string; ipi: string; code: string };
}

/**
 * Write every queued registration (of one society when asked) into one CWR file, keep the
 * file, and mark them submitted with their transaction number. NWR for a first registration
 * of the work with that society, REV when one was submitted or registered before.
 */
export async function exportRegistrations(trx: Trx, auth: AuthContext, q: { format: 'cwr21' | 'cwr22'; society?: string; sender?: string }, software: { name: string; version: string }) {
  const version: Version = q.format === 'cwr22' ? '2.2' : '2.1';
  const regs = await trx('work_registrations as r').where('r.status', 'queued').modify((b) => (q.society ? b.where('r.society', q.society) : b))
    .select('r.id', 'r.work_id', 'r.society', trx.raw(`EXISTS (SELECT 1 FROM work_registrations o WHERE o.work_id = r.work_id AND o.society = r.society
      AND o.id <> r.id AND o.status IN ('submitted','registered')) AS revision`))
    .orderBy('r.queued_at').orderBy('r.id').forUpdate();
  if (!regs.length) throw new ValidationError('No queued registrations to export', [q.society ? `no registration with ${q.society} is queued` : 'queue registrations first (POST /registrations/{id}/queue)'], 'NOTHING_TO_EXPORT');
  const from = await sender(trx, q.sender);
  const works = await cwrWorks(trx, regs.map((r: { work_id: string; revision: boolean }) => ({ work: r.work_id, type: r.revision ? 'REV' : 'NWR' })));
  const now = clock.now();
  const file = writeCwr({ version, sender: { type: 'PB', ipi: from.ipi, name: from.name }, createdAt: now, software, works });
  const societies = [...new Set(regs.map((r: { society: string }) => r.society))];
  const [{ n }] = (await trx.raw(`SELECT count(*)::int + 1 AS n FROM cwr_submissions WHERE created_at >= date_trunc('year', now())`)).rows;
  const filename = `CW${String(now.getUTCFullYear()).slice(2)}${String(n).padStart(4, '0')}${from.code.slice(-3)}_${societies.length === 1 ? societies[0] : '000'}.${version === '2.2' ? 'V22' : 'V21'}`;
  const [sub] = await trx('cwr_submissions').insert({
    tenant_id: trx.raw('app_tenant_id()'), version, filename, content: file.text, transaction_count: file.transactionCount, record_count: file.recordCount, created_by: auth.tenantUserId,
  }).returning('id');
  // Transaction numbers restart in each group (NWR first, then REV), in the order the writer keeps.
  const counters = { NWR: 0, REV: 0 };
  const seqs = works.map((w) => counters[w.transactionType]++);
  for (const [i, r] of regs.entries()) {
    await trx('work_registrations').where({ id: r.id }).update({
      status: 'submitted', transaction_type: works[i]!.transactionType, submission_id: sub.id, transaction_seq: seqs[i], submitted_at: now, updated_at: trx.fn.now(),
    });
  }
  return { filename, content: file.text, submission: sub.id as string, count: regs.length };
}

/**
 * Read a society's acknowledgement file: each ACK names the work by our work number
 * (submitter creation number); the submitted registration of that work with the sending
 * society (or, when the sender is not a known society, the only submitted one) becomes
 * registered (with the society's work number) or rejected (with the society's messages).
 */
export async function importAck(trx: Trx, auth: AuthContext, content: string) {
  let read;
  try {
    read = readCwr(content);
  } catch (err) {
    if (err instanceof CwrError) throw new ValidationError('Not a readable CWR acknowledgement file', [`body.content: ${err.message}`], 'INVALID_CWR');
    throw err;
  }
  if (!read.acks.length) throw new ValidationError('Not a CWR acknowledgement file', ['body.content has no ACK record'], 'INVALID_CWR');
  const society = read.header.senderType === 'SO' ? societyOfCisac(read.header.senderId!) : null;
  let registered = 0;
  let rejected = 0;
  let claims = 0;
  const unmatched: string[] = [];
  const now = clock.now();
  for (const ack of read.acks) {
    const candidates = await trx('work_registrations as r').join('works as w', 'w.id', 'r.work_id').where('r.status', 'submitted').where('w.code', ack.submitterWorkNumber.toUpperCase())
      .modify((b) => (society ? b.where('r.society', society) : b)).select('r.id', 'r.work_id', 'r.society');
    if (candidates.length !== 1) {
      unmatched.push(`${ack.submitterWorkNumber || '(no work number)'} ${ack.title}: ${candidates.length ? 'several submitted registrations match' : 'no submitted registration matches'}`);
      continue;
    }
    const reg = candidates[0];
    const ok = ACCEPTED.has(ack.status);
    await trx('work_registrations').where({ id: reg.id }).update({
      status: ok ? 'registered' : 'rejected', society_work_id: ack.societyWorkNumber || null, acknowledged_at: now, updated_at: trx.fn.now(),
      message: ack.messages.length ? ack.messages.join(' | ') : ok ? null : `Rejected by the society (status ${ack.status})`,
    });
    if (ok) registered++;
    else rejected++;
    if (ack.status === 'CO') {
      await trx('work_claims').insert({
        tenant_id: trx.raw('app_tenant_id()'), work_id: reg.work_id, registration_id: reg.id, claimant: read.header.senderName || reg.society, society: reg.society,
        right: 'all', status: 'open', note: ack.messages.join(' | ') || 'Conflicting claim reported in the acknowledgement', created_by: auth.tenantUserId,
      });
      claims++;
    }
  }
  return { message: `${registered + rejected} of ${read.acks.length} acknowledgements applied`, registered, rejected, claims, unmatched };
}

/** The CWR files written so far, newest first (without their content). */
export async function listSubmissions(trx: Trx, q: { page: number; size: number; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const base = whereSearch(trx('cwr_submissions').select('id', 'version', 'filename', 'transaction_count', 'record_count', 'created_at'), q.search, ['filename']);
  const { rows, total } = await pageOf(base, q, { cols: SUBMISSION_SORT, default: 'createdAt' });
  return {
    data: rows.map((r) => ({ id: r.id as string, version: r.version as string, filename: r.filename as string, transactionCount: r.transaction_count as number, recordCount: r.record_count as number, createdAt: iso(r.created_at) })),
    total,
  };
}

/** One kept CWR file, to download again. */
export async function getSubmission(trx: Trx, id: string) {
  const r = await trx('cwr_submissions').where({ id }).first('filename', 'content');
  if (!r) throw new NotFoundError('CWR file');
  return r as { filename: string; content: string };
}

/** The fields each publishing list sorts by (the names its items show) and their columns; see http/list-sort. */
import { sortColumns } from '../../http/list-sort';

export const CLAIM_SORT = sortColumns({ createdAt: 'created_at', updatedAt: 'updated_at', claimant: 'claimant', claimantIpi: 'claimant_ipi', society: 'society', right: 'right', share: 'share', status: 'status', work: 'work_id', registration: 'registration_id', note: 'note' });
export const REGISTRATION_SORT = sortColumns({
  createdAt: 'r.created_at', updatedAt: 'r.updated_at', workTitle: 'w.title', work: 'r.work_id', society: 'r.society', status: 'r.status', transactionType: 'r.transaction_type',
  submission: 'r.submission_id', transactionSeq: 'r.transaction_seq', societyWorkId: 'r.society_work_id', message: 'r.message', queuedAt: 'r.queued_at', submittedAt: 'r.submitted_at', acknowledgedAt: 'r.acknowledged_at',
});
export const SUBMISSION_SORT = sortColumns({ createdAt: 'created_at', version: 'version', filename: 'filename', transactionCount: 'transaction_count', recordCount: 'record_count' });
export const AGREEMENT_SORT = sortColumns({
  createdAt: 'created_at', updatedAt: 'updated_at', startDate: 'start_date', endDate: 'end_date', writerShare: 'writer_share', advance: 'advance', currency: 'currency',
  status: 'status', statusChangedAt: 'status_changed_at', writer: 'writer_id', publisher: 'publisher_id', territories: 'territories',
});
const PARTY_SORT = { code: 'code', ipi: 'ipi', society: 'society', controlled: 'controlled', user: 'tenant_user_id', createdAt: 'created_at', updatedAt: 'updated_at' };
export const WRITER_SORT = sortColumns({ lastName: 'last_name', firstName: 'first_name', ...PARTY_SORT });
export const PUBLISHER_SORT = sortColumns({ name: 'name', ...PARTY_SORT });
export const WORK_SORT = sortColumns({ title: 'title', code: 'code', iswc: 'iswc', language: 'language', duration: 'duration', createdAt: 'created_at', updatedAt: 'updated_at' });

/**
 * Extension points for the steps after ingestion (allocation, aggregation). The pipeline
 * ORDER lives in jobs/index.ts (PIPELINE_AFTER_INGEST); what must go when a file goes lives here.
 */
import type { Trx } from '../../db';

/**
 * Called inside the DELETE /file/{id} transaction (tenant-scoped, RLS on) with the ids of the
 * file and all its children, BEFORE their lines and rows are removed. Later steps push a
 * function here to remove what they derived (earnings, analytics rows…).
 */
export const FILE_DELETE_HOOKS: Array<(trx: Trx, tenantId: number, fileIds: string[]) => Promise<void>> = [];

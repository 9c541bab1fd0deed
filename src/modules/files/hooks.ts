/**
 * Extension points for the steps after ingestion (allocation, aggregation). The pipeline
 * ORDER lives in src/pipeline/registry.ts; what must go when a file goes lives here. Entries
 * are registered by the composition root (src/compose.ts, registerHooks), never on import.
 */
import type { Trx } from '../../db';

/**
 * Called inside the DELETE /file/{id} transaction (tenant-scoped, RLS on) with the ids of the
 * file and all its children, BEFORE their lines and rows are removed. Later steps push a
 * function here to remove what they derived (earnings, analytics rows…).
 */
export const FILE_DELETE_HOOKS: Array<(trx: Trx, tenantId: number, fileIds: string[]) => Promise<void>> = [];

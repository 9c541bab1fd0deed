/**
 * A statement file's processing as the reference service's clients read it: one payload,
 * built from the file's row (the row the workers write, which the server-sent events read
 * too), answered by `GET /file/processing/{jobId}` and sent as the Socket.io events
 * (progress-socket.ts). Rondo's own record stays `GET /file/{id}`.
 */
import type { FileStatus } from '../../pipeline/registry';

/** The reference's processing states: before the lines are read, while they are, and the two ends. */
export type ProcessingState = 'pending' | 'processing' | 'completed' | 'failed';

/** Statuses where the file's lines are being read, matched and summed (the "processing" of the reference). */
const PROCESSING: FileStatus[] = ['ingesting', 'allocating'];

export function processingState(status: FileStatus): ProcessingState {
  if (status === 'processed') return 'completed';
  if (status === 'failed') return 'failed';
  return PROCESSING.includes(status) ? 'processing' : 'pending';
}

/**
 * The whole processing's progress, 0–100, from the step's own: reading the lines is 0–89 (the
 * part of the file read), matching, allocating and the analytics rollups 90, done 100. A
 * failed file keeps where it stopped.
 */
export function overallProgress(status: FileStatus, stepProgress: number | null): number {
  const p = Math.max(0, Math.min(100, Number(stepProgress ?? 0)));
  switch (status) {
    case 'ingesting': return Math.min(89, Math.floor((p * 90) / 100));
    case 'allocating': return 90;
    case 'processed': return 100;
    case 'failed': return Math.min(99, Math.floor((p * 90) / 100));
    default: return 0;
  }
}

const MESSAGES: Record<ProcessingState, string> = {
  pending: 'Waiting to be read',
  processing: 'Reading the statement',
  completed: 'Statement processed',
  failed: 'Statement failed',
};

function isoDate(d: unknown): string | null {
  if (!d) return null;
  return d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10);
}

export interface ProcessingPayload {
  fileId: string;
  fileName: string;
  /** The reference's state; Rondo's own status is `fileStatus`. */
  status: ProcessingState;
  fileStatus: FileStatus;
  progress: number;
  message: string;
  error: string | null;
  metadata: {
    rowsProcessed: number;
    source: string | null;
    accountingPeriod: string | null;
    salePeriod: { start: string | null; end: string | null };
    processingTimeMs: number;
  };
}

/**
 * The payload of a file row (the `files` columns). `processingTimeMs`: from the upload to the
 * file's last change (its end, once processed or failed); `now` while it runs. `rowsProcessed`:
 * the lines stored (0 until the reading ends: the reading is one transaction).
 */
export function processingPayload(r: Record<string, any>, now: Date = new Date()): ProcessingPayload {
  const state = processingState(r.status);
  const end = state === 'completed' || state === 'failed' ? new Date(r.updated_at) : now;
  const failedMessage = r.error_message ? `Statement failed: ${String(r.error_message)}` : MESSAGES.failed;
  return {
    fileId: r.id,
    fileName: r.original_name,
    status: state,
    fileStatus: r.status,
    progress: overallProgress(r.status, r.progress),
    message: state === 'failed' ? failedMessage : r.status === 'needs_confirmation' ? 'Waiting for its source to be confirmed' : MESSAGES[state],
    error: state === 'failed' ? String(r.error_message ?? 'failed') : null,
    metadata: {
      rowsProcessed: Number(r.rows_ingested ?? 0),
      source: r.source_key ?? null,
      accountingPeriod: isoDate(r.accounting_period),
      salePeriod: { start: isoDate(r.sale_period_start), end: isoDate(r.sale_period_end) },
      processingTimeMs: Math.max(0, end.getTime() - new Date(r.created_at).getTime()),
    },
  };
}

/** The columns processingPayload reads. */
export const PAYLOAD_COLUMNS = [
  'id', 'original_name', 'status', 'progress', 'error_message', 'rows_ingested', 'source_key', 'accounting_period',
  'sale_period_start', 'sale_period_end', 'created_at', 'updated_at',
];

/** The event names of the reference's Socket.io progress events. */
export const PROGRESS_EVENTS = {
  started: 'file:processing:started',
  progress: 'file:processing:progress',
  completed: 'file:processing:completed',
  failed: 'file:processing:failed',
} as const;
export type ProgressEvent = (typeof PROGRESS_EVENTS)[keyof typeof PROGRESS_EVENTS];

/** What the watcher has sent of one file. */
export interface Followed {
  started: boolean;
  /** The last tenth of the progress sent (-1: none). */
  tenth: number;
  done: boolean;
}

/**
 * The events one new reading of a file's row sends, given what was sent before (`f`, updated
 * in place; undefined: nothing yet): `started` once the reading begins (also before
 * `completed` when the file ended between two readings), `progress` each time the whole
 * progress reaches a new tenth, then `completed` or `failed` once. A file read again after
 * its end is followed anew. Nothing while the file waits before its reading.
 */
export function nextEvents(f: Followed | undefined, p: ProcessingPayload): { followed: Followed; events: [ProgressEvent, ProcessingPayload][] } {
  const state = p.status;
  const followed = !f || (f.done && (state === 'pending' || state === 'processing')) ? { started: false, tenth: -1, done: false } : f;
  const events: [ProgressEvent, ProcessingPayload][] = [];
  if (followed.done) return { followed, events };
  const tenth = Math.floor(p.progress / 10);
  if (state === 'processing' || state === 'completed') {
    if (!followed.started) {
      followed.started = true;
      followed.tenth = state === 'completed' ? 0 : tenth;
      events.push([PROGRESS_EVENTS.started, { ...p, status: 'processing', progress: state === 'completed' ? 0 : p.progress, message: 'Processing started' }]);
    } else if (state === 'processing' && tenth > followed.tenth) {
      followed.tenth = tenth;
      events.push([PROGRESS_EVENTS.progress, p]);
    }
  }
  if (state === 'completed') events.push([PROGRESS_EVENTS.completed, p]);
  if (state === 'failed') events.push([PROGRESS_EVENTS.failed, p]);
  followed.done = state === 'completed' || state === 'failed';
  return { followed, events };
}

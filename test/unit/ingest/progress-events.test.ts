/**
 * The reference clients' progress events (src/modules/files/progress.ts): which events each
 * new reading of a file's row sends — `started` once, `progress` at each new tenth of the
 * whole processing, `completed` or `failed` once — and the progress of each pipeline step.
 */
import assert from 'node:assert/strict';
import { nextEvents, overallProgress, processingPayload, type Followed } from '../../../src/modules/files/progress';

const created = new Date('2026-11-28T10:00:00Z');
function row(status: string, progress: number, extra: Record<string, unknown> = {}) {
  return {
    id: 'f1', original_name: 'DistroKid_1.tsv', status, progress, error_message: null, rows_ingested: null, source_key: 'distrokid-2023',
    accounting_period: null, sale_period_start: '2023-04-01', sale_period_end: '2023-04-30', created_at: created, updated_at: new Date('2026-11-28T10:00:07Z'),
    ...extra,
  };
}

/** Reads the rows in order as the watcher does; the events sent, as [event, progress]. */
function play(rows: Record<string, unknown>[]): [string, number][] {
  let f: Followed | undefined;
  const out: [string, number][] = [];
  for (const r of rows) {
    const { followed, events } = nextEvents(f, processingPayload(r, new Date('2026-11-28T10:00:05Z')));
    f = followed;
    out.push(...events.map(([e, p]) => [e, p.progress] as [string, number]));
  }
  return out;
}

describe('progress events of the reference clients (pure)', () => {
  it('the whole progress from each step: reading 0–89, allocating (with the rollups) 90, done 100', () => {
    assert.deepEqual(
      [['uploaded', 0], ['needs_confirmation', 0], ['queued', 0], ['ingesting', 0], ['ingesting', 50], ['ingesting', 99], ['ingesting', 100], ['allocating', 100], ['processed', 100], ['failed', 40]]
        .map(([s, p]) => overallProgress(s as never, p as number)),
      [0, 0, 0, 0, 45, 89, 89, 90, 100, 36],
    );
  });

  it('started once, a progress event at each new tenth only, completed once; nothing while waiting', () => {
    const events = play([
      row('uploaded', 0), row('detecting', 0), row('needs_confirmation', 0), row('queued', 0),
      row('ingesting', 3), row('ingesting', 9), row('ingesting', 12), row('ingesting', 23), row('ingesting', 24), row('ingesting', 58),
      row('allocating', 100), row('processed', 100), row('processed', 100),
    ]);
    assert.deepEqual(events, [
      ['file:processing:started', 2],
      ['file:processing:progress', 10],
      ['file:processing:progress', 20],
      ['file:processing:progress', 52],
      ['file:processing:progress', 90],
      ['file:processing:completed', 100],
    ]);
  });

  it('a file that ended between two readings sends started then completed; a failure sends failed once', () => {
    assert.deepEqual(play([row('queued', 0), row('processed', 100)]), [['file:processing:started', 0], ['file:processing:completed', 100]]);
    assert.deepEqual(play([row('ingesting', 40), row('failed', 40, { error_message: 'unreadable' }), row('failed', 40)]), [['file:processing:started', 36], ['file:processing:failed', 36]]);
    assert.deepEqual(play([row('detecting', 0), row('failed', 0, { error_message: 'not a statement' })]), [['file:processing:failed', 0]]);
  });

  it('a file read again after its end is followed anew', () => {
    assert.deepEqual(play([row('ingesting', 0), row('processed', 100), row('queued', 0), row('ingesting', 50), row('processed', 100)]), [
      ['file:processing:started', 0], ['file:processing:completed', 100],
      ['file:processing:started', 45], ['file:processing:completed', 100],
    ]);
  });

  it('the payload: the reference fields, the failure in words, the time from the upload to the end', () => {
    const done = processingPayload(row('processed', 100, { rows_ingested: 12, accounting_period: '2023-05-01' }));
    assert.deepEqual(done, {
      fileId: 'f1', fileName: 'DistroKid_1.tsv', status: 'completed', fileStatus: 'processed', progress: 100, message: 'Statement processed', error: null,
      metadata: { rowsProcessed: 12, source: 'distrokid-2023', accountingPeriod: '2023-05-01', salePeriod: { start: '2023-04-01', end: '2023-04-30' }, processingTimeMs: 7000 },
    });
    const failed = processingPayload(row('failed', 10, { error_message: 'No line could be read' }));
    assert.deepEqual([failed.status, failed.error, failed.message], ['failed', 'No line could be read', 'Statement failed: No line could be read']);
    const running = processingPayload(row('ingesting', 10), new Date('2026-11-28T10:00:02Z'));
    assert.deepEqual([running.status, running.progress, running.metadata.processingTimeMs], ['processing', 9, 2000]);
  });
});

/**
 * The two streamed file answers: a file's rejected lines as CSV, and its progress as
 * server-sent events. Both write into a stream the route hands to the client; neither sees Koa.
 */
import type { Writable } from 'node:stream';
import type { AppServices } from '../../services';
import { withTenant } from '../../db';
import { getFileRow, publicFile, TERMINAL_STATUSES, type PublicFileRow } from './service';
import { csvCell } from '../../domain/csv';

/** The file exists in the workspace (404 otherwise); its row. */
export async function visibleFile(svc: AppServices, tenantId: number, id: string): Promise<PublicFileRow> {
  return withTenant(svc.db.app, tenantId, (trx) => getFileRow(trx, id));
}


/** Every rejected line as CSV (the export rule: a reason or raw line starting with = + - @ tab CR gets a leading '): keyset pages in short transactions, written with back-pressure. */
export async function streamErrors(svc: AppServices, tenantId: number, fileId: string, out: Writable): Promise<void> {
  try {
    out.write('line_no,reason,raw\n');
    let lastLine = -1, lastId = '0';
    for (;;) {
      const rows = await withTenant(svc.db.app, tenantId, (trx) =>
        trx('file_errors').where({ file_id: fileId }).whereRaw('(line_no, id) > (?, ?)', [lastLine, lastId]).orderBy([{ column: 'line_no' }, { column: 'id' }]).limit(5000).select('id', 'line_no', 'reason', 'raw'),
      );
      if (!rows.length) break;
      let buf = '';
      for (const r of rows) buf += `${r.line_no},${csvCell(r.reason)},${csvCell(r.raw)}\n`;
      if (!out.write(buf)) await new Promise((r) => out.once('drain', r));
      if (out.destroyed) return;
      lastLine = rows.at(-1)!.line_no;
      lastId = rows.at(-1)!.id;
    }
  } catch (err) {
    svc.log.error({ err }, 'errors CSV failed');
    out.destroy(err as Error);
    return;
  }
  out.end();
}

/** `progress` events on every change (keep-alive comments between), until the file ends, is deleted, or `closed()`. */
export async function streamFileEvents(svc: AppServices, tenantId: number, fileId: string, out: Writable, closed: () => boolean): Promise<void> {
  let last = '';
  const started = Date.now();
  let lastBeat = Date.now();
  try {
    while (!closed() && Date.now() - started < 6 * 3600_000) {
      const r = await withTenant(svc.db.app, tenantId, (trx) => trx('files').where({ id: fileId }).first());
      if (!r) {
        out.write(`event: deleted\ndata: {"id":"${fileId}"}\n\n`);
        break;
      }
      const f = publicFile(r);
      const payload = JSON.stringify({ id: f.id, status: f.status, progress: f.progress, counts: f.counts, totals: f.totals, error: f.error });
      if (payload !== last) {
        out.write(`event: progress\ndata: ${payload}\n\n`);
        last = payload;
        lastBeat = Date.now();
      } else if (Date.now() - lastBeat > 15_000) {
        out.write(`: keep-alive\n\n`);
        lastBeat = Date.now();
      }
      if (TERMINAL_STATUSES.includes(f.status)) {
        out.write(`event: end\ndata: ${JSON.stringify({ status: f.status })}\n\n`);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  } catch (err) {
    svc.log.warn({ err }, 'file events stream failed');
  } finally {
    out.end();
  }
}

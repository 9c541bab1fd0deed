/**
 * A statement file's row is read once per step: the upload request, each pipeline job
 * (decompress, detect, ingest, allocate) and a forced re-allocation read the `files` row of
 * their file once, and hand that row to what they call (docs/architecture.md, "Tables and
 * their owners"); an analytics read does not read it at all. Through the real HTTP stack and the
 * real workers: every statement of the app's and the owner's pools is heard (knex `query`
 * events), and told to the job it ran for (the queue's job hook) or to the request (its
 * request id). A read of the file's row is a statement that reads the `files` table (FROM or
 * JOIN it, beyond the table a write names) with the file's id bound, not to leave it out.
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { fixture, seedRates, waitFile } from '../ingest/helpers';
import { requestContext } from '../../src/lib/process-guard';
import type { Queue } from '../../jobs/queue';

/** Whether `sql` (with `bindings`) reads the row of the file `fileId`. */
export function readsFileRow(sql: string, bindings: readonly unknown[], fileId: string): boolean {
  const s = sql.replace(/"/g, '').replace(/\s+/g, ' ').toLowerCase();
  const rest = s.replace(/^(update files|insert into files|delete from files)\b/, '');
  if (!/\b(from|join) files\b/.test(rest)) return false;
  if (/\bnot (\w+\.)?id = /.test(rest)) return false; // the other files of the workspace (a duplicate, a quota)
  return bindings.some((b) => b === fileId || (Array.isArray(b) && b.includes(fileId)));
}

describe('a file\'s row is read once per step', function () {
  this.timeout(120_000);
  let app: TestApp;
  let t: TestTenant;
  let admin: string;
  const job = new AsyncLocalStorage<string>();
  const heard: { ctx: string; sql: string; bindings: unknown[] }[] = [];

  before(async () => {
    app = await startTestApp({ workers: true });
    t = await createTestTenant(app, 'Reads');
    admin = t.users.admin!.token;
    await seedRates(app, t.tenantId);
    const q = app.svc.queue as unknown as Queue;
    const inner = q.jobHook;
    q.jobHook = (name, run) => job.run(name, () => (inner ? inner(name, run) : run())); // around the metrics' own hook
    for (const k of [app.svc.db.app, app.svc.db.owner]) {
      k.on('query', (e: { sql: string; bindings?: unknown[] }) => {
        const ctx = job.getStore() ?? requestContext.getStore()?.requestId;
        if (ctx) heard.push({ ctx, sql: e.sql, bindings: e.bindings ?? [] });
      });
    }
  });
  after(async () => app?.close());

  /** Reads of the file's row per context (job name, or the request id given), among `ctxs`. */
  function reads(fileId: string, ctxs: string[]): Record<string, number> {
    const out = Object.fromEntries(ctxs.map((c) => [c, 0]));
    for (const h of heard) if (h.ctx in out && readsFileRow(h.sql, h.bindings, fileId)) out[h.ctx]!++;
    return out;
  }

  it('tells a read of the row from a write and from a read of the other files', () => {
    const id = '6f1c8a52-7d0e-4b8e-9a51-0c2f4e8b9d13';
    assert.equal(readsFileRow('select * from "files" where "tenant_id" = ? and "id" = ? limit ?', [1, id, 1], id), true);
    assert.equal(readsFileRow('SELECT 1 FROM royalty_lines l JOIN files f ON f.id = l.file_id WHERE l.file_id = ANY(?)', [[id]], id), true);
    assert.equal(readsFileRow('update "files" set "status" = ? where "tenant_id" = ? and "id" = ?', ['x', 1, id], id), false);
    assert.equal(readsFileRow('select "id" from "files" where "sha256" = ? and not "id" = ?', ['ab', id], id), false);
    assert.equal(readsFileRow('select * from "files" where "id" = ?', ['another'], id), false);
  });

  it('upload → decompress → detect → ingest → allocate → analytics: one read of the row per step; a forced re-allocation: one', async () => {
    const fd = new FormData();
    fd.append('file', new Blob([fixture('DistroKid_1683000000000_NovaLune.tsv')]), 'DistroKid_1683000000000_NovaLune.tsv');
    const up = await app.request('POST', '/file/royalty', { token: admin, raw: fd, headers: { 'x-request-id': 'upload' } });
    assert.equal(up.status, 201, up.text);
    const id: string = up.body.data.id;
    const done = await waitFile(app, admin, id);
    assert.equal(done.status, 'processed', JSON.stringify(done));
    const dsp = await app.request('GET', '/royalty/dsp', { token: admin, headers: { 'x-request-id': 'analytics' } });
    assert.equal(dsp.status, 200, dsp.text);
    assert.ok(dsp.body.data.rows.length > 0, 'the analytics read finds the file\'s lines');
    assert.deepEqual(reads(id, ['upload', 'file.decompress', 'file.detect', 'file.ingest', 'royalty.allocate', 'analytics']), {
      upload: 1, 'file.decompress': 1, 'file.detect': 1, 'file.ingest': 1, 'royalty.allocate': 1, analytics: 0,
    });

    // A forced re-run: the allocation checks every key group (allocateFile) and keeps the history.
    heard.length = 0;
    const again = await app.request('POST', `/royalty/files/${id}/allocate`, { token: admin, headers: { 'x-request-id': 'rerun' } });
    assert.equal(again.status, 200, again.text);
    assert.equal((await waitFile(app, admin, id)).status, 'processed');
    assert.deepEqual(reads(id, ['rerun', 'royalty.allocate']), { rerun: 1, 'royalty.allocate': 1 });
    const row = await app.svc.db.owner('files').where({ id }).first('allocation_path');
    assert.equal(row.allocation_path, 'checked');
  });
});

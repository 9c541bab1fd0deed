import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestApp } from '../helpers/app';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/statements');
export const fixture = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, name));

export async function upload(app: TestApp, token: string, fileName: string, data: Buffer | string, fields: Record<string, string> = {}, query = '') {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([typeof data === 'string' ? Buffer.from(data) : data]), fileName);
  return app.request('POST', `/file/royalty${query}`, { token, raw: fd });
}

export const TERMINAL = ['processed', 'failed', 'needs_confirmation'];

/** Polls GET /file/{id} until its status is one of `until` (bounded). */
export async function waitFile(app: TestApp, token: string, id: string, until: string[] = TERMINAL, timeoutMs = 30_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < end) {
    const r = await app.request('GET', `/file/${id}`, { token });
    if (r.status !== 200) throw new Error(`GET /file/${id} → ${r.status} ${r.text}`);
    last = r.body.data;
    if (until.includes(last.status)) return last;
    await new Promise((res) => setTimeout(res, 150));
  }
  throw new Error(`file ${id} still ${last?.status} after ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** Waits for an archive's children to all reach a terminal status. */
export async function waitChildren(app: TestApp, token: string, id: string, n: number, timeoutMs = 30_000): Promise<any[]> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const f = (await app.request('GET', `/file/${id}`, { token })).body.data;
    if (f.status === 'failed') throw new Error(`archive failed: ${f.error}`);
    if (f.children?.length === n && f.children.every((c: any) => TERMINAL.includes(c.status))) {
      return Promise.all(f.children.map(async (c: any) => (await app.request('GET', `/file/${c.id}`, { token })).body.data));
    }
    await new Promise((res) => setTimeout(res, 150));
  }
  throw new Error(`children of ${id} not done after ${timeoutMs} ms`);
}

/**
 * Since allocation follows ingest, a file whose currency has no rate for its months fails
 * (no guessing). Ingest tests care about ingestion, so their workspaces get a rate for the
 * fixtures' currencies for every month they use.
 */
export async function seedRates(app: TestApp, ...tenantIds: number[]): Promise<void> {
  for (const t of tenantIds) {
    await app.svc.db.owner.raw(
      `INSERT INTO fx_rates (tenant_id, currency, month, rate)
       SELECT ?, c, m::date, 1.1 FROM unnest(ARRAY['EUR','GBP','JPY','CAD','AUD','SEK','NOK','DKK','CHF','BRL','MXN','INR']) c,
              generate_series('2010-01-01'::date, '2030-12-01'::date, interval '1 month') m
       ON CONFLICT DO NOTHING`,
      [t],
    );
  }
}

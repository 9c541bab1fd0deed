/**
 * Fixtures for allocation tests: catalogue and splits written with SQL in a tenant
 * transaction (the triggers fire as they would for the catalogue routes), statements loaded
 * as a files row + royalty_lines (what ingest leaves behind), then the real pipeline job.
 */
import { withTenant, type Trx } from '../../src/db';
import type { TestApp } from '../helpers/app';

export interface LineIn {
  saleMonth?: string | null;
  dsp?: string | null;
  country?: string | null;
  isrc?: string | null;
  upc?: string | null;
  trackTitle?: string | null;
  artist?: string | null;
  releaseTitle?: string | null;
  saleType?: string | null;
  quantity?: string;
  net: string;
  currency: string;
  gross?: string | null;
  grossCurrency?: string | null;
  exchangeRate?: string | null;
  aggregator?: string | null;
}

export function tx<T>(app: TestApp, tenantId: number, fn: (trx: Trx) => Promise<T>): Promise<T> {
  return withTenant(app.svc.db.app, tenantId, fn);
}

export async function sleep(ms: number) {
  await new Promise((r) => setTimeout(r, ms));
}

export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export async function createArtist(app: TestApp, tenantId: number, name: string, members: string[] = []): Promise<string> {
  return tx(app, tenantId, async (trx) => {
    const [a] = await trx('artists').insert({ tenant_id: tenantId, name }).returning('id');
    for (const m of members) await trx('artist_users').insert({ tenant_id: tenantId, artist_id: a.id, tenant_user_id: m });
    return a.id;
  });
}

export async function createAsset(app: TestApp, tenantId: number, p: { title: string; isrc?: string | null; artistId?: string; displayArtist?: string }): Promise<string> {
  return tx(app, tenantId, async (trx) => {
    const [a] = await trx('assets')
      .insert({ tenant_id: tenantId, title: p.title, isrc: p.isrc ?? null, display_artist: p.displayArtist ?? null })
      .returning('id');
    if (p.artistId) await trx('asset_artists').insert({ tenant_id: tenantId, asset_id: a.id, artist_id: p.artistId, position: 0 });
    return a.id;
  });
}

export async function createProduct(app: TestApp, tenantId: number, p: { title: string; upc?: string | null; artistId?: string }): Promise<string> {
  return tx(app, tenantId, async (trx) => {
    const [a] = await trx('products').insert({ tenant_id: tenantId, title: p.title, upc: p.upc ?? null }).returning('id');
    if (p.artistId) await trx('product_artists').insert({ tenant_id: tenantId, product_id: a.id, artist_id: p.artistId, position: 0 });
    return a.id;
  });
}

export interface SplitIn {
  target: 'asset' | 'product' | 'artist';
  id: string;
  type?: string;
  validFrom?: string | null;
  validTo?: string | null;
  territories?: string[] | null;
  shares: Record<string, string>;
}

export async function createSplit(app: TestApp, tenantId: number, s: SplitIn): Promise<string> {
  return tx(app, tenantId, async (trx) => {
    const [row] = await trx('splits')
      .insert({
        tenant_id: tenantId,
        target: s.target,
        asset_id: s.target === 'asset' ? s.id : null,
        product_id: s.target === 'product' ? s.id : null,
        artist_id: s.target === 'artist' ? s.id : null,
        type: s.type ?? 'all',
        valid_from: s.validFrom ?? null,
        valid_to: s.validTo ?? null,
        territories: s.territories ?? null,
      })
      .returning('id');
    for (const [u, share] of Object.entries(s.shares)) await trx('split_shares').insert({ tenant_id: tenantId, split_id: row.id, tenant_user_id: u, share });
    return row.id;
  });
}

export async function setShares(app: TestApp, tenantId: number, splitId: string, shares: Record<string, string>): Promise<void> {
  await tx(app, tenantId, async (trx) => {
    await trx('split_shares').where({ split_id: splitId }).delete();
    for (const [u, share] of Object.entries(shares)) await trx('split_shares').insert({ tenant_id: tenantId, split_id: splitId, tenant_user_id: u, share });
  });
}

let fileSeq = 0;
/** A statement as ingest leaves it (files row `allocating` + lines), then the allocate job; resolves at processed/failed. */
export async function loadStatement(
  app: TestApp,
  tenantId: number,
  p: { name?: string; salePeriodStart?: string; salePeriodEnd?: string; lines: LineIn[]; uploadedBy?: string | null; wait?: boolean },
): Promise<string> {
  const fileId = await tx(app, tenantId, async (trx) => {
    const [f] = await trx('files')
      .insert({
        tenant_id: tenantId,
        original_name: p.name ?? `statement-${++fileSeq}.csv`,
        status: 'allocating',
        sale_period_start: p.salePeriodStart ?? null,
        sale_period_end: p.salePeriodEnd ?? null,
        rows_ingested: p.lines.length,
        uploaded_by: p.uploadedBy ?? null,
      })
      .returning('id');
    const rows = p.lines.map((l, i) => ({
      tenant_id: tenantId,
      file_id: f.id,
      line_no: i + 2,
      sale_month: l.saleMonth ?? null,
      dsp: l.dsp ?? null,
      country: l.country ?? null,
      isrc: l.isrc ?? null,
      upc: l.upc ?? null,
      track_title: l.trackTitle ?? null,
      artist: l.artist ?? null,
      release_title: l.releaseTitle ?? null,
      sale_type: l.saleType ?? null,
      quantity: l.quantity ?? '0',
      gross: l.gross ?? null,
      gross_currency: l.grossCurrency ?? null,
      net: l.net,
      currency: l.currency,
      exchange_rate: l.exchangeRate ?? null,
      aggregator: l.aggregator ?? null,
    }));
    for (let i = 0; i < rows.length; i += 1000) await trx('royalty_lines').insert(rows.slice(i, i + 1000));
    await app.svc.queue.send('royalty.allocate', { tenantId, fileId: f.id }, { trx });
    return f.id as string;
  });
  if (p.wait !== false) await waitForFile(app, tenantId, fileId);
  return fileId;
}

export async function fileRow(app: TestApp, tenantId: number, fileId: string) {
  return tx(app, tenantId, (trx) => trx('files').where({ id: fileId }).first());
}

export async function waitForFile(app: TestApp, tenantId: number, fileId: string): Promise<Record<string, any>> {
  return waitFor(`file ${fileId}`, async () => {
    const f = await fileRow(app, tenantId, fileId);
    return f && ['processed', 'failed'].includes(f.status) ? f : null;
  });
}

/** Waits until no change marks are pending and no reallocate job is queued or running. */
export async function waitForReallocation(app: TestApp, tenantId: number): Promise<void> {
  await waitFor('re-allocation', async () => {
    const { rows } = await app.svc.db.owner.raw(
      `SELECT (SELECT count(*) FROM allocation_dirty WHERE tenant_id = ?)::int AS marks,
              (SELECT count(*) FROM pgboss.job WHERE name = 'royalty.reallocate' AND state IN ('created', 'retry', 'active'))::int AS jobs,
              (SELECT count(*) FROM pgboss.job WHERE name = 'royalty.reallocate' AND state = 'failed')::int AS failed`,
      [tenantId],
    );
    if (rows[0].failed) throw new Error('a royalty.reallocate job failed');
    return rows[0].marks === 0 && rows[0].jobs === 0;
  });
}

/** A payee's analytics figure straight from the lines: Σ base amount × share of the lines they earn from now (exact, shares applied at read). */
export async function exactEarnings(app: TestApp, tenantId: number, payee: string): Promise<string> {
  const { rows } = await tx(app, tenantId, (trx) =>
    trx.raw(
      `SELECT coalesce(trim_scale(sum(l.base_amount * s.share * 0.01)), 0)::text AS s FROM royalty_lines l
         JOIN royalty_share_sets s ON s.tenant_id = l.tenant_id AND s.share_set_id = l.share_set_id WHERE s.tenant_user_id = ?`,
      [payee],
    ),
  );
  return rows[0].s;
}

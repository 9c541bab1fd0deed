/**
 * Rollups (migration 20261123300200): per-file tables are rebuilt whole for a file; the
 * compact tables (no file) are kept by subtracting the file's old per-file rows and adding
 * its new ones (INSERT … ON CONFLICT DO UPDATE), so a file costs work proportional to its own
 * groups, never a rebuild of the workspace. Rows that fall to zero lines are removed.
 *
 * Workspace rows (payee = ZERO_UUID) sum every line's base amount, matched or not; payee
 * rows sum that member's current earnings (revenue) and the quantity / count of the lines
 * they earn from.
 */
import type { Trx } from '../../db';
import { ZERO_UUID } from './allocate';

const BASE = ['payee', 'sale_month', 'accounting_period', 'ap_end'];
const FILE_TABLES = {
  royalty_agg_file_dims: ['dsp', 'country', 'sale_type', 'aggregator'],
  royalty_agg_file_catalogue: ['artist_id', 'product_id', 'asset_id'],
} as const;
/** compact table → [per-file source, its own columns, dated (carries sale month + accounting period)] */
const COMPACT: [string, keyof typeof FILE_TABLES, readonly string[], boolean][] = [
  ['royalty_agg_period', 'royalty_agg_file_dims', [], true],
  ['royalty_agg_dims', 'royalty_agg_file_dims', FILE_TABLES.royalty_agg_file_dims, true],
  ['royalty_agg_catalogue', 'royalty_agg_file_catalogue', FILE_TABLES.royalty_agg_file_catalogue, true],
  ['royalty_agg_dims_all', 'royalty_agg_file_dims', FILE_TABLES.royalty_agg_file_dims, false],
  ['royalty_agg_catalogue_all', 'royalty_agg_file_catalogue', FILE_TABLES.royalty_agg_file_catalogue, false],
];

async function moveCompact(trx: Trx, tenantId: number, fileId: string, sign: 1 | -1): Promise<void> {
  for (const [table, source, cols, dated] of COMPACT) {
    const key = [...(dated ? BASE : ['payee']), ...cols];
    await trx.raw(
      `INSERT INTO ${table} (tenant_id, ${key.join(', ')}, revenue, quantity, lines)
       SELECT tenant_id, ${key.join(', ')}, ${sign} * sum(revenue), ${sign} * sum(quantity), ${sign} * sum(lines)
         FROM ${source} WHERE tenant_id = ? AND file_id = ?
        GROUP BY tenant_id, ${key.join(', ')}
        ORDER BY ${key.join(', ')}
       ON CONFLICT (tenant_id, ${key.join(', ')}) DO UPDATE SET
         revenue = ${table}.revenue + excluded.revenue,
         quantity = ${table}.quantity + excluded.quantity,
         lines = ${table}.lines + excluded.lines`,
      [tenantId, fileId],
    );
    if (sign === -1) await trx.raw(`DELETE FROM ${table} WHERE tenant_id = ? AND lines = 0`, [tenantId]);
  }
}

/** Remove a file's contribution from every rollup. */
export async function removeFileRollups(trx: Trx, tenantId: number, fileId: string): Promise<void> {
  await moveCompact(trx, tenantId, fileId, -1);
  for (const t of Object.keys(FILE_TABLES)) await trx.raw(`DELETE FROM ${t} WHERE tenant_id = ? AND file_id = ?`, [tenantId, fileId]);
}

/** (Re)build a file's rollups from its lines and current earnings. */
export async function aggregateFile(trx: Trx, tenantId: number, fileId: string): Promise<void> {
  await removeFileRollups(trx, tenantId, fileId);
  const { rows } = await trx.raw(
    `SELECT to_char(f.accounting_period, 'YYYY-MM-DD') AS accounting_period,
            to_char(f.accounting_period + make_interval(months => CASE t.accounting_cadence WHEN 'quarterly' THEN 3 WHEN 'half-yearly' THEN 6 ELSE 1 END) - interval '1 day', 'YYYY-MM-DD') AS ap_end
       FROM files f JOIN tenants t ON t.id = f.tenant_id WHERE f.tenant_id = ? AND f.id = ?`,
    [tenantId, fileId],
  );
  if (!rows.length) return;
  const { accounting_period: ap, ap_end: apEnd } = rows[0];
  for (const [table, cols] of Object.entries(FILE_TABLES)) {
    const dims = cols.map((c) => `l.${c}`).join(', ');
    await trx.raw(
      `INSERT INTO ${table} (tenant_id, payee, sale_month, accounting_period, ap_end, file_id, ${cols.join(', ')}, revenue, quantity, lines)
       SELECT ?::int, ?::uuid, l.sale_month, ?::date, ?::date, ?::uuid, ${dims}, sum(l.base_amount), sum(l.quantity), count(*)
         FROM royalty_lines l WHERE l.tenant_id = ? AND l.file_id = ? AND l.base_amount IS NOT NULL
        GROUP BY l.sale_month, ${dims}
       UNION ALL
       SELECT ?::int, e.tenant_user_id, l.sale_month, ?::date, ?::date, ?::uuid, ${dims}, sum(e.amount), sum(l.quantity), count(*)
         FROM royalty_earnings e JOIN royalty_lines l ON l.tenant_id = e.tenant_id AND l.file_id = e.file_id AND l.line_no = e.line_id
        WHERE e.tenant_id = ? AND e.file_id = ? AND e.superseded_at IS NULL
        GROUP BY e.tenant_user_id, l.sale_month, ${dims}`,
      [tenantId, ZERO_UUID, ap, apEnd, fileId, tenantId, fileId, tenantId, ap, apEnd, fileId, tenantId, fileId],
    );
  }
  await moveCompact(trx, tenantId, fileId, 1);
}

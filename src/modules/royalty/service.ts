/**
 * Royalty services behind the checklist, matching and allocation routes (no Koa here).
 */
import { likeText, orderSql, resolveSort, sortColumns, sortedPage, sortExpr, whereSearch } from '../../http/list-sort';
import Decimal from 'decimal.js';
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import type { AppServices } from '../../services';
import { normaliseIsrc, normaliseUpc } from '../catalogue/identifiers';
import { rowView } from '../../lib/row-view';
import { fileRow, updateFile } from '../../repositories/files';
import { existingIds } from '../../repositories/catalogue';

interface Page {
  page?: number;
  size?: number;
  search?: string;
}
function paging(q: Page) {
  const page = q.page ?? 1;
  const size = q.size ?? 20;
  return { page, size, offset: (page - 1) * size };
}
const dec = (v: unknown) => (v == null ? '0' : new Decimal(String(v)).toFixed());

/** Lines of processed recording-income files (publishing income has its own lists: /publishing/income/unmatched). */
const PROCESSED = `l.file_id IN (SELECT f.id FROM files f WHERE f.tenant_id = l.tenant_id AND f.status = 'processed' AND f.income = 'recording')`;

/** `search` over a group's code (ISRC/UPC as written), title and artist: an SQL condition and its bindings. */
function groupSearch(ident: string, title: string, search: string | undefined): [string, string[]] {
  const s = search?.trim();
  if (!s) return ['TRUE', []];
  const like = `%${s.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
  return [`(coalesce(l.${ident}, l.${ident}_raw) ILIKE ? OR l.${title} ILIKE ? OR l.artist ILIKE ?)`, [like, like, like]];
}

/**
 * The fields the statement-side checklists sort by, over their groups (`g`): by default the
 * largest amount first, ties by code, title and artist. Every sort groups the unmatched lines
 * first, so each costs the same as the default.
 */
const GROUP_SORT = { title: 'g.title', artist: 'g.artist', lines: 'g.lines', amount: 'g.amount', quantity: 'g.quantity', files: 'g.files' } as const;
export const UNMATCHED_ASSET_SORT = sortColumns({ isrc: 'g.isrc', ...GROUP_SORT });
export const UNMATCHED_PRODUCT_SORT = sortColumns({ upc: 'g.upc', ...GROUP_SORT });
/** missingroyaltysplits' statement lines (beside the catalogue items its `sort` orders): always the largest amount first. */
const MISSING_SPLIT_LINES_SORT = sortColumns({ amount: 'g.amount' });

type Sorted = Page & { sort?: string; order?: 'asc' | 'desc' };

/** GET /checklist/royaltyassets | royaltyproducts: the recordings (products) statements name that the catalogue lacks. */
export async function unmatchedChecklist(trx: Trx, tenantId: number, kind: 'asset' | 'product', q: Sorted) {
  const { page, size } = paging(q);
  const [col, ident, title] = kind === 'asset' ? ['asset_id', 'isrc', 'track_title'] : ['product_id', 'upc', 'release_title'];
  const [found, binds] = groupSearch(ident, title, q.search);
  const groups = trx.raw(
    `(SELECT coalesce(l.${ident}, l.${ident}_raw) AS ${ident}, l.${title} AS title, l.artist,
             count(*)::int AS lines, sum(l.base_amount) AS amount, sum(l.quantity) AS quantity,
             count(DISTINCT l.file_id)::int AS files
        FROM royalty_lines l
       WHERE l.tenant_id = ? AND l.${col} IS NULL AND ${PROCESSED} AND ${found}
       GROUP BY 1, 2, 3) AS g`,
    [tenantId, ...binds],
  );
  const { rows, total } = await sortedPage(trx.queryBuilder().from(groups).select('g.*'), { ...q, page, size },
    kind === 'asset' ? UNMATCHED_ASSET_SORT : UNMATCHED_PRODUCT_SORT, 'amount', [`g.${ident}`, 'g.title', 'g.artist'], 'desc', 'asc', { oneScan: true });
  return {
    data: rows.map((r: Record<string, unknown>) => ({
      [ident]: r[ident] ?? null,
      title: r.title ?? null,
      artist: r.artist ?? null,
      lines: r.lines,
      amount: dec(r.amount),
      quantity: dec(r.quantity),
      files: r.files,
    })),
    pagination: { page, size, total },
  };
}

/** GET /checklist/missingroyaltysplits: the matched lines no split pays, by recording and product (`statementLines`). */
export async function missingSplitsChecklist(trx: Trx, tenantId: number, q: Page) {
  const { page, size } = paging(q);
  const groups = trx.raw(
    `(SELECT l.asset_id, l.product_id, a.title AS asset_title, a.isrc, p.title AS product_title, p.upc,
             count(*)::int AS lines, sum(l.base_amount) AS amount
        FROM royalty_lines l
        LEFT JOIN assets a ON a.tenant_id = l.tenant_id AND a.id = l.asset_id
        LEFT JOIN products p ON p.tenant_id = l.tenant_id AND p.id = l.product_id
       WHERE l.tenant_id = ? AND (l.asset_id IS NOT NULL OR l.product_id IS NOT NULL) AND ${PROCESSED}
         AND l.share_set_id IS NULL
       GROUP BY l.asset_id, l.product_id, a.title, a.isrc, p.title, p.upc) AS g`,
    [tenantId],
  );
  const base = trx.queryBuilder().from(groups).select('g.*');
  whereSearch(base, q.search, ['g.asset_title', 'g.isrc', 'g.product_title', 'g.upc']);
  const { rows, total } = await sortedPage(base, { page, size }, MISSING_SPLIT_LINES_SORT, 'amount', ['g.asset_title', 'g.product_title', 'g.asset_id', 'g.product_id'], 'desc', 'asc');
  return {
    data: rows.map((r: Record<string, unknown>) => ({
      assetId: r.asset_id,
      assetTitle: r.asset_title,
      isrc: r.isrc,
      productId: r.product_id,
      productTitle: r.product_title,
      upc: r.upc,
      lines: r.lines,
      amount: dec(r.amount),
    })),
    pagination: { page, size, total },
  };
}

/** The fields the match suggestion list sorts by and their columns (http/list-sort). */
export const SUGGESTION_SORT = sortColumns({ createdAt: 's.created_at', score: 's.score', kind: 's.kind', status: 's.status', reason: 's.reason' });

export async function listSuggestions(trx: Trx, tenantId: number, q: Page & { status?: string; kind?: string; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  const { page, size, offset } = paging(q);
  const sort = resolveSort(q, SUGGESTION_SORT, 'createdAt');
  const search = q.search?.trim() ? likeText(q.search) : null;
  const { rows } = await trx.raw(
    `SELECT s.*, a.title AS asset_title, a.isrc AS asset_isrc, p.title AS product_title, p.upc AS product_upc,
            count(*) OVER ()::int AS total_rows
       FROM match_suggestions s
       LEFT JOIN assets a ON a.tenant_id = s.tenant_id AND a.id = s.asset_id
       LEFT JOIN products p ON p.tenant_id = s.tenant_id AND p.id = s.product_id
      WHERE s.tenant_id = ? AND s.status = ? ${q.kind ? 'AND s.kind = ?' : ''}
            ${search ? 'AND (s.title ILIKE ? OR s.isrc ILIKE ? OR s.upc ILIKE ? OR s.artist ILIKE ?)' : ''}
      ORDER BY ${orderSql(sort)}, s.score DESC, s.id
      LIMIT ? OFFSET ?`,
    [tenantId, q.status ?? 'open', ...(q.kind ? [q.kind] : []), ...(search ? [search, search, search, search] : []), size, offset],
  );
  return {
    data: rows.map((r: Record<string, any>) => ({
      id: r.id,
      kind: r.kind,
      statement: { isrc: r.isrc, upc: r.upc, title: r.title, artist: r.artist },
      candidate:
        r.kind === 'asset'
          ? { assetId: r.asset_id, title: r.asset_title, isrc: r.asset_isrc }
          : { productId: r.product_id, title: r.product_title, upc: r.product_upc },
      score: new Decimal(r.score).toFixed(),
      reason: r.reason,
      status: r.status,
      createdAt: new Date(r.created_at).toISOString(),
    })),
    pagination: { page, size, total: rows[0]?.total_rows ?? 0 },
  };
}

/** Accept (→ a saved rule; the re-allocation job re-matches the lines) or reject a suggestion. */
export async function decideSuggestion(trx: Trx, tenantId: number, id: string, decision: 'accepted' | 'rejected', by: string | null, dspOnly?: string) {
  const s = await trx('match_suggestions').where({ id }).forUpdate().first();
  if (!s) throw new NotFoundError('Suggestion');
  if (s.status !== 'open') throw new ConflictError(`Suggestion already ${s.status}`, [], 'SUGGESTION_DECIDED');
  let ruleId: string | null = null;
  if (decision === 'accepted') {
    const ident = s.kind === 'asset' ? s.isrc : s.upc;
    const { rows } = await trx.raw(
      `INSERT INTO matching_rules (tenant_id, kind, dsp_norm, isrc, upc, title_norm, artist_norm, asset_id, product_id, note, created_by)
       VALUES (?, ?, rondo_norm(?), ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        tenantId,
        s.kind,
        dspOnly ?? null,
        s.kind === 'asset' ? s.isrc : null,
        s.kind === 'product' ? s.upc : null,
        ident ? null : s.title_norm,
        ident ? null : s.artist_norm,
        s.asset_id,
        s.product_id,
        `accepted suggestion ${s.id}`,
        by,
      ],
    );
    ruleId = rows[0]?.id ?? null;
    // Other candidates for the same statement key are settled by this choice.
    await trx.raw(
      `UPDATE match_suggestions SET status = 'rejected', decided_by = ?, decided_at = ?
        WHERE tenant_id = ? AND kind = ? AND status = 'open' AND id <> ?
          AND coalesce(isrc, '') = coalesce(?, '') AND coalesce(upc, '') = coalesce(?, '')
          AND coalesce(title_norm, '') = coalesce(?, '') AND coalesce(artist_norm, '') = coalesce(?, '')`,
      [by, clock.now(), tenantId, s.kind, s.id, s.isrc, s.upc, s.title_norm, s.artist_norm],
    );
  }
  await trx('match_suggestions').where({ id }).update({ status: decision, decided_by: by, decided_at: clock.now() });
  return { suggestionId: id, status: decision, ruleId };
}

function ruleView(r: Record<string, any>) {
  return rowView(r, ['id', 'kind', ['dsp', 'dsp_norm'], 'isrc', 'upc', ['title', 'title_norm'], ['artist', 'artist_norm'], 'asset_id', 'product_id', ['store', 'store_norm'], 'dsp_target', 'note', 'created_at']);
}

export async function listRules(trx: Trx) {
  const rows = await trx('matching_rules').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id' }]);
  return rows.map(ruleView);
}

export async function createRule(
  trx: Trx,
  tenantId: number,
  b: { kind: 'asset' | 'product' | 'dsp'; isrc?: string; upc?: string; title?: string; artist?: string; dsp?: string; store?: string; assetId?: string; productId?: string; note?: string },
  by: string | null,
) {
  let isrc: string | null = null;
  let upc: string | null = null;
  if (b.kind === 'asset') {
    if (!b.assetId) throw new ValidationError('assetId is required for an asset rule', ['body.assetId: required']);
    if (!b.isrc && !b.title) throw new ValidationError('An asset rule needs an isrc or a title', ['body: isrc or title required']);
    if (!(await existingIds(trx, 'assets', [b.assetId])).length) throw new NotFoundError('Asset');
    if (b.isrc && !(isrc = normaliseIsrc(b.isrc))) throw new ValidationError(`ISRC "${b.isrc}" is not valid`, ['body.isrc']);
  } else if (b.kind === 'product') {
    if (!b.productId) throw new ValidationError('productId is required for a product rule', ['body.productId: required']);
    if (!b.upc && !b.title) throw new ValidationError('A product rule needs a upc or a title', ['body: upc or title required']);
    if (!(await existingIds(trx, 'products', [b.productId])).length) throw new NotFoundError('Product');
    if (b.upc && !(upc = normaliseUpc(b.upc))) throw new ValidationError(`UPC "${b.upc}" is not valid`, ['body.upc']);
  } else if (!b.store || !b.dsp) {
    throw new ValidationError('A dsp rule needs store (as statements write it) and dsp (the name to use)', ['body.store, body.dsp: required']);
  }
  const { rows } = await trx.raw(
    `INSERT INTO matching_rules (tenant_id, kind, dsp_norm, isrc, upc, title_norm, artist_norm, asset_id, product_id, store_norm, dsp_target, note, created_by)
     VALUES (?, ?, ${b.kind === 'dsp' ? 'NULL' : 'rondo_norm(?)'}, ?, ?, ${isrc || upc ? 'NULL' : 'rondo_norm(?)'}, ${isrc || upc ? 'NULL' : 'rondo_norm(?)'}, ?, ?, rondo_norm(?), ?, ?, ?)
     ON CONFLICT DO NOTHING RETURNING *`,
    ([
      tenantId,
      b.kind,
      ...(b.kind === 'dsp' ? [] : [b.dsp ?? null]),
      isrc,
      upc,
      ...(isrc || upc ? [] : [b.title ?? null, b.artist ?? null]),
      b.kind === 'asset' ? b.assetId : null,
      b.kind === 'product' ? b.productId : null,
      b.kind === 'dsp' ? b.store : null,
      b.kind === 'dsp' ? b.dsp : null,
      b.note ?? null,
      by,
    ] as any[]),
  );
  if (!rows.length) throw new ConflictError('An equal rule exists', [], 'RULE_EXISTS');
  return ruleView(rows[0]);
}

export async function deleteRule(trx: Trx, id: string): Promise<void> {
  const n = await trx('matching_rules').where({ id }).delete();
  if (!n) throw new NotFoundError('Matching rule');
}

/** The fields the allocation history sorts by; by default a file's lines in order, each line's rows oldest first. */
export const ALLOCATION_HISTORY_SORT = sortColumns({
  lineId: 'e.line_id', id: 'e.id', fileId: 'e.file_id', tenantUserId: 'e.tenant_user_id', splitId: 'e.split_id', share: 'e.share', amount: 'e.amount',
  currency: 'e.currency', createdAt: 'e.created_at', supersededAt: 'e.superseded_at', current: sortExpr('(e.superseded_at IS NULL)'),
});

export async function allocationHistory(trx: Trx, payee: string | null, q: Page & { lineId?: number; fileId?: string; search?: string; sort?: string; order?: 'asc' | 'desc' }) {
  if (!q.fileId) throw new ValidationError('Give fileId (and optionally lineId: the line number in that file)', ['query.fileId: required']);
  const { page, size, offset } = paging(q);
  const b = trx('royalty_earnings as e')
    .modify((x) => {
      if (q.lineId) x.where('e.line_id', q.lineId);
      if (q.fileId) x.where('e.file_id', q.fileId);
      if (payee) x.where('e.tenant_user_id', payee);
      if (q.search?.trim()) {
        // the payee's e-mail or name
        const like = likeText(q.search);
        x.whereExists(trx('tenant_users as tu').join('users as u', 'u.id', 'tu.user_id').whereRaw('tu.id = e.tenant_user_id').where((w) => w.whereILike('u.email', like).orWhereILike('u.first_name', like).orWhereILike('u.last_name', like)));
      }
    });
  const sort = resolveSort(q, ALLOCATION_HISTORY_SORT, 'lineId');
  const [{ n }] = await b.clone().count({ n: '*' });
  const rows = await b
    .clone()
    .orderByRaw(orderSql(sort))
    .orderBy([{ column: 'e.created_at' }, { column: 'e.id' }])
    .limit(size)
    .offset(offset)
    .select('e.*');
  return {
    data: rows.map((r: Record<string, any>) => ({
      id: String(r.id),
      lineId: String(r.line_id),
      fileId: r.file_id,
      tenantUserId: r.tenant_user_id,
      splitId: r.split_id,
      share: new Decimal(r.share).toFixed(),
      amount: new Decimal(r.amount).toFixed(),
      currency: String(r.currency).trim(),
      createdAt: new Date(r.created_at).toISOString(),
      supersededAt: r.superseded_at ? new Date(r.superseded_at).toISOString() : null,
      current: !r.superseded_at,
    })),
    pagination: { page, size, total: Number(n) },
  };
}

export async function releaseTargets(trx: Trx, releaseId: string): Promise<{ productId: string | null; assetIds: string[] }> {
  const rel = await trx('releases').where({ id: releaseId }).first('product_id');
  if (!rel) throw new NotFoundError('Release');
  const tracks = await trx('tracks').where({ release_id: releaseId }).whereNotNull('asset_id').select('asset_id');
  return { productId: rel.product_id, assetIds: tracks.map((t: { asset_id: string }) => t.asset_id) };
}

export async function requeueFile(trx: Trx, svc: AppServices, tenantId: number, fileId: string): Promise<void> {
  const f = await fileRow(trx, tenantId, fileId, ['status']);
  if (!f) throw new NotFoundError('File');
  if (!['processed', 'failed'].includes(f.status)) throw new ConflictError(`The file is ${f.status}; it is allocated when its processing reaches that step`, [], 'FILE_BUSY');
  // The file shows its new run at once (not the old result until a worker takes the job), so
  // whoever waits for it to settle waits for this run.
  await updateFile(trx, tenantId, fileId, { status: 'allocating', progress: 0, error_message: null, updated_at: clock.now() });
  await svc.queue.send('royalty.allocate', { tenantId, fileId, force: true }, { trx });
}

/** Most recordings one POST /checklist/royaltyassets/import creates (the bulk routes' limit). */
export const IMPORT_LIMIT = 10_000;

/**
 * POST /checklist/royaltyassets/import: a recording for each ISRC that statements name and
 * the catalogue lacks (all of them, or the `isrcs` given), titled and credited as the
 * statement line with the largest amount writes it (the artist found by name, else created).
 * Each in its own savepoint; a line without a valid ISRC cannot be matched by one and is not
 * imported. Creating the recordings marks their lines for re-matching (the allocation's
 * triggers), so the lines are matched and allocated shortly after.
 */
export async function importMissingAssets(
  trx: Trx, tenantId: number,
  create: (sp: Trx, a: { title: string; isrc: string; artists?: string[] }) => Promise<{ id: string; title: string; isrc: string | null }>,
  isrcs?: string[],
) {
  const wanted = isrcs?.map((raw) => ({ raw, isrc: normaliseIsrc(raw) }));
  const errors = (wanted ?? []).filter((w) => !w.isrc).map((w) => `isrcs: "${w.raw}" is not an ISRC`);
  const { rows } = await trx.raw(
    `SELECT DISTINCT ON (l.isrc) l.isrc, l.track_title AS title, l.artist
       FROM royalty_lines l
      WHERE l.tenant_id = ? AND l.asset_id IS NULL AND l.isrc IS NOT NULL AND ${PROCESSED}
        ${wanted ? 'AND l.isrc = ANY (?)' : ''}
      GROUP BY l.isrc, l.track_title, l.artist
      ORDER BY l.isrc, sum(l.base_amount) DESC NULLS LAST, l.track_title, l.artist
      LIMIT ?`,
    [tenantId, ...(wanted ? [wanted.map((w) => w.isrc).filter((x): x is string => !!x)] : []), IMPORT_LIMIT] as (string | number | string[])[],
  );
  const found = new Set(rows.map((r: { isrc: string }) => r.isrc));
  for (const w of wanted ?? []) if (w.isrc && !found.has(w.isrc)) errors.push(`isrcs: ${w.raw} is not a recording missing from the catalogue`);
  const created: { id: string; title: string; isrc: string | null }[] = [];
  for (const r of rows as { isrc: string; title: string | null; artist: string | null }[]) {
    try {
      created.push(await trx.transaction((sp) => create(sp, { title: r.title?.trim() || r.isrc, isrc: r.isrc, ...(r.artist?.trim() ? { artists: [r.artist.trim()] } : {}) })));
    } catch (err) {
      errors.push(`${r.isrc}: ${(err as Error).message}`);
    }
  }
  return { created, errors };
}

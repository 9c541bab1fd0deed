import type Router from '@koa/router';
import { sortQuery } from '../../http/list-sort';
import { IdParams } from '../../http/crud';
import { defineRoutes, route, type RouteDef } from '../../http/route';
import { IdInt, MonthOrDateIn, OpenObject, Pagination, StatusAnswer, Strict, Type, Uuid, PageQuery } from '../../http/schema';
import type { AppServices } from '../../services';
import { analyticsEngineOf } from './analytics-engine';
import { ANALYTICS_SORTS, DEFAULT_PAGE_SIZE, type GroupBy } from './analytics';
import * as svcMatch from './service';
import { payeeOf, releaseAnalytics, royaltyChecklist } from './views';
import { breakdownColumns, breakdownRows } from './exports';
import { ReferenceAnalyticsQuery, referenceAnalytics } from './reference';
import { createAsset } from '../catalogue/operations';
import { CHECKLIST_SORT } from '../catalogue/sorts';
import * as Res from './responses';
import './pipeline'; // registers the file-delete hook

/** Largest analytics page (rows per answer). */
const MAX_PAGE_SIZE = 1000;
const DateParam = MonthOrDateIn();
const AnalyticsQuery = {
  periodFilterType: Type.Optional(Type.Union([Type.Literal('accounting'), Type.Literal('sale')])),
  start: Type.Optional(DateParam),
  end: Type.Optional(DateParam),
  artist: Type.Optional(Uuid),
  product: Type.Optional(Uuid),
  asset: Type.Optional(Uuid),
  dsp: Type.Optional(Type.String({ maxLength: 2000 })),
  country: Type.Optional(Type.String({ maxLength: 1000 })),
  saleType: Type.Optional(Type.String({ maxLength: 50 })),
  file: Type.Optional(Uuid),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
  sort: Type.Optional(Type.Union(ANALYTICS_SORTS.map((s) => Type.Literal(s)), { description: 'Order the rows by a figure, or by `name` (the month, store, country... or the artist\'s name, the product\'s or recording\'s title, the file\'s name) before the page is taken' })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'Descending by default for a figure, ascending for `name`' })),
};

const BREAKDOWNS: [string, GroupBy, string][] = [
  ['/royalty/', 'total', 'Royalty totals (revenue, quantity, lines)'],
  ['/royalty/month', 'month', 'Royalties by sale month'],
  ['/royalty/accountingperiod', 'accountingperiod', 'Royalties by accounting period'],
  ['/royalty/dsp', 'dsp', 'Royalties by DSP (store)'],
  ['/royalty/country', 'country', 'Royalties by country'],
  ['/royalty/artist', 'artist', 'Royalties by artist'],
  ['/royalty/product', 'product', 'Royalties by product'],
  ['/royalty/asset', 'asset', 'Royalties by recording'],
  ['/royalty/saletype', 'saletype', 'Royalties by sale type'],
  ['/royalty/aggregator', 'aggregator', 'Royalties by aggregator (distributor)'],
  ['/royalties/analytics/artist', 'artist', 'Royalty analytics by artist'],
  ['/revenue/analytics/country', 'country', 'Revenue analytics by country'],
  // The reference's tables: one per statement file (its data source); file names are admins' (as the files routes).
  ['/royalty/tables', 'file', 'Royalties by statement file (table), with its data source'],
];

/** One row of a breakdown: its key (month, accountingPeriod, dsp, country, saleType, aggregator, artistId, productId, assetId or fileId, with their names) and the figures. */
const BreakdownRow = OpenObject({
  revenue: Type.String(), quantity: Type.String(), lines: Type.Integer(),
  Royalty: Type.String(), Count: Type.String(), Streams: Type.String(), Downloads: Type.String(),
  RatePer1K: Type.Union([Type.String(), Type.Null()]), RoyaltyPercentage: Type.Union([Type.String(), Type.Null()]), CountPercentage: Type.Union([Type.String(), Type.Null()]),
  PreviousRoyalty: Type.Optional(Type.String()), PreviousCount: Type.Optional(Type.String()),
}, 'The row\'s key columns depend on the breakdown (month, accountingPeriod, dsp, country, saleType, aggregator, artistId/artistName, productId, assetId, fileId…)');
const Totals = Type.Object({ revenue: Type.String(), quantity: Type.String(), lines: Type.Integer() });
/** A breakdown: its rows, the total of every row of every page, the paging, and with includePreviousPeriod the previous period's total. */
const BreakdownAnswer = StatusAnswer(Type.Object({
  currency: Type.String(), rows: Type.Array(BreakdownRow), total: Totals, pagination: Pagination,
  previous: Type.Optional(Type.Object({ start: Type.String(), end: Type.String(), total: Totals })),
}));

const DESCRIPTION =
  'Amounts are decimal strings in the workspace base currency. Admins and owners see every line of the workspace (matched or not); other members only their own earnings. ' +
  '`start`/`end` (YYYY-MM or YYYY-MM-DD, inclusive) select sale months (`periodFilterType=sale`, default) or accounting periods (`accounting`) overlapping the range. ' +
  `\`page\`/\`size\` (at most ${MAX_PAGE_SIZE}) page the rows: the artist, product and recording breakdowns are paged by default (size ${DEFAULT_PAGE_SIZE}), the others answer every row unless asked; ` +
  '`sort` (`revenue`, `quantity`, `lines`, `name`) and `order` (`asc`, `desc`) order them before the page is taken (by default months and accounting periods in time order, the rest by revenue, largest first); a download keeps that order. ' +
  '`data.total` sums every row of every page, `data.pagination.total` counts the rows. ' +
  "The reference service's filters are taken too: `dsp`, `country`, `type` (sale type), `aggregator`, `isrc`, `upc`, `artists` (ids), each a comma-separated list; " +
  '`table_name` (statement file ids, as `/royalty/tables` names them); `includePreviousPeriod=true` (needs `start` and `end`) adds `PreviousRoyalty`/`PreviousCount` to each row and `data.previous`. ' +
  'Each row also carries `Royalty`, `Count`, `Streams`, `Downloads` (the quantities of the sale types stream and download), `RatePer1K`, `RoyaltyPercentage`, `CountPercentage` (decimal strings).';

export function registerRoyaltyRoutes(router: Router, svc: AppServices): void {
  const defs: RouteDef[] = BREAKDOWNS.map(([path, group, summary]) =>
    route({
      method: 'get',
      path,
      summary,
      description: DESCRIPTION,
      access: group === 'file' ? 'admin' : 'guest',
      snapshot: true, // a member's view may take two statements (analytics.ts, memberCatalogue); an export, many pages
      query: Type.Object({ ...AnalyticsQuery, ...ReferenceAnalyticsQuery }), responses: { 200: BreakdownAnswer },
      async handler({ trx, tenantId, auth, query }) {
        const { page, size, sort, order, ...q } = query;
        const r = await referenceAnalytics(trx, tenantId, payeeOf(auth), group, q, { page, size, sort, order, engine: analyticsEngineOf(svc) });
        return {
          status: 'success',
          message: summary,
          data: { currency: r.currency, rows: r.rows, total: r.total, pagination: r.pagination, ...(r.previous ? { previous: r.previous } : {}) },
        };
      },
      export: ({ trx, tenantId, auth, query: { page: _p, size: _s, sort, order, ...q } }) => ({
        filename: `royalty-${group}`,
        columns: breakdownColumns(group),
        rows: breakdownRows((page, size) => referenceAnalytics(trx, tenantId, payeeOf(auth), group, q, { page, size, sort, order, engine: analyticsEngineOf(svc) })),
      }),
    }),
  );
  defs.push(
    route({
      method: 'get',
      path: '/releases/:id/analytics',
      summary: "A release's royalties (its product and its tracks' recordings), by month or another breakdown",
      description: DESCRIPTION,
      access: 'guest',
      snapshot: true,
      params: IdParams,
      query: Type.Object({
        ...AnalyticsQuery,
        groupBy: Type.Optional(Type.Union(['month', 'accountingperiod', 'dsp', 'country', 'saletype', 'aggregator', 'asset', 'total'].map((g) => Type.Literal(g)))),
      }),
      responses: { 200: BreakdownAnswer },
      async handler({ trx, tenantId, auth, query, params }) {
        const { groupBy, page, size, sort, order, ...q } = query;
        const r = await releaseAnalytics(trx, tenantId, auth, params.id, (groupBy ?? 'month') as GroupBy, q, { page, size, sort, order, engine: analyticsEngineOf(svc) });
        return { status: 'success', message: 'Release analytics', data: { currency: r.currency, rows: r.rows, total: r.total, pagination: r.pagination } };
      },
      export: ({ trx, tenantId, auth, query: { groupBy, page: _p, size: _s, sort, order, ...q }, params }) => {
        const group = (groupBy ?? 'month') as GroupBy;
        return { filename: `release-${group}`, columns: breakdownColumns(group), rows: breakdownRows((page, size) => releaseAnalytics(trx, tenantId, auth, params.id, group, q, { page, size, sort, order, engine: analyticsEngineOf(svc) })) };
      },
    }),

    // Checklists: the catalogue's view (catalogue items that block royalties, in `data`, from
    // the catalogue area) plus, for admins, the statement lines behind it (`statementLines`).
    ...(
      [
        ['royaltyassets', 'Statement lines with no recording, grouped by ISRC, title and artist'],
        ['royaltyproducts', 'Statement lines with no product, grouped by UPC, release title and artist'],
        ['missingroyaltysplits', 'Matched statement lines that no split pays yet, grouped by recording and product'],
      ] as const
    ).map(([name, what]) =>
      route({
        method: 'get',
        path: `/checklist/${name}`, responses: { 200: name === 'missingroyaltysplits' ? Res.RoyaltyChecklist : Res.UnmatchedChecklist(name === 'royaltyassets' ? 'isrc' : 'upc') },
        summary: `Checklist ${name}: catalogue items (admins: workspace; others: own artists) and, for admins, ${what.toLowerCase()}`,
        description: name === 'missingroyaltysplits'
          ? '`data`/`pagination`: catalogue items with issues, in the order `sort` asks. `statementLines.data`/`statementLines.pagination` (admins; same page/size and search, largest amount first): ' + what + '.'
          : '`data`/`pagination` (admins and owners): ' + what + ', in the order `sort` asks (largest amount first by default). `catalogueItems` (same page/size and search, by title): the catalogue items with issues.',
        access: 'guest',
        errorShape: 'catalogue',
        query: Type.Object({
          page: PageQuery.page, size: PageQuery.size,
          ...(name === 'missingroyaltysplits'
            ? sortQuery(CHECKLIST_SORT, 'title', 'Part of the title (and of the statement lines\' recording or product title, ISRC or UPC)')
            : sortQuery(name === 'royaltyassets' ? svcMatch.UNMATCHED_ASSET_SORT : svcMatch.UNMATCHED_PRODUCT_SORT, 'amount', 'Part of the code as written, the title or the artist (and of the catalogue items\' title)')),
        }),
        async handler({ trx, tenantId, auth, query }) {
          const r = await royaltyChecklist(trx, tenantId, auth, name, query);
          return { success: true, message: `Checklist ${name}`, ...r };
        },
      }),
    ),

    route({
      method: 'post',
      path: '/checklist/royaltyassets/import',
      summary: 'Add the recordings statements name and the catalogue lacks (all, or the ISRCs given), titled and credited as the statements write them; their lines are then matched (admin)',
      description: 'One recording per ISRC (lines without a valid ISRC are not imported); each in its own savepoint, problems listed in `errors`. At most ' + svcMatch.IMPORT_LIMIT + ' per call.',
      access: 'admin',
      errorShape: 'catalogue',
      status: 201,
      body: Strict({ isrcs: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { minItems: 1, maxItems: svcMatch.IMPORT_LIMIT, description: 'only these (as written in the statements or normalised)', examples: [['GBAYE0601498']] })) }),
      responses: {
        201: Type.Object({
          success: Type.Literal(true),
          message: Type.String(),
          data: Type.Object({ created: Type.Array(Type.Object({ id: Uuid, title: Type.String(), isrc: Type.Union([Type.String(), Type.Null()]) })), errors: Type.Array(Type.String()) }),
        }),
      },
      async handler({ trx, tenantId, auth, body }) {
        const r = await svcMatch.importMissingAssets(trx, tenantId, (sp, a) => createAsset(sp, tenantId, auth, a), body.isrcs);
        return { success: true, message: `${r.created.length} recording${r.created.length === 1 ? '' : 's'} added; their statement lines are being matched`, data: r };
      },
    }),

    // Matching suggestions and rules.
    route({
      method: 'get',
      path: '/royalty/matches/suggestions', responses: { 200: Res.GetRoyaltyMatchesSuggestions },
      summary: 'Fuzzy match suggestions waiting for a decision (admin)',
      access: 'admin',
      query: Type.Object({
        page: PageQuery.page,
        size: PageQuery.size,
        ...sortQuery(svcMatch.SUGGESTION_SORT, 'createdAt', "Part of the statement's title, ISRC, UPC or artist"),
        status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('accepted'), Type.Literal('rejected')])),
        kind: Type.Optional(Type.Union([Type.Literal('asset'), Type.Literal('product')])),
      }),
      async handler({ trx, tenantId, query }) {
        return { success: true, message: 'Match suggestions', ...(await svcMatch.listSuggestions(trx, tenantId, query)) };
      },
    }),
    route({
      method: 'post',
      path: '/royalty/matches/accept', responses: { 200: Res.PostRoyaltyMatchesAccept },
      summary: 'Accept a suggestion: saves a matching rule; the lines it covers are re-matched and re-allocated (admin)',
      access: 'admin',
      body: Strict({ suggestionId: Uuid, dspOnly: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, body, auth }) {
        const data = await svcMatch.decideSuggestion(trx, tenantId, body.suggestionId, 'accepted', auth.tenantUserId ?? null, body.dspOnly);
        return { status: 'success', message: 'Suggestion accepted; matching lines are being re-allocated', data };
      },
    }),
    route({
      method: 'post',
      path: '/royalty/matches/reject', responses: { 200: Res.PostRoyaltyMatchesAccept },
      summary: 'Reject a suggestion (admin)',
      access: 'admin',
      body: Strict({ suggestionId: Uuid }),
      async handler({ trx, tenantId, body, auth }) {
        const data = await svcMatch.decideSuggestion(trx, tenantId, body.suggestionId, 'rejected', auth.tenantUserId ?? null);
        return { status: 'success', message: 'Suggestion rejected', data };
      },
    }),
    route({
      method: 'get',
      path: '/royalty/matching-rules', responses: { 200: Res.GetRoyaltyMatchingRules },
      summary: 'Saved matching corrections (admin)',
      access: 'admin',
      async handler({ trx }) {
        return { status: 'success', message: 'Matching rules', data: await svcMatch.listRules(trx) };
      },
    }),
    route({
      method: 'post',
      path: '/royalty/matching-rules', responses: { 201: Res.PostRoyaltyMatchingRules },
      summary: 'Save a matching correction that applies to existing and later statements (admin)',
      description:
        'kind `asset`: lines with this `isrc`, or this `title` (+ optional `artist`), optionally only from `dsp`, belong to `assetId`. ' +
        'kind `product`: the same with `upc` / release `title` → `productId`. kind `dsp`: statements naming store `store` mean DSP `dsp`.',
      access: 'admin',
      status: 201,
      body: Strict({
        kind: Type.Union([Type.Literal('asset'), Type.Literal('product'), Type.Literal('dsp')]),
        isrc: Type.Optional(Type.String({ maxLength: 20 })),
        upc: Type.Optional(Type.String({ maxLength: 20 })),
        title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        artist: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        dsp: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        store: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        assetId: Type.Optional(Uuid),
        productId: Type.Optional(Uuid),
        note: Type.Optional(Type.String({ maxLength: 1000 })),
      }),
      async handler({ trx, tenantId, body, auth }) {
        return { status: 'success', message: 'Matching rule saved', data: await svcMatch.createRule(trx, tenantId, body, auth.tenantUserId ?? null) };
      },
    }),
    route({
      method: 'delete',
      path: '/royalty/matching-rules/:id', responses: { 200: Type.Object({ status: Type.Literal('success'), message: Type.String() }) },
      summary: 'Remove a matching rule (admin); lines it placed are re-matched',
      access: 'admin',
      params: IdParams,
      async handler({ trx, params }) {
        await svcMatch.deleteRule(trx, params.id);
        return { status: 'success', message: 'Matching rule removed' };
      },
    }),

    // Allocation.
    route({
      method: 'get',
      path: '/royalty/allocations/history', responses: { 200: Res.GetRoyaltyAllocationsHistory },
      summary: 'Allocation rows of a file or one of its lines (lineId = line number in the file), current and superseded (members: only their own rows)',
      access: 'guest',
      query: Type.Object({ lineId: Type.Optional(IdInt()), fileId: Type.Optional(Uuid), page: PageQuery.page, size: PageQuery.size, ...sortQuery(svcMatch.ALLOCATION_HISTORY_SORT, 'lineId', "Part of the payee's e-mail or name") }),
      async handler({ trx, auth, query }) {
        return { success: true, message: 'Allocation history', ...(await svcMatch.allocationHistory(trx, payeeOf(auth), query)) };
      },
    }),
    route({
      method: 'post',
      path: '/royalty/files/:id/allocate', responses: { 200: Res.PostRoyaltyFilesByIdAllocate },
      summary: 'Allocate a file again (after setting a missing exchange rate, or to refresh it) (admin)',
      access: 'admin',
      params: IdParams,
      async handler({ trx, tenantId, params }) {
        await svcMatch.requeueFile(trx, svc, tenantId, params.id);
        return { status: 'success', message: 'File queued for allocation', data: { fileId: params.id } };
      },
    }),
    route({
      method: 'post',
      path: '/royalty/reallocate', responses: { 200: StatusAnswer(Type.Null()) },
      summary: 'Re-match and re-allocate the workspace now (admin; normally automatic after catalogue and split changes)',
      access: 'admin',
      async handler({ trx, tenantId }) {
        await svc.queue.send('royalty.reallocate', { tenantId, force: true }, { trx });
        return { status: 'success', message: 'Re-allocation queued', data: null };
      },
    }),
  );
  defineRoutes(router, svc, { tag: 'Royalty', errorShape: 'status', scope: 'own' }, defs);
}

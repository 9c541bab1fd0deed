/**
 * What a member is tied to: their own artists, the recordings and products of those
 * artists, and what they earned. Members read their own; admins and owners anyone's.
 * The queries live in holdings.ts.
 */
import { sortQuery } from '../../http/list-sort';
import { ARTIST_SORT, ASSET_SORT, PRODUCT_SORT } from '../catalogue/sorts';
import { ARTIST_NAMES, ASSET_NAMES, PRODUCT_NAMES } from '../catalogue/reference-names';
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { OpenObject, PagedAnswer, MonthIn, PageQuery, Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { listArtists } from '../catalogue/service';
import { assertMayRead, linkMembersToArtists, memberMonthly, memberStats, ownedCatalogue } from './holdings';
import * as Res from './responses';

const IdParams = Type.Object({ id: Uuid });

export function userEntityRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Users', errorShape: 'catalogue', scope: 'own' }, [
    route({
      method: 'get',
      path: '/user/:id/artists', responses: { 200: Res.GetUserByIdArtists },
      summary: "A member's own artists (self, or admin)",
      access: 'user',
      params: IdParams,
      referenceNames: ARTIST_NAMES,
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(ARTIST_SORT, 'name', 'Part of the name') }),
      async handler({ trx, auth, params, query }) {
        await assertMayRead(trx, auth, params.id);
        return { success: true, message: 'Artists', ...(await listArtists(trx, { ...query, user: params.id })) };
      },
    }),
    ...(['assets', 'products'] as const).map((what) =>
      route({
        method: 'get',
        path: `/user/:id/${what}`, responses: { 200: PagedAnswer(OpenObject({ id: Uuid, title: Type.String() }, 'A recording or product of the member\'s own artists')) },
        summary: `${what === 'assets' ? 'Recordings' : 'Products'} of a member's own artists (self, or admin)`,
        access: 'user',
        params: IdParams,
        referenceNames: what === 'assets' ? ASSET_NAMES : PRODUCT_NAMES,
        query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(what === 'assets' ? ASSET_SORT : PRODUCT_SORT, 'createdAt', what === 'assets' ? 'Part of the title, an ISRC or an artist\'s name' : 'Part of the title, a UPC or an artist\'s name') }),
        async handler({ trx, auth, params, query }) {
          await assertMayRead(trx, auth, params.id);
          return { success: true, message: what === 'assets' ? 'Assets' : 'Products', ...(await ownedCatalogue(trx, what, params.id, query)) };
        },
      }),
    ),
    route({
      method: 'get',
      path: '/user/:id/stats', responses: { 200: Res.GetUserByIdStats },
      summary: "A member's totals: earnings (base currency), lines, own artists, recordings, products, splits held",
      access: 'user',
      params: IdParams,
      async handler({ trx, auth, params, tenantId }) {
        await assertMayRead(trx, auth, params.id);
        return { success: true, message: 'User stats', data: await memberStats(trx, tenantId, params.id) };
      },
    }),
    route({
      method: 'get',
      path: '/user/:id/monthly', responses: { 200: Res.GetUserByIdMonthly },
      summary: "A member's earnings per sale month (base currency; optional from/to YYYY-MM)",
      access: 'user',
      params: IdParams,
      query: Type.Object({ from: Type.Optional(MonthIn()), to: Type.Optional(MonthIn()) }),
      async handler({ trx, auth, params, query, tenantId }) {
        await assertMayRead(trx, auth, params.id);
        return { success: true, message: 'Monthly earnings', data: await memberMonthly(trx, tenantId, params.id, query.from, query.to) };
      },
    }),
    route({
      method: 'post',
      path: '/user/bulk/entity', responses: { 200: Res.PostUserBulkEntity },
      summary: 'Tie members to artists (their "own artists"), or untie them (admin)',
      access: 'admin',
      body: Strict({
        users: Type.Array(Uuid, { minItems: 1, maxItems: 500 }),
        artists: Type.Array(Uuid, { minItems: 1, maxItems: 500 }),
        action: Type.Optional(Type.Union([Type.Literal('link'), Type.Literal('unlink')])),
      }),
      async handler({ trx, body, tenantId }) {
        const { processed, errors } = await linkMembersToArtists(trx, tenantId, body.users, body.artists, body.action ?? 'link');
        return { success: true, message: `${processed} link(s) ${body.action === 'unlink' ? 'removed' : 'added'}`, processedCount: processed, errors };
      },
    }),
  ]);
}

/**
 * Split routes (docs/catalogue.md, "Splits"), POST /splits/validate included. Catalogue error shape.
 * Reads: guest and up; writes: admin and up; match/validate: user and up.
 */
import type Router from '@koa/router';
import { checkingOwnership, defineRoutes, route } from '../../http/route';
import { assertOwnItemOfPath, ownScope } from './common';
import { PageQuery, Strict, Type, Uuid } from '../../http/schema';
import { ValidationError } from '../../lib/errors';
import { sortQuery } from '../../http/list-sort';
import { SPLIT_HISTORY_SORT, SPLIT_SORT } from './sorts';
import type { AppServices } from '../../services';
import { ShareList, SplitTypeField, Conditions, IdsBody, IdParams } from './schemas';
import { getSplit } from './splits';
import * as O from './split-operations';
import { SPLIT_NAMES, SPLIT_PATCH_NAMES, splitPatchAgainst } from './reference-names';
import * as Res from './responses';

const TargetFields = {
  asset: Type.Optional(Uuid),
  product: Type.Optional(Uuid),
  artist: Type.Optional(Uuid),
};
/** A change may name the split's own target, as answered (a split's target does not change: another is a 400). */
const OwnTarget = Object.fromEntries((['asset', 'product', 'artist'] as const).map((k) => [k, Type.Optional(Type.String({ format: 'uuid', description: `the split's own ${k}, as answered; a split's target does not change` }))])) as typeof TargetFields;
const SplitBody = Strict({
  ...TargetFields,
  type: Type.Optional(SplitTypeField),
  split: ShareList,
  conditions: Type.Optional(Conditions),
  name: Type.Optional(Type.String({ maxLength: 200 })),
});

export function registerSplitRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Split', errorShape: 'catalogue', scope: 'own' }, checkingOwnership([
    route({
      method: 'post', path: '/split/', responses: { 201: Res.PostSplit }, summary: 'Create (or replace, same target+type+conditions) a split; shares must sum to 100 (admin)', access: 'admin', status: 201, body: SplitBody, referenceNames: SPLIT_NAMES,
      async handler({ trx, tenantId, auth, body }) {
        const { target, targetId } = O.targetOf(body);
        const r = await O.saveSplit(trx, tenantId, auth, { target, targetId, type: body.type, split: body.split, conditions: body.conditions, name: body.name });
        return { success: true, message: r.created ? 'Split created' : 'Split updated', data: r.split };
      },
    }),
    route({
      method: 'get', path: '/split/', responses: { 200: Res.GetSplit }, summary: 'List splits (paged; filter by target, type, user)', access: 'guest', referenceNames: SPLIT_NAMES,
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(SPLIT_SORT, 'createdAt', 'A recording\'s title or ISRC, a product\'s title or UPC, an artist\'s name'), ...TargetFields, target: Type.Optional(Type.Union([Type.Literal('asset'), Type.Literal('product'), Type.Literal('artist')])), type: Type.Optional(SplitTypeField), user: Type.Optional(Uuid) }),
      async handler({ trx, auth, query }) {
        return { success: true, message: 'Splits', ...(await O.listSplits(trx, { ...query, visible: ownScope(trx, auth, 'split', 's') })) };
      },
    }),
    route({
      method: 'post', path: '/split/default', responses: { 201: Res.PostSplitDefault }, summary: "Set an artist's default split (artist required; type default all) (admin)", access: 'admin', status: 201,
      body: Strict({ artist: Uuid, type: Type.Optional(SplitTypeField), split: ShareList, conditions: Type.Optional(Conditions), name: Type.Optional(Type.String({ maxLength: 200 })) }),
      async handler({ trx, tenantId, auth, body }) {
        const r = await O.saveSplit(trx, tenantId, auth, { target: 'artist', targetId: body.artist, type: body.type, split: body.split, conditions: body.conditions, name: body.name });
        return { success: true, message: r.created ? 'Default split created' : 'Default split updated', data: r.split };
      },
    }),
    route({
      method: 'post', path: '/split/bulk/delete', responses: { 200: Res.PostSplitBulkDelete }, summary: 'Delete splits by id; each failure in failedDeletions (admin)', access: 'admin', body: IdsBody,
      async handler({ trx, auth, body }) {
        const r = await O.removeSplits(trx, auth, body.ids);
        return { message: `${r.processedCount} of ${body.ids.length} splits deleted`, ...r };
      },
    }),
    route({
      method: 'post', path: '/split/match', responses: { 200: Res.PostSplitMatch }, summary: 'The split allocation would use for a sale (asset/ISRC and/or product/UPC, date, territory, type)', access: 'user',
      body: Strict({
        asset: Type.Optional(Uuid), product: Type.Optional(Uuid), isrc: Type.Optional(Type.String({ maxLength: 40 })), upc: Type.Optional(Type.String({ maxLength: 40 })),
        saleDate: Type.Optional(Type.String({ format: 'date' })), territory: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })), type: Type.Optional(SplitTypeField),
      }),
      async handler({ trx, tenantId, body }) {
        const data = await O.matchSplit(trx, tenantId, body);
        return { success: true, message: data.level ? `Split found at ${data.level} level` : 'No split applies', data };
      },
    }),
    route({
      method: 'get', path: '/split/history', responses: { 200: Res.GetSplitHistory }, summary: 'Share changes (who changed what share when), newest first; filter by split, target or user', access: 'admin',
      query: Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(SPLIT_HISTORY_SORT, 'changedAt', 'Part of the action, the note or the sale type'), split: Type.Optional(Uuid), ...TargetFields, user: Type.Optional(Uuid) }),
      async handler({ trx, query }) {
        return { success: true, message: 'Split history', ...(await O.splitHistory(trx, query)) };
      },
    }),
    route({
      method: 'get', path: '/split/:id', responses: { 200: Res.GetSplitById }, summary: 'One split', access: 'guest', params: IdParams, referenceNames: SPLIT_NAMES,
      async handler({ trx, params }) {
        return { success: true, message: 'Split', data: await getSplit(trx, params.id) };
      },
    }),
    route({
      method: 'get', path: '/split/:id/history', responses: { 200: Res.GetSplitByIdHistory }, summary: 'Share changes of one split, oldest first', access: 'admin', params: IdParams,
      async handler({ trx, params }) {
        return { success: true, message: 'Split history', data: await O.historyOfSplit(trx, params.id) };
      },
    }),
    route({
      method: 'put', path: '/split/:id', responses: { 200: Res.PutSplitById }, summary: 'Change the shares, type or conditions of a split (admin)', access: 'admin', params: IdParams, referenceNames: SPLIT_PATCH_NAMES,
      body: Strict({
        ...OwnTarget,
        split: Type.Optional(ShareList), type: Type.Optional(SplitTypeField), conditions: Type.Optional(Conditions), name: Type.Optional(Type.String({ maxLength: 200 })),
      }, { minProperties: 1 }),
      async handler({ trx, tenantId, auth, params, body }) {
        const current = await getSplit(trx, params.id);
        const problems = splitPatchAgainst(current, body as Record<string, unknown>);
        if (problems.length) throw new ValidationError('Invalid request', problems);
        return { success: true, message: 'Split updated', data: await O.changeSplit(trx, tenantId, auth, params.id, body) };
      },
    }),
    route({
      method: 'delete', path: '/split/:id', responses: { 200: Res.DeleteSplitById }, summary: 'Delete a split (admin)', access: 'admin', params: IdParams,
      async handler({ trx, auth, params }) {
        await O.removeSplit(trx, auth, params.id);
        return { success: true, message: 'Split deleted', data: { id: params.id } };
      },
    }),
    route({
      method: 'post', path: '/splits/validate', responses: { 200: Res.PostSplitsValidate }, summary: 'Check a split without saving it: {valid, total, errors}', access: 'user',
      body: Strict({ ...TargetFields, type: Type.Optional(SplitTypeField), split: ShareList, conditions: Type.Optional(Conditions) }),
      async handler({ trx, body }) {
        const data = await O.validateSplit(trx, body);
        return { success: true, message: data.valid ? 'Split is valid' : 'Split is not valid', data };
      },
    }),
  ], assertOwnItemOfPath));
}

/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type, StatusAnswer, PagedAnswer, Pagination } from '../../http/schema';

export const GetRoyaltyAllocationsHistory = PagedAnswer(Type.Object({ id: Type.String(), lineId: Type.String(), fileId: Type.String(), tenantUserId: Type.String(), splitId: Type.Union([Type.Null(), Type.String()]), share: Type.String(), amount: Type.String(), currency: Type.String(), createdAt: Type.String(), supersededAt: Type.Union([Type.Null(), Type.String()]), current: Type.Boolean() }));
export const GetRoyaltyMatchesSuggestions = PagedAnswer(Type.Object({ id: Type.String(), kind: Type.String(), statement: Type.Object({ isrc: Type.Union([Type.String(), Type.Null()]), upc: Type.Union([Type.String(), Type.Null()]), title: Type.String(), artist: Type.Union([Type.String(), Type.Null()]) }), candidate: Type.Object({ assetId: Type.Optional(Type.String()), productId: Type.Optional(Type.String()), title: Type.String(), isrc: Type.Optional(Type.Union([Type.String(), Type.Null()])), upc: Type.Optional(Type.Union([Type.String(), Type.Null()])) }), score: Type.String(), reason: Type.String(), status: Type.String(), createdAt: Type.String() }));
export const PostRoyaltyMatchesAccept = StatusAnswer(Type.Object({ suggestionId: Type.String(), status: Type.String(), ruleId: Type.String() }));
export const GetRoyaltyMatchingRules = StatusAnswer(Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), dsp: Type.Unknown(), isrc: Type.Union([Type.String(), Type.Null()]), upc: Type.Union([Type.String(), Type.Null()]), title: Type.Union([Type.Null(), Type.String()]), artist: Type.Union([Type.Null(), Type.String()]), assetId: Type.Union([Type.Null(), Type.String()]), productId: Type.Union([Type.String(), Type.Null()]), store: Type.Union([Type.String(), Type.Null()]), dspTarget: Type.Union([Type.String(), Type.Null()]), note: Type.Union([Type.Null(), Type.String()]), createdAt: Type.String() })));
export const PostRoyaltyMatchingRules = StatusAnswer(Type.Object({ id: Type.String(), kind: Type.String(), dsp: Type.Union([Type.String(), Type.Null()]), isrc: Type.Union([Type.String(), Type.Null()]), upc: Type.Union([Type.String(), Type.Null()]), title: Type.Union([Type.String(), Type.Null()]), artist: Type.Union([Type.String(), Type.Null()]), assetId: Type.Union([Type.String(), Type.Null()]), productId: Type.Union([Type.String(), Type.Null()]), store: Type.Union([Type.String(), Type.Null()]), dspTarget: Type.Union([Type.String(), Type.Null()]), note: Type.Union([Type.String(), Type.Null()]), createdAt: Type.String() }));
export const PostRoyaltyFilesByIdAllocate = StatusAnswer(Type.Object({ fileId: Type.String() }));
const ChecklistItem = Type.Object({ kind: Type.String(), id: Type.String(), title: Type.String(), code: Type.Union([Type.String(), Type.Null()]), issues: Type.Array(Type.String()) });
/**
 * royaltyassets (`code` isrc) and royaltyproducts (upc): the statement lines no catalogue item
 * matches, grouped by code, title and artist (`data`; none but for admins and owners), and the
 * catalogue's items with issues (`catalogueItems`).
 */
export const UnmatchedChecklist = (code: 'isrc' | 'upc') => Type.Object({
  success: Type.Literal(true), message: Type.String(),
  data: Type.Array(Type.Object({
    [code]: Type.Union([Type.String(), Type.Null()]), title: Type.Union([Type.String(), Type.Null()]), artist: Type.Union([Type.String(), Type.Null()]),
    lines: Type.Integer(), amount: Type.String(), quantity: Type.String(), files: Type.Integer(),
  })),
  pagination: Pagination,
  catalogueItems: Type.Object({ data: Type.Array(ChecklistItem), pagination: Pagination }),
});
/** A royalty checklist: the catalogue's items with issues and, for admins, the statement lines behind them (grouped by what identifies them). */
export const RoyaltyChecklist = Type.Object({
  success: Type.Literal(true), message: Type.String(),
  data: Type.Array(ChecklistItem),
  pagination: Pagination,
  statementLines: Type.Object({
    data: Type.Array(Type.Object({ lines: Type.Number(), amount: Type.String() }, { additionalProperties: true, description: 'The group: isrc/title/artist (royaltyassets), upc/title/artist (royaltyproducts), assetId/assetTitle/isrc/productId/productTitle/upc (missingroyaltysplits)' })),
    pagination: Pagination,
  }),
});

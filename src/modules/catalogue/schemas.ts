/** Request schemas of the catalogue and split routes (one source: validation + OpenAPI). */
import { PageQuery, Share, Strict, Type, Uuid, type TProperties } from '../../http/schema';
import { sortQuery, type SortColumns } from '../../http/list-sort';
import { ARTIST_SORT, ASSET_SORT, PRODUCT_SORT } from './sorts';
import type { TArray } from '@sinclair/typebox';

const Str = (max = 500) => Type.String({ maxLength: max });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const StrList = Type.Array(Str(300), { maxItems: 100 });

export const ShareItem = Strict({ user: Type.String({ maxLength: 64 }), share: Share() });
export const ShareList = Type.Array(ShareItem, { maxItems: 500 });
export const SplitTypeField = Type.String({ maxLength: 20 });
export const Conditions = Type.Union([
  Strict({
    validFrom: Type.Optional(Nullable(Type.String({ format: 'date' }))),
    validTo: Type.Optional(Nullable(Type.String({ format: 'date' }))),
    territories: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 2, minLength: 2 }), { maxItems: 300 }), Type.Null()])),
  }),
  Type.Null(),
]);

export const ArtistBody = Strict({
  name: Type.String({ minLength: 1, maxLength: 300 }),
  externalId: Type.Optional(Nullable(Str())),
  country: Type.Optional(Nullable(Str(2))),
  users: Type.Optional(Type.Array(Uuid, { maxItems: 200 })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export const ArtistPatch = Type.Partial(ArtistBody, { additionalProperties: false, minProperties: 1 });

const AssetProps = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  type: Type.Optional(Type.Union([Type.Literal('Audio'), Type.Literal('Video'), Type.Literal('Other')])),
  isrc: Type.Optional(Nullable(Str(40))),
  iswc: Type.Optional(Nullable(Str(40))),
  displayArtist: Type.Optional(Nullable(Str())),
  mainArtist: Type.Optional(StrList),
  version: Type.Optional(Nullable(Str())),
  mainGenre: Type.Optional(StrList),
  subGenre: Type.Optional(StrList),
  externalId: Type.Optional(Nullable(Str())),
  contributors: Type.Optional(Strict({ producers: Type.Optional(StrList), mixers: Type.Optional(StrList) })),
  artists: Type.Optional(StrList),
  splits: Type.Optional(ShareList),
  isDraft: Type.Optional(Type.Boolean()),
};
export const AssetBody = Strict(AssetProps);
export const AssetPatch = Type.Partial(AssetBody, { additionalProperties: false, minProperties: 1 });

const ProductProps = {
  upc: Type.Optional(Nullable(Str(40))),
  title: Type.String({ minLength: 1, maxLength: 500 }),
  displayArtist: Type.Optional(Nullable(Str())),
  mainArtist: Type.Optional(StrList),
  type: Type.Optional(Nullable(Str(100))),
  format: Type.Optional(Nullable(Str(100))),
  releaseDate: Type.Optional(Nullable(Type.String({ format: 'date' }))),
  mainGenre: Type.Optional(StrList),
  label: Type.Optional(Nullable(Str())),
  catalogNumber: Type.Optional(Nullable(Str())),
  externalId: Type.Optional(Nullable(Str())),
  artists: Type.Optional(StrList),
  assets: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
  split: Type.Optional(ShareList),
  isDraft: Type.Optional(Type.Boolean()),
};
export const ProductBody = Strict(ProductProps);
export const ProductPatch = Type.Partial(ProductBody, { additionalProperties: false, minProperties: 1 });

// Bulk items are loose objects: each is validated on its own so one bad item is reported
// in `errors` instead of failing the request.
const Loose = Type.Object({}, { additionalProperties: true });
export const BULK_MAX = 10_000;
/** `{<key>: [items]}`: the body of a bulk create. */
export const bulkBody = <K extends string>(key: K) => Strict({ [key]: Type.Array(Loose, { minItems: 1, maxItems: BULK_MAX }) } as Record<K, TArray<typeof Loose>>);
export const BulkArtists = bulkBody('artists');
export const IdsBody = Strict({ ids: Type.Array(Uuid, { minItems: 1, maxItems: BULK_MAX }) });
export const IdsTypeBody = Strict({ ids: Type.Array(Uuid, { minItems: 1, maxItems: BULK_MAX }), type: Type.Optional(SplitTypeField) });
export const BulkSplitItems = Strict({
  items: Type.Array(Strict({ id: Uuid, type: Type.Optional(SplitTypeField), split: ShareList, conditions: Type.Optional(Conditions) }), { minItems: 1, maxItems: BULK_MAX }),
});
export const IdParams = Type.Object({ id: Uuid });

/** The filters recording and product lists share, around each one's own. */
const listQuery = <T extends TProperties>(own: T, sort: SortColumns, search: string) =>
  Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(sort, 'createdAt', search), artist: Type.Optional(Uuid), ...own, title: Type.Optional(Str(200)), isDraft: Type.Optional(Type.Boolean()) });
export const AssetListQuery = listQuery({ product: Type.Optional(Uuid), isrc: Type.Optional(Str(40)), type: Type.Optional(Str(20)) }, ASSET_SORT, 'Title, ISRC or an artist\'s name');
export const ProductListQuery = listQuery({ asset: Type.Optional(Uuid), upc: Type.Optional(Str(40)), type: Type.Optional(Str(100)), format: Type.Optional(Str(100)) }, PRODUCT_SORT, 'Title, UPC or an artist\'s name');
export const ArtistListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(ARTIST_SORT, 'name', 'Part of the name'), user: Type.Optional(Uuid) });

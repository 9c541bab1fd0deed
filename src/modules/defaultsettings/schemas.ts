/** Request and response schemas of the default-settings, label and catalog routes. */
import { Strict, Type, Uuid } from '../../http/schema';
import { CATEGORIES, ENTITY_TYPES } from './keys';

import type { Category, EntityType } from './keys';

export const CategorySchema = Type.Unsafe<Category>({ type: 'string', enum: [...CATEGORIES] });
export const EntityTypeSchema = Type.Unsafe<EntityType>({ type: 'string', enum: [...ENTITY_TYPES] });
/** A uuid, or `current` for the caller's workspace (tenant level). */
export const EntityIdSchema = Type.String({ minLength: 1, maxLength: 64, examples: ['3f1c2a9e-5b7d-4c1e-9a2b-8d6e4f0a1b2c'] });
const Value = Type.Unknown({ description: 'Any JSON value; known keys are checked (docs/default-settings.md)', examples: [['Worldwide']] });

export const EntityParams = Type.Object({ entityType: EntityTypeSchema, entityId: EntityIdSchema });
export const SettingParams = Type.Object({ entityType: EntityTypeSchema, entityId: EntityIdSchema, settingId: Uuid });
export const EntityRefSchema = Strict({ entityType: EntityTypeSchema, entityId: EntityIdSchema });
export const SettingBody = Strict({ category: CategorySchema, key: Type.String({ minLength: 1, maxLength: 64, examples: ['territories'] }), value: Value });
export const TemplateId = Type.String({ maxLength: 72, pattern: '^([0-9a-fA-F-]{36}|builtin-[a-z0-9-]{1,60})$', examples: ['builtin-worldwide-digital'] });
const Overwrite = Type.Optional(Type.Boolean({ default: false, description: 'replace values the target already has (default: keep them, report them as skipped)' }));

export const CloneBody = Strict({
  source: EntityRefSchema,
  targets: Type.Array(EntityRefSchema, { minItems: 1, maxItems: 100 }),
  categories: Type.Optional(Type.Array(CategorySchema, { minItems: 1, uniqueItems: true })),
  overwrite: Overwrite,
});
export const TemplateBody = Strict({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  settings: Type.Optional(Type.Array(SettingBody, { minItems: 1, maxItems: 100 })),
  from: Type.Optional(Strict({ entityType: EntityTypeSchema, entityId: EntityIdSchema, categories: Type.Optional(Type.Array(CategorySchema, { minItems: 1, uniqueItems: true })) })),
});
export const TemplatePatch = Strict(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    settings: Type.Optional(Type.Array(SettingBody, { minItems: 1, maxItems: 100 })),
  },
  { minProperties: 1 },
);
export const ApplyBody = Strict({ entityType: EntityTypeSchema, entityId: EntityIdSchema, overwrite: Overwrite });
const PayeeId = Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'the user level: a member (payee) id; null leaves the user level out; default the caller' }));
export const PreviewAssetBody = Strict({ assetId: Uuid, userId: PayeeId });
export const PreviewProductBody = Strict({ productId: Uuid, userId: PayeeId });
export const PreviewReleaseBody = Strict({ releaseId: Uuid, userId: PayeeId });

// ---- responses ------------------------------------------------------------------------
const Ok = <T extends ReturnType<typeof Type.Object> | ReturnType<typeof Type.Array> | ReturnType<typeof Type.Null>>(data: T) =>
  Type.Object({ status: Type.Literal('success'), message: Type.String(), data });

export const SettingView = Type.Object({
  id: Uuid,
  entityType: EntityTypeSchema,
  entityId: Uuid,
  category: CategorySchema,
  key: Type.String({ examples: ['territories'] }),
  value: Value,
  createdBy: Type.Union([Uuid, Type.Null()]),
  updatedBy: Type.Union([Uuid, Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const ChainLinkView = Type.Object({ level: EntityTypeSchema, entityId: Uuid, name: Type.Union([Type.String(), Type.Null()]) });
const EffectiveView = Type.Object({
  value: Value,
  level: Type.Union([EntityTypeSchema, Type.Literal('default')]),
  entityId: Type.Union([Uuid, Type.Null()]),
  settingId: Type.Union([Uuid, Type.Null()]),
  overrides: Type.Array(Type.Object({ level: EntityTypeSchema, entityId: Uuid, settingId: Uuid, value: Value })),
});
const ByKey = Type.Record(Type.String(), EffectiveView);
export const PreviewView = Type.Object({
  entityType: Type.String({ examples: ['release'] }),
  entityId: Uuid,
  chain: Type.Array(ChainLinkView),
  settings: Type.Object({ content: ByKey, business: ByKey, ddex: ByKey, validation: ByKey }),
});
const TemplateView = Type.Object({
  id: TemplateId,
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  builtin: Type.Boolean(),
  settings: Type.Array(SettingBody),
  uses: Type.Integer(),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const WriteResult = { created: Type.Array(Type.String({ examples: ['ddex.territories'] })), updated: Type.Array(Type.String()), skipped: Type.Array(Type.String()) };

export const R = {
  list: Ok(Type.Object({ entity: Type.Object({ entityType: EntityTypeSchema, entityId: Uuid, name: Type.Union([Type.String(), Type.Null()]) }), settings: Type.Array(SettingView) })),
  setting: Ok(SettingView),
  none: Ok(Type.Null()),
  preview: Ok(PreviewView),
  template: Ok(TemplateView),
  templates: Ok(Type.Array(TemplateView)),
  clone: Ok(Type.Object({ source: Type.Object({ entityType: EntityTypeSchema, entityId: Uuid }), settings: Type.Integer(), targets: Type.Array(Type.Object({ entityType: EntityTypeSchema, entityId: Uuid, ...WriteResult })) })),
  apply: Ok(Type.Object({ template: Type.Object({ id: TemplateId, name: Type.String() }), entityType: EntityTypeSchema, entityId: Uuid, ...WriteResult })),
};

// ---- labels and catalogs --------------------------------------------------------------
export const LabelBody = Strict({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  catalogId: Type.Optional(Type.Union([Uuid, Type.Null()])),
  artists: Type.Optional(Type.Array(Uuid, { maxItems: 1000 })),
});
export const LabelPatch = Type.Partial(LabelBody, { additionalProperties: false, minProperties: 1 });
export const CatalogBody = Strict({ name: Type.String({ minLength: 1, maxLength: 200 }), description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])) });
export const CatalogPatch = Type.Partial(CatalogBody, { additionalProperties: false, minProperties: 1 });
const LabelView = Type.Object({ id: Uuid, name: Type.String(), catalogId: Type.Union([Uuid, Type.Null()]), artists: Type.Array(Uuid), createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }) });
const CatalogView = Type.Object({ id: Uuid, name: Type.String(), description: Type.Union([Type.String(), Type.Null()]), labels: Type.Array(Uuid), createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }) });
export const LR = { label: Ok(LabelView), labels: Ok(Type.Array(LabelView)), catalog: Ok(CatalogView), catalogs: Ok(Type.Array(CatalogView)), none: Ok(Type.Null()) };

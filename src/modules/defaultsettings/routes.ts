/**
 * Default settings (docs/default-settings.md) under /defaultsettings, and the labels and catalogs that are
 * levels of their chain. Error shape `{status:"error", message}`.
 *
 * Access: members (user+) read everything and write their own user-level settings; admins
 * write every level, templates, labels and catalogs. Static paths are registered before
 * `/defaultsettings/:entityType/:entityId` so they win.
 */
import type Router from '@koa/router';
import { IdParams, ok } from '../../http/crud';
import { defineRoutes, route } from '../../http/route';
import { rankOf, ROLE_RANK } from '../../domain/roles';
import { Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import type { AuthContext } from '../auth/tokens';
import * as S from './service';
import * as L from './labels';
import {
  ApplyBody, CatalogBody, CatalogPatch, CategorySchema, CloneBody, EntityParams, EntityRefSchema, LabelBody, LabelPatch, LR,
  PreviewAssetBody, PreviewProductBody, PreviewReleaseBody, R, SettingBody, SettingParams, TemplateBody, TemplateId, TemplatePatch,
} from './schemas';

const actorOf = (auth: AuthContext): S.Actor => ({ tenantUserId: auth.tenantUserId, isAdmin: rankOf(auth) >= ROLE_RANK.admin });
const TemplateParams = Type.Object({ templateId: TemplateId });

type PreviewKind = 'asset' | 'product' | 'release';
type PreviewBody = { userId?: string | null } & { [K in `${PreviewKind}Id`]?: string };

/** POST /defaultsettings/preview/<kind>: an item's effective settings for a user (the caller unless the body names one or null). */
function previewItemRoute(kind: PreviewKind, summary: string, body: typeof PreviewAssetBody | typeof PreviewProductBody | typeof PreviewReleaseBody) {
  return route({
    method: 'post', path: `/defaultsettings/preview/${kind}`, access: 'user',
    summary,
    body, responses: { 200: R.preview },
    async handler({ trx, tenantId, body, auth }) {
      const b = body as PreviewBody;
      return ok('Effective settings', await S.previewItem(trx, tenantId, kind, b[`${kind}Id`] as string, b.userId === undefined ? auth.tenantUserId : b.userId));
    },
  });
}

/** The templates: saved sets of settings, the workspace's own and the built-in ones. */
function templateRoutes() {
  return [
    route({
      method: 'get', path: '/defaultsettings/templates/popular', access: 'user', scope: 'workspace',
      summary: "The workspace's most applied templates (its own and built-in), most used first",
      query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 5 })) }), responses: { 200: R.templates },
      async handler({ trx, query }) {
        return ok('Popular templates', await S.popularTemplates(trx, query.limit ?? 5));
      },
    }),
    route({
      method: 'get', path: '/defaultsettings/templates', access: 'user', scope: 'workspace',
      summary: "Templates: the workspace's own, then the built-in ones", responses: { 200: R.templates },
      async handler({ trx }) {
        return ok('Templates', await S.listTemplates(trx));
      },
    }),
    route({
      method: 'post', path: '/defaultsettings/templates', access: 'admin', status: 201,
      summary: 'Create a template from settings, or from the settings an entity has (from)',
      body: TemplateBody, responses: { 201: R.template },
      async handler({ trx, tenantId, body, auth }) {
        return ok('Template created', await S.createTemplate(trx, tenantId, actorOf(auth), body));
      },
    }),
    route({
      method: 'put', path: '/defaultsettings/templates/:templateId', access: 'admin',
      summary: 'Change a template (built-in ones are read-only)',
      params: TemplateParams, body: TemplatePatch, responses: { 200: R.template },
      async handler({ trx, params, body }) {
        return ok('Template updated', await S.updateTemplate(trx, params.templateId, body));
      },
    }),
    route({
      method: 'delete', path: '/defaultsettings/templates/:templateId', access: 'admin',
      summary: 'Delete a template (settings applied from it stay)',
      params: TemplateParams, responses: { 200: R.none },
      async handler({ trx, params }) {
        await S.deleteTemplate(trx, params.templateId);
        return ok('Template deleted', null);
      },
    }),
    route({
      method: 'post', path: '/defaultsettings/templates/:templateId/apply', access: 'user',
      summary: "Write a template's settings onto an entity (existing keys kept unless overwrite)",
      params: TemplateParams, body: ApplyBody, responses: { 200: R.apply },
      async handler({ trx, tenantId, params, body, auth }) {
        return ok('Template applied', await S.applyTemplate(trx, tenantId, actorOf(auth), params.templateId, body, !!body.overwrite));
      },
    }),
  ];
}

export function registerDefaultSettingsRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Default settings', errorShape: 'status', scope: 'own' }, [
    route({
      method: 'post', path: '/defaultsettings/preview/resolve', access: 'user',
      summary: 'Every effective setting of an entity and the level it came from (user → artist → label → catalog → tenant → built-in default)',
      body: EntityRefSchema, responses: { 200: R.preview },
      async handler({ trx, tenantId, body }) {
        return ok('Effective settings', await S.previewEntity(trx, tenantId, body));
      },
    }),
    previewItemRoute('asset', "Effective settings for an asset: the user (caller or payee), the asset's artists, their labels and catalogs, the workspace", PreviewAssetBody),
    previewItemRoute('product', "Effective settings for a product: the user, the product's artists, the label named on it and its artists' labels, catalogs, the workspace", PreviewProductBody),
    previewItemRoute('release', 'Effective settings for a release (what ERN generation uses)', PreviewReleaseBody),
    route({
      method: 'post', path: '/defaultsettings/clone', access: 'user',
      summary: "Copy one entity's own settings onto other entities (existing keys kept unless overwrite)",
      body: CloneBody, responses: { 200: R.clone },
      async handler({ trx, tenantId, body, auth }) {
        return ok('Settings cloned', await S.cloneSettings(trx, tenantId, actorOf(auth), body));
      },
    }),
    ...templateRoutes(),
    route({
      method: 'get', path: '/defaultsettings/settings/:settingId', access: 'user', scope: 'workspace',
      summary: 'One setting by id', params: Type.Object({ settingId: Uuid }), responses: { 200: R.setting },
      async handler({ trx, params }) {
        return ok('Setting', await S.getSetting(trx, params.settingId));
      },
    }),
    route({
      method: 'get', path: '/defaultsettings/:entityType/:entityId', access: 'user', scope: 'workspace',
      summary: "An entity's own settings (not inherited ones: see /defaultsettings/preview/resolve)",
      params: EntityParams, query: Type.Object({ category: Type.Optional(CategorySchema) }), responses: { 200: R.list },
      async handler({ trx, tenantId, params, query }) {
        return ok('Settings', await S.listSettings(trx, tenantId, params, query.category));
      },
    }),
    route({
      method: 'post', path: '/defaultsettings/:entityType/:entityId', access: 'user', status: 201,
      summary: 'Set one {category, key, value} on an entity (admins; members on their own user)',
      params: EntityParams, body: SettingBody, responses: { 201: R.setting },
      async handler({ trx, tenantId, params, body, auth }) {
        return ok('Setting created', await S.createSetting(trx, tenantId, actorOf(auth), params, body));
      },
    }),
    route({
      method: 'put', path: '/defaultsettings/:entityType/:entityId/:settingId', access: 'user',
      summary: "Change a setting's value", params: SettingParams, body: Type.Object({ value: SettingBody.properties.value }, { additionalProperties: false, required: ['value'] }), responses: { 200: R.setting },
      async handler({ trx, tenantId, params, body, auth }) {
        return ok('Setting updated', await S.updateSetting(trx, tenantId, actorOf(auth), params, params.settingId, body.value));
      },
    }),
    route({
      method: 'delete', path: '/defaultsettings/:entityType/:entityId/:settingId', access: 'user',
      summary: 'Remove a setting (the entity inherits the key again)', params: SettingParams, responses: { 200: R.none },
      async handler({ trx, tenantId, params, auth }) {
        await S.deleteSetting(trx, tenantId, actorOf(auth), params, params.settingId);
        return ok('Setting deleted', null);
      },
    }),
  ]);

  defineRoutes(router, svc, { tag: 'Labels and catalogs', errorShape: 'status' }, [
    route({ method: 'get', path: '/catalogs', access: 'admin', summary: 'Catalogs (groupings of labels)', responses: { 200: LR.catalogs }, async handler({ trx }) { return ok('Catalogs', await L.listCatalogs(trx)); } }),
    route({ method: 'post', path: '/catalogs', access: 'admin', status: 201, summary: 'Create a catalog', body: CatalogBody, responses: { 201: LR.catalog }, async handler({ trx, tenantId, body }) { return ok('Catalog created', await L.createCatalog(trx, tenantId, body)); } }),
    route({ method: 'get', path: '/catalogs/:id', access: 'admin', summary: 'One catalog and its labels', params: IdParams, responses: { 200: LR.catalog }, async handler({ trx, params }) { return ok('Catalog', await L.getCatalog(trx, params.id)); } }),
    route({ method: 'put', path: '/catalogs/:id', access: 'admin', summary: 'Rename or describe a catalog', params: IdParams, body: CatalogPatch, responses: { 200: LR.catalog }, async handler({ trx, params, body }) { return ok('Catalog updated', await L.updateCatalog(trx, params.id, body)); } }),
    route({ method: 'delete', path: '/catalogs/:id', access: 'admin', summary: 'Delete an empty catalog and its settings', params: IdParams, responses: { 200: LR.none }, async handler({ trx, params }) { await L.deleteCatalog(trx, params.id); return ok('Catalog deleted', null); } }),
    route({ method: 'get', path: '/labels', access: 'admin', summary: 'Labels (imprints) with their artists', query: Type.Object({ catalogId: Type.Optional(Uuid) }), responses: { 200: LR.labels }, async handler({ trx, query }) { return ok('Labels', await L.listLabels(trx, query)); } }),
    route({ method: 'post', path: '/labels', access: 'admin', status: 201, summary: 'Create a label; artists listed move to it', body: LabelBody, responses: { 201: LR.label }, async handler({ trx, tenantId, body }) { return ok('Label created', await L.createLabel(trx, tenantId, body)); } }),
    route({ method: 'get', path: '/labels/:id', access: 'admin', summary: 'One label', params: IdParams, responses: { 200: LR.label }, async handler({ trx, params }) { return ok('Label', await L.getLabel(trx, params.id)); } }),
    route({ method: 'put', path: '/labels/:id', access: 'admin', summary: 'Change a label; `artists` replaces its artist list', params: IdParams, body: LabelPatch, responses: { 200: LR.label }, async handler({ trx, tenantId, params, body }) { return ok('Label updated', await L.updateLabel(trx, tenantId, params.id, body)); } }),
    route({ method: 'delete', path: '/labels/:id', access: 'admin', summary: 'Delete a label and its settings (its artists are left without a label)', params: IdParams, responses: { 200: LR.none }, async handler({ trx, params }) { await L.deleteLabel(trx, params.id); return ok('Label deleted', null); } }),
  ]);
}

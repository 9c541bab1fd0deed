/**
 * Every module's routes, mounted in one place. Add a line per module. Order matters where
 * paths overlap (koa-router runs the first match).
 */
import type Router from '@koa/router';
import type { AppServices } from '../services';
import { registerSystemRoutes } from './system/routes';
import { registerAuthRoutes } from './auth/routes';
import { registerSocialRoutes } from './auth/social-routes';
import { registerUserRoutes } from './users/routes';
import { registerInviteRoutes } from './users/invite-routes';
import { registerSettingsRoutes } from './settings/routes';
import { registerOriginRoutes } from './auth/origin-routes';
import { registerApiKeyRoutes } from './auth/api-key-routes';
import { registerNotificationArea } from './notifications';
import { registerRoyaltyArea } from './royalty';
import { registerCatalogueArea } from './catalogue';
import { registerReleaseRoutes } from './releases/routes';
import { registerSourceArea } from './sources';
import { registerIngestionRoutes } from './files/routes';
import { registerMoneyArea } from './money';
import { registerPartnerRoutes } from './partners';
import { registerDistributorRoutes } from './distributor/routes';
import { registerDefaultSettingsRoutes } from './defaultsettings/routes';
import { registerErnRoutes } from './ern/routes';
import { registerWebRoutes } from './web/routes';
import { registerWebhookRoutes } from './webhooks/routes';
import { registerPlatformArea } from './platform';
import { registerDataShareRoutes } from './datashares/routes';
import { registerCatalogueImportRoutes } from './imports/routes';
import { registerBrandingRoutes } from './branding/routes';
import { registerStatementPreviewRoutes } from './money/statement-preview';
import { registerPublishingArea } from './publishing';
import { registerEmailRoutes } from './email/routes';
import { registerPublishingIncomeRoutes } from './publishing-income/routes';

export function mountModules(router: Router, svc: AppServices): void {
  registerSystemRoutes(router, svc);
  registerAuthRoutes(router, svc);
  registerInviteRoutes(router, svc);
  registerSocialRoutes(router, svc);
  registerRoyaltyArea(router, svc); // before the catalogue area: its /checklist/royalty* answers include statement lines
  registerCatalogueArea(router, svc); // before users: /user/summary and /user/download/csv beat /user/:id
  registerReleaseRoutes(router, svc);
  registerUserRoutes(router, svc);
  registerSettingsRoutes(router, svc);
  registerOriginRoutes(router, svc);
  registerApiKeyRoutes(router, svc);
  registerNotificationArea(router, svc);
  registerSourceArea(router, svc);
  registerIngestionRoutes(router, svc);
  registerMoneyArea(router, svc);
  registerPartnerRoutes(router, svc);
  registerDistributorRoutes(router, svc);
  registerDefaultSettingsRoutes(router, svc);
  registerErnRoutes(router, svc);
  registerWebhookRoutes(router, svc);
  registerWebRoutes(router, svc); // /, /app and the app's pages; not API
  registerPlatformArea(router, svc);
  registerDataShareRoutes(router, svc);
  registerCatalogueImportRoutes(router, svc);
  registerBrandingRoutes(router, svc);
  registerStatementPreviewRoutes(router, svc);
  registerPublishingArea(router, svc);
  registerEmailRoutes(router, svc);
  registerPublishingIncomeRoutes(router, svc);
}

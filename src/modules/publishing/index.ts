/** The publishing area (docs/publishing.md): writers, publishers, works, agreements, registrations (CWR), claims. */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerPublishingCatalogueRoutes } from './routes';
import { registerAgreementRoutes } from './agreement-routes';
import { registerRegistrationRoutes } from './registration-routes';

export function registerPublishingArea(router: Router, svc: AppServices): void {
  registerPublishingCatalogueRoutes(router, svc);
  registerAgreementRoutes(router, svc);
  registerRegistrationRoutes(router, svc);
}

/** The platform area: billing, custom domains, super-admin (/godmin). */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerGodminRoutes } from './godmin-routes';
import { registerPlatformRoutes } from './routes';

export { requiresFeature, FEATURES, type FeatureName } from '../../domain/features';

export function registerPlatformArea(router: Router, svc: AppServices): void {
  registerPlatformRoutes(router, svc);
  registerGodminRoutes(router, svc);
}

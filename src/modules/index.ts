/**
 * Every module's routes, mounted in one place. Add a line per module.
 */
import type Router from '@koa/router';
import type { AppServices } from '../services';
import { registerSystemRoutes } from './system/routes';
import { registerAuthRoutes } from './auth/routes';
import { registerUserRoutes } from './users/routes';
import { registerSettingsRoutes } from './settings/routes';
import { registerRoyaltyRoutes } from './royalty/routes';

export function mountModules(router: Router, svc: AppServices): void {
  registerSystemRoutes(router, svc);
  registerAuthRoutes(router, svc);
  registerUserRoutes(router, svc);
  registerSettingsRoutes(router, svc);
  registerRoyaltyRoutes(router, svc);
}

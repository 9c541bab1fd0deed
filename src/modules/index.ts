/**
 * Every module's routes, mounted in one place. Add a line per module.
 */
import type Router from '@koa/router';
import type { AppServices } from '../services';
import { registerSystemRoutes } from './system/routes';
import { registerAuthRoutes } from './auth/routes';
import { registerUserRoutes } from './users/routes';
import { registerMoneyRoutes } from './money/routes';

export function mountModules(router: Router, svc: AppServices): void {
  registerSystemRoutes(router, svc);
  registerAuthRoutes(router, svc);
  registerUserRoutes(router, svc);
  registerMoneyRoutes(router, svc);
}

/** Royalty routes: matching, allocation and analytics, then the statement-line routes. */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerRoyaltyRoutes } from './routes';
import { registerLineRoutes } from './line-routes';

export function registerRoyaltyArea(router: Router, svc: AppServices): void {
  registerRoyaltyRoutes(router, svc);
  registerLineRoutes(router, svc);
}

/** Notifications: the in-app list and preferences, then Web Push subscriptions. */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerNotificationRoutes } from './routes';
import { registerPushRoutes } from './push-routes';

export function registerNotificationArea(router: Router, svc: AppServices): void {
  registerNotificationRoutes(router, svc);
  registerPushRoutes(router, svc);
}

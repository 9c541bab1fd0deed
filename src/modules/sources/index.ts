/** Sources: the global patterns (super-admin), the teaching routes, then the workspace's sources. */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerSourceAdminRoutes, registerWorkspaceSourceRoutes } from './routes';
import { registerTeachRoutes } from './teach-routes';

export function registerSourceArea(router: Router, svc: AppServices): void {
  registerSourceAdminRoutes(router, svc);
  registerTeachRoutes(router, svc); // before /sources/:id
  registerWorkspaceSourceRoutes(router, svc);
}

/**
 * The catalogue area: summaries/checklists/downloads first (their static paths must win
 * over `/:id`), then artists/assets/products and splits. Releases and media (which build on
 * the catalogue) follow them in src/modules/index.ts.
 */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerCatalogueRoutes } from './routes';
import { registerReportRoutes } from './report-routes';
import { registerSplitRoutes } from './split-routes';

export function registerCatalogueArea(router: Router, svc: AppServices): void {
  registerReportRoutes(router, svc);
  registerCatalogueRoutes(router, svc);
  registerSplitRoutes(router, svc);
}

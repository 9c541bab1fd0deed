/**
 * The catalogue area: summaries/checklists/downloads first (their static paths must win
 * over `/:id`), then artists/assets/products, splits, releases and media.
 */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerCatalogueRoutes } from './routes';
import { registerReportRoutes } from './report-routes';
import { registerSplitRoutes } from '../splits/routes';
import { registerReleaseRoutes } from '../releases/routes';

export function registerCatalogueArea(router: Router, svc: AppServices): void {
  registerReportRoutes(router, svc);
  registerCatalogueRoutes(router, svc);
  registerSplitRoutes(router, svc);
  registerReleaseRoutes(router, svc);
}

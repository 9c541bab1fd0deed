/**
 * The catalogue area: summaries/checklists/downloads first (their static paths must win
 * over `/:id`), then artists/assets/products, splits, releases and media.
 */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerCatalogueRoutes } from './routes';
import { registerSplitRoutes } from '../splits/routes';

export function registerCatalogueArea(router: Router, svc: AppServices): void {
  registerCatalogueRoutes(router, svc);
  registerSplitRoutes(router, svc);
}

/**
 * The partner integrations: the FX payout partner and the invoicing partner (the payment
 * processor lives with money, the distributor in ../distributor). See docs/partners.md.
 */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerFxPartnerRoutes } from './fx-routes';
import { registerInvoicerRoutes } from './invoicer-routes';

export function registerPartnerRoutes(router: Router, svc: AppServices): void {
  registerFxPartnerRoutes(router, svc);
  registerInvoicerRoutes(router, svc);
}

/**
 * The money area: accounting (ledger read side, statements), the five resource areas
 * (expenses, revenues, payments, payment requests, payment settings) and the processor
 * integration with its signed webhook. Route files are composed here, never by each other.
 */
import type Router from '@koa/router';
import type { AppServices } from '../../services';
import { registerAccountingRoutes } from './accounting-routes';
import { registerProcessorRoutes } from './processor-routes';
import { registerMoneyResourceRoutes } from './routes';
import { registerStatementRoutes } from './statement-routes';

export function registerMoneyArea(router: Router, svc: AppServices): void {
  registerAccountingRoutes(router, svc);
  registerStatementRoutes(router, svc);
  registerMoneyResourceRoutes(router, svc);
  registerProcessorRoutes(router, svc);
}

/** What every demo seeder receives (demo.ts runs them; catalogue.ts and statements.ts are two). */
import type { AppServices } from '../services';
import type { Trx } from '../db';

export interface DemoContext {
  svc: AppServices;
  trx: Trx;
  tenantId: number;
  users: Record<string, string>; // e-mail local part → tenant user id
}

/**
 * What the partner services share: turning a partner's refusal into the caller's error,
 * and running a few statements in one short tenant transaction (no HTTP call to a partner
 * ever happens while a transaction is open).
 */
import type { AppServices } from '../../services';
import { withTenant, type Trx } from '../../db';
import { AppError, NotFoundError, ValidationError } from '../../lib/errors';
import { PartnerApiError } from './http-client';

export function tx<T>(svc: AppServices, tenantId: number, fn: (trx: Trx) => Promise<T>): Promise<T> {
  return withTenant(svc.db.app, tenantId, fn);
}

/** A partner's answer as our error: its 404 → 404, its other refusals → 400, no answer or a 5xx → 500. */
export function partnerError(err: unknown, what: string): never {
  if (!(err instanceof PartnerApiError)) throw err;
  if (err.httpStatus === 404) throw new NotFoundError(what);
  if (err.httpStatus === 401 || err.httpStatus === 403) throw new ValidationError(`The ${err.partner} partner refused the workspace's credentials`, [], 'PARTNER_AUTH_FAILED');
  if (!err.transient) throw new ValidationError(err.message, [], err.partnerCode ? `PARTNER_${err.partnerCode.toUpperCase()}` : 'PARTNER_REFUSED');
  throw new AppError(500, 'PARTNER_UNAVAILABLE', `The ${err.partner} partner is unavailable, try again later`);
}

/** Run a partner call; its failure becomes our error (see partnerError). */
export async function viaPartner<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    partnerError(err, what);
  }
}

/** Clamp helper for the page/size of partner lists. */
export function pageArgs(q: { page?: number; size?: number }, defSize: number) {
  return { page: q.page ?? 1, size: q.size ?? defSize };
}

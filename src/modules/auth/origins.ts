/**
 * Where links in e-mails may point (sign-in links, reset links, invitations, and the
 * return address after a social sign-in): Rondo's own public URL, or an origin a workspace
 * has registered in its `allowedRedirectOrigins` setting. Registered origins are exact
 * origins (scheme, host, port; no path) and `https` unless ALLOW_HTTP_REDIRECT_ORIGINS is on
 * (development). Anything else is refused with 400 naming the field.
 */
import type { Knex } from 'knex';
import type { Config } from '../../config';
import type { Trx } from '../../db';
import { clock } from '../../lib/clock';
import { NotFoundError, ValidationError } from '../../lib/errors';

export const MAX_REDIRECT_ORIGINS = 20;

/** The exact origin `value` names, or a 400 naming `field`. */
export function parseOrigin(value: string, allowHttp: boolean, field: string): string {
  const bad = (why: string) => new ValidationError('Invalid request', [`${field} ${why}`], 'INVALID_ORIGIN');
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw bad('must be an origin such as https://app.example.com');
  }
  if (u.protocol !== 'https:' && !(allowHttp && u.protocol === 'http:')) throw bad(allowHttp ? 'must use http or https' : 'must use https');
  if (u.username || u.password) throw bad('must not hold a user name or password');
  if (value.replace(/\/$/, '').toLowerCase() !== u.origin.toLowerCase()) throw bad(`must be an exact origin (scheme, host and port only), e.g. ${u.origin}`);
  return u.origin;
}

export async function getRedirectOrigins(trx: Trx, tenantId: number): Promise<string[]> {
  const t = await trx('tenants').where({ id: tenantId }).first('settings');
  if (!t) throw new NotFoundError('Workspace');
  return (t.settings?.allowedRedirectOrigins as string[] | undefined) ?? [];
}

export async function setRedirectOrigins(trx: Trx, tenantId: number, values: string[], allowHttp: boolean): Promise<string[]> {
  const origins = [...new Set(values.map((v, i) => parseOrigin(v, allowHttp, `body.origins[${i}]`)))];
  await trx('tenants')
    .where({ id: tenantId })
    .update({ settings: trx.raw(`settings || jsonb_build_object('allowedRedirectOrigins', ?::jsonb)`, [JSON.stringify(origins)]), updated_at: clock.now() });
  return origins;
}

/** Which workspaces' registrations count for a link. */
export type LinkScope = { tenantId: number } | { recipientUserId: string | undefined };

function registeredBy(owner: Knex, origin: string) {
  return owner('tenants').where('status', 'active').whereRaw(`settings->'allowedRedirectOrigins' @> jsonb_build_array(?::text)`, [origin]);
}

function isOwn(cfg: Config, u: URL): boolean {
  return u.origin === new URL(cfg.publicUrl).origin;
}

/**
 * A redirect target checked on its own: absent → null; else an http(s) URL on Rondo's own
 * origin or on an origin some active workspace registered (https unless allowed), or a 400
 * naming `field`.
 */
export async function checkRedirect(owner: Knex, cfg: Config, redirect: string | undefined, field: string): Promise<URL | null> {
  if (!redirect) return null;
  const bad = (why: string) => new ValidationError('Invalid request', [`${field} ${why}`], 'REDIRECT_NOT_ALLOWED');
  let u: URL;
  try {
    u = new URL(redirect, cfg.publicUrl);
  } catch {
    throw bad('is not a URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw bad('must be an http(s) URL');
  if (u.username || u.password) throw bad('must not hold a user name or password');
  if (isOwn(cfg, u)) return u;
  if (u.protocol !== 'https:' && !cfg.allowHttpRedirectOrigins) throw bad('must use https');
  if (!(await registeredBy(owner, u.origin).first('id'))) throw bad(`must be on ${new URL(cfg.publicUrl).origin} or an origin a workspace registered`);
  return u;
}

/** Rondo's own origin, or one registered by a workspace the person is an active member of. */
export async function allowedForUser(owner: Knex, cfg: Config, u: URL, userId: string): Promise<boolean> {
  if (isOwn(cfg, u)) return true;
  const hit = await registeredBy(owner, u.origin)
    .whereExists((e) => e.select(owner.raw('1')).from('tenant_users as tu').whereRaw('tu.tenant_id = tenants.id').where({ 'tu.user_id': userId, 'tu.status': 'active' }))
    .first('id');
  return !!hit;
}

/**
 * The base URL an e-mailed link is built on: `redirect` when allowed, else `fallback` (on
 * Rondo's own URL). With a workspace (invitations) the origin must be Rondo's own or one that
 * workspace registered, else 400. Without one (forgot password, sign-in link) it must be
 * Rondo's own or registered by some active workspace, else 400; and since that answer must
 * not tell whether the address is known, an origin that no workspace of the recipient
 * registered is not refused: the link falls back to Rondo's own URL.
 */
export async function linkBase(owner: Knex, cfg: Config, redirect: string | undefined, fallback: string, scope: LinkScope, field: string): Promise<URL> {
  const u = await checkRedirect(owner, cfg, redirect, field);
  if (!u) return new URL(fallback);
  if (isOwn(cfg, u)) return u;
  if ('tenantId' in scope) {
    if (!(await registeredBy(owner, u.origin).where('id', scope.tenantId).first('id'))) {
      throw new ValidationError('Invalid request', [`${field} must be on ${new URL(cfg.publicUrl).origin} or an origin this workspace registered`], 'REDIRECT_NOT_ALLOWED');
    }
    return u;
  }
  return scope.recipientUserId && (await allowedForUser(owner, cfg, u, scope.recipientUserId)) ? u : new URL(fallback);
}

/** Adds query parameters to a link base. */
export function withParams(base: URL, params: Record<string, string>): string {
  const u = new URL(base.toString());
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

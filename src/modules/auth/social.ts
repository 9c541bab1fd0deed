/**
 * Social login: a generic OAuth 2.0 authorization-code client, one configuration per
 * provider (social_a, social_b, social_c). The provider's consent screen answers at our
 * callback with a code; we exchange it at the token endpoint, read the user info, and find
 * the person by their provider id (or, on first use, by verified e-mail, linking it).
 * People join workspaces by invitation, so a social login never creates an account.
 */
import type { Knex } from 'knex';
import type { Config, SocialProvider, SocialProviderConfig } from '../../config';
import { clock } from '../../lib/clock';
import { UnauthorizedError, ValidationError } from '../../lib/errors';

export interface SocialProfile {
  id: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export class OAuthClient {
  constructor(
    readonly provider: SocialProvider,
    private readonly c: SocialProviderConfig,
    private readonly redirectUri: string,
  ) {}

  authorizeUrl(state: string): string {
    const u = new URL(this.c.authorizeUrl);
    u.searchParams.set('response_type', 'code');
    u.searchParams.set('client_id', this.c.clientId);
    u.searchParams.set('redirect_uri', this.redirectUri);
    u.searchParams.set('scope', this.c.scope);
    u.searchParams.set('state', state);
    return u.toString();
  }

  async profileForCode(code: string): Promise<SocialProfile> {
    const tokenRes = await fetch(this.c.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: this.redirectUri,
        client_id: this.c.clientId,
        client_secret: this.c.clientSecret,
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const tok = (await tokenRes.json().catch(() => ({}))) as { access_token?: string; error?: string };
    if (!tokenRes.ok || !tok.access_token) throw new UnauthorizedError(`The ${this.provider} sign-in was refused (${tok.error ?? tokenRes.status})`, 'SOCIAL_CODE_REFUSED');
    const infoRes = await fetch(this.c.userinfoUrl, { headers: { authorization: `Bearer ${tok.access_token}`, accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
    if (!infoRes.ok) throw new UnauthorizedError(`Could not read the ${this.provider} profile (${infoRes.status})`, 'SOCIAL_PROFILE_FAILED');
    const info = (await infoRes.json()) as Record<string, unknown>;
    const id = String(info.sub ?? info.id ?? '');
    if (!id) throw new UnauthorizedError(`The ${this.provider} profile has no id`, 'SOCIAL_PROFILE_FAILED');
    return {
      id,
      email: typeof info.email === 'string' ? info.email : null,
      // Providers that do not say are trusted only for linking by an explicit request.
      emailVerified: info.email_verified === true || info.email_verified === 'true',
      name: typeof info.name === 'string' ? info.name : null,
    };
  }
}

export function oauthClient(cfg: Config, provider: string): OAuthClient {
  const c = cfg.social[provider as SocialProvider];
  if (!c) throw new ValidationError(`Social login with ${provider} is not configured on this server`, [], 'PROVIDER_NOT_CONFIGURED');
  return new OAuthClient(provider as SocialProvider, c, `${cfg.publicUrl}/auth/${provider}/callback`);
}

/**
 * The person a provider profile signs in (mode login: by provider id, else by verified
 * e-mail) or is linked to (mode link: the signed-in person who started it, `linkTo`); the
 * provider id is recorded on that person.
 */
export async function socialUser(owner: Knex, provider: string, profile: SocialProfile, linkTo: string | null): Promise<string> {
  let userId: string;
  if (linkTo) {
    userId = linkTo;
    const taken = await owner('users').whereRaw(`social_ids->>? = ?`, [provider, profile.id]).whereNot('id', userId).first('id');
    if (taken) throw new ValidationError(`This ${provider} account is linked to another user`, [], 'SOCIAL_ALREADY_LINKED');
  } else {
    const byId = await owner('users').whereRaw(`social_ids->>? = ?`, [provider, profile.id]).first('id');
    const byEmail = !byId && profile.email && profile.emailVerified ? await owner('users').whereRaw('lower(email) = lower(?)', [profile.email]).first('id') : undefined;
    const found = byId ?? byEmail;
    if (!found) throw new UnauthorizedError(`No Rondo account for this ${provider} sign-in; ask a workspace admin for an invitation`, 'SOCIAL_NO_ACCOUNT');
    userId = found.id;
  }
  await owner('users').where({ id: userId }).update({ social_ids: owner.raw(`social_ids || jsonb_build_object(?::text, ?::text)`, [provider, profile.id]), updated_at: clock.now() });
  return userId;
}

/** Providers linked to the person, sorted. */
export async function connectedProviders(owner: Knex, userId: string): Promise<string[]> {
  const u = await owner('users').where({ id: userId }).first('social_ids');
  return Object.keys(u?.social_ids ?? {}).sort();
}

/** Unlinks a provider, unless it is the person's only way to sign in. */
export async function unlinkProvider(owner: Knex, userId: string, provider: string): Promise<void> {
  const u = await owner('users').where({ id: userId }).first('social_ids', 'password_hash');
  const linked = Object.keys(u?.social_ids ?? {});
  if (!linked.includes(provider)) throw new ValidationError(`${provider} is not linked`, [], 'SOCIAL_NOT_LINKED');
  if (!u.password_hash && linked.length === 1) throw new ValidationError('Set a password or link another provider first: this is your only way to sign in', [], 'LAST_SIGN_IN_METHOD');
  await owner('users').where({ id: userId }).update({ social_ids: owner.raw(`social_ids - ?::text`, [provider]), updated_at: clock.now() });
}

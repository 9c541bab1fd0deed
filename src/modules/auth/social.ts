/**
 * Social login: a generic OAuth 2.0 authorization-code client, one configuration per
 * provider (social_a, social_b, social_c). The provider's consent screen answers at our
 * callback with a code; we exchange it at the token endpoint, read the user info, and find
 * the person by their provider id (or, on first use, by verified e-mail, linking it).
 * People join workspaces by invitation, so a social login never creates an account.
 */
import type { Config, SocialProvider, SocialProviderConfig } from '../../config';
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

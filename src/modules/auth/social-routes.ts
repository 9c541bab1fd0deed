import type Router from '@koa/router';
import type { Context } from 'koa';
import { defineRoutes, route } from '../../http/route';
import { NoBody, Type } from '../../http/schema';
import { WorkspaceSchema } from './routes';
import type { AppServices } from '../../services';
import { SOCIAL_PROVIDERS } from '../../config';
import { AppError, ForbiddenError, UnauthorizedError, ValidationError } from '../../lib/errors';
import { connectedProviders, oauthClient, socialUser, unlinkProvider } from './social';
import { authOf, REFRESH_COOKIE } from './service';
import { REFRESH_TTL_SECONDS } from './tokens';
import { safeEqual } from '../../lib/crypto';
import { allowedForUser, checkRedirect } from './origins';
import * as Res from './responses';

const STATE_COOKIE = 'rondo_oauth_state';
const STATE_TTL = 600;
const Provider = Type.Union(SOCIAL_PROVIDERS.map((p) => Type.Literal(p)));
/**
 * What providers add to the callback besides code, state and error (RFC 6749 4.1.2, RFC 9207
 * `iss`, and the extras of common providers): accepted and not used, so a callback is never
 * refused for them (unknown query parameters are refused everywhere else).
 */
const PROVIDER_CALLBACK_EXTRAS = Object.fromEntries(
  ['error_description', 'error_uri', 'iss', 'scope', 'session_state', 'authuser', 'hd', 'prompt'].map((k) => [k, Type.Optional(Type.String({ maxLength: 4000, description: 'Sent by some providers; not used' }))]),
);

export function registerSocialRoutes(router: Router, svc: AppServices): void {
  const { cfg, signer, db } = svc;
  const auth = authOf(svc);
  const secure = cfg.publicUrl.startsWith('https:');

  async function begin(ctx: Context, provider: string, mode: 'login' | 'link', uid: string | null, redirect: string | undefined) {
    const client = oauthClient(cfg, provider);
    // The return address follows the e-mailed links' rule (docs/security.md): Rondo's own URL or a registered origin.
    const target = await checkRedirect(db.owner, cfg, redirect, 'query.redirect');
    if (target && uid && !(await allowedForUser(db.owner, cfg, target, uid))) {
      throw new ValidationError('Invalid request', ['query.redirect must be on Rondo\'s own URL or an origin one of your workspaces registered'], 'REDIRECT_NOT_ALLOWED');
    }
    const state = await signer.signPurpose('oauth_state', uid ?? 'anonymous', STATE_TTL, { provider, mode, redirect: target?.toString() ?? null });
    // The state is bound to this browser: the callback must bring the same cookie back.
    ctx.cookies.set(STATE_COOKIE, state, { httpOnly: true, sameSite: 'lax', secure, maxAge: STATE_TTL * 1000, overwrite: true });
    return client.authorizeUrl(state);
  }

  const routes = SOCIAL_PROVIDERS.flatMap((provider) => {
    const callback = callbackFor(provider);
    return [
    route({
      method: 'get',
      path: `/auth/${provider}`,
      summary: `Redirect to the ${provider} consent screen`,
      access: 'public',
      query: Type.Object({ redirect: Type.Optional(Type.String({ maxLength: 2000 })) }),
      responses: { 302: NoBody(`Redirect to the ${provider} consent screen`) },
      async handler({ ctx, query }) {
        ctx.redirect(await begin(ctx, provider, 'login', null, query.redirect));
      },
    }),
    route({
      method: 'get',
      path: `/auth/${provider}/callback`,
      summary: `The ${provider} consent screen returns here: code → session; refresh token kept in a cookie`,
      access: 'public',
      query: Type.Object({ code: Type.Optional(Type.String({ maxLength: 4000 })), state: Type.String({ maxLength: 4000 }), error: Type.Optional(Type.String({ maxLength: 500 })), ...PROVIDER_CALLBACK_EXTRAS }),
      responses: {
        200: Type.Union([
          Type.Object({ message: Type.String(), workspaces: Type.Array(WorkspaceSchema) }, { description: 'Signed in (the refresh token is in the httpOnly cookie)' }),
          Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ provider: Type.String() }) }, { description: 'The provider was linked to the signed-in account' }),
        ]),
        302: NoBody('To the redirect the sign-in began with (an origin of one of the person\'s workspaces), or to the sign-in page with the reason'),
      },
      async handler({ ctx, query }) {
        try {
          return await callback(ctx, query);
        } catch (err) {
          // A person's browser lands on the sign-in page with the reason; API clients get the error.
          if (ctx.accepts('json', 'html') !== 'html') throw err;
          const code = err instanceof AppError ? err.code : 'SOCIAL_FAILED';
          if (!(err instanceof AppError)) svc.log.warn({ err, provider }, 'social sign-in failed');
          ctx.cookies.set(STATE_COOKIE, null);
          ctx.redirect(`/app/signin?${new URLSearchParams({ error: code, provider })}`);
        }
      },
    }),
  ]; });

  function callbackFor(provider: string) {
    return async (ctx: Context, query: { code?: string; state: string; error?: string }) => {
      if (query.error) throw new UnauthorizedError(`Sign-in with ${provider} was cancelled (${query.error})`, 'SOCIAL_CANCELLED');
      const cookieState = ctx.cookies.get(STATE_COOKIE);
      if (!cookieState || !safeEqual(cookieState, query.state)) throw new UnauthorizedError('The sign-in state does not match this browser', 'SOCIAL_STATE_MISMATCH');
      const st = await signer.verify<{ provider: string; mode: 'login' | 'link'; redirect: string | null }>(query.state, 'oauth_state');
      if (st.provider !== provider) throw new UnauthorizedError('The sign-in state is for another provider', 'SOCIAL_STATE_MISMATCH');
      ctx.cookies.set(STATE_COOKIE, null);
      if (!query.code) throw new ValidationError('Missing code', ['query.code is required']);
      const profile = await oauthClient(cfg, provider).profileForCode(query.code);

      const userId = await socialUser(db.owner, provider, profile, st.mode === 'link' ? st.sub : null);
      // after sign-in, only to an origin of one of the person's own workspaces (or Rondo's own)
      const back = st.redirect && (await allowedForUser(db.owner, cfg, new URL(st.redirect), userId)) ? st.redirect : null;

      if (st.mode === 'link') {
        if (back) return ctx.redirect(back);
        return { success: true, message: `${provider} linked`, data: { provider } };
      }
      const refresh = await auth.openSession(userId, provider, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
      ctx.cookies.set(REFRESH_COOKIE, refresh, { httpOnly: true, sameSite: 'lax', secure, maxAge: REFRESH_TTL_SECONDS * 1000, overwrite: true });
      if (back) return ctx.redirect(back);
      return { message: 'Login successful', workspaces: await auth.workspacesOf(userId) };
    };
  }

  defineRoutes(router, svc, { tag: 'Auth', errorShape: 'catalogue' }, [
    ...routes,
    route({
      method: 'get',
      path: '/auth/social/providers', responses: { 200: Res.GetAuthSocialProviders },
      summary: 'Social providers connected to your account, and those this server offers',
      access: 'session',
      async handler({ auth: who }) {
        if (!who.userId) throw new ForbiddenError('API keys have no social providers', 'NO_USER');
        return { success: true, message: 'Social providers', data: { connected: await connectedProviders(db.owner, who.userId), available: Object.keys(cfg.social).sort() } };
      },
    }),
    route({
      method: 'post',
      path: '/auth/social/:provider/link', responses: { 200: Res.PostAuthSocialByProviderLink },
      summary: 'Start linking a social provider: returns the consent URL to send the browser to',
      access: 'session',
      params: Type.Object({ provider: Provider }),
      query: Type.Object({ redirect: Type.Optional(Type.String({ maxLength: 2000 })) }),
      async handler({ ctx, auth: who, params, query }) {
        if (!who.userId) throw new ForbiddenError('API keys cannot link providers', 'NO_USER');
        return { success: true, message: 'Continue at the provider', data: { url: await begin(ctx, params.provider, 'link', who.userId, query.redirect) } };
      },
    }),
    route({
      method: 'delete',
      path: '/auth/social/:provider/unlink', responses: { 200: Res.DeleteAuthSocialByProviderUnlink },
      summary: 'Unlink a social provider (refused when it is your only way to sign in)',
      access: 'session',
      params: Type.Object({ provider: Provider }),
      async handler({ auth: who, params }) {
        if (!who.userId) throw new ForbiddenError('API keys cannot unlink providers', 'NO_USER');
        await unlinkProvider(db.owner, who.userId, params.provider);
        return { success: true, message: `${params.provider} unlinked` };
      },
    }),
  ]);
}

import type Router from '@koa/router';
import type { Context } from 'koa';
import { defineRoutes, route } from '../../http/route';
import { Type } from '../../http/schema';
import type { AppServices } from '../../services';
import { SOCIAL_PROVIDERS } from '../../config';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../../lib/errors';
import { clock } from '../../lib/clock';
import { oauthClient } from './social';
import { REFRESH_COOKIE } from './service';
import { REFRESH_TTL_SECONDS } from './tokens';

const STATE_COOKIE = 'rondo_oauth_state';
const STATE_TTL = 600;
const Provider = Type.Union(SOCIAL_PROVIDERS.map((p) => Type.Literal(p)));

function safeRedirect(target: string | undefined, publicUrl: string): string | null {
  if (!target) return null;
  try {
    const u = new URL(target, publicUrl);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

export function registerSocialRoutes(router: Router, svc: AppServices): void {
  const { cfg, auth, signer, db } = svc;
  const secure = cfg.publicUrl.startsWith('https:');

  async function begin(ctx: Context, provider: string, mode: 'login' | 'link', uid: string | null, redirect: string | undefined) {
    const client = oauthClient(cfg, provider);
    const state = await signer.signPurpose('oauth_state', uid ?? 'anonymous', STATE_TTL, { provider, mode, redirect: safeRedirect(redirect, cfg.publicUrl) });
    // The state is bound to this browser: the callback must bring the same cookie back.
    ctx.cookies.set(STATE_COOKIE, state, { httpOnly: true, sameSite: 'lax', secure, maxAge: STATE_TTL * 1000, overwrite: true });
    return client.authorizeUrl(state);
  }

  const routes = SOCIAL_PROVIDERS.flatMap((provider) => [
    route({
      method: 'get',
      path: `/auth/${provider}`,
      summary: `Redirect to the ${provider} consent screen`,
      access: 'public',
      query: Type.Object({ redirect: Type.Optional(Type.String({ maxLength: 2000 })) }),
      async handler({ ctx, query }) {
        ctx.redirect(await begin(ctx, provider, 'login', null, query.redirect));
      },
    }),
    route({
      method: 'get',
      path: `/auth/${provider}/callback`,
      summary: `The ${provider} consent screen returns here: code → session; refresh token kept in a cookie`,
      access: 'public',
      query: Type.Object({ code: Type.Optional(Type.String({ maxLength: 4000 })), state: Type.String({ maxLength: 4000 }), error: Type.Optional(Type.String({ maxLength: 500 })) }),
      async handler({ ctx, query }) {
        if (query.error) throw new UnauthorizedError(`Sign-in with ${provider} was cancelled (${query.error})`, 'SOCIAL_CANCELLED');
        const cookieState = ctx.cookies.get(STATE_COOKIE);
        if (!cookieState || cookieState !== query.state) throw new UnauthorizedError('The sign-in state does not match this browser', 'SOCIAL_STATE_MISMATCH');
        const st = await signer.verify<{ provider: string; mode: 'login' | 'link'; redirect: string | null }>(query.state, 'oauth_state');
        if (st.provider !== provider) throw new UnauthorizedError('The sign-in state is for another provider', 'SOCIAL_STATE_MISMATCH');
        ctx.cookies.set(STATE_COOKIE, null);
        if (!query.code) throw new ValidationError('Missing code', ['query.code is required']);
        const profile = await oauthClient(cfg, provider).profileForCode(query.code);

        let userId: string;
        if (st.mode === 'link') {
          userId = st.sub;
          const taken = await db.owner('users').whereRaw(`social_ids->>? = ?`, [provider, profile.id]).whereNot('id', userId).first('id');
          if (taken) throw new ValidationError(`This ${provider} account is linked to another user`, [], 'SOCIAL_ALREADY_LINKED');
        } else {
          const byId = await db.owner('users').whereRaw(`social_ids->>? = ?`, [provider, profile.id]).first('id');
          const byEmail = !byId && profile.email && profile.emailVerified ? await db.owner('users').whereRaw('lower(email) = lower(?)', [profile.email]).first('id') : undefined;
          const found = byId ?? byEmail;
          if (!found) throw new UnauthorizedError(`No Rondo account for this ${provider} sign-in; ask a workspace admin for an invitation`, 'SOCIAL_NO_ACCOUNT');
          userId = found.id;
        }
        await db.owner('users').where({ id: userId }).update({ social_ids: db.owner.raw(`social_ids || jsonb_build_object(?::text, ?::text)`, [provider, profile.id]), updated_at: clock.now() });

        if (st.mode === 'link') {
          if (st.redirect) return ctx.redirect(st.redirect);
          return { success: true, message: `${provider} linked`, data: { provider } };
        }
        const refresh = await auth.openSession(userId, provider, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
        ctx.cookies.set(REFRESH_COOKIE, refresh, { httpOnly: true, sameSite: 'lax', secure, maxAge: REFRESH_TTL_SECONDS * 1000, overwrite: true });
        if (st.redirect) return ctx.redirect(st.redirect);
        return { message: 'Login successful', workspaces: await auth.workspacesOf(userId) };
      },
    }),
  ]);

  defineRoutes(router, svc, { tag: 'Auth', errorShape: 'catalogue' }, [
    ...routes,
    route({
      method: 'get',
      path: '/auth/social/providers',
      summary: 'Social providers connected to your account, and those this server offers',
      access: 'session',
      async handler({ auth: who }) {
        if (!who.userId) throw new ForbiddenError('API keys have no social providers', 'NO_USER');
        const u = await db.owner('users').where({ id: who.userId }).first('social_ids');
        return { success: true, message: 'Social providers', data: { connected: Object.keys(u?.social_ids ?? {}).sort(), available: Object.keys(cfg.social).sort() } };
      },
    }),
    route({
      method: 'post',
      path: '/auth/social/:provider/link',
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
      path: '/auth/social/:provider/unlink',
      summary: 'Unlink a social provider (refused when it is your only way to sign in)',
      access: 'session',
      params: Type.Object({ provider: Provider }),
      async handler({ auth: who, params }) {
        if (!who.userId) throw new ForbiddenError('API keys cannot unlink providers', 'NO_USER');
        const u = await db.owner('users').where({ id: who.userId }).first('social_ids', 'password_hash');
        const linked = Object.keys(u?.social_ids ?? {});
        if (!linked.includes(params.provider)) throw new ValidationError(`${params.provider} is not linked`, [], 'SOCIAL_NOT_LINKED');
        if (!u.password_hash && linked.length === 1) throw new ValidationError('Set a password or link another provider first: this is your only way to sign in', [], 'LAST_SIGN_IN_METHOD');
        await db.owner('users').where({ id: who.userId }).update({ social_ids: db.owner.raw(`social_ids - ?::text`, [params.provider]), updated_at: clock.now() });
        return { success: true, message: `${params.provider} unlinked` };
      },
    }),
  ]);
}

import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type } from '../../http/schema';
import type { AppServices } from '../../services';
import { getRedirectOrigins, MAX_REDIRECT_ORIGINS, setRedirectOrigins } from './origins';
import * as Res from './responses';

/** The origins e-mailed links of this workspace may point at, besides Rondo's own URL (docs/security.md). */
export function registerOriginRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Workspace settings', errorShape: 'catalogue' }, [
    route({
      method: 'get',
      path: '/settings/redirect-origins', responses: { 200: Res.GetSettingsRedirectOrigins },
      summary: "Origins this workspace's e-mailed links (invitations, sign-in and reset links) may point at, besides Rondo's own URL (admin)",
      access: 'admin',
      async handler({ trx, tenantId }) {
        return { success: true, message: 'Redirect origins', data: { publicUrl: svc.cfg.publicUrl, origins: await getRedirectOrigins(trx, tenantId) } };
      },
    }),
    route({
      method: 'put',
      path: '/settings/redirect-origins', responses: { 200: Res.PutSettingsRedirectOrigins },
      summary: 'Replace the registered origins (admin): exact origins such as https://app.example.com, https only outside development',
      access: 'admin',
      body: Strict({ origins: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: MAX_REDIRECT_ORIGINS }) }),
      async handler({ trx, tenantId, body }) {
        const origins = await setRedirectOrigins(trx, tenantId, body.origins, svc.cfg.allowHttpRedirectOrigins);
        return { success: true, message: 'Redirect origins saved', data: { publicUrl: svc.cfg.publicUrl, origins } };
      },
    }),
  ]);
}

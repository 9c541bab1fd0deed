/**
 * Branding routes (docs/branding.md): read by every member (the dashboard shows it), changed by
 * admins of a workspace whose plan includes `branding`; the logo is public by workspace id (the
 * web app's header and e-mails show it without a token).
 */
import crypto from 'node:crypto';
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import { Text } from '../../http/limits';
import { isMultipart, receiveMultipart, receiveRaw } from '../../http/upload';
import { storageRoom } from '../../domain/quota';
import { objectStore } from '../../lib/storage';
import { ValidationError } from '../../lib/errors';
import type { AppServices } from '../../services';
import { brandingView, LOGO_MAX_BYTES, LOGO_TYPES, publicLogo, removeLogo, replaceLogo, updateBranding } from './service';
import * as Res from './responses';

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);
const Hex = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', maxLength: 7, description: 'A colour as #rrggbb', examples: ['#1f6feb'] });
const BrandingSchema = Type.Object({
  active: Type.Boolean({ description: "Whether the workspace's plan includes branding: when false, e-mails, PDFs and the dashboard use Rondo's defaults" }),
  primaryColor: Type.Union([Hex, Type.Null()]),
  accentColor: Type.Union([Hex, Type.Null()]),
  senderName: Type.Union([Type.String(), Type.Null()]),
  logo: Type.Union([
    Type.Object({ url: Type.String({ examples: ['/branding/6b0c…/logo?v=3f9a…'] }), type: Type.Union(LOGO_TYPES.map((t) => Type.Literal(t))), size: Type.Integer(), updatedAt: Type.String({ format: 'date-time' }) }),
    Type.Null(),
  ]),
});
/** The branding's values as a request gives them (each optional; null clears one). */
export const BrandingFields = { primaryColor: Type.Optional(Nullable(Hex)), accentColor: Type.Optional(Nullable(Hex)), senderName: Type.Optional(Nullable(Text(100, { minLength: 1 }))) };

const answer = Type.Object({ success: Type.Literal(true), data: BrandingSchema });

export function registerBrandingRoutes(router: Router, svc: AppServices): void {
  const store = () => objectStore(svc.cfg);
  defineRoutes(router, svc, { tag: 'Branding', errorShape: 'catalogue', scope: 'workspace' }, [
    route({
      method: 'get',
      path: '/settings/branding',
      summary: "The workspace's branding: colours, sender name, logo, and whether the plan applies it",
      access: 'guest',
      responses: { 200: answer },
      async handler({ trx, tenantId }) {
        return { success: true, data: await brandingView(trx, tenantId) };
      },
    }),
    route({
      method: 'put',
      path: '/settings/branding',
      summary: 'Set colours (#rrggbb) and the sender name of e-mails and statements; null clears one',
      access: 'admin',
      feature: 'branding',
      body: Strict(BrandingFields, { minProperties: 1 }),
      responses: { 200: answer },
      async handler({ trx, tenantId, body }) {
        return { success: true, data: await updateBranding(trx, tenantId, body) };
      },
    }),
    route({
      method: 'put',
      path: '/settings/branding/logo',
      summary: `Upload the logo: multipart "file", or the raw image with Content-Type image/png or image/jpeg; PNG or JPEG only (SVG refused), at most ${LOGO_MAX_BYTES} bytes`,
      description: 'The type is read from the bytes, not from the client; an image the PDF renderer cannot draw is refused (400 INVALID_LOGO). Counts against the storage limit of the plan (403 PLAN_LIMIT_REACHED).',
      access: 'admin',
      feature: 'branding',
      rawBody: true,
      noTransaction: true,
      responses: { 200: answer },
      async handler({ ctx, tenantId }) {
        const src = { stream: ctx.req, headers: ctx.req.headers };
        const s = store();
        const quota = await storageRoom(svc.db.owner, tenantId);
        const keyFor = (id: string) => `t${tenantId}/branding/logo-${id}`;
        let upload: { key: string; size: number; sha256: string };
        if (isMultipart(ctx.req.headers)) {
          const { file } = await receiveMultipart(src, s, keyFor, { maxBytes: LOGO_MAX_BYTES, quota, requireFile: { code: 'FILE_REQUIRED', message: 'No "file" part in the upload' } });
          upload = file!;
        } else {
          const type = String(ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          if (!(LOGO_TYPES as readonly string[]).includes(type)) throw new ValidationError('The logo must be a PNG or JPEG image', ['Content-Type must be image/png or image/jpeg, or send multipart/form-data with a "file" part'], 'INVALID_LOGO');
          const key = keyFor(crypto.randomUUID());
          upload = { key, ...(await receiveRaw(src, s, key, LOGO_MAX_BYTES, quota)) };
        }
        return { success: true, data: await replaceLogo(svc.db.app, s, tenantId, upload) };
      },
    }),
    route({
      method: 'delete',
      path: '/settings/branding/logo',
      summary: 'Remove the logo',
      access: 'admin',
      feature: 'branding',
      noTransaction: true,
      responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String() }) },
      async handler({ tenantId }) {
        await removeLogo(svc.db.app, store(), tenantId);
        return { success: true, message: 'Logo removed' };
      },
    }),
    route({
      method: 'get',
      path: '/branding/:workspaceId/logo', responses: { 200: Res.GetBrandingByWorkspaceIdLogo200, 304: Res.GetBrandingByWorkspaceIdLogo304 },
      summary: "A workspace's logo (public: the web app and e-mails show it); 404 when it has none or its plan lacks branding",
      access: 'public',
      params: Type.Object({ workspaceId: Uuid }),
      // the logo's URL carries its version (the start of its SHA-256) so caches pick up a new logo; any value is accepted
      query: Type.Object({ v: Type.Optional(Type.String({ maxLength: 64, description: 'Cache-busting version, as the branding settings give the URL', examples: ['3f9a0c1d2e4b5a69'] })) }),
      async handler({ ctx, params }) {
        const logo = await publicLogo(svc.db.owner, params.workspaceId);
        ctx.set('ETag', `"${logo.sha256}"`);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', "default-src 'none'");
        ctx.set('Cache-Control', 'public, max-age=300');
        if (ctx.get('if-none-match') === `"${logo.sha256}"`) {
          ctx.status = 304;
          return undefined;
        }
        ctx.type = logo.type;
        ctx.body = await store().getStream(logo.key);
        return undefined;
      },
    }),
  ]);
}

/**
 * POST /ddex/ern/generate: an ERN 4.3 message for a release (docs/ern.md). JSON answer with
 * the XML inside by default; the XML file itself when the client asks for application/xml.
 * Error shape `{status:"error", message}`.
 */
import type Router from '@koa/router';
import { defineRoutes, route } from '../../http/route';
import { Strict, Type, Uuid } from '../../http/schema';
import type { AppServices } from '../../services';
import { generateErn } from './service';
import { assertReleaseVisible } from '../releases/service';
import { MESSAGE_TYPES } from './builder';

const GenerateBody = Strict({
  releaseId: Uuid,
  messageType: Type.Optional(Type.String({ maxLength: 60, examples: ['NewReleaseMessage'], description: `one of ${MESSAGE_TYPES.join(', ')} (default NewReleaseMessage)` })),
  userId: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'the user level of the default-settings chain (default: the caller; null: none)' })),
});
const GenerateResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  data: Type.Object({
    messageId: Type.String({ examples: ['RONDO6F0C2E4B8A1D4F9C9B7E2A3D5C1F0E8B'] }),
    messageType: Type.String({ examples: ['NewReleaseMessage'] }),
    releaseId: Uuid,
    fileName: Type.String({ examples: ['RONDO6F0C2E4B8A1D4F9C9B7E2A3D5C1F0E8B.xml'] }),
    deals: Type.Integer({ description: 'deals written (one per territory)' }),
    xml: Type.String({ examples: ['<?xml version="1.0" encoding="UTF-8"?>\n<ern:NewReleaseMessage xmlns:ern="http://ddex.net/xml/ern/43" …'] }),
  }),
});

export function registerErnRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'DDEX ERN', errorShape: 'status', scope: 'own' }, [
    route({
      method: 'post',
      path: '/ddex/ern/generate',
      summary: 'Write an ERN 4.3 message (NewReleaseMessage or PurgeReleaseMessage) for a release',
      description: 'Parties, sound recordings (ISRC, duration, technical details of the track media), the release (UPC as ICPN) and one deal per territory from the ddex default settings. Missing data is a 400 naming each gap. Send `Accept: application/xml` to get the XML file itself.',
      access: 'user',
      body: GenerateBody,
      responses: { 200: GenerateResponse },
      async handler({ ctx, trx, tenantId, auth, body }) {
        await assertReleaseVisible(trx, auth, body.releaseId); // below admin: their own releases only
        const out = await generateErn(trx, tenantId, auth.tenantUserId, body);
        if (ctx.accepts('application/json', 'application/xml') === 'application/xml') {
          ctx.type = 'application/xml; charset=utf-8';
          ctx.set('Content-Disposition', `attachment; filename="${out.fileName}"`);
          return out.xml;
        }
        return { status: 'success', message: `${out.messageType} written`, data: out };
      },
    }),
  ]);
}

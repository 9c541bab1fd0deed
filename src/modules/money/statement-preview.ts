/**
 * A statement PDF drawn with branding that is not saved yet: the settings page shows it while
 * an admin picks colours and a sender name. The admin's request gets a short-lived signed
 * address (`branding_preview` token: the workspace and the unsaved values); the address
 * answers the PDF itself, so the page can show it in a frame (a frame sends no bearer token).
 * The figures are a fixed sample; the logo is the workspace's saved one. Its routes sit with the
 * statement renderer (branding is what the renderer reads, not the other way round).
 */
import type Router from '@koa/router';
import type { Knex } from 'knex';
import { objectStore, type ObjectStore } from '../../lib/storage';
import type { PurposeSigner } from '../../lib/identity';
import { clock } from '../../lib/clock';
import { dataRoute, defineRoutes, route } from '../../http/route';
import { Strict, Type } from '../../http/schema';
import type { AppServices } from '../../services';
import { BrandingFields } from '../branding/routes';
import { pdfBrand, type BrandingValues } from '../branding/service';
import { renderStatementPdf, type StatementDocument } from './statement-pdf';

export const PREVIEW_PURPOSE = 'branding_preview';
/** How long a preview address works. */
export const PREVIEW_TTL_SECONDS = 10 * 60;

/** The sample statement every preview draws (figures that add up: 1,095.20 − 200.00 + 15.30 = 910.50). */
export function sampleStatement(workspace: string): StatementDocument {
  return {
    kind: 'Royalty statement',
    workspace,
    number: 'No. 42',
    state: 'PREVIEW - sample figures, not a real statement',
    period: '2026-Q3 (2026-07-01 to 2026-09-30)',
    payee: { name: 'Luna Vale', address: ['luna.vale@example.com'] },
    currency: 'EUR',
    quantityHeading: 'Quantity',
    opening: [{ label: 'Opening balance', amount: '15.30' }],
    sections: [
      {
        heading: 'Earnings by store',
        rows: [
          { label: 'Spotify - Night Drive', quantity: '182400', amount: '742.85' },
          { label: 'Apple Music - Night Drive', quantity: '41050', amount: '297.10' },
          { label: 'YouTube - Quiet Harbour', quantity: '96300', amount: '55.25' },
        ],
        total: { label: 'Earnings', amount: '1095.20', bold: true },
      },
      { heading: 'Payments', rows: [{ label: '2026-09-15 Bank transfer', amount: '-200.00' }], total: { label: 'Paid', amount: '-200.00', bold: true } },
    ],
    closing: [{ label: 'Closing balance', amount: '910.50', bold: true }],
    date: new Date('2026-10-01T00:00:00Z'),
  };
}

/** The signed address of a preview of `values` for the workspace (relative to Rondo's URL). */
export async function previewAddress(signer: PurposeSigner, tenantId: number, values: BrandingValues): Promise<{ url: string; expiresAt: string }> {
  const token = await signer.signPurpose(PREVIEW_PURPOSE, String(tenantId), PREVIEW_TTL_SECONDS, { b: values });
  return { url: `/settings/branding/preview/statement.pdf?token=${encodeURIComponent(token)}`, expiresAt: new Date(clock.now().getTime() + PREVIEW_TTL_SECONDS * 1000).toISOString() };
}

/** The PDF a preview address answers. */
export async function previewPdf(db: Knex, store: Pick<ObjectStore, 'getStream'>, signer: PurposeSigner, token: string): Promise<Buffer> {
  const claims = await signer.verify<{ b: BrandingValues }>(token, PREVIEW_PURPOSE);
  const tenantId = Number(claims.sub);
  const saved = await pdfBrand(db, store, tenantId);
  const name = (await db('tenants').where({ id: tenantId }).first('name'))?.name ?? 'Rondo';
  return renderStatementPdf(sampleStatement(name), { ...claims.b, logo: saved.logo });
}

export function registerStatementPreviewRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Branding', errorShape: 'catalogue' }, [
    dataRoute({
      method: 'post',
      path: '/settings/branding/preview/statement',
      summary: `A statement PDF drawn with branding not saved yet (admin): the answer's \`url\` (on Rondo's own URL) answers the PDF for ${PREVIEW_TTL_SECONDS / 60} minutes, so a page can show it in a frame; sample figures, the saved logo`,
      access: 'admin',
      body: Strict(BrandingFields),
      data: Type.Object({ url: Type.String({ examples: ['/settings/branding/preview/statement.pdf?token=eyJhbGciOi…'] }), expiresAt: Type.String({ format: 'date-time' }) }),
      run: ({ tenantId, body }) => previewAddress(svc.signer, tenantId, { primaryColor: body.primaryColor ?? null, accentColor: body.accentColor ?? null, senderName: body.senderName ?? null }),
    }),
    route({
      method: 'get',
      path: '/settings/branding/preview/statement.pdf',
      summary: 'The PDF of a branding preview address (its token is the permission; it expires)',
      access: 'public',
      query: Type.Object({ token: Type.String({ minLength: 1, maxLength: 4000, description: 'from POST /settings/branding/preview/statement', examples: ['eyJhbGciOiJIUzI1NiIsImtpZCI6IjNmOWEifQ.eyJ0eXAiOiJicmFuZGluZ19wcmV2aWV3In0.5m0c8Vd0Zs2n'] }) }),
      responses: { 200: Type.String({ format: 'binary', contentMediaType: 'application/pdf', description: 'A one-page sample statement' }) },
      async handler({ ctx, query }) {
        const pdf = await previewPdf(svc.db.owner, objectStore(svc.cfg), svc.signer, query.token);
        ctx.type = 'application/pdf';
        ctx.set('Content-Disposition', 'inline; filename="statement-preview.pdf"');
        ctx.set('Cache-Control', 'no-store');
        // shown in a frame of the settings page (the app's pages may frame it, nothing else)
        ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'self'");
        ctx.body = pdf;
        return undefined;
      },
    }),
  ]);
}

/**
 * Workspace branding (docs/branding.md): a logo in the object store, two colours and a sender
 * name. What e-mails, PDF statements and the dashboard apply is `getBranding`: the stored
 * branding while the workspace's plan includes the `branding` feature, Rondo's defaults
 * (every value null) otherwise. The logo is PNG or JPEG only (sniffed from its bytes, never
 * from the client's word, and opened by the PDF renderer before it is accepted): SVG is
 * refused, as it can carry scripts and the PDF renderer cannot draw it.
 */
import type { Knex } from 'knex';
import type { ObjectStore } from '../../lib/object-store';
import { withTenant, type Trx } from '../../db';
import { effectivePlanSql } from '../../domain/features';
import { clock } from '../../lib/clock';
import { assertOneLine, NotFoundError, ValidationError } from '../../lib/errors';

/** Largest logo (bytes). */
export const LOGO_MAX_BYTES = 512 * 1024;
export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

export interface BrandingValues {
  primaryColor: string | null;
  accentColor: string | null;
  senderName: string | null;
}

/** The branding to apply (e-mail templates, PDFs, the dashboard). */
export interface Branding extends BrandingValues {
  /** Whether the plan includes branding; when false every value is null (Rondo's defaults). */
  active: boolean;
  /** The logo: its object key (for a renderer), type and public path (`GET /branding/{workspaceId}/logo?v=…`, relative to PUBLIC_URL). */
  logo: { key: string; type: LogoType; sha256: string; path: string } | null;
}

/** What a PDF renderer takes: colours, sender name and the logo's bytes. */
export interface PdfBrand extends BrandingValues {
  logo: Buffer | null;
}

const NONE: BrandingValues = { primaryColor: null, accentColor: null, senderName: null };

async function stored(db: Knex, tenantId: number) {
  return db('tenants as t')
    .leftJoin('workspace_branding as b', 'b.tenant_id', 't.id')
    .join('plans as p', 'p.code', db.raw(effectivePlanSql()))
    .where('t.id', tenantId)
    .first('t.uuid', 'b.*', db.raw(`'branding' = ANY (p.features) AS active`));
}

const logoPath = (uuid: string, sha256: string) => `/branding/${uuid}/logo?v=${sha256.slice(0, 16)}`;

/**
 * The branding in effect for a workspace: call it from any renderer (e-mail templates, PDFs)
 * with the tenant's transaction (or the owner pool).
 */
export async function getBranding(trx: Knex, tenantId: number): Promise<Branding> {
  const r = await stored(trx, tenantId);
  if (!r) throw new NotFoundError('Workspace', 'WORKSPACE_NOT_FOUND');
  if (!r.active) return { ...NONE, active: false, logo: null };
  return {
    active: true,
    primaryColor: r.primary_color ?? null,
    accentColor: r.accent_color ?? null,
    senderName: r.sender_name ?? null,
    logo: r.logo_key ? { key: r.logo_key, type: r.logo_type, sha256: r.logo_sha256, path: logoPath(r.uuid, r.logo_sha256) } : null,
  };
}

/** GET /settings/branding: what is stored, and whether the plan applies it. */
export async function brandingView(trx: Trx, tenantId: number) {
  const r = await stored(trx, tenantId);
  if (!r) throw new NotFoundError('Workspace', 'WORKSPACE_NOT_FOUND');
  return {
    active: !!r.active,
    primaryColor: r.primary_color ?? null,
    accentColor: r.accent_color ?? null,
    senderName: r.sender_name ?? null,
    logo: r.logo_key
      ? { url: logoPath(r.uuid, r.logo_sha256), type: r.logo_type as LogoType, size: Number(r.logo_size), updatedAt: new Date(r.logo_updated_at).toISOString() }
      : null,
  };
}

async function upsert(trx: Trx, tenantId: number, row: Record<string, unknown>) {
  await trx('workspace_branding').insert({ tenant_id: tenantId, ...row, updated_at: clock.now() }).onConflict('tenant_id').merge({ ...row, updated_at: clock.now() });
}

/** PUT /settings/branding: colours (`#rrggbb`, stored lower case) and sender name; null clears one. */
export async function updateBranding(trx: Trx, tenantId: number, patch: Partial<BrandingValues>) {
  const row: Record<string, unknown> = {};
  if (patch.primaryColor !== undefined) row.primary_color = patch.primaryColor?.toLowerCase() ?? null;
  if (patch.accentColor !== undefined) row.accent_color = patch.accentColor?.toLowerCase() ?? null;
  if (patch.senderName !== undefined) {
    assertOneLine(patch.senderName, 'body.senderName', 'sender name');
    row.sender_name = patch.senderName?.trim() || null;
  }
  await upsert(trx, tenantId, row);
  return brandingView(trx, tenantId);
}

/** The image type of these bytes, by their signature (PNG, JPEG); null for anything else. */
export function sniffImage(head: Buffer): LogoType | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  return null;
}

async function readAll(store: Pick<ObjectStore, 'getStream'>, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await store.getStream(key)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Whether the PDF renderer can draw these bytes (a one-image document is made and thrown away). */
async function drawable(bytes: Buffer): Promise<boolean> {
  try {
    const { default: PDFDocument } = await import('pdfkit'); // on first use (docs/operations.md)
    const doc = new PDFDocument({ size: [20, 20], margin: 0 });
    const done = new Promise<boolean>((resolve) => {
      doc.on('data', () => undefined);
      doc.on('end', () => resolve(true));
      doc.on('error', () => resolve(false));
    });
    doc.image(bytes, 0, 0, { fit: [20, 20] });
    doc.end();
    return await done;
  } catch {
    return false;
  }
}

/** The stored upload must be a PNG or JPEG the PDF renderer can open; anything else is removed and refused. */
async function checkLogo(store: Pick<ObjectStore, 'getStream' | 'delete'>, key: string): Promise<LogoType> {
  const bytes = await readAll(store, key);
  const type = sniffImage(bytes);
  if (!type || !(await drawable(bytes))) {
    await store.delete(key);
    throw new ValidationError('The logo must be a PNG or JPEG image', [`file: ${type ? 'the image cannot be read' : 'not a PNG or JPEG (SVG and other formats are not accepted)'}`], 'INVALID_LOGO');
  }
  return type;
}

/**
 * A received logo (already in the store at `upload.key`): checked, then made the workspace's
 * logo; the previous one is removed from the store after the change commits.
 */
export async function replaceLogo(db: Knex, store: Pick<ObjectStore, 'getStream' | 'delete'>, tenantId: number, upload: { key: string; size: number; sha256: string }) {
  const type = await checkLogo(store, upload.key);
  let previous: string | null = null;
  const view = await withTenant(db, tenantId, async (trx) => {
    previous = (await trx('workspace_branding').where({ tenant_id: tenantId }).forUpdate().first('logo_key'))?.logo_key ?? null;
    await upsert(trx, tenantId, { logo_key: upload.key, logo_type: type, logo_size: upload.size, logo_sha256: upload.sha256, logo_updated_at: clock.now() });
    return brandingView(trx, tenantId);
  }).catch(async (err) => {
    await store.delete(upload.key).catch(() => undefined); // not recorded: not kept
    throw err;
  });
  if (previous && previous !== upload.key) await store.delete(previous).catch(() => undefined);
  return view;
}

/** DELETE /settings/branding/logo: the logo goes (row, then object). */
export async function removeLogo(db: Knex, store: Pick<ObjectStore, 'delete'>, tenantId: number): Promise<void> {
  const key = await withTenant(db, tenantId, async (trx) => {
    const r = await trx('workspace_branding').where({ tenant_id: tenantId }).forUpdate().first('logo_key');
    if (!r?.logo_key) throw new NotFoundError('Logo', 'LOGO_NOT_FOUND');
    await trx('workspace_branding').where({ tenant_id: tenantId }).update({ logo_key: null, logo_type: null, logo_size: null, logo_sha256: null, logo_updated_at: null, updated_at: clock.now() });
    return r.logo_key as string;
  });
  await store.delete(key).catch(() => undefined);
}

/** The public logo of a workspace (by its workspace id), while its plan includes branding. */
export async function publicLogo(owner: Knex, workspaceId: string) {
  const t = await owner('tenants').where({ uuid: workspaceId }).first('id');
  const b = t ? await getBranding(owner, t.id) : null;
  if (!b?.logo) throw new NotFoundError('Logo', 'LOGO_NOT_FOUND');
  return b.logo;
}

/** The branding a PDF statement is drawn with (the logo's bytes read from the store). */
export async function pdfBrand(trx: Knex, store: Pick<ObjectStore, 'getStream'>, tenantId: number): Promise<PdfBrand> {
  const b = await getBranding(trx, tenantId);
  const logo = b.logo ? await readAll(store, b.logo.key).catch(() => null) : null;
  return { primaryColor: b.primaryColor, accentColor: b.accentColor, senderName: b.senderName, logo };
}

/**
 * A workspace's e-mail templates (stored overrides of the built-in ones) and the one way
 * Rondo sends an e-mail: `sendMail` renders the workspace's template for the type, applies
 * its sender settings, signs with its verified e-mail domain (DKIM) and goes through its SMTP
 * override when it has one.
 */
import type { Trx } from '../../db';
import { withTenant } from '../../db';
import type { AppServices } from '../../services';
import { clock } from '../../lib/clock';
import type { MailMessage } from '../../lib/mailer';
import { assertTemplate, defaultTemplate, placeholdersOf, render, sampleOf, TEMPLATES, TEMPLATE_TYPES, type TemplateData, type TemplateSource, type TemplateType } from './templates';
import { senderOf } from './settings';
import { getBranding } from '../branding/service';
import { activeWorkspacesOf } from '../../repositories/members';

export type MailDeps = Pick<AppServices, 'mailer' | 'cfg' | 'secrets' | 'db'>;

function templateView(type: TemplateType, row: Record<string, any> | undefined) {
  const def = defaultTemplate(type);
  return {
    type,
    description: TEMPLATES[type].description,
    placeholders: placeholdersOf(type),
    customised: !!row,
    subject: (row?.subject as string) ?? def.subject,
    text: (row?.text as string) ?? def.text,
    html: (row?.html as string | null) ?? null,
    updatedAt: row ? new Date(row.updated_at).toISOString() : null,
  };
}

export async function listTemplates(trx: Trx) {
  const rows = new Map((await trx('email_templates').select('*')).map((r) => [r.type as string, r]));
  return TEMPLATE_TYPES.map((t) => templateView(t, rows.get(t)));
}

export async function getTemplate(trx: Trx, type: TemplateType) {
  return templateView(type, await trx('email_templates').where({ type }).first());
}

export async function saveTemplate(trx: Trx, tenantId: number, type: TemplateType, t: TemplateSource) {
  assertTemplate(type, t);
  await trx('email_templates')
    .insert({ tenant_id: tenantId, type, subject: t.subject, text: t.text, html: t.html ?? null, created_at: clock.now(), updated_at: clock.now() })
    .onConflict(['tenant_id', 'type'])
    .merge(['subject', 'text', 'html', 'updated_at']);
  return getTemplate(trx, type);
}

/** Back to the built-in template. */
export async function resetTemplate(trx: Trx, type: TemplateType) {
  await trx('email_templates').where({ type }).delete();
  return getTemplate(trx, type);
}

/** The template in force: the workspace's, else the built-in one. */
async function effectiveTemplate(trx: Trx | null, type: TemplateType): Promise<TemplateSource> {
  const row = trx ? await trx('email_templates').where({ type }).first() : undefined;
  return row ? { subject: row.subject, text: row.text, html: row.html } : defaultTemplate(type);
}

/**
 * The common placeholders of a workspace. The brand's sender name and colour come from the
 * e-mail settings' sender name (else the workspace name) until workspace branding provides them.
 */
/** The brand colour of mail from a workspace without its own (the web app's default). */
const DEFAULT_PRIMARY = '#3b5bdb';

async function commonData(d: Pick<MailDeps, 'cfg'>, trx: Trx | null, tenantId: number | null): Promise<TemplateData> {
  let name = 'Rondo';
  let senderName: string | null = null;
  let primaryColor: string | null = null;
  if (trx && tenantId !== null) {
    name = (await trx('tenants').where({ id: tenantId }).first('name'))?.name ?? name;
    const brand = await getBranding(trx, tenantId); // the plan's branding, else nulls
    // the e-mail settings' sender name first, then the workspace's brand, then its name
    senderName = (await trx('email_settings').where({ tenant_id: tenantId }).first('from_name'))?.from_name ?? brand.senderName;
    primaryColor = brand.primaryColor;
  }
  return { workspace: { name }, brand: { senderName: senderName ?? name, primaryColor: primaryColor ?? DEFAULT_PRIMARY }, app: { url: d.cfg.publicUrl } };
}

function merge(...parts: TemplateData[]): TemplateData {
  const out: TemplateData = Object.create(null); // keys come from request bodies: no prototype to reach
  for (const p of parts) for (const [k, v] of Object.entries(p)) out[k] = { ...(out[k] ?? {}), ...v };
  return out;
}

/** POST /settings/email-templates/{type}/preview: the given (else stored, else built-in) template with sample data and `data` over it. */
export async function previewTemplate(d: Pick<MailDeps, 'cfg'>, trx: Trx, tenantId: number, type: TemplateType, given: Partial<TemplateSource> & { data?: TemplateData }) {
  const stored = await effectiveTemplate(trx, type);
  const t: TemplateSource = { subject: given.subject ?? stored.subject, text: given.text ?? stored.text, html: given.html !== undefined ? given.html : stored.html };
  assertTemplate(type, t);
  return render(t, merge(sampleOf(type), await commonData(d, trx, tenantId), given.data ?? {}));
}

export interface Recipient {
  email: string;
  name?: string | null;
}

/** Renders and sends one e-mail of `type`; `trx` is the workspace's tenant transaction (null: no workspace, built-in template). */
export async function sendMail(d: MailDeps, trx: Trx | null, tenantId: number | null, type: TemplateType, to: Recipient, data: TemplateData): Promise<void> {
  const t = await effectiveTemplate(trx, type);
  const mail = render(t, merge(await commonData(d, trx, tenantId), { recipient: { name: to.name ?? to.email, email: to.email } }, data));
  const msg: MailMessage = { to: to.email, ...mail };
  const sender = trx && tenantId !== null ? await senderOf(d, trx, tenantId) : null;
  if (sender) Object.assign(msg, sender.headers);
  await d.mailer.send(msg, sender?.via ?? null);
}

/**
 * For mail to a person outside a workspace's context (password reset, sign-in link): the
 * workspace of someone who is an active member of exactly one uses its templates and sender;
 * anyone else gets the built-in template.
 */
export async function sendPersonMail(d: MailDeps, userId: string, type: TemplateType, to: Recipient, data: TemplateData): Promise<void> {
  const rows = await activeWorkspacesOf(d.db.owner, userId, 2);
  if (rows.length !== 1) return sendMail(d, null, null, type, to, data);
  const tenantId = rows[0]!;
  await withTenant(d.db.app, tenantId, (trx) => sendMail(d, trx, tenantId, type, to, data));
}

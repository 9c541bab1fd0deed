/**
 * The e-mail template catalogue and the template language. Pure: no database, no I/O.
 *
 * Every e-mail Rondo sends has a type here, with the placeholders it may use, a built-in
 * default (subject, text; the HTML part is derived from the text unless a workspace gives
 * one) and sample data for previews. A placeholder is `{{name.path}}`; an unknown one is
 * refused when a template is saved; a missing value renders empty. Values are inserted
 * as they are into the subject and text part and HTML-escaped into the HTML part.
 */
import { ValidationError } from '../../lib/errors';

export type TemplateData = Record<string, Record<string, string | number | null | undefined>>;

export interface TemplateDef {
  description: string;
  /** Placeholders this type adds to the common ones. */
  placeholders: readonly string[];
  subject: string;
  text: string;
  sample: TemplateData;
}

/** Every e-mail has these. `brand.*` follows the workspace's branding where it has one. */
export const COMMON_PLACEHOLDERS = ['workspace.name', 'brand.senderName', 'brand.primaryColor', 'recipient.name', 'recipient.email', 'app.url'] as const;

/** A notification e-mail also has these (the in-app notification's fields). */
export const NOTIFICATION_PLACEHOLDERS = ['notification.title', 'notification.content', 'notification.type', 'notification.link'] as const;

const COMMON_SAMPLE: TemplateData = {
  workspace: { name: 'Moonlight Records' },
  brand: { senderName: 'Moonlight Records', primaryColor: '#3b5bdb' },
  recipient: { name: 'Luna Vale', email: 'luna@example.com' },
  app: { url: 'https://rondo.example' },
};

const FOOTER = '\n\n— {{brand.senderName}}';

const notification = (title: string, content: string, link: string, type: string) => ({ notification: { title, content, link, type } });

/** The catalogue. Keys are the template types of the routes (`/settings/email-templates/{type}`). */
export const TEMPLATES = {
  invitation: {
    description: 'Invitation into a workspace (a person invited from People, one by one or in bulk)',
    placeholders: ['invitation.role', 'invitation.roleName', 'invitation.link', 'invitation.instructions', 'invitation.validDays'],
    subject: 'You are invited to {{workspace.name}} on Rondo',
    text: 'Hello {{recipient.name}},\n\n{{workspace.name}} invited you to join them on Rondo as {{invitation.roleName}}. {{invitation.instructions}}:\n\n{{invitation.link}}\n\nThe link works for {{invitation.validDays}} days. If you did not expect this invitation, ignore this e-mail.' + FOOTER,
    sample: { invitation: { role: 'user', roleName: 'a payee: you see your own earnings and statements', link: 'https://rondo.example/app/set-password?token=sample', instructions: 'Open this link and choose a password to accept it; you are then signed in', validDays: 7 } },
  },
  password_reset: {
    description: 'Password reset code and link (someone asked to reset their password)',
    placeholders: ['reset.code', 'reset.token', 'reset.link'],
    subject: 'Reset your Rondo password',
    text: 'Hello,\n\nsomeone asked to reset the password of your Rondo account. Open this link to choose a new one:\n\n{{reset.link}}\n\nIf the page asks for it, your verification code is {{reset.code}}\n\nThe link works for one hour. If you did not ask for this, ignore this e-mail: your password stays as it is.',
    sample: { reset: { code: '123456', token: 'sample-token', link: 'https://rondo.example/app/reset-password?token=sample' } },
  },
  login_link: {
    description: 'Passwordless sign-in link (someone asked for a sign-in link)',
    placeholders: ['login.link'],
    subject: 'Your Rondo sign-in link',
    text: 'Hello,\n\nopen this link to sign in to Rondo without a password:\n\nSign in: {{login.link}}\n\nThe link works once, within 15 minutes. If you did not ask for it, ignore this e-mail.',
    sample: { login: { link: 'https://rondo.example/app/login-link?token=sample' } },
  },
  statement_issued: {
    description: 'A royalty statement was issued to the payee (a statement run issued)',
    placeholders: [...NOTIFICATION_PLACEHOLDERS, 'statement.number', 'statement.period', 'statement.closingBalance', 'statement.currency', 'statement.link'],
    subject: 'Your statement for {{statement.period}} from {{workspace.name}}',
    text: 'Hello {{recipient.name}},\n\nstatement no. {{statement.number}} for {{statement.period}} is ready. Closing balance: {{statement.closingBalance}} {{statement.currency}}.\n\nRead it or download it as a PDF in Rondo:\n\n{{statement.link}}' + FOOTER,
    sample: { ...notification('Statement issued: 2026-Q3', 'Closing balance 1234.56 EUR', 'https://rondo.example/app/me?statement=sample', 'statement.issued'), statement: { number: 42, period: '2026-Q3', closingBalance: '1234.56', currency: 'EUR', link: 'https://rondo.example/app/me?statement=sample' } },
  },
  file_processed: {
    description: 'A statement file was processed (to its uploader, else the admins)',
    placeholders: [...NOTIFICATION_PLACEHOLDERS, 'file.name', 'file.lines', 'file.matched', 'file.total', 'file.currency', 'file.link'],
    subject: 'Statement processed: {{file.name}}',
    text: 'Hello {{recipient.name}},\n\nthe statement file {{file.name}} has been read: {{file.lines}} lines ({{file.matched}} matched to your catalogue), {{file.total}} {{file.currency}}.\n\nSee it in Rondo:\n\n{{file.link}}' + FOOTER,
    sample: { ...notification('Statement processed: spotify-2026-10.csv', '1200 lines (1180 matched), 845.20 EUR', 'https://rondo.example/app/statements?file=sample', 'royalty.file.processed'), file: { name: 'spotify-2026-10.csv', lines: 1200, matched: 1180, total: '845.20', currency: 'EUR', link: 'https://rondo.example/app/statements?file=sample' } },
  },
  file_failed: {
    description: 'A statement file failed (to its uploader, else the admins)',
    placeholders: [...NOTIFICATION_PLACEHOLDERS, 'file.name', 'file.error', 'file.link'],
    subject: 'Statement failed: {{file.name}}',
    text: 'Hello {{recipient.name}},\n\n{{file.name}} could not be processed: {{file.error}}\n\nSee the file in Rondo, and what to do next:\n\n{{file.link}}' + FOOTER,
    sample: { ...notification('Statement failed: spotify-2026-10.csv', 'no source pattern matched', 'https://rondo.example/app/statements?file=sample', 'royalty.file.failed'), file: { name: 'spotify-2026-10.csv', error: 'no source pattern matched', link: 'https://rondo.example/app/statements?file=sample' } },
  },
  payment_status: {
    description: "A payment's state changed (to its payee)",
    placeholders: [...NOTIFICATION_PLACEHOLDERS, 'payment.amount', 'payment.currency', 'payment.status', 'payment.previousStatus', 'payment.reason'],
    subject: 'Payment {{payment.status}}: {{payment.amount}} {{payment.currency}}',
    text: 'Hello {{recipient.name}},\n\nyour payment of {{payment.amount}} {{payment.currency}} is now {{payment.status}} (was {{payment.previousStatus}}). {{payment.reason}}\n\nSee your payments and balance in Rondo:\n\n{{notification.link}}' + FOOTER,
    sample: { ...notification('Payment completed: 250.00 EUR', 'pending → completed', 'https://rondo.example/app/me?payment=sample', 'payment.completed'), payment: { amount: '250.00', currency: 'EUR', status: 'completed', previousStatus: 'pending', reason: '' } },
  },
  release_review: {
    description: "A release's review outcome (to whoever created the release)",
    placeholders: [...NOTIFICATION_PLACEHOLDERS, 'release.title', 'release.status', 'release.message', 'release.link'],
    subject: 'Release "{{release.title}}": {{release.status}}',
    text: 'Your release "{{release.title}}" is now {{release.status}}.\n\n{{release.message}}\n\n{{release.link}}' + FOOTER,
    sample: { ...notification('Release "Night Drive" approved', 'Looks good', 'https://rondo.example/app/notifications?id=sample', 'release.reviewed'), release: { title: 'Night Drive', status: 'approved', message: 'Looks good', link: 'https://rondo.example/app/notifications?id=sample' } },
  },
  notification: {
    description: 'Any other notification (release or track created, invitation sent, …)',
    placeholders: [...NOTIFICATION_PLACEHOLDERS],
    subject: '{{notification.title}}',
    text: '{{notification.content}}\n\nSee it in Rondo:\n\n{{notification.link}}' + FOOTER,
    sample: notification('Release "Night Drive" created', 'Luna Vale — Night Drive was created as a draft.', 'https://rondo.example/app/notifications?id=sample', 'release.created'),
  },
} satisfies Record<string, TemplateDef>;

export type TemplateType = keyof typeof TEMPLATES;

/** A role in the invitation's words (`{{invitation.roleName}}`). */
export const ROLE_NAMES: Record<string, string> = {
  owner: 'an owner: you run the workspace, its members and its owners',
  admin: 'an admin: you run the workspace',
  user: 'a payee: you see your own earnings and statements',
  guest: 'a guest: you see your own earnings',
};
export const TEMPLATE_TYPES = Object.keys(TEMPLATES) as TemplateType[];

export function isTemplateType(t: string): t is TemplateType {
  return Object.hasOwn(TEMPLATES, t);
}

/** Every placeholder a template of `type` may use. */
export function placeholdersOf(type: TemplateType): string[] {
  return [...COMMON_PLACEHOLDERS, ...TEMPLATES[type].placeholders];
}

export function sampleOf(type: TemplateType): TemplateData {
  return { ...COMMON_SAMPLE, ...TEMPLATES[type].sample };
}

const TOKEN = /\{\{([^{}]*)\}\}/g;
const NAME = /^\s*([A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)+)\s*$/;

/** The template's problems (unknown or malformed placeholders), each naming `field`; [] when none. */
export function templateProblems(type: TemplateType, field: string, source: string): string[] {
  const allowed = new Set(placeholdersOf(type));
  const out: string[] = [];
  for (const m of source.matchAll(TOKEN)) {
    const name = NAME.exec(m[1]!)?.[1];
    if (!name) out.push(`${field}: "${m[0]}" is not a placeholder (write {{group.name}})`);
    else if (!allowed.has(name)) out.push(`${field}: unknown placeholder {{${name}}} (${type} knows ${[...allowed].map((p) => `{{${p}}}`).join(', ')})`);
  }
  return out;
}

export interface TemplateSource {
  subject: string;
  text: string;
  html?: string | null;
}

/** Throws a 400 naming every unknown or malformed placeholder. */
export function assertTemplate(type: TemplateType, t: TemplateSource, prefix = 'body'): void {
  const problems = [
    ...templateProblems(type, `${prefix}.subject`, t.subject),
    ...templateProblems(type, `${prefix}.text`, t.text),
    ...(t.html ? templateProblems(type, `${prefix}.html`, t.html) : []),
  ];
  if (problems.length) throw new ValidationError('Unknown placeholder in e-mail template', problems, 'UNKNOWN_PLACEHOLDER');
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function valueOf(data: TemplateData, name: string): string {
  const [group, ...rest] = name.split('.');
  const v = data[group!]?.[rest.join('.')];
  return v === null || v === undefined ? '' : String(v);
}

function fill(source: string, data: TemplateData, escape: (s: string) => string): string {
  return source.replace(TOKEN, (whole, inner: string) => {
    const name = NAME.exec(inner)?.[1];
    return name ? escape(valueOf(data, name)) : whole;
  });
}

/** A web address in escaped text (it ends before white space, an escaped quote or `>`, and a closing punctuation mark). */
const URL_IN_TEXT = /https?:\/\/(?:(?!&quot;|&#39;|&gt;)[^\s<])*(?:(?!&quot;|&#39;|&gt;)[^\s<.,;:!?)»”’])/g;

/**
 * The HTML part a text template implies: escaped text, paragraphs, line breaks, and every web
 * address a link (clickable in any mail reader). Run on the filled text, so a link a value brings
 * (an invitation's, a statement's) is clickable too; `&` in it is escaped as `&amp;`, which a
 * reader turns back into `&` when it follows the link.
 */
export function htmlFromText(text: string, linkColour = '#3b5bdb'): string {
  const colour = /^#[0-9a-f]{6}$/i.test(linkColour) ? linkColour : '#3b5bdb';
  const paras = escapeHtml(text)
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(URL_IN_TEXT, (u) => `<a href="${u}" style="color:${colour}">${u}</a>`).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
  return `<!doctype html>\n<html><body style="font-family:sans-serif;line-height:1.5">\n${paras}\n</body></html>`;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export function render(t: TemplateSource, data: TemplateData): RenderedMail {
  return {
    // a subject is one line: a value cannot add headers
    subject: fill(t.subject, data, (s) => s).replace(/[\r\n]+/g, ' ').trim(),
    text: fill(t.text, data, (s) => s),
    html: t.html ? fill(t.html, data, escapeHtml) : htmlFromText(fill(t.text, data, (s) => s), valueOf(data, 'brand.primaryColor')),
  };
}

/** Built-in template of `type`. */
export function defaultTemplate(type: TemplateType): TemplateSource {
  return { subject: TEMPLATES[type].subject, text: TEMPLATES[type].text, html: null };
}

/** Which template a notification's e-mail uses. */
export function templateForNotification(notificationType: string): TemplateType {
  if (notificationType === 'royalty.file.processed') return 'file_processed';
  if (notificationType === 'royalty.file.failed') return 'file_failed';
  if (notificationType.startsWith('payment.')) return 'payment_status';
  if (notificationType === 'statement.issued') return 'statement_issued';
  if (notificationType === 'release.reviewed') return 'release_review';
  return 'notification';
}

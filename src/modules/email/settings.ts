/**
 * A workspace's e-mail settings: sender name and address, reply-to, and an optional SMTP
 * server of its own (password sealed, never shown again). `senderOf` turns them into what a
 * message needs: From, Reply-To, the DKIM key of a verified e-mail domain, the SMTP override.
 */
import net from 'node:net';
import type { Trx } from '../../db';
import type { AppServices } from '../../services';
import { clock } from '../../lib/clock';
import { ValidationError } from '../../lib/errors';
import type { MailMessage, SmtpOverride } from '../../lib/mailer';
import { assertPublicHost, resolvePublic } from '../../lib/outbound';
import { normaliseDomain } from '../../lib/dns';

export interface EmailSettingsInput {
  fromName?: string | null;
  fromEmail?: string | null;
  replyTo?: string | null;
  smtp?: { host: string; port: number; secure?: boolean; username?: string | null; password?: string } | null;
}

function view(r: Record<string, any> | undefined) {
  return {
    fromName: (r?.from_name as string | null) ?? null,
    fromEmail: (r?.from_email as string | null) ?? null,
    replyTo: (r?.reply_to as string | null) ?? null,
    smtp: r?.smtp_host
      ? { host: r.smtp_host as string, port: r.smtp_port as number, secure: !!r.smtp_secure, username: (r.smtp_username as string | null) ?? null, passwordSet: !!r.smtp_password_sealed }
      : null,
  };
}

export async function getEmailSettings(trx: Trx, tenantId: number) {
  return view(await trx('email_settings').where({ tenant_id: tenantId }).first());
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** Saves the fields given (omitted ones stay; null clears). The SMTP username and password stay unless given. */
/** SMTP ports a workspace may use (any port with ALLOW_PRIVATE_OUTBOUND=true): a workspace cannot probe other services. */
export const SMTP_PORTS = [25, 465, 587, 2525];

function smtpUrl(host: string): URL {
  return new URL(`smtp://${net.isIPv6(host) ? `[${host}]` : host}`);
}

export async function saveEmailSettings(d: Pick<AppServices, 'secrets' | 'cfg'>, trx: Trx, tenantId: number, p: EmailSettingsInput) {
  const row: Record<string, unknown> = {};
  if (p.fromName !== undefined) {
    if (p.fromName !== null && /[\r\n"<>]/.test(p.fromName)) throw new ValidationError('Invalid sender name', ['body.fromName must not hold line breaks, quotes or angle brackets']);
    row.from_name = p.fromName || null;
  }
  if (p.fromEmail !== undefined) {
    if (p.fromEmail) {
      const domain = domainOf(p.fromEmail);
      const known = await trx('email_domains').where({ tenant_id: tenantId }).whereRaw('lower(domain) = ?', [domain]).first('id');
      if (!known) throw new ValidationError('The sender address needs an e-mail domain of this workspace', [`body.fromEmail: add ${domain} to the workspace's e-mail domains (Settings, E-mail domains) and verify it first`], 'EMAIL_DOMAIN_REQUIRED');
    }
    row.from_email = p.fromEmail ? p.fromEmail.toLowerCase() : null;
  }
  if (p.replyTo !== undefined) row.reply_to = p.replyTo || null;
  if (p.smtp === null) Object.assign(row, { smtp_host: null, smtp_port: null, smtp_secure: null, smtp_username: null, smtp_password_sealed: null });
  else if (p.smtp) {
    const host = p.smtp.host.trim().toLowerCase().replace(/^\[|\]$/g, '');
    if (!net.isIP(host)) normaliseDomain(host, 'body.smtp.host');
    if (!d.cfg.allowPrivateOutbound && !SMTP_PORTS.includes(p.smtp.port)) throw new ValidationError('Invalid SMTP port', [`body.smtp.port must be one of ${SMTP_PORTS.join(', ')}`]);
    await assertPublicHost(smtpUrl(host), d.cfg.allowPrivateOutbound); // a private or unknown host is refused now, not at the first send
    Object.assign(row, { smtp_host: host, smtp_port: p.smtp.port, smtp_secure: p.smtp.secure ?? p.smtp.port === 465 });
    if (p.smtp.username !== undefined) row.smtp_username = p.smtp.username || null;
    if (p.smtp.password !== undefined) row.smtp_password_sealed = p.smtp.password ? d.secrets.seal(p.smtp.password) : null;
  }
  await trx('email_settings')
    .insert({ tenant_id: tenantId, ...row, created_at: clock.now(), updated_at: clock.now() })
    .onConflict('tenant_id')
    .merge([...Object.keys(row), 'updated_at']);
  return getEmailSettings(trx, tenantId);
}

/** `Name <address>` → its parts. */
function parseFrom(from: string): { name: string | null; address: string } {
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  return m ? { name: m[1]!.trim() || null, address: m[2]!.trim() } : { name: null, address: from.trim() };
}

export interface Sender {
  headers: Pick<MailMessage, 'from' | 'replyTo' | 'dkim'>;
  via: SmtpOverride | null;
}

/**
 * How the workspace's mail goes out. The From address: the settings' `fromEmail` when its
 * domain is verified, else `no-reply@` the first verified e-mail domain, else MAIL_FROM's.
 * A From on a verified domain is DKIM-signed with that domain's key.
 */
export async function senderOf(d: Pick<AppServices, 'cfg' | 'secrets'>, trx: Trx, tenantId: number): Promise<Sender> {
  const s = await trx('email_settings').where({ tenant_id: tenantId }).first();
  const verified = await trx('email_domains').where({ tenant_id: tenantId, status: 'verified' }).orderBy('verified_at').orderBy('id').select('domain', 'selector', 'dkim_private_key_sealed');
  const base = parseFrom(d.cfg.mailFrom);
  let address = base.address;
  let domain = verified.find((v) => s?.from_email && domainOf(s.from_email) === v.domain.toLowerCase());
  if (domain) address = s.from_email;
  else if (verified.length) {
    domain = verified[0];
    address = `no-reply@${domain.domain}`;
  }
  const name = s?.from_name ?? base.name;
  const headers: Sender['headers'] = { from: name ? `"${name}" <${address}>` : address };
  if (s?.reply_to) headers.replyTo = s.reply_to;
  if (domain) headers.dkim = { domainName: domain.domain, keySelector: domain.selector, privateKey: d.secrets.open(domain.dkim_private_key_sealed) };
  let via: SmtpOverride | null = null;
  if (s?.smtp_host) {
    // a workspace's server is a host a user typed: the outbound guard applies (no private addresses)
    const to = await resolvePublic(smtpUrl(s.smtp_host), d.cfg.allowPrivateOutbound);
    via = { host: s.smtp_host, address: to.address, port: s.smtp_port, secure: !!s.smtp_secure, username: s.smtp_username, password: s.smtp_password_sealed ? d.secrets.open(s.smtp_password_sealed) : null };
  }
  return { headers, via };
}

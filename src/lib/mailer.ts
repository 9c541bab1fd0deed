/**
 * Outbound e-mail behind one adapter. SMTP_URL set: a real SMTP client (nodemailer).
 * Unset: each message is written as an .eml file under DATA_DIR/mail, so a local user can
 * open the link in it. A message may carry its own sender, reply-to, HTML part and DKIM key
 * (a workspace's verified e-mail domain), and may go through a workspace's own SMTP server
 * (`via`) instead of the process-wide one.
 */
import type { Transporter } from 'nodemailer';
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import { AppError } from './errors';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Sender (`"Name" <address>`); default: MAIL_FROM. */
  from?: string;
  replyTo?: string;
  /** Sign with this DKIM key (the sender's domain, verified). */
  dkim?: { domainName: string; keySelector: string; privateKey: string };
}

/** A workspace's own SMTP server. `address` is the checked address to dial (the outbound guard resolved `host`). */
export interface SmtpOverride {
  host: string;
  address: string;
  port: number;
  secure: boolean;
  username: string | null;
  password: string | null;
}

export interface Mailer {
  send(msg: MailMessage, via?: SmtpOverride | null): Promise<void>;
}

function envelope(msg: MailMessage, from: string) {
  return { ...msg, from: msg.from ?? from };
}

/** One message through a workspace's SMTP server: dials the checked address, verifies TLS for the host name. */
async function sendVia(via: SmtpOverride, msg: MailMessage, from: string): Promise<void> {
  const transport = (await nodemailerModule()).createTransport({
    host: via.address,
    port: via.port,
    secure: via.secure,
    auth: via.username ? { user: via.username, pass: via.password ?? '' } : undefined,
    tls: { servername: via.host },
    connectionTimeout: 15_000,
    socketTimeout: 30_000,
  });
  try {
    await transport.sendMail(envelope(msg, from));
  } catch (err) {
    // the workspace's own server: its answer is the workspace admin's to see and fix
    throw new AppError(502, 'WORKSPACE_SMTP_FAILED', "The workspace's SMTP server did not take the message", [`${via.host}:${via.port}: ${(err as Error).message.slice(0, 300)}`]);
  } finally {
    transport.close();
  }
}

/** nodemailer, loaded on the first message rather than at start (the API process's memory, docs/operations.md). */
async function nodemailerModule() {
  return (await import('nodemailer')).default;
}

export class SmtpMailer implements Mailer {
  private transport: Promise<Transporter> | null = null;
  constructor(private readonly url: string, private readonly from: string) {}
  async send(msg: MailMessage, via?: SmtpOverride | null): Promise<void> {
    if (via) return sendVia(via, msg, this.from);
    this.transport ??= nodemailerModule().then((m) => m.createTransport(this.url));
    await (await this.transport).sendMail(envelope(msg, this.from));
  }
}

let fileSeq = 0;

export class FileMailer implements Mailer {
  private transport: Promise<Transporter> | null = null;
  constructor(private readonly dir: string, private readonly from: string) {}
  async send(msg: MailMessage, via?: SmtpOverride | null): Promise<void> {
    if (via) return sendVia(via, msg, this.from);
    this.transport ??= nodemailerModule().then((m) => m.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
    const info = (await (await this.transport).sendMail(envelope(msg, this.from))) as unknown as { message: Buffer };
    await fs.mkdir(this.dir, { recursive: true });
    // sortable: time, then a per-process sequence for messages written in the same millisecond
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(++fileSeq).padStart(6, '0')}-${crypto.randomBytes(3).toString('hex')}.eml`;
    await fs.writeFile(path.join(this.dir, name), info.message);
  }
}

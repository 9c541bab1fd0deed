/**
 * Outbound e-mail behind one adapter. SMTP_URL set: a real SMTP client (nodemailer).
 * Unset: each message is written as an .eml file under DATA_DIR/mail, so a local user can
 * open the link in it.
 */
import nodemailer from 'nodemailer';
import fs from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(msg: MailMessage): Promise<void>;
}

export class SmtpMailer implements Mailer {
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;
  constructor(url: string, private readonly from: string) {
    this.transport = nodemailer.createTransport(url);
  }
  async send(msg: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...msg });
  }
}

let fileSeq = 0;

export class FileMailer implements Mailer {
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  constructor(private readonly dir: string, private readonly from: string) {}
  async send(msg: MailMessage): Promise<void> {
    const info = (await this.transport.sendMail({ from: this.from, ...msg })) as unknown as { message: Buffer };
    await fs.mkdir(this.dir, { recursive: true });
    // sortable: time, then a per-process sequence for messages written in the same millisecond
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(++fileSeq).padStart(6, '0')}-${crypto.randomBytes(3).toString('hex')}.eml`;
    await fs.writeFile(path.join(this.dir, name), info.message);
  }
}

/** A local SMTP server on loopback (smtp-server): what the real SMTP mailer sends, as parsed mails. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message as received. */
  data: string;
  subject: string;
  text: string;
}

export interface FakeSmtp {
  /** For SMTP_URL / SmtpMailer. */
  url: string;
  received: ReceivedMail[];
  /** Mails whose envelope names `to` (case-insensitive). */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const data = Buffer.concat(chunks).toString('utf8');
        simpleParser(data).then(
          (parsed) => {
            const from = session.envelope.mailFrom ? (session.envelope.mailFrom as { address: string }).address : '';
            received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), data, subject: parsed.subject ?? '', text: parsed.text ?? '' });
            cb();
          },
          (err: Error) => cb(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    received,
    to: (address) => received.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

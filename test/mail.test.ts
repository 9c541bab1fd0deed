import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { SmtpMailer } from '../src/lib/mailer';

describe('mail adapter: real SMTP client against a local SMTP server', () => {
  it('delivers a message over SMTP', async () => {
    const received: { from: string; to: string[]; data: string }[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, cb) {
        let data = '';
        stream.on('data', (c: Buffer) => (data += c.toString()));
        stream.on('end', () => {
          received.push({ from: session.envelope.mailFrom ? (session.envelope.mailFrom as { address: string }).address : '', to: session.envelope.rcptTo.map((r) => r.address), data });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.server.address() as AddressInfo).port;
    try {
      const mailer = new SmtpMailer(`smtp://127.0.0.1:${port}?ignoreTLS=true`, 'Rondo <no-reply@rondo.test>');
      await mailer.send({ to: 'artist@example.com', subject: 'Statement ready', text: 'Your statement for 2026-10 is ready.' });
      assert.equal(received.length, 1);
      assert.deepEqual(received[0]!.to, ['artist@example.com']);
      assert.equal(received[0]!.from, 'no-reply@rondo.test');
      assert.match(received[0]!.data, /Subject: Statement ready/);
      assert.match(received[0]!.data, /Your statement for 2026-10 is ready\./);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

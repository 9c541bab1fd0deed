import assert from 'node:assert/strict';
import { SmtpMailer } from '../src/lib/mailer';
import { startFakeSmtp } from './helpers/smtp';

describe('mail adapter: real SMTP client against a local SMTP server', () => {
  it('delivers a message over SMTP', async () => {
    const smtp = await startFakeSmtp();
    try {
      const mailer = new SmtpMailer(smtp.url, 'Rondo <no-reply@rondo.test>');
      await mailer.send({ to: 'artist@example.com', subject: 'Statement ready', text: 'Your statement for 2026-10 is ready.' });
      assert.equal(smtp.received.length, 1);
      assert.deepEqual(smtp.received[0]!.to, ['artist@example.com']);
      assert.equal(smtp.received[0]!.from, 'no-reply@rondo.test');
      assert.match(smtp.received[0]!.data, /Subject: Statement ready/);
      assert.match(smtp.received[0]!.text, /Your statement for 2026-10 is ready\./);
    } finally {
      await smtp.close();
    }
  });
});

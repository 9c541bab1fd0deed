import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { startTestApp, createTestTenant, type TestApp, type TestTenant } from '../helpers/app';
import { mailsTo } from '../helpers/mail';
import { verifyDkim } from '../helpers/dkim';
import { FakeTxtResolver } from '../../src/lib/dns';
import { TEMPLATE_TYPES } from '../../src/modules/email/templates';
import { saveEmailSettings } from '../../src/modules/email/settings';
import { withTenant } from '../../src/db';

/** Raw .eml texts the file mailer wrote for `to`, oldest first. */
async function rawMailsTo(dataDir: string, to: string): Promise<string[]> {
  const dir = path.join(dataDir, 'mail');
  const out: string[] = [];
  for (const f of (await fs.readdir(dir).catch(() => [] as string[])).sort()) {
    const raw = await fs.readFile(path.join(dir, f), 'utf8');
    const parsed = await simpleParser(raw);
    if ([parsed.to].flat().some((a) => a?.value.some((v) => v.address?.toLowerCase() === to.toLowerCase()))) out.push(raw);
  }
  return out;
}

describe('e-mail: templates, settings, e-mail domains with DKIM', function () {
  this.timeout(60_000);
  let app: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  const dns = new FakeTxtResolver();
  let n = 0;
  const invite = async (t: TestTenant) => {
    const email = `invitee${++n}@elsewhere.example`;
    const r = await app.request('POST', '/auth/invite', { token: t.users.admin!.token, body: { email, role: 'user', firstName: 'Ina' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return email;
  };

  before(async () => {
    app = await startTestApp();
    app.svc.dns = dns;
    a = await createTestTenant(app, 'MailA');
    b = await createTestTenant(app, 'MailB');
  });
  after(async () => app.close());

  describe('templates', () => {
    it('lists every e-mail type with its placeholders and the built-in template', async () => {
      const r = await app.request('GET', '/settings/email-templates', { token: a.users.admin!.token });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data.map((t: any) => t.type), TEMPLATE_TYPES);
      for (const t of ['invitation', 'password_reset', 'login_link', 'statement_issued', 'file_processed']) assert.ok(TEMPLATE_TYPES.includes(t as never), t);
      const inv = r.body.data.find((t: any) => t.type === 'invitation');
      assert.equal(inv.customised, false);
      assert.ok(inv.placeholders.includes('invitation.link'));
      assert.ok(inv.placeholders.includes('brand.senderName'));
      assert.equal((await app.request('GET', '/settings/email-templates', { token: a.users.user!.token })).status, 403);
    });

    it('refuses an unknown or malformed placeholder at save time (400 naming it)', async () => {
      const r = await app.request('PUT', '/settings/email-templates/invitation', { token: a.users.admin!.token, body: { subject: 'Hi {{recipient.name}}', text: 'Join: {{invitation.lnk}}' } });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'UNKNOWN_PLACEHOLDER');
      assert.match(r.body.error.details.join(' '), /body\.text: unknown placeholder \{\{invitation\.lnk\}\}/);
      const m = await app.request('PUT', '/settings/email-templates/login_link', { token: a.users.admin!.token, body: { subject: '{{ not a name }}', text: '{{login.link}}' } });
      assert.equal(m.status, 400);
      assert.match(m.body.error.details.join(' '), /body\.subject/);
      // a placeholder of another type is unknown here
      assert.equal((await app.request('PUT', '/settings/email-templates/login_link', { token: a.users.admin!.token, body: { subject: 'x', text: '{{reset.code}}' } })).status, 400);
      assert.equal((await app.request('PUT', '/settings/email-templates/nope', { token: a.users.admin!.token, body: { subject: 'x', text: 'y' } })).status, 400);
    });

    it('previews with sample or given data: values escaped in html, as given in text', async () => {
      const r = await app.request('POST', '/settings/email-templates/file_processed/preview', {
        token: a.users.admin!.token,
        body: { html: '<h1>{{file.name}}</h1><p>{{workspace.name}}</p>', data: { file: { name: '<script>x</script> & co' } } },
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.subject, 'Statement processed: <script>x</script> & co');
      assert.match(r.body.data.text, /^Hello Luna Vale,\n\nthe statement file <script>x<\/script> & co has been read: 1200 lines \(1180 matched to your catalogue\), 845\.20 EUR\./);
      assert.match(r.body.data.html, /^<h1>&lt;script&gt;x&lt;\/script&gt; &amp; co<\/h1><p>MailA \d+<\/p>$/);
      // nothing was saved
      assert.equal((await app.request('GET', '/settings/email-templates/file_processed', { token: a.users.admin!.token })).body.data.customised, false);
      const bad = await app.request('POST', '/settings/email-templates/file_processed/preview', { token: a.users.admin!.token, body: { text: '{{payment.amount}}' } });
      assert.equal(bad.status, 400);
    });

    it("a saved template is the workspace's own: used for its mail, invisible to others, deleted back to the default", async () => {
      const put = await app.request('PUT', '/settings/email-templates/invitation', {
        token: a.users.admin!.token,
        body: { subject: 'Join {{workspace.name}}, {{recipient.name}}', text: 'Role {{invitation.role}}: {{invitation.link}}', html: '<p>{{invitation.link}}</p>' },
      });
      assert.equal(put.status, 200);
      assert.equal(put.body.data.customised, true);
      const email = await invite(a);
      const [mail] = await mailsTo(app.dataDir, email);
      assert.match(mail!, /^Subject: Join MailA \d+, Ina\n/);
      assert.match(mail!, /Role user: http:\/\/\S+token=/);
      // the other workspace still has the built-in one
      assert.equal((await app.request('GET', '/settings/email-templates/invitation', { token: b.users.admin!.token })).body.data.customised, false);
      const other = await invite(b);
      assert.match((await mailsTo(app.dataDir, other))[0]!, /^Subject: You are invited to MailB \d+ on Rondo\n/);
      // the workspace's admins and owners hear of the invitation
      const note = (await app.request('GET', '/notifications?type=invitation.sent', { token: b.users.owner!.token })).body.data.notifications;
      assert.deepEqual(note.map((x: any) => x.title), [`${other} was invited to ${note[0]?.title.split(' was invited to ')[1]}`]);
      assert.equal(note[0].metadata.email, other);
      assert.equal((await app.request('DELETE', '/settings/email-templates/invitation', { token: b.users.admin!.token })).body.data.customised, false);
      assert.equal((await app.request('GET', '/settings/email-templates/invitation', { token: a.users.admin!.token })).body.data.customised, true);
      const del = await app.request('DELETE', '/settings/email-templates/invitation', { token: a.users.admin!.token });
      assert.equal(del.body.data.customised, false);
      assert.match(del.body.data.subject, /You are invited to \{\{workspace\.name\}\}/);
    });

    it('a password reset for a member of one workspace uses that workspace\'s template', async () => {
      await app.request('PUT', '/settings/email-templates/password_reset', { token: a.users.admin!.token, body: { subject: '{{workspace.name}} reset', text: 'Code {{reset.code}} {{reset.link}}' } });
      const r = await app.request('POST', '/auth/forgotpassword', { body: { email: a.users.guest!.email }, ip: '10.99.0.1' });
      assert.equal(r.status, 200);
      const mail = (await mailsTo(app.dataDir, a.users.guest!.email)).at(-1)!;
      assert.match(mail, /^Subject: MailA \d+ reset\n\nCode [A-Z0-9]+ http/);
    });
  });

  describe('settings', () => {
    it('saves sender, reply-to and an SMTP override; the password is sealed and never shown', async () => {
      const r = await app.request('PUT', '/settings/email', {
        token: a.users.admin!.token,
        body: { fromName: 'Moonlight Royalties', replyTo: 'royalties@moonlight.example', smtp: { host: '127.0.0.1', port: 2525, username: 'mailer', password: 'sm7p-s3cret' } },
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data, { fromName: 'Moonlight Royalties', fromEmail: null, replyTo: 'royalties@moonlight.example', smtp: { host: '127.0.0.1', port: 2525, secure: false, username: 'mailer', passwordSet: true } });
      assert.ok(!r.text.includes('sm7p-s3cret'));
      const row = await app.svc.db.owner('email_settings').where({ tenant_id: a.tenantId }).first();
      assert.ok(!String(row.smtp_password_sealed).includes('sm7p-s3cret'));
      assert.equal(app.svc.secrets.open(row.smtp_password_sealed), 'sm7p-s3cret');
      assert.ok(!(await app.request('GET', '/settings/email', { token: a.users.admin!.token })).text.includes('sm7p-s3cret'));
      // the other workspace has none of it
      assert.deepEqual((await app.request('GET', '/settings/email', { token: b.users.admin!.token })).body.data, { fromName: null, fromEmail: null, replyTo: null, smtp: null });
      assert.equal((await app.request('GET', '/settings/email', { token: a.users.user!.token })).status, 403);
      const bad = await app.request('PUT', '/settings/email', { token: a.users.admin!.token, body: { fromEmail: 'me@not-ours.example' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'EMAIL_DOMAIN_REQUIRED');
      assert.equal((await app.request('PUT', '/settings/email', { token: a.users.admin!.token, body: { fromName: 'Evil\r\nBcc: x@y.example' } })).status, 400);
    });

    it('without ALLOW_PRIVATE_OUTBOUND an SMTP override may not point inside the network or at a non-SMTP port', async () => {
      const strict = { secrets: app.svc.secrets, cfg: { ...app.cfg, allowPrivateOutbound: false } };
      const save = (smtp: { host: string; port: number }) => withTenant(app.svc.db.app, a.tenantId, (trx) => saveEmailSettings(strict, trx, a.tenantId, { smtp }));
      await assert.rejects(save({ host: '127.0.0.1', port: 587 }), (e: any) => e.status === 400 && e.code === 'LINK_NOT_ALLOWED');
      await assert.rejects(save({ host: '10.0.0.8', port: 25 }), (e: any) => e.code === 'LINK_NOT_ALLOWED');
      await assert.rejects(save({ host: '203.0.113.9', port: 6379 }), (e: any) => e.status === 400 && /body\.smtp\.port/.test(e.details[0]));
      await assert.rejects(save({ host: 'smtp..example', port: 587 }), (e: any) => e.status === 400 && /body\.smtp\.host/.test(e.details[0]));
    });

    it("the workspace's mail goes through its own SMTP server, with its login, sender and reply-to", async () => {
      const got: { user: string; pass: string; data: string }[] = [];
      let login = { user: '', pass: '' };
      const server = new SMTPServer({
        disabledCommands: ['STARTTLS'],
        allowInsecureAuth: true,
        onAuth(auth, _s, cb) {
          login = { user: auth.username ?? '', pass: auth.password ?? '' };
          cb(null, { user: auth.username });
        },
        onData(stream, _s, cb) {
          let data = '';
          stream.on('data', (c: Buffer) => (data += c.toString()));
          stream.on('end', () => {
            got.push({ ...login, data });
            cb();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      let stopped: Promise<void> | null = null;
      const stop = () => (stopped ??= new Promise<void>((resolve) => server.close(() => resolve())));
      try {
        const port = (server.server.address() as AddressInfo).port;
        assert.equal((await app.request('PUT', '/settings/email', { token: a.users.admin!.token, body: { smtp: { host: '127.0.0.1', port } } })).status, 200);
        const email = await invite(a);
        assert.equal(got.length, 1);
        assert.equal(got[0]!.user, 'mailer');
        assert.equal(got[0]!.pass, 'sm7p-s3cret'); // kept from the earlier save
        assert.match(got[0]!.data, /^From: "?Moonlight Royalties"? <no-reply@rondo\.local>/m);
        assert.match(got[0]!.data, /^Reply-To: royalties@moonlight\.example/m);
        assert.match(got[0]!.data, new RegExp(`^To: ${email.replace('.', '\\.')}`, 'm'));
        assert.equal((await mailsTo(app.dataDir, email)).length, 0);
        // the server gone: the admin gets a 502 naming it, and the invitation is not made
        await stop();
        const down = await app.request('POST', '/auth/invite', { token: a.users.admin!.token, body: { email: 'nobody@elsewhere.example', role: 'user' } });
        assert.equal(down.status, 502);
        assert.equal(down.body.error.code, 'WORKSPACE_SMTP_FAILED');
        assert.match(down.body.error.details[0], new RegExp(`^127\\.0\\.0\\.1:${port}: `));
      } finally {
        await stop();
        await app.request('PUT', '/settings/email', { token: a.users.admin!.token, body: { smtp: null } });
      }
    });
  });

  describe('e-mail domains', () => {
    let domainId = '';
    let dkimKey = '';
    const DOMAIN = 'mail.moonlight.example';

    it('are a plan feature: the free plan answers 403 FEATURE_REQUIRED', async () => {
      const r = await app.request('GET', '/email-domains', { token: a.users.admin!.token });
      assert.equal(r.status, 403);
      assert.equal(r.body.error.code, 'FEATURE_REQUIRED');
      await app.svc.db.owner('tenants').whereIn('id', [a.tenantId, b.tenantId]).update({ plan: 'pro' });
    });

    it('adding one generates an RSA 2048 DKIM key (private key sealed) and shows the records to publish', async () => {
      const r = await app.request('POST', '/email-domains', { token: a.users.admin!.token, body: { domain: 'Mail.Moonlight.Example.' } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const d = r.body.data;
      domainId = d.id;
      assert.equal(d.domain, DOMAIN);
      assert.equal(d.status, 'pending');
      assert.deepEqual(d.records.map((x: any) => [x.purpose, x.type, x.name]), [
        ['verification', 'TXT', `_rondo-verify.${DOMAIN}`],
        ['dkim', 'TXT', `${d.selector}._domainkey.${DOMAIN}`],
        ['spf', 'TXT', DOMAIN],
      ]);
      assert.equal(d.records[2].value, 'v=spf1 include:_spf.rondo.local ~all');
      dkimKey = /p=([A-Za-z0-9+/=]+)$/.exec(d.records[1].value)![1]!;
      const pub = crypto.createPublicKey({ key: Buffer.from(dkimKey, 'base64'), format: 'der', type: 'spki' });
      assert.equal(pub.asymmetricKeyDetails?.modulusLength, 2048);
      const row = await app.svc.db.owner('email_domains').where({ id: d.id }).first();
      assert.ok(!row.dkim_private_key_sealed.includes('PRIVATE KEY'));
      assert.match(app.svc.secrets.open(row.dkim_private_key_sealed), /^-----BEGIN PRIVATE KEY-----/);
      assert.ok(!r.text.includes('PRIVATE'));
      assert.equal((await app.request('POST', '/email-domains', { token: a.users.admin!.token, body: { domain: DOMAIN } })).status, 400);
      assert.equal((await app.request('POST', '/email-domains', { token: a.users.admin!.token, body: { domain: 'http://x.example/a' } })).status, 400);
    });

    it('verifies through the DNS adapter: pending until ownership and DKIM records are found', async () => {
      const r = await app.request('POST', `/email-domains/${domainId}/verify`, { token: a.users.admin!.token });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.status, 'pending');
      assert.deepEqual(r.body.data.checks, { verification: false, dkim: false, spf: false });
      assert.match(r.body.data.lastError, /_domainkey/);
      const records = r.body.data.records as { name: string; value: string }[];
      dns.set(records[0]!.name, [records[0]!.value]);
      // a DKIM record published in chunks with spaces still matches
      dns.set(records[1]!.name, [records[1]!.value.replace('; p=', ';  p= ')]);
      dns.set(records[2]!.name, ['v=spf1 include:_spf.rondo.local include:other.example ~all']);
      const ok = await app.request('POST', `/email-domains/${domainId}/verify`, { token: a.users.admin!.token });
      assert.equal(ok.body.data.status, 'verified');
      assert.deepEqual(ok.body.data.checks, { verification: true, dkim: true, spf: true });
      assert.equal(ok.body.data.lastError, null);
    });

    it("the workspace's mail is then sent from the verified domain and DKIM-signed with its key", async () => {
      assert.equal((await app.request('PUT', '/settings/email', { token: a.users.admin!.token, body: { fromEmail: `royalties@${DOMAIN}` } })).status, 200);
      const email = await invite(a);
      const [raw] = await rawMailsTo(app.dataDir, email);
      assert.match(raw!, new RegExp(`^From: "?Moonlight Royalties"? <royalties@${DOMAIN.replace(/\./g, '\\.')}>`, 'm'));
      const v = verifyDkim(raw!, dkimKey);
      assert.equal(v.domain, DOMAIN);
      assert.ok(v.signedHeaders.includes('from') && v.signedHeaders.includes('subject'));
      // the check can fail: another key does not verify it
      const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      assert.throws(() => verifyDkim(raw!, other), /signature does not verify/);
      // B's mail is neither from nor signed for A's domain
      const mailB = (await rawMailsTo(app.dataDir, await invite(b)))[0]!;
      assert.doesNotMatch(mailB, /DKIM-Signature/i);
      assert.match(mailB, /^From: Rondo <no-reply@rondo\.local>/m);
    });

    it("another workspace cannot read, verify or delete it; deleting it drops the sender address", async () => {
      for (const [m, p] of [['GET', `/email-domains/${domainId}`], ['POST', `/email-domains/${domainId}/verify`], ['DELETE', `/email-domains/${domainId}`]] as const) {
        assert.equal((await app.request(m, p, { token: b.users.admin!.token })).status, 404, `${m} ${p}`);
      }
      assert.deepEqual((await app.request('GET', '/email-domains', { token: b.users.admin!.token })).body.data, []);
      assert.equal((await app.request('GET', '/email-domains', { token: a.users.user!.token })).status, 403);
      assert.equal((await app.request('DELETE', `/email-domains/${domainId}`, { token: a.users.admin!.token })).status, 200);
      assert.equal((await app.request('GET', '/settings/email', { token: a.users.admin!.token })).body.data.fromEmail, null);
      assert.equal((await app.request('GET', `/email-domains/${domainId}`, { token: a.users.admin!.token })).status, 404);
    });
  });
});

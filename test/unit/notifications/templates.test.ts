import assert from 'node:assert/strict';
import { assertTemplate, defaultTemplate, htmlFromText, placeholdersOf, render, sampleOf, TEMPLATE_TYPES, templateForNotification, templateProblems } from '../../../src/modules/email/templates';
import { channelAllowed, DEFAULT_CHANNELS } from '../../../src/modules/notifications/preferences';
import { notificationData } from '../../../src/modules/notifications/deliveries';

describe('e-mail templates (pure)', () => {
  it('every built-in template uses only its own placeholders, and its sample fills every one of them', () => {
    for (const type of TEMPLATE_TYPES) {
      assert.doesNotThrow(() => assertTemplate(type, defaultTemplate(type)), type);
      const sample = sampleOf(type);
      for (const p of placeholdersOf(type)) {
        const [g, k] = p.split('.');
        assert.ok(sample[g!] && k! in sample[g!]!, `${type}: sample lacks ${p}`);
      }
      const out = render(defaultTemplate(type), sample);
      assert.doesNotMatch(out.subject + out.text + out.html, /\{\{/, type);
    }
  });

  it('names unknown and malformed placeholders with their field', () => {
    assert.deepEqual(templateProblems('login_link', 'body.text', 'Go {{login.link}} {{ login.link }}'), []);
    const p = templateProblems('login_link', 'body.text', '{{login.url}} {{ two words }} {{x}}');
    assert.equal(p.length, 3);
    assert.match(p[0]!, /^body\.text: unknown placeholder \{\{login\.url\}\}/);
    assert.match(p[1]!, /^body\.text: "\{\{ two words \}\}" is not a placeholder/);
    assert.match(p[2]!, /is not a placeholder/);
    assert.throws(() => assertTemplate('invitation', { subject: '{{reset.code}}', text: 'x' }), (e: any) => e.status === 400 && e.code === 'UNKNOWN_PLACEHOLDER' && /body\.subject/.test(e.details[0]));
  });

  it('escapes values in html only; a subject stays one line; missing values render empty', () => {
    const out = render({ subject: 'Hi {{recipient.name}}', text: 'A {{recipient.name}} B {{workspace.name}}.', html: '<b>{{recipient.name}}</b>' }, { recipient: { name: '<i>"Ann"\r\nBcc: x@y</i> & co' }, workspace: {} });
    assert.equal(out.subject, 'Hi <i>"Ann" Bcc: x@y</i> & co');
    assert.equal(out.text, 'A <i>"Ann"\r\nBcc: x@y</i> & co B .');
    assert.equal(out.html, '<b>&lt;i&gt;&quot;Ann&quot;\r\nBcc: x@y&lt;/i&gt; &amp; co</b>');
  });

  it('derives the html part from the text: escaped, paragraphs and line breaks', () => {
    assert.match(htmlFromText('a < b\nc\n\n{{login.link}}'), /<p>a &lt; b<br>c<\/p>\n<p>\{\{login\.link\}\}<\/p>/);
    const out = render({ subject: 's', text: 'Link: {{login.link}}' }, { login: { link: 'https://x.example/?a=1&b=2' } });
    assert.match(out.html, /<p>Link: <a href="https:\/\/x\.example\/\?a=1&amp;b=2" style="color:#3b5bdb">https:\/\/x\.example\/\?a=1&amp;b=2<\/a><\/p>/);
    // a link ends before a closing punctuation mark or an escaped quote; the brand colour colours it
    const branded = render({ subject: 's', text: 'See "{{login.link}}". Or {{login.link}}, then.' }, { login: { link: 'https://x.example/app/a' }, brand: { primaryColor: '#112233' } });
    assert.equal(branded.html.match(/<a href="https:\/\/x\.example\/app\/a" style="color:#112233">https:\/\/x\.example\/app\/a<\/a>/g)?.length, 2);
    assert.match(branded.html, /&quot;<a [^>]+>[^<]+<\/a>&quot;\. Or <a [^>]+>[^<]+<\/a>, then\./);
  });

  it('maps notification types to their template and metadata to its group', () => {
    assert.equal(templateForNotification('royalty.file.processed'), 'file_processed');
    assert.equal(templateForNotification('royalty.file.failed'), 'file_failed');
    assert.equal(templateForNotification('payment.reversed'), 'payment_status');
    assert.equal(templateForNotification('statement.issued'), 'statement_issued');
    assert.equal(templateForNotification('release.reviewed'), 'release_review');
    assert.equal(templateForNotification('track.created'), 'notification');
    const d = notificationData({ type: 'royalty.file.processed', title: 'T', content: 'C', action_url: '/file/1', resource_type: 'file', resource_id: 'f1', metadata: { name: 'a.csv', lines: 3, nested: { x: 1 } } }, 'https://r.example/base');
    const page = 'https://r.example/base/app/statements?file=f1';
    assert.deepEqual(d, { notification: { title: 'T', content: 'C', type: 'royalty.file.processed', link: page }, file: { name: 'a.csv', lines: 3, link: page } });
  });

  it('links every e-mail to a web app page, never to an API route', () => {
    const link = (n: Record<string, unknown>) => notificationData({ type: 'x', title: 'T', ...n }, 'https://r.example').notification!.link;
    assert.equal(link({ resource_type: 'statement', resource_id: 's1', action_url: '/statements/s1' }), 'https://r.example/app/me?statement=s1');
    assert.equal(link({ resource_type: 'payment', resource_id: 'p1', action_url: '/payments/p1' }), 'https://r.example/app/me?payment=p1');
    assert.equal(link({ resource_type: 'user', resource_id: 'u1', action_url: '/user/u1' }), 'https://r.example/app/people');
    assert.equal(link({ id: 'n1', resource_type: 'release', resource_id: 'r1', action_url: '/releases/r1' }), 'https://r.example/app/notifications?id=n1');
    for (const type of TEMPLATE_TYPES) {
      const out = render(defaultTemplate(type), sampleOf(type));
      for (const part of [out.text, out.html]) {
        assert.doesNotMatch(part, /\b(GET|POST|PUT|PATCH|DELETE) \//, `${type}: names no route`);
        for (const [u] of part.matchAll(/https?:\/\/[^\s"<]+/g)) assert.match(u, /^https:\/\/rondo\.example\/app\//, `${type}: ${u} is a web app page`);
      }
      assert.match(out.html, /<a href="https:\/\/rondo\.example\/app\//, `${type}: its link is clickable in the HTML part`);
    }
  });
});

describe('notification preferences decide channels (pure)', () => {
  it('type setting, else the channel setting, else the default', () => {
    for (const c of ['inApp', 'email', 'sms', 'push'] as const) {
      assert.equal(channelAllowed(undefined, 't', c), DEFAULT_CHANNELS[c]);
      for (const v of [true, false]) {
        assert.equal(channelAllowed({ channels: { [c]: v } }, 't', c), v);
        assert.equal(channelAllowed({ channels: { [c]: !v }, types: { t: { [c]: v } } }, 't', c), v);
        assert.equal(channelAllowed({ channels: { [c]: !v }, types: { other: { [c]: v } } }, 't', c), !v);
      }
    }
    // a member's own actions are quiet outside the app unless the type turns a channel on
    assert.equal(channelAllowed({ channels: { email: true } }, 'track.created', 'email'), false);
    assert.equal(channelAllowed(undefined, 'release.created', 'inApp'), true);
    assert.equal(channelAllowed({ types: { 'track.created': { email: true } } }, 'track.created', 'email'), true);
  });
});

import assert from 'node:assert/strict';
import { createTestTenant, type TestTenant } from '../helpers/app';
import { startPartnerRun, type PartnerRun } from './helpers';

/** Distributor credentials (docs/partners.md): sealed, masked, rotated; never in a body or a log line. */
describe('partners: distributor credentials', function () {
  let run: PartnerRun;
  let a: TestTenant;
  let b: TestTenant;
  const token1 = 'dtok_first_' + 'a1b2c3d4e5f6a7b8c9d0';
  const token2 = 'dtok_second_' + 'f00dfacecafe1234beef';
  const revoked = 'revoked_' + 'deadbeefdeadbeef9999';
  const secret1 = 'whsec_' + '0123456789abcdef0123';
  const url = '/ddex/distributor/credentials';

  before(async () => {
    run = await startPartnerRun();
    a = await createTestTenant(run.app, 'DistA');
    b = await createTestTenant(run.app, 'DistB');
  });
  after(async () => run.close());

  it('answers an unconfigured status before anything is set', async () => {
    const r = await run.app.request('GET', url, { token: a.users.admin!.token });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data, {
      providerSeeded: true, configured: false, isEnabled: false, credentialState: 'missing', hasToken: false, tokenHint: null,
      tokenUpdatedAt: null, hasWebhookSecret: false, webhookSecretUpdatedAt: null,
    });
  });

  it('admins set them; the answer is exactly the masked status of docs/partners.md', async () => {
    const r = await run.app.request('PUT', url, { token: a.users.admin!.token, body: { token: token1, webhookSecret: secret1 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'success');
    assert.deepEqual(Object.keys(r.body.data).sort(), ['configured', 'credentialState', 'hasToken', 'hasWebhookSecret', 'isEnabled', 'providerSeeded', 'tokenHint', 'tokenUpdatedAt', 'webhookSecretUpdatedAt']);
    assert.equal(r.body.data.tokenHint, token1.slice(-4));
    assert.equal(r.body.data.credentialState, 'valid');
    assert.equal(r.body.data.hasToken, true);
    assert.equal(r.body.data.hasWebhookSecret, true);
    assert.ok(!Number.isNaN(Date.parse(r.body.data.tokenUpdatedAt)));
    assert.ok(!Number.isNaN(Date.parse(r.body.data.webhookSecretUpdatedAt)));
    assert.ok(run.sb.distributor.requests.some((q) => q.path === '/v1/me' && q.headers.authorization === `Bearer ${token1}`), 'the token was checked with the distributor');
  });

  it('stores them encrypted', async () => {
    const row = await run.app.svc.db.owner('distributor_credentials').where({ tenant_id: a.tenantId }).first();
    const all = JSON.stringify(row);
    assert.ok(!all.includes(token1) && !all.includes(secret1));
    assert.equal(run.app.svc.secrets.open(row.token_sealed), token1);
    assert.equal(run.app.svc.secrets.open(row.webhook_secret_sealed), secret1);
  });

  it('rotating the token keeps the webhook secret when none is sent', async () => {
    const before = (await run.app.request('GET', url, { token: a.users.owner!.token })).body.data;
    await new Promise((r) => setTimeout(r, 5));
    const r = await run.app.request('PUT', url, { token: a.users.owner!.token, body: { token: token2 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.tokenHint, token2.slice(-4));
    assert.equal(r.body.data.hasWebhookSecret, true);
    assert.equal(r.body.data.webhookSecretUpdatedAt, before.webhookSecretUpdatedAt);
    assert.notEqual(r.body.data.tokenUpdatedAt, before.tokenUpdatedAt);
  });

  it('a token the distributor refuses is stored as invalid', async () => {
    const r = await run.app.request('PUT', url, { token: a.users.admin!.token, body: { token: revoked } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.credentialState, 'invalid');
    const back = await run.app.request('PUT', url, { token: a.users.admin!.token, body: { token: token2 } });
    assert.equal(back.body.data.credentialState, 'valid');
  });

  it('members and guests get 403; another workspace sees only its own (nothing)', async () => {
    for (const role of ['user', 'guest']) {
      const g = await run.app.request('GET', url, { token: a.users[role]!.token });
      assert.equal(g.status, 403);
      assert.equal(g.body.status, 'error');
      const p = await run.app.request('PUT', url, { token: a.users[role]!.token, body: { token: 'x'.repeat(12) } });
      assert.equal(p.status, 403);
    }
    const other = await run.app.request('GET', url, { token: b.users.admin!.token });
    assert.equal(other.body.data.configured, false);
  });

  it('bad input is a 400 in the status shape that never echoes the token', async () => {
    const short = await run.app.request('PUT', url, { token: a.users.admin!.token, body: { token: 'short' } });
    assert.equal(short.status, 400);
    assert.equal(short.body.status, 'error');
    const extra = await run.app.request('PUT', url, { token: a.users.admin!.token, body: { token: token1, webhookSecret: secret1, other: 1 } });
    assert.equal(extra.status, 400);
    // a body that is not JSON: the parser's message must not quote the token back
    const malformed = await run.app.request('PUT', url, { token: a.users.admin!.token, raw: `{"token": "${token1}", "webhookSecret": "${secret1}",`, headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.status, 'error');
    const garbled = await run.app.request('PUT', url, { token: a.users.admin!.token, raw: `[${token1}]`, headers: { 'content-type': 'application/json' } });
    assert.equal(garbled.status, 400);
    assert.ok(!garbled.text.includes(token1.slice(0, 6)), garbled.text);
  });

  it('no response body and no log line of this run carries a token or the webhook secret', () => {
    run.assertNoLeak([token1, token2, revoked, secret1]);
  });
});

/** Security headers, CORS and the METRICS_TOKEN rule, through real HTTP. */
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app';

describe('ops: security headers and CORS', function () {
  this.timeout(60_000);
  let plain: TestApp;
  let open: TestApp;

  before(async () => {
    plain = await startTestApp();
    open = await startTestApp({ config: { corsOrigins: ['https://app.example.com'], publicUrl: 'https://rondo.example.com', metricsToken: 'metrics-token-123' } });
  });
  after(async () => {
    await plain?.close();
    await open?.close();
  });

  it('every response carries the security headers; the CSP allows our own scripts and styles only', async () => {
    for (const p of ['/health', '/no/such/route', '/docs']) {
      const r = await plain.request('GET', p);
      const csp = r.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'self'/, p);
      assert.match(csp, /script-src 'self'(;|$)/, `${p}: no inline or foreign scripts`);
      assert.match(csp, /style-src 'self' 'unsafe-inline'/, p);
      assert.match(csp, /frame-ancestors 'none'/, p);
      assert.doesNotMatch(csp, /upgrade-insecure-requests/, `${p}: plain http must keep working`);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', p);
      assert.equal(r.headers.get('x-frame-options'), 'SAMEORIGIN', p);
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer', p);
      assert.equal(r.headers.get('strict-transport-security'), null, `${p}: no HSTS over http`);
      assert.equal(r.headers.get('x-powered-by'), null, p);
    }
    const docs = await plain.request('GET', '/docs');
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get('content-type') ?? '', /html/);
  });

  it('an https PUBLIC_URL adds HSTS and upgrade-insecure-requests', async () => {
    const r = await open.request('GET', '/health');
    assert.match(r.headers.get('strict-transport-security') ?? '', /max-age=\d+; includeSubDomains/);
    assert.match(r.headers.get('content-security-policy') ?? '', /upgrade-insecure-requests/);
  });

  it('CORS is off by default: no allow-origin for any origin, preflight included', async () => {
    const r = await plain.request('GET', '/health', { headers: { origin: 'https://app.example.com' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
    const pre = await plain.request('OPTIONS', '/auth/login', { headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    assert.equal(pre.headers.get('access-control-allow-origin'), null);
  });

  it('CORS_ORIGINS: a listed origin gets CORS with credentials, preflight answered; others get none', async () => {
    const pre = await open.request('OPTIONS', '/auth/login', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.equal(pre.headers.get('access-control-allow-credentials'), 'true');
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /Authorization/);

    const r = await open.request('POST', '/auth/login', { headers: { origin: 'https://app.example.com' }, body: { email: 'nobody@example.com', password: 'wrong-password' } });
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://app.example.com', 'error answers carry CORS too');
    assert.match(r.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
    assert.match(r.headers.get('vary') ?? '', /Origin/);

    const other = await open.request('GET', '/health', { headers: { origin: 'https://evil.example.net' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const otherPre = await open.request('OPTIONS', '/auth/login', { headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'POST' } });
    assert.equal(otherPre.headers.get('access-control-allow-origin'), null);
  });

  it('METRICS_TOKEN: /metrics wants the bearer token; without METRICS_TOKEN it is open', async () => {
    assert.equal((await open.request('GET', '/metrics')).status, 401);
    assert.equal((await open.request('GET', '/metrics', { token: 'wrong-token-1234567' })).status, 401);
    const ok = await open.request('GET', '/metrics', { token: 'metrics-token-123' });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /^# HELP rondo_/m);
    assert.equal((await plain.request('GET', '/metrics')).status, 200);
  });
});

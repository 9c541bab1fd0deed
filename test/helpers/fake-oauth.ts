/**
 * A local OAuth 2.0 provider speaking the authorization-code protocol: /token exchanges a
 * code issued by `issueCode()` (checking client credentials and redirect_uri), /userinfo
 * answers for the access token. For social-login tests only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import crypto from 'node:crypto';

export interface FakeOAuth {
  base: string;
  clientId: string;
  clientSecret: string;
  issueCode(profile: Record<string, unknown>, redirectUri: string): string;
  tokenRequests: number;
  close(): Promise<void>;
}

export async function startFakeOAuth(): Promise<FakeOAuth> {
  const codes = new Map<string, { profile: Record<string, unknown>; redirectUri: string }>();
  const tokens = new Map<string, Record<string, unknown>>();
  const clientId = 'rondo-test-client';
  const clientSecret = 'shh-' + crypto.randomBytes(6).toString('hex');
  const state = { tokenRequests: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST' && url.pathname === '/token') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        state.tokenRequests++;
        const p = new URLSearchParams(raw);
        if (p.get('grant_type') !== 'authorization_code') return json(400, { error: 'unsupported_grant_type' });
        if (p.get('client_id') !== clientId || p.get('client_secret') !== clientSecret) return json(401, { error: 'invalid_client' });
        const c = codes.get(p.get('code') ?? '');
        if (!c || c.redirectUri !== p.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
        codes.delete(p.get('code')!);
        const at = crypto.randomBytes(12).toString('hex');
        tokens.set(at, c.profile);
        json(200, { access_token: at, token_type: 'Bearer', expires_in: 3600 });
      });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/userinfo') {
      const at = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const profile = at ? tokens.get(at) : undefined;
      return profile ? json(200, profile) : json(401, { error: 'invalid_token' });
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    clientId,
    clientSecret,
    issueCode(profile, redirectUri) {
      const code = crypto.randomBytes(8).toString('hex');
      codes.set(code, { profile, redirectUri });
      return code;
    },
    get tokenRequests() {
      return state.tokenRequests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

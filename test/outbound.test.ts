import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertPublicHost, guardedFetch, isPrivateAddress, type OutboundPolicy, type ResolvedAddress } from '../src/lib/outbound';
import { checkTrackLink } from '../src/modules/releases/media';

/** A resolver answering from a table (no external DNS); counts its calls. */
function fakeResolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const a = table[host];
    if (!a) throw new Error(`ENOTFOUND ${host}`);
    return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

const PRIVATE_FORMS = [
  // loopback, in every IPv4 notation
  '127.0.0.1', '127.255.255.254', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '0x7f000001', '127.1', '017700000001',
  // private, carrier-grade NAT, link-local (cloud metadata), unspecified, broadcast, multicast, reserved
  '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254', '0.0.0.0', '0', '255.255.255.255', '224.0.0.1', '240.0.0.1', '192.0.2.1',
  // IPv6: loopback, unspecified, unique-local, link-local (with a zone), multicast
  '::1', '::', 'fd00::1', 'fc00::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1',
  // IPv4 inside IPv6: mapped (both notations), NAT64, 6to4, Teredo
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::7f00:1', '2002:7f00:1::1', '2001:0::1',
  // not an address at all
  'not-an-ip', '',
];
const PUBLIC_FORMS = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '134744072' /* 8.8.8.8 as one decimal */];

describe('outbound guard for user-given URLs', () => {
  it('classifies every loopback, private, link-local and mapped form as private, and public unicast as public', () => {
    for (const ip of PRIVATE_FORMS) assert.equal(isPrivateAddress(ip), true, ip);
    for (const ip of PUBLIC_FORMS) assert.equal(isPrivateAddress(ip), false, ip);
  });

  it('refuses private literals in URLs, whatever their notation', async () => {
    const deny: OutboundPolicy = { allowPrivate: false, resolve: fakeResolver({}).resolve };
    for (const host of ['127.0.0.1', '2130706433', '0177.0.0.1', '0x7f.1', '127.1', '0.0.0.0', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[fe80::1]', '169.254.169.254', '10.0.0.1']) {
      await assert.rejects(assertPublicHost(new URL(`http://${host}:9/x.mp3`), deny), (e: any) => e.code === 'LINK_NOT_ALLOWED' && e.status === 400, host);
    }
  });

  it('refuses a name when any DNS answer points inside; accepts one whose answers are all public', async () => {
    const r = fakeResolver({
      'inside.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '10.0.0.5'],
      'mapped.example': ['::ffff:192.168.0.1'],
      'metadata.example': ['169.254.169.254'],
      'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
    });
    const deny: OutboundPolicy = { allowPrivate: false, resolve: r.resolve };
    for (const host of ['inside.example', 'mixed.example', 'mapped.example', 'metadata.example']) {
      await assert.rejects(assertPublicHost(new URL(`https://${host}/a.mp3`), deny), (e: any) => e.code === 'LINK_NOT_ALLOWED', host);
    }
    await assertPublicHost(new URL('https://public.example/a.mp3'), deny);
    await assert.rejects(assertPublicHost(new URL('https://nowhere.example/a.mp3'), deny), (e: any) => e.code === 'LINK_UNREACHABLE');
  });

  it('ALLOW_PRIVATE_OUTBOUND lets loopback through (tests, local demos)', async () => {
    await assertPublicHost(new URL('http://127.0.0.1:9/x.mp3'), true);
    await assert.rejects(assertPublicHost(new URL('http://127.0.0.1:9/x.mp3'), false), /private or local/);
  });

  describe('requests', () => {
    let server: http.Server;
    let port = 0;
    const hits: string[] = [];
    before(async () => {
      server = http.createServer((req, res) => {
        hits.push(`${req.headers.host} ${req.url}`);
        if (req.url === '/hop') {
          res.writeHead(302, { location: '/final.mp3' });
          return res.end();
        }
        if (req.url === '/to-loopback') {
          res.writeHead(302, { location: `http://127.0.0.1:${port}/final.mp3` });
          return res.end();
        }
        if (req.url === '/to-inside-name') {
          res.writeHead(301, { location: `http://inside.example:${port}/final.mp3` });
          return res.end();
        }
        if (req.url === '/to-file') {
          res.writeHead(302, { location: 'file:///etc/passwd' });
          return res.end();
        }
        if (req.url === '/loop') {
          res.writeHead(302, { location: '/loop' });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': '4' });
        res.end(req.method === 'HEAD' ? undefined : 'abcd');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      port = (server.address() as AddressInfo).port;
    });
    after(async () => {
      await new Promise<void>((r) => server.close(() => r()));
    });
    beforeEach(() => (hits.length = 0));

    /** "allowed.example" answers a public address; the connection to it is dialled to the loopback test server. */
    const PUBLIC = '93.184.216.34';
    const policy = (r: ReturnType<typeof fakeResolver>): OutboundPolicy => ({
      allowPrivate: false,
      resolve: r.resolve,
      dial: (a) => (a.address === PUBLIC ? { address: '127.0.0.1', family: 4 } : a),
    });

    it('follows redirects within allowed hosts, resolving once per hop and connecting to the checked address', async () => {
      const r = fakeResolver({ 'allowed.example': [PUBLIC] });
      const res = await guardedFetch(`http://allowed.example:${port}/hop`, { method: 'HEAD' }, policy(r));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'audio/mpeg');
      assert.deepEqual(hits, [`allowed.example:${port} /hop`, `allowed.example:${port} /final.mp3`]);
      assert.deepEqual(r.calls, ['allowed.example', 'allowed.example'], 'resolved by the guard only, once per hop');
      const body = await guardedFetch(`http://allowed.example:${port}/final.mp3`, {}, policy(r));
      assert.equal(await body.text(), 'abcd');
    });

    it('refuses a redirect from an allowed host to a loopback one (literal or by name) without requesting it', async () => {
      const r = fakeResolver({ 'allowed.example': [PUBLIC], 'inside.example': ['127.0.0.1'] });
      for (const path of ['/to-loopback', '/to-inside-name']) {
        hits.length = 0;
        await assert.rejects(guardedFetch(`http://allowed.example:${port}${path}`, { method: 'HEAD' }, policy(r)), (e: any) => e.code === 'LINK_NOT_ALLOWED' && e.status === 400, path);
        assert.deepEqual(hits, [`allowed.example:${port} ${path}`], `${path}: only the allowed hop was requested`);
      }
    });

    it('a name whose answer points inside is never connected to', async () => {
      const r = fakeResolver({ 'inside.example': ['127.0.0.1'] });
      await assert.rejects(guardedFetch(`http://inside.example:${port}/final.mp3`, { method: 'HEAD' }, policy(r)), (e: any) => e.code === 'LINK_NOT_ALLOWED');
      assert.equal(hits.length, 0);
    });

    it('refuses redirects to other schemes and endless redirects', async () => {
      await assert.rejects(guardedFetch(`http://127.0.0.1:${port}/to-file`, { method: 'HEAD' }, true), (e: any) => e.code === 'INVALID_LINK_SCHEME');
      hits.length = 0;
      await assert.rejects(guardedFetch(`http://127.0.0.1:${port}/loop`, { method: 'HEAD' }, true), (e: any) => e.code === 'LINK_UNREACHABLE');
      assert.equal(hits.length, 6, 'the first request and five redirects');
    });

    it('a track link to a loopback host is refused without private outbound, accepted with it', async () => {
      await assert.rejects(checkTrackLink(`http://127.0.0.1:${port}/final.mp3`, undefined, undefined, false), (e: any) => e.code === 'LINK_NOT_ALLOWED');
      assert.equal(hits.length, 0);
      const ok = await checkTrackLink(`http://127.0.0.1:${port}/hop`, undefined, undefined, true);
      assert.equal(ok.type, 'audio');
    });
  });
});

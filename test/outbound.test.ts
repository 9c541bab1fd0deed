import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertPublicHost, guardedFetch, isPrivateAddress } from '../src/lib/outbound';

describe('outbound guard for user-given URLs', () => {
  it('classifies private, loopback, link-local and public addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '100.64.0.1']) {
      assert.equal(isPrivateAddress(ip), true, ip);
    }
    for (const ip of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '192.169.0.1']) assert.equal(isPrivateAddress(ip), false, ip);
  });

  it('refuses loopback hosts unless private outbound is allowed', async () => {
    await assert.rejects(assertPublicHost(new URL('http://127.0.0.1:9/x.mp3'), false), /private or local/);
    await assert.rejects(assertPublicHost(new URL('http://localhost:9/x.mp3'), false), /private or local/);
    await assertPublicHost(new URL('http://127.0.0.1:9/x.mp3'), true);
  });

  it('re-checks every redirect hop', async () => {
    const server = http.createServer((req, res) => {
      if (req.url === '/hop') {
        res.writeHead(302, { location: '/final.mp3' });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await guardedFetch(`${base}/hop`, { method: 'HEAD' }, true);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'audio/mpeg');
      await assert.rejects(guardedFetch(`${base}/hop`, { method: 'HEAD' }, false), /private or local/);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

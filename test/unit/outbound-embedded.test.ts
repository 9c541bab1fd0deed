import assert from 'node:assert/strict';
import ipaddr from 'ipaddr.js';
import { assertPublicHost, embeddedIPv4, isPrivateAddress } from '../../src/lib/outbound';

/** The Teredo client field: the IPv4 address with every bit flipped, as two hex groups. */
const teredoClient = (ip: string) => {
  const b = ipaddr.IPv4.parse(ip).octets.map((o) => ~o & 0xff);
  return `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
};

/** Each IPv6 form that carries an IPv4 address, built around a given IPv4 address. */
const FORMS: Record<string, (v4: string) => string> = {
  compatible: (v4) => `::${v4}`,
  mapped: (v4) => `::ffff:${v4}`,
  translated: (v4) => `::ffff:0:${v4}`,
  nat64: (v4) => `64:ff9b::${v4}`,
  'nat64 local /96': (v4) => `64:ff9b:1::${v4}`,
  'nat64 local /48': (v4) => {
    const o = ipaddr.IPv4.parse(v4).octets;
    return `64:ff9b:1:${((o[0]! << 8) | o[1]!).toString(16)}:${o[2]!.toString(16)}:${(o[3]! << 8).toString(16)}::`;
  },
  '6to4': (v4) => {
    const o = ipaddr.IPv4.parse(v4).octets;
    return `2002:${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}::1`;
  },
  'teredo client': (v4) => `2001:0:4136:e378:8000:63bf:${teredoClient(v4)}`,
  isatap: (v4) => `2600:1f18::5efe:${v4}`,
};

const INSIDE = ['127.0.0.1', '169.254.169.254', '10.0.0.1', '192.168.1.1', '100.64.0.1', '0.0.0.0'];
const OUTSIDE = ['8.8.8.8', '93.184.216.34'];

describe('outbound guard: IPv6 addresses that carry an IPv4 address', () => {
  it('judges every form by the IPv4 address inside it', () => {
    for (const [name, form] of Object.entries(FORMS)) {
      for (const v4 of INSIDE) assert.equal(isPrivateAddress(form(v4)), true, `${name} ${form(v4)}`);
      // the local-use NAT64 prefix is read under every prefix length that fits it: one private reading refuses it
      if (name.startsWith('nat64 local')) continue;
      for (const v4 of OUTSIDE) assert.equal(isPrivateAddress(form(v4)), false, `${name} ${form(v4)}`);
    }
    assert.equal(isPrivateAddress('64:ff9b:1:808:8:808:808:808'), false); // 8.8.8.8 under every reading
  });

  it('reads the IPv4 address where each form keeps it', () => {
    const of = (ip: string) => embeddedIPv4(ipaddr.IPv6.parse(ip)).carried.map(String);
    assert.deepEqual(of('::7f00:1'), ['127.0.0.1']);
    assert.deepEqual(of('::a9fe:a9fe'), ['169.254.169.254']);
    assert.deepEqual(of('64:ff9b::a9fe:a9fe'), ['169.254.169.254']);
    assert.deepEqual(of('2002:a9fe:a9fe::'), ['169.254.169.254']);
    // Teredo: the server as written, the client with its bits flipped (RFC 4380's example)
    assert.deepEqual(of('2001:0:4136:e378:8000:63bf:3fff:fdd2'), ['65.54.227.120', '192.0.2.45']);
    assert.deepEqual(of('2606:4700:4700::1111'), []);
  });

  it('the IPv4-compatible literals of the report, as the URL parser rewrites them, are refused', async () => {
    for (const raw of ['http://[::169.254.169.254]/x', 'http://[::127.0.0.1]:9/', 'http://[::7f00:1]/', 'http://[::a.b.c.d]'.replace('a.b.c.d', '10.0.0.1')]) {
      const url = new URL(raw);
      assert.equal(isPrivateAddress(url.hostname), true, `${raw} → ${url.hostname}`);
      await assert.rejects(assertPublicHost(url, false), (e: any) => e.code === 'LINK_NOT_ALLOWED' && e.status === 400, raw);
    }
  });

  it('a Teredo address with a private server, and the forms no IPv4 can make public, stay refused', () => {
    assert.equal(isPrivateAddress('2001:0:a00:1:8000:63bf:f7f7:f7f7'), true); // server 10.0.0.1, client 8.8.8.8
    for (const ip of ['::', '::1', '100::1', '2001:db8::1', 'fe80::5efe:808:808', 'fd00::5efe:808:808']) assert.equal(isPrivateAddress(ip), true, ip);
  });
});

/**
 * Outbound requests to addresses users give us (media links, later webhook endpoints)
 * must not reach the server's own network: loopback, private, link-local and other
 * special-purpose addresses are refused unless ALLOW_PRIVATE_OUTBOUND is set (tests and
 * on-premise installs that fetch from an intranet). Each redirect hop is checked again.
 * (A DNS answer can still change between our check and the connection; an egress proxy
 * closes that gap in production.)
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { ValidationError } from './errors';

const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0;
}

export function isPrivateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const n = v4ToInt(ip);
    return BLOCKED_V4.some(([base, bits]) => (n >>> (32 - bits)) === (v4ToInt(base) >>> (32 - bits)));
  }
  const v6 = ip.toLowerCase();
  if (v6.startsWith('::ffff:')) return isPrivateAddress(v6.slice(7));
  return v6 === '::' || v6 === '::1' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe8') || v6.startsWith('fe9') || v6.startsWith('fea') || v6.startsWith('feb') || v6.startsWith('ff');
}

export async function assertPublicHost(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addrs = net.isIP(host) ? [host] : (await dns.lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (!addrs.length) throw new ValidationError('Link is not reachable', [`${host} does not resolve`], 'LINK_UNREACHABLE');
  if (addrs.some(isPrivateAddress)) throw new ValidationError('Links to private or local addresses are not allowed', [`${host} resolves to a private address`], 'LINK_NOT_ALLOWED');
}

/** fetch() that refuses private destinations and re-checks each redirect (at most 5). */
export async function guardedFetch(rawUrl: string, init: RequestInit, allowPrivate: boolean): Promise<Response> {
  let url = new URL(rawUrl);
  for (let hop = 0; hop <= 5; hop++) {
    await assertPublicHost(url, allowPrivate);
    const res = await fetch(url, { ...init, redirect: 'manual' });
    const loc = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && loc) {
      await res.body?.cancel();
      url = new URL(loc, url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('Invalid link', [`redirect to ${url.protocol} refused`], 'INVALID_LINK_SCHEME');
      continue;
    }
    return res;
  }
  throw new ValidationError('Link is not reachable', ['too many redirects'], 'LINK_UNREACHABLE');
}

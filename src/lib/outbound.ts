/**
 * Outbound requests to addresses users give us (track media links; any later webhook or
 * import-from-URL) must not reach the server's own network.
 *
 * - An address is allowed only when ipaddr.js classes it as public `unicast`: loopback,
 *   private, carrier-grade NAT, link-local, unspecified (`0.0.0.0`, `::`), multicast,
 *   broadcast, reserved and documentation ranges and unique-local IPv6 are refused. An IPv6
 *   address that carries an IPv4 address is judged by that IPv4 address (`embeddedIPv4`):
 *   IPv4-compatible `::/96`, mapped `::ffff:0:0/96`, translated `::ffff:0:0:0/96`, NAT64
 *   `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo `2001::/32` (server and
 *   client) and an ISATAP interface identifier. IPv4 literals in any notation (decimal
 *   `2130706433`, octal `0177.0.0.1`, hex, short `127.1`) are parsed as the address they mean.
 * - A host name is resolved once; it is refused when ANY of its answers is not public, and the
 *   connection goes to the address that was checked (the request's `lookup` hands back that
 *   address), so a DNS answer cannot change between the check and the connection.
 * - Every redirect hop (at most 5) is checked the same way; only http and https are followed.
 * - `ALLOW_PRIVATE_OUTBOUND=true` turns the address check off (tests with local fake servers,
 *   on-premise installs that fetch from an intranet). Schemes and redirect limits still apply.
 *
 * The resolver is injectable (`OutboundPolicy.resolve`) so tests need no external DNS.
 */
import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { ValidationError } from './errors';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface OutboundPolicy {
  /** ALLOW_PRIVATE_OUTBOUND: skip the address check. */
  allowPrivate: boolean;
  /** Name resolution (default: the system resolver, every answer). */
  resolve?: Resolver;
  /**
   * Where a checked address is dialled (default: itself). Tests only: maps a public address the
   * fake resolver answered onto the loopback test server, so the check sees a public host.
   */
  dial?: (checked: ResolvedAddress) => ResolvedAddress;
}

export const systemResolver: Resolver = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

const MAX_REDIRECTS = 5;

/** Parses an address in any notation ipaddr.js knows (IPv4 decimal/octal/hex/short forms, IPv6 with zone); null if it is none. */
function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = ip.replace(/^\[|\]$/g, '');
  try {
    if (ipaddr.IPv4.isValid(bare)) return ipaddr.IPv4.parse(bare);
    if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  } catch {
    return null;
  }
  return null;
}

const v4 = (b: number[], at: readonly number[]) => new ipaddr.IPv4(at.map((i) => b[i]!));
const startsWith = (b: number[], prefix: readonly number[]) => prefix.every((x, i) => b[i] === x);
const zero = (b: number[], from: number, to: number) => b.slice(from, to).every((x) => x === 0);
const LAST_32 = [12, 13, 14, 15] as const;
/** Where RFC 6052 puts the IPv4 address (bits 64-71 are skipped) for a prefix of 48, 56 and 64 bits. */
const RFC6052_AT = [[6, 7, 9, 10], [7, 9, 10, 11], [9, 10, 11, 12]] as const;

/**
 * The IPv4 addresses an IPv6 address carries, by the form that carries them, and whether the
 * form is a translation or tunnel prefix (then the IPv4 addresses alone decide; otherwise the
 * IPv6 address must be public too). `carried` is empty for an address with no IPv4 inside.
 */
export function embeddedIPv4(addr: ipaddr.IPv6): { carried: ipaddr.IPv4[]; translated: boolean } {
  const b = addr.toByteArray();
  // ::a.b.c.d (IPv4-compatible, `::` and `::1` included), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated)
  if (zero(b, 0, 10) && ((b[10] === 0 && b[11] === 0) || (b[10] === 0xff && b[11] === 0xff))) return { carried: [v4(b, LAST_32)], translated: true };
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0) return { carried: [v4(b, LAST_32)], translated: true };
  // NAT64: the well-known prefix 64:ff9b::/96; the local-use 64:ff9b:1::/48 under every prefix length that fits in it
  if (startsWith(b, [0, 0x64, 0xff, 0x9b]) && zero(b, 4, 12)) return { carried: [v4(b, LAST_32)], translated: true };
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 1])) return { carried: [...RFC6052_AT.map((at) => v4(b, at)), v4(b, LAST_32)], translated: true };
  // 6to4: 2002:AABB:CCDD::/48
  if (startsWith(b, [0x20, 0x02])) return { carried: [v4(b, [2, 3, 4, 5])], translated: true };
  // Teredo: 2001:0:<server>:<flags>:<port>:<client XOR ffffffff>
  if (startsWith(b, [0x20, 0x01, 0, 0])) return { carried: [v4(b, [4, 5, 6, 7]), new ipaddr.IPv4(LAST_32.map((i) => ~b[i]! & 0xff))], translated: true };
  // ISATAP: any prefix with the interface identifier 0000:5efe (u/g bits may be set) and the IPv4 address
  if ((b[8]! & 0xfc) === 0 && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe) return { carried: [v4(b, LAST_32)], translated: false };
  return { carried: [], translated: false };
}

/** True unless the address is public unicast (anything that does not parse counts as private). */
export function isPrivateAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  if (!addr) return true;
  if (addr.kind() === 'ipv4') return addr.range() !== 'unicast';
  const { carried, translated } = embeddedIPv4(addr as ipaddr.IPv6);
  if (carried.some((a) => a.range() !== 'unicast')) return true;
  return !translated && addr.range() !== 'unicast';
}

function policyOf(p: OutboundPolicy | boolean): Required<OutboundPolicy> {
  const same = (a: ResolvedAddress) => a;
  return typeof p === 'boolean' ? { allowPrivate: p, resolve: systemResolver, dial: same } : { allowPrivate: p.allowPrivate, resolve: p.resolve ?? systemResolver, dial: p.dial ?? same };
}

const notAllowed = (host: string, why: string) => new ValidationError('Links to private or local addresses are not allowed', [`${host} ${why}`], 'LINK_NOT_ALLOWED');

/**
 * The address to connect to for `url`: the literal itself, or the first answer of a name whose
 * answers are all public. Throws LINK_NOT_ALLOWED / LINK_UNREACHABLE (400).
 */
export async function resolvePublic(url: URL, policy: OutboundPolicy | boolean): Promise<ResolvedAddress> {
  const p = policyOf(policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = parseAddress(host);
  if (literal) {
    if (!p.allowPrivate && isPrivateAddress(host)) throw notAllowed(host, 'is a private or local address');
    return { address: literal.toString(), family: literal.kind() === 'ipv6' ? 6 : 4 };
  }
  const answers = await p.resolve(host).catch(() => [] as ResolvedAddress[]);
  if (!answers.length) throw new ValidationError('Link is not reachable', [`${host} does not resolve`], 'LINK_UNREACHABLE');
  if (!p.allowPrivate) {
    const inside = answers.find((a) => isPrivateAddress(a.address));
    if (inside) throw notAllowed(host, `resolves to a private address (${inside.address})`);
  }
  return answers[0]!;
}

/** Refuses a URL whose host is (or resolves to) a private address. */
export async function assertPublicHost(url: URL, policy: OutboundPolicy | boolean): Promise<void> {
  await resolvePublic(url, policy);
}

export interface GuardedInit {
  method?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Request body (POST). */
  body?: string | Uint8Array;
}

/** One request to exactly `to` (TLS still verifies the certificate for the URL's host name). */
function requestPinned(url: URL, to: ResolvedAddress, init: GuardedInit): Promise<http.IncomingMessage> {
  const lookup: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: to.address, family: to.family }]);
    else cb(null, to.address, to.family);
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, { method: init.method ?? 'GET', headers: init.headers, signal: init.signal, lookup }, resolve);
    req.on('error', reject);
    req.end(init.body);
  });
}

function toResponse(res: http.IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const status = res.statusCode ?? 502;
  const noBody = method === 'HEAD' || status === 204 || status === 205 || status === 304;
  if (noBody) res.resume();
  return new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream), { status, statusText: res.statusMessage, headers });
}

/** fetch()-like GET/HEAD that refuses private destinations on every hop and connects to the checked address. */
export async function guardedFetch(rawUrl: string, init: GuardedInit, policy: OutboundPolicy | boolean): Promise<Response> {
  let url = new URL(rawUrl);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('Invalid link', [`scheme ${url.protocol} is not allowed`], 'INVALID_LINK_SCHEME');
    const to = policyOf(policy).dial(await resolvePublic(url, policy));
    const res = await requestPinned(url, to, init);
    res.on('error', () => undefined); // a timeout while its body drains must not become an uncaught error
    const loc = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && loc) {
      res.resume();
      url = new URL(loc, url);
      continue;
    }
    return toResponse(res, (init.method ?? 'GET').toUpperCase());
  }
  throw new ValidationError('Link is not reachable', ['too many redirects'], 'LINK_UNREACHABLE');
}

/**
 * One POST (webhook deliveries) to a checked address; redirects are NOT followed: a 3xx is
 * the receiver's answer like any other status. Same address rules as guardedFetch.
 */
export async function guardedPost(rawUrl: string, init: GuardedInit, policy: OutboundPolicy | boolean): Promise<Response> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('Invalid link', [`scheme ${url.protocol} is not allowed`], 'INVALID_LINK_SCHEME');
  const to = policyOf(policy).dial(await resolvePublic(url, policy));
  const res = await requestPinned(url, to, { ...init, method: 'POST' });
  res.on('error', () => undefined);
  return toResponse(res, 'POST');
}

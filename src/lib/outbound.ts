/**
 * Outbound requests to addresses users give us (track media links; any later webhook or
 * import-from-URL) must not reach the server's own network.
 *
 * - An address is allowed only when ipaddr.js classes it as public `unicast`: loopback,
 *   private, carrier-grade NAT, link-local, unspecified (`0.0.0.0`, `::`), multicast,
 *   broadcast, reserved and documentation ranges, unique-local IPv6, and the IPv6 forms that
 *   embed an IPv4 address (NAT64, 6to4, Teredo) are refused; an IPv4-mapped IPv6 address is
 *   judged by the IPv4 address inside it. IPv4 literals in any notation (decimal `2130706433`,
 *   octal `0177.0.0.1`, hex, short `127.1`) are parsed as the address they mean.
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

/** True unless the address is public unicast (anything that does not parse counts as private). */
export function isPrivateAddress(ip: string): boolean {
  let addr = parseAddress(ip);
  if (!addr) return true;
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range() !== 'unicast';
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
  body?: string;
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

/**
 * Who is calling, behind reverse proxies. With TRUST_PROXY on, the client address is the
 * right-most address in X-Forwarded-For that no trusted proxy added (proxy-addr walks the
 * chain from the socket leftwards and stops at the first untrusted hop), so a value the
 * client wrote itself into the header is never taken. X-Forwarded-Host and -Proto count only
 * when the peer that connected is itself a trusted proxy. With TRUST_PROXY off, the socket
 * address is the client and every X-Forwarded-* header is ignored.
 */
import type Koa from 'koa';
import proxyaddr from 'proxy-addr';
import type { Config } from '../config';

export type TrustFn = (addr: string, hop: number) => boolean;

/** The trust rule of TRUSTED_PROXIES: a hop count, or addresses/CIDRs/presets. Throws on a bad entry. */
export function proxyTrust(cfg: Pick<Config, 'trustProxy' | 'trustedProxies'>): TrustFn {
  if (!cfg.trustProxy) return () => false;
  const t = cfg.trustedProxies;
  if (typeof t === 'number') return (_addr, hop) => hop < t;
  return proxyaddr.compile(t);
}

/** Middleware: sets ctx.request.ip by the trust rule and drops forwarded host/scheme an untrusted peer sent. */
export function clientAddress(trust: TrustFn): Koa.Middleware {
  return async (ctx, next) => {
    const peer = ctx.req.socket.remoteAddress ?? '';
    if (!trust(peer, 0)) {
      delete ctx.req.headers['x-forwarded-for'];
      delete ctx.req.headers['x-forwarded-host'];
      delete ctx.req.headers['x-forwarded-proto'];
    }
    ctx.request.ip = proxyaddr(ctx.req, trust);
    await next();
  };
}

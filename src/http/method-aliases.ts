/**
 * Method spellings the reference service's clients use beside the spec's (docs/api.md,
 * "Coming from the reference service"): each alias is a request rewritten, before routing, to
 * the route it names, so it runs that route's handler with the same validation, auth, scope and
 * error shape. Aliases are not operations of their own in the OpenAPI document: the original's
 * operation lists them in `x-aliases`.
 *
 * Derived from the routes: `DELETE …/bulk/delete` for every `POST …/bulk/delete`, and
 * `GET …/download/csv` for every `POST …/download/csv`; the others are named below. An alias
 * whose original is not a route stops the server at start.
 */
import type { Context, Next } from 'koa';
import type { Method, RegisteredRoute } from './route';

export interface MethodAlias {
  method: Method;
  /** koa-router syntax, the same parameter names as the original's. */
  path: string;
  of: { method: Method; path: string };
}

const NAMED: MethodAlias[] = [
  { method: 'post', path: '/asset/:id/setdefaultsplit', of: { method: 'put', path: '/asset/:id/setdefaultsplit' } },
  { method: 'post', path: '/product/:id/setdefaultsplit', of: { method: 'put', path: '/product/:id/setdefaultsplit' } },
  { method: 'post', path: '/artist/:id/merge', of: { method: 'put', path: '/artist/:id/merge' } },
  { method: 'post', path: '/payment-request/:id/approve', of: { method: 'patch', path: '/payment-request/:id/approve' } },
  { method: 'post', path: '/payment-request/:id/decline', of: { method: 'patch', path: '/payment-request/:id/decline' } },
  { method: 'patch', path: '/notifications/read-all', of: { method: 'patch', path: '/notifications/mark-all-read' } },
  { method: 'get', path: '/notifications/unread-count', of: { method: 'get', path: '/notifications/unread/count' } },
  { method: 'post', path: '/accounting/refresh', of: { method: 'get', path: '/accounting/refresh' } },
  { method: 'post', path: '/accounting/tenant/recalculate', of: { method: 'get', path: '/accounting/refresh' } },
  // an invitation belongs to its member: {id} is the member's id (GET /user/ lists them)
  { method: 'post', path: '/user/invites/:id/resend', of: { method: 'post', path: '/user/:id/invitation' } },
];

/** The aliases of the app last built (the OpenAPI document lists them on their originals). */
export const aliasRegistry: MethodAlias[] = [];

/** Every alias of the mounted routes (throws when a named original is missing). */
export function methodAliases(routes: readonly RegisteredRoute[]): MethodAlias[] {
  const has = (m: string, p: string) => routes.some((r) => r.method === m && r.path === p);
  const derived: MethodAlias[] = [];
  for (const r of routes) {
    if (r.method === 'post' && r.path.endsWith('/bulk/delete') && !has('delete', r.path)) derived.push({ method: 'delete', path: r.path, of: { method: 'post', path: r.path } });
    if (r.method === 'post' && r.path.endsWith('/download/csv') && !has('get', r.path)) derived.push({ method: 'get', path: r.path, of: { method: 'post', path: r.path } });
  }
  for (const a of NAMED) {
    if (!has(a.of.method, a.of.path)) throw new Error(`method alias ${a.method.toUpperCase()} ${a.path}: no route ${a.of.method.toUpperCase()} ${a.of.path}`);
    if (has(a.method, a.path)) throw new Error(`method alias ${a.method.toUpperCase()} ${a.path} is a route of its own`);
  }
  return [...derived, ...NAMED];
}

/** `/a/:id/b` → a pattern matching it (with or without a trailing slash) and capturing the parameters. */
function compile(path: string): { re: RegExp; names: string[] } {
  const names: string[] = [];
  const body = path
    .replace(/\/$/, '')
    .split('/')
    .map((seg) => (seg.startsWith(':') ? (names.push(seg.slice(1)), '([^/]+)') : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return { re: new RegExp(`^${body}/?$`), names };
}

/** Middleware (before the router): a request spelled as an alias goes on as its original. */
export function methodAliasMiddleware(routes: readonly RegisteredRoute[]) {
  const aliases = methodAliases(routes);
  aliasRegistry.length = 0;
  aliasRegistry.push(...aliases);
  const table = aliases.map((a) => ({ a, from: compile(a.path) }));
  return async (ctx: Context, next: Next) => {
    const method = ctx.method.toLowerCase();
    for (const { a, from } of table) {
      if (a.method !== method) continue;
      const m = from.re.exec(ctx.path);
      if (!m) continue;
      const values = new Map(from.names.map((n, i) => [n, m[i + 1]!]));
      ctx.state.aliasOf = `${a.of.method.toUpperCase()} ${a.of.path}`;
      ctx.method = a.of.method.toUpperCase();
      ctx.path = a.of.path.replace(/:([A-Za-z0-9_]+)/g, (_, n: string) => values.get(n) ?? `:${n}`);
      break;
    }
    await next();
  };
}

/**
 * Who a request is, and the auth ports every layer sees: plain types shared by the HTTP edge,
 * the services and the auth module (src/modules/auth implements them). A leaf: it imports
 * nothing of the app, so the edge and the modules can use it without depending on auth.
 */

/** Workspace roles, lowest first. */
export const ROLE_NAMES = ['guest', 'user', 'admin', 'owner'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

/** Who may call a route (a role, or a token kind below roles). */
export type Access = 'public' | 'refresh' | 'session' | RoleName | 'super_admin';

export type TokenKind = 'access' | 'refresh' | 'workspace_key' | 'user_key' | 'god_key';

/** API key kinds: RWAK (workspace), RUAK (user), GODK (god). */
export type KeyKind = 'workspace' | 'user' | 'god';

/** The cookie a social sign-in keeps the refresh token in. */
export const REFRESH_COOKIE = 'rondo_refresh';

export interface AuthContext {
  kind: TokenKind | 'anonymous';
  userId: string | null;
  tenantId: number | null;
  tenantUserId: string | null;
  role: RoleName | null;
  isSuperAdmin: boolean;
  /** A super-admin's read-only impersonation: GET routes only. */
  readOnly?: boolean;
  sessionId: string | null;
  keyId: string | null;
}

export const ANONYMOUS: AuthContext = {
  kind: 'anonymous',
  userId: null,
  tenantId: null,
  tenantUserId: null,
  role: null,
  isSuperAdmin: false,
  sessionId: null,
  keyId: null,
};

/** What a request presents to prove who it is; the HTTP edge reads these from headers and cookies. */
export interface RequestCredentials {
  /** The `Authorization` header. */
  authorization?: string;
  /** The refresh-token cookie a social sign-in left. */
  refreshCookie?: string;
  /** `X-Workspace-Id` (god keys choose their workspace with it). */
  workspaceHeader?: string;
}

/** The auth port on AppServices (`svc.auth`): what the rest of the app asks of authentication. */
export interface Authenticator {
  authenticate(creds: RequestCredentials, access: Access): Promise<AuthContext>;
  hashPassword(password: string): Promise<string>;
  createApiKey(kind: KeyKind, opts: { tenantId?: number; tenantUserId?: string; name?: string }): Promise<{ id: string; token: string }>;
  revokeApiKey(id: string): Promise<boolean>;
}

/** The token port on AppServices (`svc.signer`): short-lived signed purpose tokens. */
export interface PurposeSigner {
  signPurpose(purpose: string, sub: string, ttlSeconds: number, extra?: Record<string, unknown>): Promise<string>;
  verify<T>(token: string, typ: string): Promise<T & { sub: string; exp: number }>;
}

/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type } from '../../http/schema';

export const PatchAuthResetpassword = Type.Object({ success: Type.Literal(true), message: Type.String() });
const Workspace = Type.Object({ workspaceId: Type.String(), tenantId: Type.Number(), name: Type.String(), status: Type.String(), userType: Type.Array(Type.Array(Type.String())), role: Type.String() });
/** GET /auth: with ?token= a sign-in (a refresh token), else who the bearer is. */
export const GetAuth = Type.Union([
  Type.Object({ message: Type.String(), workspaces: Type.Array(Workspace), refresh_token: Type.String() }, { description: 'Signed in with a sign-in link' }),
  Type.Object({
    success: Type.Literal(true), message: Type.String(),
    data: Type.Object({
      kind: Type.String(), userId: Type.Union([Type.String(), Type.Null()]), tenantId: Type.Union([Type.Number(), Type.Null()]), tenantUserId: Type.Union([Type.String(), Type.Null()]),
      role: Type.Union([Type.String(), Type.Null()]), isSuperAdmin: Type.Boolean(), workspaces: Type.Array(Workspace),
    }),
  }, { description: 'Who the bearer token (or the session cookie) is' }),
]);
export const GetAuthSocialProviders = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ connected: Type.Array(Type.String()), available: Type.Array(Type.String()) }) });
export const PostAuthSocialByProviderLink = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ url: Type.String() }) });
export const DeleteAuthSocialByProviderUnlink = Type.Object({ success: Type.Literal(true), message: Type.String() });
export const GetSettingsRedirectOrigins = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ publicUrl: Type.String(), origins: Type.Array(Type.String()) }) });
export const PutSettingsRedirectOrigins = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ publicUrl: Type.String(), origins: Type.Array(Type.String()) }) });

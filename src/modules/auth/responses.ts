/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type } from '../../http/schema';

export const PatchAuthResetpassword = Type.Object({ success: Type.Literal(true), message: Type.String() });
export const GetAuth = Type.Object({ message: Type.String(), workspaces: Type.Array(Type.Object({ workspaceId: Type.String(), tenantId: Type.Number(), name: Type.String(), status: Type.String(), userType: Type.Array(Type.Array(Type.String())), role: Type.String() })), refresh_token: Type.String() });
export const GetAuthSocialProviders = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ connected: Type.Array(Type.String()), available: Type.Array(Type.String()) }) });
export const PostAuthSocialByProviderLink = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ url: Type.String() }) });
export const DeleteAuthSocialByProviderUnlink = Type.Object({ success: Type.Literal(true), message: Type.String() });
export const GetSettingsRedirectOrigins = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ publicUrl: Type.String(), origins: Type.Array(Type.String()) }) });
export const PutSettingsRedirectOrigins = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ publicUrl: Type.String(), origins: Type.Array(Type.String()) }) });

/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type, FileAnswer, NoBody } from '../../http/schema';

export const GetBrandingByWorkspaceIdLogo200 = FileAnswer('image/*', 'The logo as uploaded (PNG, JPEG, WebP or SVG); ETag its SHA-256');
export const GetBrandingByWorkspaceIdLogo304 = NoBody('Not modified: the If-None-Match ETag is the current logo');

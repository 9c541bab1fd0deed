/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type, PagedAnswer } from '../../http/schema';

export const GetRoyaltyAllocationsHistory = PagedAnswer(Type.Object({ id: Type.String(), lineId: Type.String(), fileId: Type.String(), tenantUserId: Type.String(), splitId: Type.Union([Type.Null(), Type.String()]), share: Type.String(), amount: Type.String(), currency: Type.String(), createdAt: Type.String(), supersededAt: Type.Union([Type.Null(), Type.String()]), current: Type.Boolean() }));

/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type, PagedAnswer } from '../../http/schema';

export const GetUserByIdStats = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ id: Type.String(), currency: Type.String(), earnings: Type.String(), lines: Type.Number(), artists: Type.Number(), assets: Type.Number(), products: Type.Number(), splits: Type.Number() }) });
export const GetUserByIdMonthly = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ id: Type.String(), currency: Type.String(), months: Type.Array(Type.Object({ month: Type.String(), earnings: Type.String(), lines: Type.Number() })) }) });
export const GetUser = PagedAnswer(Type.Object({ id: Type.String(), userId: Type.String(), email: Type.String(), firstName: Type.Union([Type.Null(), Type.String()]), lastName: Type.Union([Type.Null(), Type.String()]), role: Type.String(), status: Type.String(), isSuperAdmin: Type.Boolean(), createdAt: Type.String(), updatedAt: Type.String() }));
export const GetUserList = PagedAnswer(Type.Object({ id: Type.String(), userId: Type.String(), email: Type.String(), firstName: Type.Union([Type.Null(), Type.String()]), lastName: Type.Union([Type.Null(), Type.String()]), role: Type.String(), status: Type.String(), isSuperAdmin: Type.Boolean(), createdAt: Type.String(), updatedAt: Type.String() }));
export const GetUserById = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ id: Type.String(), userId: Type.String(), email: Type.String(), firstName: Type.Union([Type.String(), Type.Null()]), lastName: Type.Union([Type.String(), Type.Null()]), role: Type.String(), status: Type.String(), isSuperAdmin: Type.Boolean(), createdAt: Type.String(), updatedAt: Type.String() }) });

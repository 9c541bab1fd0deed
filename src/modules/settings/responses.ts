/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type } from '../../http/schema';

export const SettingsView = Type.Object({ workspaceId: Type.String(), tenantId: Type.Integer(), name: Type.String(), baseCurrency: Type.String(), accountingCadence: Type.String(), autoCreateCatalogue: Type.Boolean(), customDomain: Type.Union([Type.String(), Type.Null()]), plan: Type.String() });
export const RateView = Type.Object({ currency: Type.String(), month: Type.String(), rate: Type.String(), updatedAt: Type.String() });
export const RatesView = Type.Object({ baseCurrency: Type.String(), rates: Type.Array(RateView) });
export const PutCurrencyRates = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Object({ saved: Type.Number(), errors: Type.Array(Type.Unknown()) }) });

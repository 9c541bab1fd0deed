import type Router from '@koa/router';
import { dataRoute, defineRoutes, route } from '../../http/route';
import { CurrencyCode, MonthIn, Rate, Strict, Type } from '../../http/schema';
import type { AppServices } from '../../services';
import { getSettings, updateSettings, ratesWithBase, saveRates, deleteRate } from './service';
import * as Res from './responses';

const Currency = CurrencyCode();
const Month = MonthIn();

export function registerSettingsRoutes(router: Router, svc: AppServices): void {
  defineRoutes(router, svc, { tag: 'Workspace settings', errorShape: 'catalogue', scope: 'workspace' }, [
    dataRoute({
      method: 'get',
      path: '/settings/workspace', data: Res.SettingsView,
      summary: 'Workspace settings: base currency, accounting cadence, catalogue auto-creation',
      access: 'guest',
      message: 'Workspace settings',
      run: ({ trx, tenantId }) => getSettings(trx, tenantId),
    }),
    dataRoute({
      method: 'put',
      path: '/settings/workspace', data: Res.SettingsView,
      summary: 'Change workspace settings (admin; the base currency is locked once royalties are allocated)',
      access: 'admin',
      body: Strict(
        {
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          baseCurrency: Type.Optional(Currency),
          accountingCadence: Type.Optional(Type.Union([Type.Literal('monthly'), Type.Literal('quarterly'), Type.Literal('half-yearly')])),
          autoCreateCatalogue: Type.Optional(Type.Boolean()),
          customDomain: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$', maxLength: 253 }), Type.Null()])),
        },
        { minProperties: 1 },
      ),
      message: 'Workspace settings updated',
      run: ({ trx, tenantId, body }) => updateSettings(trx, tenantId, body),
    }),
    dataRoute({
      method: 'get',
      path: '/currency/rates', data: Res.RatesView,
      summary: 'Monthly exchange rates to the base currency (filter by currency and month range YYYY-MM)',
      access: 'user',
      query: Type.Object({ currency: Type.Optional(Currency), from: Type.Optional(Month), to: Type.Optional(Month) }),
      message: 'Exchange rates',
      run: ({ trx, tenantId, query }) => ratesWithBase(trx, tenantId, query),
    }),
    route({
      method: 'put',
      path: '/currency/rates', responses: { 200: Res.PutCurrencyRates },
      summary: 'Set monthly rates (admin): 1 unit of `currency` = `rate` base-currency units for sales in `month`',
      description: 'Rates are decimal strings (or numbers); invalid items are reported in `errors` and the rest saved.',
      access: 'admin',
      body: Strict({
        rates: Type.Array(Strict({ currency: Currency, month: Month, rate: Rate({ positive: false }) }), { minItems: 1, maxItems: 5000 }),
      }),
      async handler({ trx, tenantId, body, auth }) {
        const r = await saveRates(trx, tenantId, auth.tenantUserId, body.rates);
        return { success: true, message: `${r.saved} rate(s) saved`, data: r };
      },
    }),
    route({
      method: 'delete',
      path: '/currency/rates/:currency/:month', responses: { 200: Type.Object({ success: Type.Literal(true), message: Type.String() }) },
      summary: 'Remove one monthly rate (admin)',
      access: 'admin',
      params: Type.Object({ currency: Currency, month: Month }),
      async handler({ trx, params }) {
        await deleteRate(trx, params.currency, params.month);
        return { success: true, message: 'Rate removed' };
      },
    }),
  ]);
}

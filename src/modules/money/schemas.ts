/**
 * Request schemas of the money routes (ajv-validated, published in the OpenAPI document).
 */
import { sortQuery } from '../../http/list-sort';
import { EXPENSE_SORT, PAYMENT_SORT, REQUEST_SORT, REVENUE_SORT, SETTING_SORT, TRANSACTION_SORT } from './sorts';
import { PageQuery, Share, Strict, Type, Uuid, type TProperties, type TSchema } from '../../http/schema';
import { CurrencyIn, MoneyIn, PeriodIn, PositiveMoneyIn } from './common';
import { LEDGER_KINDS } from './ledger';

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
export const Text = (max = 500) => Type.String({ maxLength: max });
export const DateIn = Type.String({ format: 'date' });
export const Period = { from: Type.Optional(PeriodIn), to: Type.Optional(PeriodIn) };

export const TargetType = Type.Union([Type.Literal('artist'), Type.Literal('product'), Type.Literal('asset')]);
/** The fields expenses and revenues share, with each one's own label field after the description. */
const entryFields = <T extends TProperties>(label: T) => ({
  title: Type.String({ minLength: 1, maxLength: 300 }),
  description: Type.Optional(Nullable(Text(5000))),
  ...label,
  amount: PositiveMoneyIn,
  currency: CurrencyIn,
  conversionRate: Type.Optional(PositiveMoneyIn),
  date: Type.Optional(DateIn),
});
export const ExpenseFields = {
  user: Uuid,
  ...entryFields({ category: Type.Optional(Nullable(Text(100))) }),
  recoupable: Type.Optional(Type.Boolean()),
  targetType: Type.Optional(Nullable(TargetType)),
  targetId: Type.Optional(Nullable(Uuid)),
};
export const ExpenseBody = Strict(ExpenseFields, { $id: 'ExpenseInput' });
export const ExpensePatch = Strict(Object.fromEntries(Object.entries(ExpenseFields).map(([k, v]) => [k, Type.Optional(v)])), { minProperties: 1 });

export const Splits = Type.Array(Strict({ user: Uuid, share: Share() }), { minItems: 1, maxItems: 100 });
export const RevenueFields = {
  ...entryFields({ source: Type.Optional(Nullable(Text(100))) }),
  accountingPeriod: Type.Optional(PeriodIn),
  splits: Splits,
};
export const RevenueBody = Strict(RevenueFields, { $id: 'RevenueInput' });
export const RevenuePatch = Strict(Object.fromEntries(Object.entries(RevenueFields).map(([k, v]) => [k, Type.Optional(v)])), { minProperties: 1 });

/** One payment item of a bulk create (docs/money.md, "Routes") (numbers may also be sent as decimal strings). */
export const PaymentItem = Strict(
  {
    firstName: Type.Optional(Nullable(Text(200))),
    lastName: Type.Optional(Nullable(Text(200))),
    user: Type.String({ maxLength: 100 }),
    title: Type.Optional(Nullable(Text(300))),
    transactionDate: Type.Optional(Type.String({ format: 'date-time' })),
    currency: CurrencyIn,
    amount: MoneyIn,
    amountUSD: Type.Optional(Nullable(MoneyIn)),
    conversionRate: Type.Optional(Nullable(MoneyIn)),
    memo: Type.Optional(Nullable(Text(2000))),
  },
  { $id: 'PaymentItem' },
);
export const PaymentStatus = Type.Union(['pending', 'processing', 'completed', 'failed', 'reversed'].map((s) => Type.Literal(s)));
export const PaymentBody = Strict({ ...PaymentItem.properties, user: Uuid, status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('completed')])) });
export const PaymentPatch = Strict(
  {
    ...Object.fromEntries(Object.entries(PaymentItem.properties).map(([k, v]) => [k, Type.Optional(v as TSchema)])),
    user: Type.Optional(Uuid),
    status: Type.Optional(PaymentStatus),
  },
  { minProperties: 1 },
);

export const RequestBody = Strict({ amount: PositiveMoneyIn, memo: Type.Optional(Nullable(Text(2000))), paymentSettingId: Type.Optional(Nullable(Uuid)), user: Type.Optional(Uuid) });
export const RequestPatch = Strict({ amount: Type.Optional(PositiveMoneyIn), memo: Type.Optional(Nullable(Text(2000))), paymentSettingId: Type.Optional(Nullable(Uuid)) }, { minProperties: 1 });

export const Method = Type.Union([Type.Literal('processor'), Type.Literal('bank_transfer'), Type.Literal('paypal'), Type.Literal('other')]);
export const Details = Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), Type.String({ maxLength: 500 }), { maxProperties: 20 });
export const SettingBody = Strict({ user: Type.Optional(Uuid), method: Method, label: Type.Optional(Nullable(Text(200))), currency: Type.Optional(Nullable(CurrencyIn)), details: Details, isDefault: Type.Optional(Type.Boolean()) });
export const SettingPatch = Strict({ method: Type.Optional(Method), label: Type.Optional(Nullable(Text(200))), currency: Type.Optional(Nullable(CurrencyIn)), details: Type.Optional(Details), isDefault: Type.Optional(Type.Boolean()) }, { minProperties: 1 });

export const IntegrationBody = Strict({ secretKey: Type.String({ minLength: 8, maxLength: 500 }), isEnabled: Type.Optional(Type.Boolean()) });
export const IntegrationPatch = Strict({ secretKey: Type.Optional(Type.String({ minLength: 8, maxLength: 500 })), isEnabled: Type.Optional(Type.Boolean()) }, { minProperties: 1 });

export const UserQuery = { userId: Type.Optional(Uuid) };

export const ExpenseListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(EXPENSE_SORT, 'createdAt', 'Part of the title'), user: Type.Optional(Uuid), recoupable: Type.Optional(Type.Boolean()) });
export const RevenueListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(REVENUE_SORT, 'createdAt', 'Part of the title'), user: Type.Optional(Uuid) });
export const PaymentListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(PAYMENT_SORT, 'createdAt', 'Part of the title, the memo or the reference'), user: Type.Optional(Uuid), status: Type.Optional(PaymentStatus) });
export const RequestListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(REQUEST_SORT, 'createdAt', 'Part of the memo, the status or the decline reason'), user: Type.Optional(Uuid), status: Type.Optional(Type.Union(['pending', 'approved', 'declined', 'paid'].map((s) => Type.Literal(s)))) });
export const SettingListQuery = Type.Object({ page: PageQuery.page, size: PageQuery.size, ...sortQuery(SETTING_SORT, 'createdAt', 'Part of the method or the label'), user: Type.Optional(Uuid) });
export const TransactionsQuery = Type.Object({
  page: PageQuery.page,
  size: PageQuery.size,
  ...sortQuery(TRANSACTION_SORT, 'id', 'Part of the kind or the source type'),
  ...UserQuery,
  ...Period,
  kind: Type.Optional(Type.Union(LEDGER_KINDS.map((k) => Type.Literal(k)))),
});
export const ApproveBody = Strict({ memo: Type.Optional(Nullable(Text(2000))) });
export const DeclineBody = Strict({ reason: Type.Optional(Nullable(Text(2000))) });
export const StatementParams = Type.Object({ userId: Uuid });
export const StatementQuery = Type.Object({ period: PeriodIn, format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('pdf'), Type.Literal('xlsx')])) });

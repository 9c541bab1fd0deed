/**
 * Request and answer schemas of the partner routes (ajv-validated, published in the
 * OpenAPI document).
 */
import { Type, Strict, Uuid, Pagination } from '../../http/schema';
import { CurrencyCode, Money } from '../../http/limits';

const Id = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' });
const Key = Type.String({ minLength: 8, maxLength: 500 });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Amount = Money({ positive: true });
const Page = Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }));
const WalletId = Type.Union([Id, Type.Integer({ minimum: 1, maximum: 2_147_483_647 })]);

export const Success = <T extends ReturnType<typeof Type.Object> | ReturnType<typeof Type.Array> | ReturnType<typeof Type.Null>>(data: T) =>
  Type.Object({ status: Type.Literal('success'), message: Type.String(), data });

// ------------------------------------------------------------ FX partner

export const FxConnect = Strict({ apiKey: Key, label: Type.Optional(Type.Union([Text(100), Type.Null()])), isEnabled: Type.Optional(Type.Boolean()) });
export const FxUpdate = Strict({ apiKey: Type.Optional(Key), label: Type.Optional(Type.Union([Text(100), Type.Null()])), isEnabled: Type.Optional(Type.Boolean()) }, { minProperties: 1 });

export const FxStatus = Type.Object({
  provider: Type.Literal('fxpartner'),
  configured: Type.Boolean(),
  isEnabled: Type.Boolean(),
  label: Type.Union([Type.String(), Type.Null()]),
  hasApiKey: Type.Boolean(),
  apiKeyHint: Type.Union([Type.String({ examples: ['…k3y9'] }), Type.Null()]),
  apiKeyUpdatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  webhookUrl: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const WalletQuery = Type.Object({
  page: Page,
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'at most 50; a larger size is refused (400)' })),
});
export const Wallet = Type.Object({ id: Type.Integer(), customReferenceLabel: Type.String(), currency: Type.String({ examples: ['USD'] }), balance: Type.String({ examples: ['250000'] }) });
export const WalletList = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(Wallet), pagination: Pagination });

export const BeneficiaryBody = Strict({
  name: Text(200),
  currency: CurrencyCode(),
  country: Type.String({ pattern: '^[A-Z]{2}$', minLength: 2, maxLength: 2 }),
  accountNumber: Text(64),
  bankCode: Type.Optional(Text(64)),
  bankName: Type.Optional(Text(200)),
  iban: Type.Optional(Text(64)),
  swift: Type.Optional(Text(20)),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
  type: Type.Optional(Type.Union([Type.Literal('individual'), Type.Literal('business')])),
});
export const BeneficiaryPatch = Type.Partial(BeneficiaryBody, { additionalProperties: false, minProperties: 1 });
export const Beneficiary = Type.Object({
  id: Type.String({ examples: ['ben_1'] }),
  name: Type.String(),
  currency: Type.String(),
  country: Type.String(),
  accountNumber: Type.String(),
  linkedUserId: Type.Union([Uuid, Type.Null()]),
});
export const BeneficiaryList = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(Beneficiary), pagination: Pagination });
export const IdParam = Type.Object({ id: Id });
export const BeneficiaryIdParam = Type.Object({ beneficiaryId: Id });
export const LinkBody = Strict({ beneficiaryId: Id, userId: Uuid });

/** The fields of a payout request; v2 adds purposeCode (required) and idempotencyKey. */
const PaymentRequestFields = {
  beneficiaryId: Id,
  amount: Amount,
  currency: CurrencyCode(),
  walletId: WalletId,
  reference: Text(140),
  memo: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
};
export const PaymentRequestV1 = Strict(PaymentRequestFields);
export const PaymentRequestV2 = Strict({
  ...PaymentRequestFields,
  purposeCode: Type.String({ pattern: '^[A-Z0-9]{2,10}$', minLength: 2, maxLength: 10 }),
  idempotencyKey: Type.Optional(Type.String({ minLength: 8, maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$' })),
});
export const PaymentRequestCreated = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  data: Type.Object({ paymentId: Uuid, status: Type.String({ examples: ['pending'] }) }),
});
export const FxRequestQuery = Type.Object({
  page: Page,
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  status: Type.Optional(Type.Union(['pending', 'processing', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s)))),
});
export const FxRequest = Type.Object({
  id: Uuid,
  paymentId: Uuid,
  version: Type.Integer(),
  status: Type.String({ examples: ['completed'] }),
  beneficiaryId: Type.String(),
  walletId: Type.String(),
  amount: Type.String({ examples: ['125.5'] }),
  currency: Type.String({ examples: ['EUR'] }),
  reference: Type.String(),
  userId: Type.Union([Uuid, Type.Null()]),
  partnerPaymentId: Type.Union([Type.String(), Type.Null()]),
  submitted: Type.Boolean(),
  ledgerPaymentId: Type.Union([Uuid, Type.Null()]),
});
export const FxRequestList = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(FxRequest), pagination: Pagination });
export const WorkspaceParam = Type.Object({ workspaceId: Uuid });

// ------------------------------------------------------------ invoicing partner

export const InvoicerTokenBody = Strict({ code: Text(2000), state: Text(200) });
export const InvoicerStatus = Type.Object({
  provider: Type.Literal('invoicer'),
  connected: Type.Boolean(),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  scope: Type.Union([Type.String(), Type.Null()]),
  hasRefreshToken: Type.Boolean(),
});
export const InvoiceListQuery = Type.Object({
  page: Page,
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
export const UuidParam = Type.Object({ uuid: Id });
export const Invoice = Type.Object({
  uuid: Type.String(),
  number: Type.String(),
  type: Type.String({ examples: ['sales'] }),
  status: Type.String({ examples: ['paid'] }),
  contactName: Type.Union([Type.String(), Type.Null()]),
  issueDate: Type.Union([Type.String(), Type.Null()]),
  currency: Type.String(),
  total: Type.String({ examples: ['1500'] }),
  importedAs: Type.Union([Type.Literal('expense'), Type.Literal('revenue'), Type.Null()]),
  importedId: Type.Union([Uuid, Type.Null()]),
});
export const InvoiceList = Type.Object({ success: Type.Literal(true), message: Type.String(), data: Type.Array(Invoice), pagination: Pagination });
export const SyncBody = Strict({ userId: Type.Optional(Uuid) });
export const SyncResult = Type.Object({
  imported: Type.Object({ expenses: Type.Integer(), revenues: Type.Integer() }),
  alreadyImported: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Array(Type.Object({ uuid: Type.String(), error: Type.String() })),
});

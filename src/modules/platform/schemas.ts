/** Response and body schemas of the platform routes (the OpenAPI document shows them). */
import { DataAnswer, Type, type TSchema } from '../../http/schema';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
export const ok = DataAnswer;

export const Limits = Type.Object({
  statementLinesPerMonth: Nullable(Type.Integer({ description: 'null: unlimited' })),
  members: Nullable(Type.Integer()),
  storageBytes: Nullable(Type.Integer()),
});
export const PlanSchema = Type.Object({ code: Type.String({ examples: ['pro'] }), name: Type.String(), features: Type.Array(Type.String({ examples: ['webhooks'] })), limits: Limits });
export const SubscriptionState = Type.Union([Type.Literal('trialing'), Type.Literal('active'), Type.Literal('past_due'), Type.Literal('canceled')]);
export const SubscriptionSchema = Type.Object({
  plan: Type.String({ examples: ['free'] }),
  effectivePlan: Type.String({ description: 'The plan whose features apply now (a canceled subscription has the free plan\'s; with billing off, `unlimited`)' }),
  billing: Type.Boolean({ description: 'Whether this install applies plans and limits (BILLING=on); off, every workspace has every feature and no limit' }),
  state: SubscriptionState,
  since: Type.String({ format: 'date-time' }),
  period: Type.Object({ start: Type.String({ format: 'date' }), end: Type.String({ format: 'date' }) }),
  features: Type.Array(Type.String()),
  limits: Limits,
  usage: Type.Object({ statementLinesPerMonth: Type.Integer(), members: Type.Integer(), storageBytes: Type.Integer() }),
});

const Page = { total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() };
export const TenantRow = Type.Object({
  tenantId: Type.Integer(),
  workspaceId: Type.String({ format: 'uuid' }),
  name: Type.String(),
  status: Type.String({ examples: ['active'] }),
  plan: Type.String(),
  subscriptionState: SubscriptionState,
  customDomain: Nullable(Type.String()),
  members: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
});
export const UserRow = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ format: 'email' }),
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  isSuperAdmin: Type.Boolean(),
  memberships: Type.Array(Type.Object({ tenantId: Type.Integer(), tenantUserId: Type.String({ format: 'uuid' }), role: Type.String(), status: Type.String() })),
  createdAt: Type.String({ format: 'date-time' }),
});
export const AuditRow = Type.Object({
  id: Type.String(),
  at: Type.String({ format: 'date-time' }),
  actorKind: Type.String({ examples: ['god_key'] }),
  actorId: Nullable(Type.String()),
  action: Type.String({ examples: ['tenant.suspend'] }),
  tenantId: Nullable(Type.Integer()),
  targetType: Nullable(Type.String()),
  targetId: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export const paged = <T extends TSchema>(item: T) => ok(Type.Object({ items: Type.Array(item), ...Page }));

const Retained = Type.Object({ table: Type.String({ examples: ['ledger_entries'] }), columns: Type.Array(Type.String()), rows: Type.Integer(), reason: Type.String() });
export const ErasurePlanSchema = Type.Object(
  {
    userId: Type.String({ format: 'uuid' }),
    tables: Type.Array(Type.Object({ table: Type.String({ examples: ['sessions'] }), action: Type.Union([Type.Literal('delete'), Type.Literal('anonymise'), Type.Literal('redact')]), columns: Type.Array(Type.String()), rows: Type.Integer() })),
    retained: Type.Array(Retained),
    cacheKeys: Type.Array(Type.Object({ pattern: Type.String(), entries: Type.Integer() })),
    storedObjects: Type.Array(Type.Object({ table: Type.String(), key: Type.String() })),
    apiKeys: Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), tenantId: Nullable(Type.Integer()), name: Nullable(Type.String()) })),
    externalDeliveries: Type.Array(Type.Object({ kind: Type.String(), tenantId: Type.Integer(), id: Type.String(), family: Type.String(), type: Type.String(), status: Type.String() })),
    empty: Type.Boolean(),
    planHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  },
  { $id: 'ErasurePlan' },
);

export const DomainSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  domain: Type.String({ examples: ['royalties.label.example'] }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('active')]),
  verification: Type.Object({ type: Type.Literal('TXT'), name: Type.String({ examples: ['_rondo-verify.royalties.label.example'] }), value: Type.String() }),
  verifiedAt: Nullable(Type.String({ format: 'date-time' })),
  checkedAt: Nullable(Type.String({ format: 'date-time' })),
  lastError: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});

export const ErasureJobSchema = Type.Object({
  jobId: Type.String({ format: 'uuid' }),
  userId: Type.String({ format: 'uuid' }),
  planHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]),
  result: Nullable(Type.Object({ erased: Type.Record(Type.String(), Type.Integer(), { description: 'rows per table' }), retained: Type.Array(Retained) })),
  error: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  finishedAt: Nullable(Type.String({ format: 'date-time' })),
});

/** Request and answer schemas of the webhook routes (ajv-validated, published in the OpenAPI document). */
import { Type, Strict, Uuid, type TSchema } from '../../http/schema';
import { SUBSCRIPTION_PATTERNS } from './events';
import { ENVELOPES } from './reference';
import { DELIVERY_SORT, DELIVERY_STATUSES } from './service';
import { sortQuery } from '../../http/list-sort';
import { PageQuery as ListQuery, PageTotals, Pagination } from '../../http/schema';

export const Success = <T extends TSchema>(data: T) =>
  Type.Object({ status: Type.Literal('success'), message: Type.String(), data });

const Url = Type.String({ minLength: 1, maxLength: 2048, examples: ['https://hooks.example/rondo'] });
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100, examples: ['payment.completed'] }), {
  minItems: 1, maxItems: 50, description: `event types, family wildcards or *: ${SUBSCRIPTION_PATTERNS.join(', ')}`,
});
const Headers = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ maxLength: 1000 }), { maxProperties: 20, description: 'extra request headers; values are stored encrypted and never shown again' });
const Auth = Type.Union([
  Strict({ type: Type.Literal('basic'), username: Type.String({ minLength: 1, maxLength: 200 }), password: Type.String({ minLength: 1, maxLength: 500 }) }),
  Strict({ type: Type.Literal('bearer'), token: Type.String({ minLength: 1, maxLength: 2000 }) }),
]);
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);
const EnvelopeT = Type.Union(ENVELOPES.map((e) => Type.Literal(e)), { description: 'the body each delivery sends: Rondo\'s event (default) or the reference service\'s envelope' });
const StatusT = Type.Union(DELIVERY_STATUSES.map((st) => Type.Literal(st)));

export const CreateBody = Strict({ url: Url, events: Events, description: Type.Optional(Description), headers: Type.Optional(Headers), auth: Type.Optional(Auth), isEnabled: Type.Optional(Type.Boolean()), envelope: Type.Optional(EnvelopeT) });
export const UpdateBody = Strict(
  { url: Type.Optional(Url), events: Type.Optional(Events), description: Type.Optional(Description), headers: Type.Optional(Type.Union([Headers, Type.Null()])), auth: Type.Optional(Type.Union([Auth, Type.Null()])), isEnabled: Type.Optional(Type.Boolean()), envelope: Type.Optional(EnvelopeT) },
  { minProperties: 1 },
);
export const IdParam = Type.Object({ id: Uuid });
export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

const Date = Type.String({ format: 'date-time' });
const NDate = Type.Union([Date, Type.Null()]);
export const Endpoint = Type.Object({
  id: Uuid,
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  headerNames: Type.Array(Type.String()),
  authType: Type.Union([Type.Literal('basic'), Type.Literal('bearer'), Type.Null()]),
  isEnabled: Type.Boolean(),
  envelope: EnvelopeT,
  managedBySettings: Type.Boolean({ description: 'the endpoint the /tenant/settings/webhook-* routes manage' }),
  failingSince: NDate,
  disabledAt: NDate,
  disabledReason: Type.Union([Type.String(), Type.Null()]),
  previousSecretValidUntil: NDate,
  createdAt: Date,
  updatedAt: Date,
});
export const EndpointWithSecret = Type.Object({ ...Endpoint.properties, secret: Type.String({ description: 'signing secret; shown only in this answer', examples: ['whsec_3f1c…'] }) });
export const TestResult = Type.Object({ eventId: Uuid, deliveryId: Uuid, jobId: Type.Union([Type.String(), Type.Null()]) });
export const Delivery = Type.Object({
  id: Uuid,
  endpointId: Uuid,
  eventId: Uuid,
  eventType: Type.String({ examples: ['payment.completed'] }),
  event: Type.String({ description: 'the event\'s reference-service name', examples: ['PAYMENT_COMPLETED'] }),
  envelope: EnvelopeT,
  status: StatusT,
  attemptCount: Type.Integer(),
  nextAttemptAt: NDate,
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  deliveredAt: NDate,
  createdAt: Date,
});
export const Attempt = Type.Object({
  attempt: Type.Integer(),
  attemptedAt: Date,
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  latencyMs: Type.Integer(),
  responseBody: Type.Union([Type.String({ description: 'first 1 KB of the answer' }), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  success: Type.Boolean(),
});
export const DeliveryDetail = Type.Object({ ...Delivery.properties, payload: Type.Object({}, { additionalProperties: true, description: '{id, type, createdAt, workspaceId, data}' }), attempts: Type.Array(Attempt) });
export const DeliveryList = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Type.Array(Delivery), pagination: Type.Object({ page: Type.Integer(), size: Type.Integer(), total: Type.Integer() }) });
export const RetryResult = Type.Object({ jobId: Type.Union([Type.String(), Type.Null()]), deliveryId: Uuid });

export const DeliveryIdParam = Type.Object({ id: Type.String({ maxLength: 40, pattern: '^(whd_)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'the delivery id, also with the reference envelope\'s whd_ prefix' }) });
const Day = Type.String({ format: 'date', examples: ['2026-11-01'] });
const DeliveryFilter = {
  status: Type.Optional(StatusT),
  eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Rondo\'s event type or its reference name', examples: ['PAYMENT_COMPLETED'] })),
  endpointId: Type.Optional(Uuid),
  start: Type.Optional(Type.String({ ...Day, description: 'deliveries created on or after this UTC day' })),
  end: Type.Optional(Type.String({ ...Day, description: 'deliveries created on or before this UTC day' })),
};
export const DeliveryListQuery = Type.Object({ page: ListQuery.page, size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })), ...sortQuery(DELIVERY_SORT, 'createdAt', 'Part of the event type, the status or the last error'), ...DeliveryFilter });
export const DeliverySummaryQuery = Type.Object(DeliveryFilter);
export const AllDeliveries = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Type.Array(Delivery), pagination: Pagination, ...PageTotals });
const Counts = Type.Record(Type.String(), Type.Integer());
export const DeliverySummary = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  summary: Type.Object({ total: Type.Integer(), byStatus: Type.Object(Object.fromEntries(DELIVERY_STATUSES.map((st) => [st, Type.Integer()]))), byType: Counts, byEvent: Counts }),
});

export const WebhookUrlBody = Strict({ webhookUrl: Type.Union([Url, Type.Null()], { description: 'null removes the workspace webhook' }) });
export const WebhookActiveBody = Strict({ isActive: Type.Boolean() });
export const WebhookEventsBody = Strict({
  enabledEvents: Type.Array(Type.String({ minLength: 1, maxLength: 100, examples: ['PAYMENT_COMPLETED'] }), { maxItems: 50, description: 'reference event names, Rondo event types, family wildcards or *' }),
});
export const WebhookSettings = Type.Object({
  endpointId: Uuid,
  webhookUrl: Type.String(),
  isActive: Type.Boolean(),
  enabledEvents: Type.Array(Type.String()),
  envelope: EnvelopeT,
  secret: Type.Optional(Type.String({ description: 'signing secret; only in the answer that created the endpoint' })),
});

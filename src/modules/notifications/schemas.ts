/** Response schemas of the notification routes (the OpenAPI document shows them). */
import { Type, type TSchema } from '../../http/schema';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
export const ok = <T extends TSchema>(data: T) => Type.Object({ status: Type.Literal('success'), message: Type.String(), data });

export const Delivery = Type.Object({
  id: Type.String({ format: 'uuid' }),
  channel: Type.Union([Type.Literal('email'), Type.Literal('sms'), Type.Literal('push')]),
  recipient: Type.String({ format: 'uuid', description: 'the member (TenantUserId)' }),
  status: Type.Union(['pending', 'retrying', 'sent', 'failed', 'skipped'].map((s) => Type.Literal(s))),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  history: Type.Array(Type.Object({ at: Type.String({ format: 'date-time' }), ok: Type.Boolean(), error: Nullable(Type.String()) })),
  sentAt: Nullable(Type.String({ format: 'date-time' })),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const PushSubscription = Type.Object({ id: Type.String({ format: 'uuid' }), endpoint: Type.String(), userAgent: Nullable(Type.String()), createdAt: Type.String({ format: 'date-time' }) });

/**
 * The success answers of this area's routes (their `responses`): the OpenAPI document and the
 * web app's generated types (npm run web:types). Tests check every JSON answer against them.
 */
import { Type, StatusAnswer } from '../../http/schema';

export const GetNotifications = StatusAnswer(Type.Object({ notifications: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), title: Type.String(), content: Type.String(), resourceType: Type.Union([Type.String(), Type.Null()]), resourceId: Type.Union([Type.String(), Type.Null()]), actionUrl: Type.Union([Type.String(), Type.Null()]), isRead: Type.Boolean(), isImportant: Type.Boolean(), isArchived: Type.Boolean(), metadata: Type.Record(Type.String(), Type.Unknown()), expiresAt: Type.Union([Type.String(), Type.Null()]), TenantId: Type.Number(), TenantUserId: Type.Union([Type.String(), Type.Null()]), createdAt: Type.String(), updatedAt: Type.String(), deliveries: Type.Array(Type.Object({ id: Type.String(), channel: Type.String(), recipient: Type.String(), status: Type.String(), attempts: Type.Number(), lastError: Type.Union([Type.String(), Type.Null()]), history: Type.Array(Type.Unknown()), sentAt: Type.Union([Type.String(), Type.Null()]), updatedAt: Type.String() })) })), total: Type.Number(), page: Type.Number(), pageSize: Type.Number(), totalPages: Type.Number() }));
export const GetNotificationsUnreadCount = StatusAnswer(Type.Object({ count: Type.Number() }));
export const GetNotificationsPreferences = StatusAnswer(Type.Object({ channels: Type.Object({ inApp: Type.Boolean(), email: Type.Boolean(), sms: Type.Boolean(), push: Type.Boolean() }), types: Type.Record(Type.String(), Type.Record(Type.String(), Type.Boolean()), { description: 'Per notification type, the channels switched on or off' }), smsNumber: Type.Union([Type.String(), Type.Null()]) }));
export const PatchNotificationsMarkAllRead = StatusAnswer(Type.Object({ updated: Type.Number() }));
export const PatchNotificationsByNotificationIdRead = StatusAnswer(Type.Unknown());

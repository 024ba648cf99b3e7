import type { EventName } from '@cg/events';
import type { ServiceEvent } from './frames';

/**
 * Platform events onto the contract's events (upstream-extended.md 2.4): which `(serviceId, type)`
 * makes which event, and the identity of the occurrence its id is made from, so that the same
 * occurrence seen twice (a reconnect, a takeover, a backfill) is one event.
 */
export interface Occurrence {
  event: EventName;
  /** The platform's identity of the occurrence: object id, and its state where one object comes twice. */
  identity: (string | number)[];
  /** The platform's object, as received. */
  data: Record<string, unknown>;
}

/** Notification type of an expired subscription (svc 15 × 1000 + 7): its only source. */
export const NOTIFICATION_SUBSCRIPTION_EXPIRED = 15007;
/** Notification type of a new subscriber: the subscription became active, whatever its state now. */
const NOTIFICATION_NEW_SUBSCRIBER = 15006;
/** Subscription status of a confirmed subscription (2 is created, then 3 the same id). */
const SUBSCRIPTION_ACTIVE = 3;
/** ackCommand types that mean read (2 read, 3 delivered and read). */
const READ_ACKS: readonly number[] = [2, 3];
/** Typing is announced about every 3 s: one event per fan and chat per window. */
export const TYPING_WINDOW_MS = 3_000;

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));
const num = (value: unknown): number => Number(value ?? 0);

type Rule = (payload: Record<string, unknown>, self: string) => Occurrence[];

const one =
  (event: EventName, identity: (p: Record<string, unknown>) => (string | number)[]): Rule =>
  (payload) => [{ event, identity: identity(payload), data: payload }];

const byId = (event: EventName) => one(event, (p) => [str(p.id)]);
const byOrder =
  (...events: EventName[]): Rule =>
  (payload) =>
    events.map((event) => ({ event, identity: [str(payload.orderId)], data: payload }));

const RULES: Record<string, Rule> = {
  // Chat: a message is received or sent by who wrote it.
  '5:1': (p, self) => [
    {
      event: str(p.senderId) === self ? 'messages.sent' : 'messages.received',
      identity: [str(p.id)],
      data: p,
    },
  ],
  '5:10': byId('messages.deleted'),
  '5:3': byId('messages.reaction_added'),
  '5:4': byId('messages.reaction_removed'),
  '5:22': one('users.typing', (p) => [
    str(p.groupId),
    str(p.accountId),
    Math.floor(num(p.lastAnnounce) / TYPING_WINDOW_MS),
  ]),
  '4:2': (p, self) =>
    READ_ACKS.includes(num(p.type)) && str(p.userId) !== self
      ? [
          {
            event: 'messages.read',
            identity: [
              str(p.groupId),
              str(p.userId),
              ...(Array.isArray(p.messageIds) ? p.messageIds.map(str).sort() : []),
            ],
            data: p,
          },
        ]
      : [],
  // Money.
  '2:7': byOrder('ppv.purchased', 'media.purchased'),
  '2:8': byOrder('ppv.purchased', 'media.purchased'),
  '32:7': byOrder('stories.purchased'),
  '7:1': byId('tips.received'),
  '6:1': byId('transactions.new'),
  '6:3': byId('transactions.new'),
  '16:20': byId('payouts.created'),
  '16:21': one('payouts.updated', (p) => [str(p.id), str(p.status), str(p.updatedAt)]),
  // Audience: the same subscription comes as status 2, then 3; a follow's id is reused by the unfollow.
  '15:5': (p) =>
    num(p.status) === SUBSCRIPTION_ACTIVE
      ? [{ event: 'subscriptions.new', identity: [str(p.id)], data: p }]
      : [],
  '3:2': (p, self) =>
    str(p.accountId) === self
      ? [{ event: 'followers.new', identity: [str(p.id), str(p.createdAt)], data: p }]
      : [],
  '3:3': (p, self) =>
    str(p.accountId) === self ? [{ event: 'followers.removed', identity: [str(p.id)], data: p }] : [],
  '9:1': (p) =>
    num(p.type) === NOTIFICATION_SUBSCRIPTION_EXPIRED
      ? [{ event: 'subscriptions.expired', identity: [str(p.correlationId), str(p.id)], data: p }]
      : [],
  // Content.
  '1:1': byId('posts.created'),
  '1:8': one('posts.updated', (p) => [str(p.id), str(p.updatedAt ?? p.version)]),
  '1:5': byId('posts.deleted'),
  '1:2': byId('posts.liked'),
  '2:2': byId('media.liked'),
  '10:2': one('posts.pinned', (p) => [str(p.postId ?? p.id), str(p.pos)]),
  '10:100': one('posts.pinned', (p) => [str(p.postId ?? p.id), str(p.pos)]),
};

/** The contract's events a platform event makes for the creator `self` (none for most). */
export function occurrences(event: ServiceEvent, self: string): Occurrence[] {
  return RULES[`${event.serviceId}:${event.type}`]?.(event.payload, self) ?? [];
}

/**
 * Notifications (GET /notifications, svc × 1000 + N) as the realtime events they stand for: the
 * backfill reads them after a gap and makes the same occurrences, so the same event ids.
 */
const NOTIFICATION_SOURCES: Record<
  number,
  { serviceId: number; type: number; key: string; collection: string }
> = {
  7001: { serviceId: 7, type: 1, key: 'tip', collection: 'tips' },
  [NOTIFICATION_NEW_SUBSCRIBER]: { serviceId: 15, type: 5, key: 'subscription', collection: 'subscriptions' },
  3002: { serviceId: 3, type: 2, key: 'follow', collection: 'follows' },
  3003: { serviceId: 3, type: 3, key: 'follow', collection: 'follows' },
  2007: { serviceId: 2, type: 7, key: 'order', collection: 'orders' },
  2008: { serviceId: 2, type: 8, key: 'order', collection: 'orders' },
};

/** The notification types a backfill reads (csv): those that stand for an event here. */
export const BACKFILL_NOTIFICATION_TYPES = [
  ...Object.keys(NOTIFICATION_SOURCES),
  NOTIFICATION_SUBSCRIPTION_EXPIRED,
].join(',');

/**
 * The occurrences a notification stands for, as its realtime event would have made them (the same
 * ids). A new subscriber's is `subscriptions.new` whatever state its record is in by now (the
 * notification's records are as they stand when read: expired since, say).
 */
export function notificationOccurrences(
  notification: Record<string, unknown>,
  aggregation: Record<string, unknown>,
  self: string,
): Occurrence[] {
  const event = notificationEvent(notification, aggregation);
  if (!event) return [];
  if (num(notification.type) === NOTIFICATION_NEW_SUBSCRIBER)
    return [{ event: 'subscriptions.new', identity: [str(event.payload.id)], data: event.payload }];
  return occurrences(event, self);
}

/** The platform event a notification stands for, with the record it points at; null if none. */
function notificationEvent(
  notification: Record<string, unknown>,
  aggregation: Record<string, unknown>,
): ServiceEvent | null {
  const type = num(notification.type);
  if (type === NOTIFICATION_SUBSCRIPTION_EXPIRED)
    return { serviceId: 9, type: 1, key: 'notification', payload: notification };
  const source = NOTIFICATION_SOURCES[type];
  if (!source) return null;
  const records = aggregation[source.collection];
  const correlationId = str(notification.correlationId);
  const record = Array.isArray(records)
    ? (records as Record<string, unknown>[]).find(
        (item) => str(item.id) === correlationId || str(item.orderId) === correlationId,
      )
    : undefined;
  return record ? { serviceId: source.serviceId, type: source.type, key: source.key, payload: record } : null;
}

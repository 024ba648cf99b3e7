import { invalidField } from '../errors';
import { compareIds } from '../ids';
import { queryCsv, queryCursorId, queryLimit } from '../params';
import type { NotificationEntry } from '../world/state';
import type { ApiContext, ApiRoute } from './types';

/**
 * GET /notifications (GUESS: upstream-extended.md 2.4 note 6, the backfill of what realtime
 * events told): the creator's notifications, newest first, older than `before` (a notification
 * id), of the `type`s asked (csv), with the records they point at in `aggregationData`.
 */
function notifications(ctx: ApiContext): unknown {
  const before = queryCursorId(ctx.query, 'before');
  const limit = queryLimit(ctx.query);
  const types = queryCsv(ctx.query, 'type').map((raw) => {
    if (!/^\d{1,6}$/.test(raw)) throw invalidField('type');
    return Number(raw);
  });
  const entries = ctx.core.world.state(ctx.creator).notifications;
  const page: NotificationEntry[] = [];
  for (let i = entries.length - 1; i >= 0 && page.length < limit; i--) {
    const entry = entries[i];
    if (!entry) continue;
    if (before !== null && compareIds(entry.notification.id, before) >= 0) continue;
    if (types.length > 0 && !types.includes(entry.notification.type)) continue;
    page.push(entry);
  }
  const aggregationData: Record<NotificationEntry['collection'], unknown[]> = {
    tips: [],
    subscriptions: [],
    follows: [],
    orders: [],
  };
  for (const entry of page) aggregationData[entry.collection].push(entry.record);
  return { notifications: page.map((entry) => entry.notification), aggregationData };
}

export const notificationRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/notifications',
    summary:
      "**GUESS** (the shape). What activity recorded (no seeded notifications), newest first: `before` = a notification id, `type` = csv of types (integers; else 400 code 10): 2007 media purchase, 3002 follow, 3003 unfollow, 7001 tip, 15006 new subscriber, 15007 expired subscription. `{notifications: [{id, type, accountId (the creator), correlationId (the record's id: tip, subscription, follow, `orderId`), correlationGroupId (the fan's chat or null), createdAt (ms)}], aggregationData: {tips, subscriptions, follows, orders}}` (the page's records).",
    auth: 'session',
    handler: notifications,
  },
];

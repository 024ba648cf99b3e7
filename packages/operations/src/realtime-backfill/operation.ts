import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { AccountParams, accountExample, UnixMs } from '../common/schemas';
import { accountRead, defineOperation } from '../define';

const { obj, arr, str, num } = coerce;

/** Unread messages and notifications one backfill reads at most (the platform's page). */
const BACKFILL_PAGE = 100;
const Raw = Type.Record(Type.String(), Type.Unknown());

/**
 * Internal (no route): what a gap in an account's realtime connection may have hidden, read on the
 * account's lane like every platform call (its concurrency, spacing and 429s). The listener queues it
 * after each (re)connection and makes the events: the fans' unread messages (`GET /message/unread`,
 * then each such chat's newest messages) and the latest notifications with their records. Objects
 * pass as the platform sent them.
 */
export const realtimeBackfill = defineOperation({
  name: 'realtime-backfill',
  method: 'GET',
  path: '/:accountId/realtime/backfill',
  summary: 'Internal: the unread messages and latest notifications after a realtime gap',
  tags: ['internal'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      since: UnixMs('only what happened from then on (Unix ms): what came before is no gap'),
      types: Type.String({
        pattern: '^\\d{1,6}(,\\d{1,6}){0,49}$',
        description: 'the notification types to read (csv): those the listener maps back to events',
      }),
    }),
    data: Type.Object({
      messages: Type.Array(Raw, { description: 'unread messages from fans, oldest first' }),
      notifications: Type.Array(Raw, { description: 'newest first' }),
      aggregationData: Raw,
    }),
  },
  example: { params: accountExample, query: { since: 1_795_000_000_000, types: '7001,15006,15007' } },
  run: async ({ query }, { call, account }) => {
    const self = account?.platformAccountId ?? '';
    const recent = (ms: unknown) => num(ms) >= query.since;
    const unread = obj(await call('messageUnread', { query: { limit: BACKFILL_PAGE, offset: 0 } }));
    const byChat = new Map<string, Set<string>>();
    for (const item of arr(unread.messageInteractions)) {
      const chat = str(item.groupId);
      const id = str(item.messageId);
      // Delivered before `since`: older than the gap, no chat read for it.
      if (chat === '' || id === '' || !recent(item.deliveredAt)) continue;
      byChat.set(chat, (byChat.get(chat) ?? new Set()).add(id));
    }
    const messages: Record<string, unknown>[] = [];
    for (const [groupId, ids] of byChat) {
      const page = obj(
        await call('chatMessages', { query: { groupId, limit: Math.min(BACKFILL_PAGE, ids.size + 10) } }),
      );
      for (const message of arr(page.messages))
        if (
          ids.has(str(message.id)) &&
          str(message.senderId) !== self &&
          recent(num(message.createdAt) * 1000)
        )
          messages.push(message);
    }
    // Oldest first, as they would have come (snowflake ids are in time order).
    messages.sort((a, b) => compareIds(str(a.id), str(b.id)));
    const notified = obj(await call('notifications', { query: { limit: BACKFILL_PAGE, type: query.types } }));
    return {
      messages,
      notifications: arr(notified.notifications),
      aggregationData: obj(notified.aggregationData),
    };
  },
});

/** Numeric order of two decimal ids (snowflakes: no leading zeros). */
const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

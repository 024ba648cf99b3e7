import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { AccountParams, accountExample, UnixMs } from '../common/schemas';
import { accountRead, defineOperation, type OperationContext } from '../define';

const { obj, arr, str, num } = coerce;

/** The platform's largest page, and the default of the listener's `LISTENER_BACKFILL_PAGE`. */
export const BACKFILL_PAGE_MAX = 100;
/**
 * Pages one list is read for at most, newest first (the unread messages, the notifications, each
 * chat's messages): beyond, what is older is not read, and `coveredFrom` says from when it is whole.
 */
export const BACKFILL_MAX_PAGES = 25;
const Raw = Type.Record(Type.String(), Type.Unknown());

/**
 * Internal (no route): what a gap in an account's realtime connection may have hidden, read on the
 * account's lane like every platform call (its concurrency, spacing and 429s). The listener queues it
 * after each (re)connection and makes the events. Each list is paged newest first by `before`
 * (upstream-extended.md 2.4, note 6) down to `since`: the fans' unread messages
 * (`GET /message/unread`), then each such chat's messages (`GET /message`) for their objects, and
 * the notifications of `types` (`GET /notifications`) with their records. Objects pass as the
 * platform sent them, oldest first in one list.
 */
export const realtimeBackfill = defineOperation({
  name: 'realtime-backfill',
  method: 'GET',
  path: '/:accountId/realtime/backfill',
  summary: 'Internal: the unread messages and notifications after a realtime gap',
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
      limit: Type.Integer({
        minimum: 1,
        maximum: BACKFILL_PAGE_MAX,
        description: 'items one page asks for (the listener’s LISTENER_BACKFILL_PAGE)',
      }),
    }),
    data: Type.Object({
      items: Type.Array(
        Type.Object({
          kind: Type.Union([Type.Literal('message'), Type.Literal('notification')]),
          object: Raw,
        }),
        { description: 'unread messages from fans and notifications, oldest first (by id)' },
      ),
      aggregationData: Raw,
      coveredFrom: UnixMs(
        '`since` when every list was read down to it; else the latest time a list stopped at (its page limit): what came before it may be missing',
      ),
    }),
  },
  example: {
    params: accountExample,
    query: { since: 1_795_000_000_000, types: '7001,15006,15007', limit: 100 },
  },
  run: async ({ query }, { call, account }) => {
    const self = account?.platformAccountId ?? '';
    const { since, limit } = query;
    const unread = await walkBack(
      {
        page: async (before) =>
          arr(
            obj(await call('messageUnread', { query: { limit, offset: 0, ...(before ? { before } : {}) } }))
              .messageInteractions,
          ),
        id: (item) => str(item.messageId),
        at: (item) => num(item.deliveredAt),
      },
      since,
      limit,
    );
    const byChat = new Map<string, Set<string>>();
    for (const item of unread.found) {
      const chat = str(item.groupId);
      const id = str(item.messageId);
      if (chat !== '' && id !== '') byChat.set(chat, (byChat.get(chat) ?? new Set()).add(id));
    }
    const walks = [unread];
    const messages: Record<string, unknown>[] = [];
    for (const [groupId, ids] of byChat) {
      const chat = await readChat(call, groupId, ids, since, limit);
      walks.push(chat);
      for (const message of chat.found)
        if (ids.has(str(message.id)) && str(message.senderId) !== self) messages.push(message);
    }
    const aggregationData: Record<string, unknown[]> = {};
    const notified = await walkBack(
      {
        page: async (before) => {
          const page = obj(
            await call('notifications', {
              query: { limit, type: query.types, ...(before ? { before } : {}) },
            }),
          );
          gather(aggregationData, obj(page.aggregationData));
          return arr(page.notifications);
        },
        id: (item) => str(item.id),
        at: (item) => num(item.createdAt),
      },
      since,
      limit,
    );
    walks.push(notified);
    const items = [
      ...messages.map((object) => ({ kind: 'message' as const, object })),
      ...notified.found.map((object) => ({ kind: 'notification' as const, object })),
    ];
    // Oldest first, as they would have come (snowflake ids are in time order).
    items.sort((a, b) => compareIds(str(a.object.id), str(b.object.id)));
    return { items, aggregationData, coveredFrom: Math.max(since, ...walks.map((w) => w.coveredFrom)) };
  },
});

/** The messages of chat `groupId` down to `since`, or until every one of `wanted` is among them. */
function readChat(
  call: OperationContext['call'],
  groupId: string,
  wanted: Set<string>,
  since: number,
  limit: number,
) {
  const missing = new Set(wanted);
  return walkBack(
    {
      page: async (before) => {
        const query = { groupId, limit, ...(before ? { before } : {}) };
        const page = arr(obj(await call('chatMessages', { query })).messages);
        for (const message of page) missing.delete(str(message.id));
        return page;
      },
      id: (message) => str(message.id),
      // The platform's message times are in seconds.
      at: (message) => num(message.createdAt) * 1000,
      enough: () => missing.size === 0,
    },
    since,
    limit,
  );
}

/** A list the platform pages newest first by `before` (the id of the oldest item seen). */
interface PagedList {
  /** One page of `limit` items at most, newest first, older than `before` (null: the newest). */
  page(before: string | null): Promise<Record<string, unknown>[]>;
  id(item: Record<string, unknown>): string;
  /** When the item happened (Unix ms). */
  at(item: Record<string, unknown>): number;
  /** Whether what was read is all that is wanted: the walk stops. */
  enough?(): boolean;
}

/**
 * The items of `list` from `since` on, newest first, reading at most BACKFILL_MAX_PAGES pages.
 * `coveredFrom` is `since` when the walk got there (or to the list's end), else the time of the
 * oldest item read: what came before that is not read.
 */
async function walkBack(
  list: PagedList,
  since: number,
  limit: number,
): Promise<{ found: Record<string, unknown>[]; coveredFrom: number }> {
  const found: Record<string, unknown>[] = [];
  let before: string | null = null;
  for (let pages = 1; ; pages++) {
    const page = await list.page(before);
    for (const item of page) if (list.at(item) >= since) found.push(item);
    const oldest = page.at(-1);
    if (oldest === undefined || page.length < limit || list.at(oldest) < since || list.enough?.())
      return { found, coveredFrom: since };
    const next = list.id(oldest);
    // No id to page on, or the same again: the list ends here as far as it can be read.
    if (next === '' || next === before) return { found, coveredFrom: since };
    if (pages === BACKFILL_MAX_PAGES) return { found, coveredFrom: list.at(oldest) };
    before = next;
  }
}

/** Adds a page's records (`aggregationData`) to those of the pages before, by collection. */
function gather(into: Record<string, unknown[]>, page: Record<string, unknown>): void {
  for (const [collection, records] of Object.entries(page))
    if (Array.isArray(records)) into[collection] = [...(into[collection] ?? []), ...records];
}

/** Numeric order of two decimal ids (snowflakes: no leading zeros). */
const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

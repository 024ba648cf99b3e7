/**
 * Where each paged operation keeps its next-page position and its items. The contract places the
 * cursor differently per endpoint (`data.data.nextCursor` beside `response`, `response.nextCursor`,
 * `response.cursor`, `data.nextCursor` beside `data.data`; docs/api.md, "Cursors"), and one listing
 * pages by offset. The document does not say which of an answer's arrays is "the items", so this map
 * is declared here; test/generated.test.ts checks it against the document: every operation with a
 * `cursor` or `offset` parameter has an entry, and each path names a field of the answer.
 */
import type { OperationName } from './operations.js';

export type PageSpec =
  /** The answer names the next page's `cursor` at `cursor`; null, "" or absent ends the listing. */
  | { readonly cursor: readonly string[]; readonly items: readonly string[] }
  /** The caller pages by `offset`; `total` counts every item of the listing. */
  | { readonly offset: true; readonly total: readonly string[]; readonly items: readonly string[] };

const inData = <const P extends string[]>(...path: P) => ['data', 'data', ...path] as const;
const inResponse = <const P extends string[]>(...path: P) => ['data', 'data', 'response', ...path] as const;

export const PAGINATION = {
  listsRead: { cursor: inData('nextCursor'), items: inData('response') },
  chatMediaStats: { cursor: ['data', 'nextCursor'], items: inResponse('data') },
  chatsUnread: { cursor: inData('nextCursor'), items: inResponse('messageInteractions') },
  chatsList: { cursor: inData('nextCursor'), items: inResponse('data') },
  chatMessages: { cursor: inResponse('cursor'), items: inResponse('messages') },
  chatsTips: { cursor: inData('nextCursor'), items: inResponse('tips') },
  vaultAlbumMedia: { cursor: inResponse('cursor'), items: inResponse('media') },
  massMessagesStatsSent: { cursor: inData('nextCursor'), items: inResponse('messages') },
  massMessagesStatsDeleted: { cursor: inData('nextCursor'), items: inResponse('messages') },
  postsWall: { cursor: inData('nextCursor'), items: inResponse('posts') },
  subscribers: { cursor: inResponse('nextCursor'), items: inResponse('subscriptions') },
  following: { cursor: inResponse('nextCursor'), items: inResponse('following') },
  followers: { cursor: inResponse('nextCursor'), items: inResponse('followers') },
  earningsTransactions: { offset: true, total: inResponse('total'), items: inResponse('data') },
  webhooksDeliveries: { cursor: ['data', 'nextCursor'], items: ['data', 'deliveries'] },
  eventsList: { cursor: ['data', 'nextCursor'], items: ['data', 'events'] },
} as const satisfies Partial<Record<OperationName, PageSpec>>;

export type PagedOperationName = keyof typeof PAGINATION;

/** The value at `path` inside a parsed answer, or undefined where a step is missing. */
export function valueAt(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const step of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<string, unknown>)[step];
  }
  return here;
}

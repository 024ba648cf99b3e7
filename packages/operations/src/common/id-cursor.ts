import { SNOWFLAKE_PATTERN } from './schemas';

/**
 * Cursors that are platform ids (snowflakes: decimal strings of a 63-bit integer), for endpoints
 * whose upstream pages by id (`after=<sortId>`, `before=<id>`) and whose contract lets the caller
 * see that id (the unread cursor IS a messageId). Checked in the API, so a malformed cursor is a
 * 400 naming the parameter before anything is enqueued, never the platform's own 400.
 */
const SNOWFLAKE = new RegExp(SNOWFLAKE_PATTERN);
const MAX_SNOWFLAKE = (1n << 63n) - 1n;

export const idCursor = {
  /** Returns the reason for a 400, if any. Absent or empty means the first page. */
  check: (cursor: string | undefined, rule: string): string | undefined => {
    if (cursor === undefined || cursor === '') return undefined;
    return SNOWFLAKE.test(cursor) && BigInt(cursor) <= MAX_SNOWFLAKE
      ? undefined
      : `The cursor query parameter ${rule}`;
  },
  /** The upstream bound: undefined (left out of the query) for the first page. */
  toUpstream: (cursor: string | undefined): string | undefined =>
    cursor === undefined || cursor === '' ? undefined : cursor,
};

/**
 * Splits a page fetched with one extra item: the extra item only tells whether another page exists,
 * so the last page is known without an empty trailing request. `next`, the cursor of the following
 * page, is `cursorOf` the last item kept; undefined when this page is the last.
 */
export function splitPage<T>(
  items: T[],
  size: number,
  cursorOf: (item: T) => string,
): { items: T[]; next: string | undefined } {
  const kept = items.slice(0, size);
  const last = kept.at(-1);
  return { items: kept, next: items.length > size && last !== undefined ? cursorOf(last) : undefined };
}

import { Type } from 'typebox';
import { offsetCursor } from './cursor';

/**
 * Page sizes of the offset-paged listings (subscribers, following, earnings transactions). The
 * contract leaves the page size to the caller with no stated bounds; the platform caps one page at
 * 100 (sandbox README, "Paging": larger values are clamped). So the gateway takes up to
 * MAX_LIMIT and fetches as many upstream pages as that needs inside the one job.
 */
/** Page size when the caller sends no `limit`. @defaultValue 25 */
export const DEFAULT_LIMIT = 25;
/**
 * The gateway's own maximum: 5 upstream calls in one job, which keeps a job short and well inside
 * the platform's per-account request budget. Above it: 400 naming `limit` and this maximum.
 */
export const MAX_LIMIT = 500;
/** The platform's largest page. */
export const UPSTREAM_PAGE_MAX = 100;

/** The `limit` query parameter; the 400 above the maximum reads "The limit query parameter must be <= 500". */
export const LimitQuery = (description: string) =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      default: DEFAULT_LIMIT,
      description: `${description} (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
    }),
  );

export interface FetchedPages<T> {
  /** Exactly `limit` items unless the list ended first. */
  items: T[];
  /** The platform answered a page shorter than asked: nothing follows these items. */
  ended: boolean;
}

/**
 * Reads `limit` items from `offset` in upstream pages of at most 100, one after another (never in
 * parallel: the platform limits requests in flight per account), stopping at the first short page.
 * `fetchPage` makes one upstream call and returns that page's items.
 */
export async function fetchPages<T>(
  { limit, offset }: { limit: number; offset: number },
  fetchPage: (page: { limit: number; offset: number }) => Promise<T[]>,
): Promise<FetchedPages<T>> {
  const items: T[] = [];
  while (items.length < limit) {
    const size = Math.min(UPSTREAM_PAGE_MAX, limit - items.length);
    const page = await fetchPage({ limit: size, offset: offset + items.length });
    // A platform answering more than asked must not push the answer past `limit`.
    items.push(...page.slice(0, size));
    if (page.length < size) return { items, ended: true };
  }
  return { items, ended: false };
}

/**
 * One page of an offset-paged listing behind the gateway's cursor: `limit` items (DEFAULT_LIMIT when
 * absent) from the offset the cursor names, with the cursor of the page after them.
 */
export async function fetchCursorPage<T>(
  query: { cursor?: string | undefined; limit?: number | undefined },
  fetchPage: (page: { limit: number; offset: number }) => Promise<T[]>,
): Promise<{ items: T[]; nextCursor: string }> {
  const offset = offsetCursor.decode(query.cursor);
  const { items, ended } = await fetchPages({ limit: query.limit ?? DEFAULT_LIMIT, offset }, fetchPage);
  // The next page starts after what this answer holds; a short upstream page was the last one.
  return { items, nextCursor: ended ? '' : offsetCursor.encode(offset + items.length) };
}

/**
 * Where each paged operation keeps its next-page position and its items. The contract places the
 * cursor differently per endpoint (`data.data.nextCursor` beside `response`, `response.nextCursor`,
 * `response.cursor`, `data.nextCursor` beside `data.data`; docs/api.md, "Cursors"), and one listing
 * pages by offset. Each route publishes its own as the OpenAPI extension `x-paging`, generated into
 * operations.ts; test/generated.test.ts checks every path names a field of the answer.
 */
import { type OperationName, PAGING } from './operations.js';

export type PageSpec =
  /** The answer names the next page's `cursor` at `cursor`; null, "" or absent ends the listing. */
  | { readonly cursor: readonly string[]; readonly items: readonly string[] }
  /** The caller pages by `offset`; `total` counts every item of the listing. */
  | { readonly offset: true; readonly total: readonly string[]; readonly items: readonly string[] };

export const PAGINATION = PAGING satisfies Partial<Record<OperationName, PageSpec>>;

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

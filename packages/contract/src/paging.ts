/**
 * How a paged listing is walked, published on its route as the OpenAPI extension `x-paging` (the
 * SDK's `paginate` and `pages` are generated from it). Paths are property names from the answer's
 * root (the envelope): the contract places the cursor differently per endpoint (docs/api.md,
 * "Cursors").
 */
export type Paging =
  /** The answer names the next page's `?cursor=` at `cursor`; null, "" or absent ends the listing. */
  | { readonly cursor: readonly string[]; readonly items: readonly string[] }
  /** The caller pages by `offset`; `total` counts every item of the listing. */
  | { readonly offset: true; readonly total: readonly string[]; readonly items: readonly string[] };

/** The OpenAPI operation extension that carries a route's `Paging`. */
export const PAGING_EXTENSION = 'x-paging';

/**
 * The OpenAPI operation extension naming what an API key needs for a route: its access (`read`,
 * `write` or `admin`) and whether only a key of every account may (`everyAccount`).
 */
export const ACCESS_EXTENSION = 'x-access';

/** Paths inside the envelope's `data.data` (the platform's `{success, response}` and siblings). */
export const inData = (...path: string[]): string[] => ['data', 'data', ...path];
/** Paths inside the envelope's `data.data.response`. */
export const inResponse = (...path: string[]): string[] => ['data', 'data', 'response', ...path];

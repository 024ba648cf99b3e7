import { useSyncExternalStore } from 'react';

// A hash router: `/console/#/keys`, `/console/#/accounts/<id>`. The API serves index.html at
// /console/ only, so the page's place is kept after the hash, which never reaches the server.

export type Page = 'accounts' | 'account' | 'activity' | 'audit' | 'usage' | 'webhooks' | 'keys';
const PAGES: readonly Page[] = ['accounts', 'activity', 'audit', 'usage', 'webhooks', 'keys'];

export interface Route {
  page: Page;
  /** The account of `#/accounts/<id>`. */
  accountId?: string;
}

let cached: { hash: string; route: Route } = { hash: '', route: { page: 'accounts' } };

function parse(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'accounts' && parts[1])
    return { page: 'account', accountId: decodeURIComponent(parts[1]) };
  return { page: PAGES.find((page) => page === parts[0]) ?? 'accounts' };
}

function currentRoute(): Route {
  const hash = window.location.hash;
  if (cached.hash !== hash) cached = { hash, route: parse(hash) };
  return cached.route;
}

export function useRoute(): Route {
  return useSyncExternalStore((listener) => {
    window.addEventListener('hashchange', listener);
    return () => window.removeEventListener('hashchange', listener);
  }, currentRoute);
}

export const hrefOf = (page: Exclude<Page, 'account'>): string => `#/${page}`;
export const accountHref = (accountId: string): string => `#/accounts/${encodeURIComponent(accountId)}`;

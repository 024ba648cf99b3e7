import { GatewayError } from '@cg/contract';
import type { KeyAccess, KeyScope } from '@cg/store';
import type { FastifyRequest } from 'fastify';
import type { Operation } from './submit';

// What an API key may do (`KeyScope`): its access (read < write < admin) and the accounts it
// reaches. An account outside a key's list is answered as one that does not exist.

const RANK: Record<KeyAccess, number> = { read: 0, write: 1, admin: 2 };

/** Whether `access` includes `needed`. */
export const includes = (access: KeyAccess, needed: KeyAccess) => RANK[access] >= RANK[needed];

/** What an operation of the registry needs: connecting is admin's, a GET read's, the rest write's. */
export function operationAccess(op: Pick<Operation, 'connects' | 'method'>): KeyAccess {
  if (op.connects) return 'admin';
  return op.method === 'GET' ? 'read' : 'write';
}

/** Whether the key reaches `accountId` (a key of every account reaches any). */
export const reaches = (key: KeyScope, accountId: string) =>
  key.accounts === null || key.accounts.includes(accountId);

/**
 * Whether what reaches `accounts` (null: every account) is within the caller's key: anything is for
 * a key of every account; for a key of some accounts, a list of those only.
 */
export function within(request: FastifyRequest, accounts: readonly string[] | null): boolean {
  const own = request.apiKey.accounts;
  return own === null || (accounts?.every((id) => own.includes(id)) ?? false);
}

/** 403 unless the caller's key has `needed` access (and, where `everyAccount`, reaches every account). */
export function requireAccess(request: FastifyRequest, needed: KeyAccess, everyAccount = false): void {
  const key = request.apiKey;
  if (!includes(key.access, needed))
    throw new GatewayError(
      'FORBIDDEN',
      `this API key has ${key.access} access; ${request.method} ${request.routeOptions.url} needs ${needed} access`,
    );
  if (everyAccount && key.accounts !== null)
    throw new GatewayError(
      'FORBIDDEN',
      `this API key reaches some accounts only; ${request.method} ${request.routeOptions.url} needs a key of every account`,
    );
}

/** 404, worded as for an account that does not exist, unless the caller's key reaches it. */
export function requireReach(request: FastifyRequest, accountId: string): void {
  if (!reaches(request.apiKey, accountId))
    throw new GatewayError('NOT_FOUND', `account ${accountId} not found`);
}

/** Keeps the items of the accounts the caller's key reaches (an item without an account: every-account keys). */
export function reachable<T>(
  request: FastifyRequest,
  items: T[],
  accountOf: (item: T) => string | undefined,
): T[] {
  const { accounts } = request.apiKey;
  if (accounts === null) return items;
  return items.filter((item) => {
    const accountId = accountOf(item);
    return accountId !== undefined && accounts.includes(accountId);
  });
}

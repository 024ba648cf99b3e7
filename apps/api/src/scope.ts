import { GatewayError } from '@cg/contract';
import type { KeyAccess, KeyScope, Store } from '@cg/store';
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

/**
 * 404, worded as for an account that does not exist, unless the caller's key reaches it; `named`:
 * how the caller named it (its platform account id, say), which the answer repeats.
 */
export function requireReach(request: FastifyRequest, accountId: string, named = accountId): void {
  if (!reaches(request.apiKey, accountId)) throw new GatewayError('NOT_FOUND', `account ${named} not found`);
}

/**
 * The service account id of the tenant's account `named` (its service or platform account id),
 * which becomes the request's account (its usage and audit entry); 404 when the key does not reach
 * it. One that does not exist comes back as named, for the route's own 404.
 */
export async function namedAccountId(request: FastifyRequest, store: Store, named: string): Promise<string> {
  const accountId = (await store.accounts.find(request.tenantId, named))?.accountId;
  requireReach(request, accountId ?? named, named);
  if (accountId !== undefined) request.accountId = accountId;
  return accountId ?? named;
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

/**
 * The account a request acts on: the one it resolved, else the one its path names if it was answered
 * below 400 (so an account that does not exist, or that the key does not reach, is counted as none:
 * a caller cannot fill the counts with ids of its own making).
 */
export function requestAccount(request: FastifyRequest, status: number): string | null {
  if (request.accountId !== null) return request.accountId;
  const named = (request.params as { accountId?: unknown } | undefined)?.accountId;
  return status < 400 && typeof named === 'string' && named !== '' ? named : null;
}

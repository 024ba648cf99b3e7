/**
 * The scope matrix, generated from the operation registry: every operation × each access (read,
 * write, admin) × a key whose accounts hold the operation's account or not. Refused requests are
 * 403 FORBIDDEN (too little access; connecting also needs a key of every account) or, for an
 * account outside the key, the very 404 an unknown account gets; either way nothing is queued and
 * nothing reaches the platform. Allowed ones pass the gate: neither of those answers.
 */
import { allOperations } from '@cg/operations';
import { ApiKeyStore, KEY_ACCESS, type KeyAccess, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/assert';
import { connectAccount } from '../support/common';
import {
  accountPart,
  baseline,
  type Operation,
  sendOperation,
  snapshot,
  type Untouched,
} from '../support/operations';
import { startStack, type TestStack } from '../support/stack';

let stack: TestStack;
/** The account every request names, and another account of the same tenant. */
const ids = { named: '', other: '' };
/** Keys of tenant t1 by access and reach: `in` lists the named account, `out` only the other. */
const keys = {} as Record<KeyAccess, { in: string; out: string }>;

beforeAll(async () => {
  stack = await startStack();
  ids.named = await connectAccount(stack, 'creator_demo');
  ids.other = await connectAccount(stack, 'creator_2fa');
  const store = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
  for (const access of KEY_ACCESS) {
    const make = async (accounts: string[]) => (await store.create('t1', { access, accounts })).key;
    keys[access] = { in: await make([ids.named]), out: await make([ids.other]) };
  }
});
afterAll(async () => {
  await stack?.stop();
});

/** What the registry says an operation needs; the API derives the same (apps/api/src/scope.ts). */
function needed(op: Operation): KeyAccess {
  if (op.connects) return 'admin';
  return op.method === 'GET' ? 'read' : 'write';
}

const RANK: Record<KeyAccess, number> = { read: 0, write: 1, admin: 2 };

/** How the matrix expects a request to end. */
function expected(
  op: Operation,
  access: KeyAccess,
  reach: 'in' | 'out',
): 'forbidden' | 'not found' | 'allowed' {
  // Connecting makes an account the key's list cannot hold yet: only keys of every account may.
  if (RANK[access] < RANK[needed(op)] || op.connects) return 'forbidden';
  if (reach === 'out' && accountPart(op) !== undefined) return 'not found';
  return 'allowed';
}

const cases = allOperations.flatMap((op) =>
  KEY_ACCESS.flatMap((access) =>
    (['in', 'out'] as const).map((reach) => [op.name, access, reach, op] as const),
  ),
);

describe('the scope matrix', () => {
  it('covers every operation of the registry with each access and reach', () => {
    expect(cases).toHaveLength(allOperations.length * 6);
    expect(new Set(cases.map(([, , , op]) => needed(op)))).toEqual(new Set(KEY_ACCESS));
  });

  it.each(cases)('%s with a %s key, account %s its list', async (_name, access, reach, op) => {
    const before: Untouched = await snapshot(stack);
    const answer = await sendOperation(stack, op, baseline(op, ids.named), keys[access][reach]);
    const outcome = expected(op, access, reach);
    if (outcome === 'forbidden') expectError(answer, 403, 'FORBIDDEN', `needs`);
    if (outcome === 'not found') {
      expectError(answer, 404, 'NOT_FOUND');
      expect(answer.body.message).toBe(`account ${ids.named} not found`);
    }
    if (outcome === 'allowed') {
      expect(answer.status, JSON.stringify(answer.body)).not.toBe(403);
      expect(answer.body?.message).not.toBe(`account ${ids.named} not found`);
      return;
    }
    const after = await snapshot(stack);
    expect(after.platformRequests, 'requests the platform saw').toBe(before.platformRequests);
    expect(
      [...after.jobs].filter((job) => !before.jobs.has(job)),
      'new jobs',
    ).toEqual([]);
  });
});

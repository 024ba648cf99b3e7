import { ErrorCode, invalidField, notFound, SimError } from '../errors';
import {
  bodyObject,
  queryCsv,
  queryLimit,
  queryMs,
  queryOffset,
  queryString,
  requiredBodyId,
} from '../params';
import type { EarningsTransaction, Subscription } from '../records';
import { PAYOUT_STATUS_ACTIVE, PAYOUT_STATUS_DELETED } from '../world/state';
import type { ApiContext, ApiRoute } from './types';

/**
 * Subscriptions newest first, offset-paged. Filters: status (csv of numbers), subscriptionTierId
 * (csv; `subscriptionTierIds` accepted too), search (case-insensitive substring of the
 * subscriber's username or display name). stats always count all of the creator's subscriptions.
 */
function subscribers(ctx: ApiContext): unknown {
  const statuses = queryCsv(ctx.query, 'status').map((s) => {
    if (!/^\d+$/.test(s)) throw invalidField('status');
    return Number(s);
  });
  const tierIds = [
    ...queryCsv(ctx.query, 'subscriptionTierId'),
    ...queryCsv(ctx.query, 'subscriptionTierIds'),
  ];
  const search = queryString(ctx.query, 'search')?.trim().toLowerCase() ?? '';
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  const world = ctx.core.world.creator(ctx.creator);
  const facts = world.subscriptionFacts();
  const tierIndexes = new Set<number>();
  for (const tierId of tierIds) {
    const index = world.tiers.findIndex((tier) => tier.id === tierId);
    if (index >= 0) tierIndexes.add(index);
  }
  const subscriptions: Subscription[] = [];
  let matched = 0;
  for (let i = 0; i < world.subscriptionCount && subscriptions.length < limit; i++) {
    if (statuses.length > 0 && !statuses.includes(facts.status[i] ?? 0)) continue;
    if (tierIds.length > 0 && !tierIndexes.has(facts.tier[i] ?? -1)) continue;
    if (search !== '') {
      const fan = world.subscriberOf(i);
      if (
        !world.fanUsername(fan).includes(search) &&
        !world.fanDisplayName(fan).toLowerCase().includes(search)
      )
        continue;
    }
    matched += 1;
    if (matched <= offset) continue;
    subscriptions.push(world.subscription(i));
  }
  return {
    stats: {
      totalActive: facts.active,
      totalExpired: world.subscriptionCount - facts.active,
      total: world.subscriptionCount,
    },
    subscriptions,
  };
}

/** Earnings newest first; `after`/`before` are exclusive Unix ms bounds on createdAt; total counts the bounded range. */
function transactions(ctx: ApiContext): unknown {
  const after = queryMs(ctx.query, 'after');
  const before = queryMs(ctx.query, 'before');
  const limit = queryLimit(ctx.query);
  const offset = queryOffset(ctx.query);
  const world = ctx.core.world.creator(ctx.creator);
  const count = world.transactionCount;
  const lo = before === null ? 0 : world.transactions.countNewerThan(before - 1, count);
  const hi = after === null ? count : world.transactions.countNewerThan(after, count);
  const total = Math.max(0, hi - lo);
  const data: EarningsTransaction[] = [];
  for (let i = lo + offset; i < hi && data.length < limit; i++) data.push(world.transaction(i));
  return { total, data };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deletes a payout method. For an account with a second factor the body must carry
 * `twofa: {code, token}` (token any non-empty string): missing → 400 code 4, wrong code → 400 code 2.
 */
function deletePayoutMethod(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const payoutMethodId = requiredBodyId(body, 'payoutMethodId');
  const identity = ctx.core.world.identity(ctx.creator);
  if (identity.twofaCode !== null) {
    const twofa = body.twofa;
    if (
      !isRecord(twofa) ||
      typeof twofa.token !== 'string' ||
      twofa.token.trim() === '' ||
      (typeof twofa.code !== 'string' && typeof twofa.code !== 'number') ||
      String(twofa.code).trim() === ''
    ) {
      throw new SimError(400, ErrorCode.stepUpRequired, 'Two-factor verification required.');
    }
    if (String(twofa.code).trim() !== identity.twofaCode) {
      throw new SimError(400, ErrorCode.wrongTwofaCode, 'Invalid two-factor code.');
    }
  }
  const method = ctx.core.world.state(ctx.creator).payoutMethods.get(payoutMethodId);
  if (!method || method.status === PAYOUT_STATUS_DELETED) throw notFound('payout method');
  method.status = PAYOUT_STATUS_DELETED;
  method.deletedAt = ctx.now;
  method.version += 1;
  return method;
}

function payoutMethods(ctx: ApiContext): unknown {
  return [...ctx.core.world.state(ctx.creator).payoutMethods.values()].filter(
    (m) => m.status === PAYOUT_STATUS_ACTIVE,
  );
}

export const moneyRoutes: ApiRoute[] = [
  { method: 'GET', path: '/subscribers', auth: 'session', handler: subscribers },
  { method: 'GET', path: '/account/wallets/earnings/transactions', auth: 'session', handler: transactions },
  {
    method: 'POST',
    path: '/payments/payoutmethod/delete',
    auth: 'session',
    write: true,
    handler: deletePayoutMethod,
  },
  { method: 'GET', path: '/payments/payoutmethods', auth: 'session', handler: payoutMethods },
];

import { ErrorCode, invalidField, notFound, SimError } from '../errors';
import {
  bodyObject,
  queryCsv,
  queryCursorId,
  queryLimit,
  queryMs,
  queryOffset,
  queryString,
  requiredBodyId,
} from '../params';
import type { EarningsTransaction, Subscription } from '../records';
import type { EarningsRange } from '../world/earnings';
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
  const { lo, hi } = world.transactionRange(after, before);
  const total = hi - lo;
  const data: EarningsTransaction[] = [];
  for (let i = lo + offset; i < hi && data.length < limit; i++) data.push(world.transaction(i));
  return { total, data };
}

/** `after`/`before` of the earnings series: exclusive Unix ms bounds on createdAt, absent or 0 none. */
function rangeOf(ctx: ApiContext): EarningsRange {
  return { after: queryMs(ctx.query, 'after'), before: queryMs(ctx.query, 'before') };
}

/** The fan `correlationAccountId` names (required): one of the creator's fans, else 404. */
function correlatedFan(ctx: ApiContext): number {
  const fanId = queryString(ctx.query, 'correlationAccountId');
  if (fanId === undefined) throw invalidField('correlationAccountId');
  const fan = ctx.core.world.creator(ctx.creator).fanIndexOf(fanId);
  if (fan < 0) throw notFound('account');
  return fan;
}

/** The wallet's balance summary (mills): balance, availableBalance, pendingBalance. */
function earningsSummary(ctx: ApiContext): unknown {
  return ctx.core.world.earnings(ctx.creator).summary();
}

/**
 * Totals per revenue type per UTC day `{type, totalGross, totalNet, accountId, timestamp}`, newest
 * day first, at most `limit` rows; `offset` is ignored, as the platform does (upstream-extended 1.10).
 */
function earningsStats(ctx: ApiContext): unknown {
  return ctx.core.world.earnings(ctx.creator).daily(rangeOf(ctx)).slice(0, queryLimit(ctx.query));
}

/** The same rows for one fan (`correlationAccountId`), each naming the fan. */
function earningsStatsOfFan(ctx: ApiContext): unknown {
  const fan = correlatedFan(ctx);
  return ctx.core.world.earnings(ctx.creator).daily(rangeOf(ctx), fan).slice(0, queryLimit(ctx.query));
}

/** Totals per UTC month `{accountId, year, month, totalGross, totalNet}`, newest first, then the year 0, month 0 roll-up. */
function monthlyStats(ctx: ApiContext): unknown {
  return ctx.core.world.earnings(ctx.creator).monthly(rangeOf(ctx));
}

/** The same months for one fan (`correlationAccountId`), each naming the fan. */
function monthlyStatsOfFan(ctx: ApiContext): unknown {
  return ctx.core.world.earnings(ctx.creator).monthly(rangeOf(ctx), correlatedFan(ctx));
}

/** What each fan spent: `{totalGross, totalNet, accountId, correlationAccountId}`, highest first, at most 100. */
function earningsByFan(ctx: ApiContext): unknown {
  return ctx.core.world.earnings(ctx.creator).topFans(rangeOf(ctx));
}

/**
 * One fan's transactions, newest first: `{data: [{transactionId, transactionType,
 * transactionAmount, amount, status, createdAt}], hasMore}`. `cursor` is the transactionId of the
 * previous page's last row (absent or 0: from the newest); `limit` at most 100.
 */
function transactionsOfFan(ctx: ApiContext): unknown {
  const fan = correlatedFan(ctx);
  const cursor = queryCursorId(ctx.query, 'cursor');
  return ctx.core.world
    .earnings(ctx.creator)
    .fanTransactions(fan, rangeOf(ctx), cursor, queryLimit(ctx.query));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deletes a payout method. For an account with a second factor the body must carry `twofa: {code,
 * token}`, the token a grant of `POST /twofa/session/verify`: missing → 400 code 4; an unknown,
 * spent, expired or another account's grant → 400 code 3; a wrong code → 400 code 2. The grant is
 * spent only by a deletion that is done.
 */
function deletePayoutMethod(ctx: ApiContext): unknown {
  const body = bodyObject(ctx.body);
  const payoutMethodId = requiredBodyId(body, 'payoutMethodId');
  const identity = ctx.core.world.identity(ctx.creator);
  const grant = identity.twofaCode === null ? null : stepUpGrant(ctx, body.twofa, identity.twofaCode);
  const method = ctx.core.world.state(ctx.creator).payoutMethods.get(payoutMethodId);
  if (!method || method.status === PAYOUT_STATUS_DELETED) throw notFound('payout method');
  if (grant !== null) ctx.core.stepUps.spendGrant(grant);
  method.status = PAYOUT_STATUS_DELETED;
  method.deletedAt = ctx.now;
  method.version += 1;
  return method;
}

/** The step-up grant a deletion carries in `twofa`, checked against the account's code. */
function stepUpGrant(ctx: ApiContext, twofa: unknown, expectedCode: string): string {
  if (
    !isRecord(twofa) ||
    typeof twofa.token !== 'string' ||
    twofa.token.trim() === '' ||
    (typeof twofa.code !== 'string' && typeof twofa.code !== 'number') ||
    String(twofa.code).trim() === ''
  ) {
    throw new SimError(400, ErrorCode.stepUpRequired, 'Two-factor verification required.');
  }
  ctx.core.stepUps.checkGrant(ctx.creator, twofa.token, ctx.now);
  if (String(twofa.code).trim() !== expectedCode) {
    throw new SimError(400, ErrorCode.wrongTwofaCode, 'Invalid two-factor code.');
  }
  return twofa.token;
}

function payoutMethods(ctx: ApiContext): unknown {
  return [...ctx.core.world.state(ctx.creator).payoutMethods.values()].filter(
    (m) => m.status === PAYOUT_STATUS_ACTIVE,
  );
}

export const moneyRoutes: ApiRoute[] = [
  { method: 'GET', path: '/subscribers', auth: 'session', handler: subscribers },
  { method: 'GET', path: '/account/wallets/earnings/transactions', auth: 'session', handler: transactions },
  { method: 'GET', path: '/account/wallets/earnings', auth: 'session', handler: earningsSummary },
  { method: 'GET', path: '/account/wallets/earnings/stats', auth: 'session', handler: earningsStats },
  {
    method: 'GET',
    path: '/account/wallets/earnings/stats/accounts',
    auth: 'session',
    handler: earningsStatsOfFan,
  },
  { method: 'GET', path: '/account/wallets/earnings/monthlystats', auth: 'session', handler: monthlyStats },
  {
    method: 'GET',
    path: '/account/wallets/earnings/monthlystats/accounts',
    auth: 'session',
    handler: monthlyStatsOfFan,
  },
  { method: 'GET', path: '/account/wallets/earnings/accounts', auth: 'session', handler: earningsByFan },
  {
    method: 'GET',
    path: '/account/wallets/earnings/transactions/accounts',
    auth: 'session',
    handler: transactionsOfFan,
  },
  {
    method: 'POST',
    path: '/payments/payoutmethod/delete',
    auth: 'session',
    write: true,
    handler: deletePayoutMethod,
  },
  { method: 'GET', path: '/payments/payoutmethods', auth: 'session', handler: payoutMethods },
];

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
  const state = ctx.core.world.state(ctx.creator);
  const method = state.payoutMethods.get(payoutMethodId);
  if (!method || method.status === PAYOUT_STATUS_DELETED) throw notFound('payout method');
  if (grant !== null) ctx.core.stepUps.spendGrant(grant);
  return state.deletePayoutMethod(method, ctx.now);
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
  {
    method: 'GET',
    path: '/subscribers',
    summary:
      '`{stats, subscriptions}`, newest first, `limit`/`offset`. Filters: `status` (csv; 3 active, 4 expired; absent = all), `subscriptionTierId` (csv; `subscriptionTierIds` too; an unknown tier matches nothing), `search` (case-insensitive part of the username or display name). `stats` counts all.',
    auth: 'session',
    handler: subscribers,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings/transactions',
    summary:
      '`{total, data}`, newest first, `limit`/`offset`; `after`/`before`: exclusive Unix ms bounds on `createdAt`; `total` counts the transactions within them.',
    auth: 'session',
    handler: transactions,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings',
    summary:
      "The wallet in mills: `{balance` (after the newest transaction)`, pendingBalance` (net of the last 7 days before the seed's anchor)`, availableBalance}`.",
    auth: 'session',
    handler: earningsSummary,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings/stats',
    summary:
      "Rows `{type, totalGross, totalNet, accountId, timestamp}` per revenue type per UTC day (`timestamp` the day's start), summed from the transactions with `after` < `createdAt` < `before` (0: no bound); newest day first, types ascending; at most `limit` (≤ 100) rows, `offset` ignored.",
    auth: 'session',
    handler: earningsStats,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings/stats/accounts',

    summary:
      "The same rows for one fan, `correlationAccountId` (required; not one of the creator's fans: 404), each naming the fan.",
    auth: 'session',
    handler: earningsStatsOfFan,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings/monthlystats',
    summary:
      'Rows `{accountId, year, month, totalGross, totalNet}` per UTC month of the range, newest first, then the roll-up `year: 0, month: 0` of the whole range.',
    auth: 'session',
    handler: monthlyStats,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings/monthlystats/accounts',

    summary: 'The same for one fan (`correlationAccountId`, as above).',
    auth: 'session',
    handler: monthlyStatsOfFan,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings/accounts',
    summary:
      'What each fan spent in the range: `[{totalGross, totalNet, accountId, correlationAccountId}]`, highest gross first, at most 100.',
    auth: 'session',
    handler: earningsByFan,
  },
  {
    method: 'GET',
    path: '/account/wallets/earnings/transactions/accounts',

    summary:
      "**GUESS** (the cursor). One fan's transactions (`correlationAccountId`, as above) in the range, newest first: `{data: [{transactionId, transactionType, transactionAmount (gross), amount (net), status, createdAt}], hasMore}`; `cursor` the last `transactionId` read (0: the newest), `limit` ≤ 100.",
    auth: 'session',
    handler: transactionsOfFan,
  },
  {
    method: 'POST',
    path: '/payments/payoutmethod/delete',

    summary:
      '`{payoutMethodId, twofa?: {code, token}}` → the method, deleted. For `creator_2fa`, `twofa` is required (missing, or an empty token or code: 400 code 4): `token` a grant of `/twofa/session/verify` of the account (unknown, spent or expired: 400 code 3) and its code (else 400 code 2); only a deletion that is done spends the grant. Others ignore `twofa`. Unknown or already deleted: 404.',
    auth: 'session',
    write: true,
    handler: deletePayoutMethod,
  },
  {
    method: 'GET',
    path: '/payments/payoutmethods',
    summary: '_extra._ The payout methods not deleted.',
    auth: 'session',
    handler: payoutMethods,
  },
];

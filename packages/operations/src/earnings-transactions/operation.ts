import { Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { coerce, millsToCents } from '../common/coerce';
import { DEFAULT_LIMIT, fetchPages, LimitQuery } from '../common/paging';
import { AccountParams, Nullable, UnixMs } from '../common/schemas';
import { defineOperation, upstreamData } from '../define';

const { obj, arr, str, num, nullableStr, nullableNum } = coerce;

/**
 * The contract's Earnings transaction. amount, destinationTax, destinationAmount, newBalance and
 * newBalance64 are money: mills upstream, whole cents here (rounded, so a balance may differ by a
 * cent from the previous one plus destinationAmount).
 */
export const EarningsTransaction = Type.Object({
  walletId: Type.String(),
  transactionId: Type.String(),
  accountId: Type.String(),
  correlationId: Type.String(),
  correlationAccountId: Type.String(),
  type: Type.Number(),
  destination: Type.Number(),
  amount: Type.Number({ description: 'cents, gross' }),
  destinationTax: Type.Number({ description: 'cents' }),
  destinationAmount: Type.Number({ description: 'cents, net credited' }),
  newBalance: Type.Number({ description: 'cents, wallet balance after the transaction' }),
  newBalance64: Type.Number({ description: 'cents' }),
  createdAt: Type.Number({ description: 'Unix ms' }),
  updatedAt: Nullable(Type.Number({ description: 'Unix ms' })),
  status: Type.Number(),
  senderId: Nullable(Type.String()),
  receiverId: Type.String(),
});
export type EarningsTransaction = Static<typeof EarningsTransaction>;

export const EarningsResponse = Type.Object({
  total: Type.Number({ description: 'transactions within before/after' }),
  data: Type.Array(EarningsTransaction),
});

export function toEarningsTransaction(value: unknown): EarningsTransaction {
  const raw = obj(value);
  return {
    walletId: str(raw.walletId),
    transactionId: str(raw.transactionId),
    accountId: str(raw.accountId),
    correlationId: str(raw.correlationId),
    correlationAccountId: str(raw.correlationAccountId),
    type: num(raw.type),
    destination: num(raw.destination),
    amount: millsToCents(raw.amount),
    destinationTax: millsToCents(raw.destinationTax),
    destinationAmount: millsToCents(raw.destinationAmount),
    newBalance: millsToCents(raw.newBalance),
    newBalance64: millsToCents(raw.newBalance64 ?? raw.newBalance),
    createdAt: num(raw.createdAt),
    updatedAt: nullableNum(raw.updatedAt),
    status: num(raw.status),
    senderId: nullableStr(raw.senderId),
    receiverId: str(raw.receiverId),
  };
}

export const earningsTransactions = defineOperation({
  name: 'earnings-transactions',
  method: 'GET',
  path: '/:accountId/earnings/transactions',
  summary: 'Earnings transactions of the creator, newest first',
  tags: ['audience'],
  session: 'path',
  write: false,
  successStatus: 200,
  schemas: {
    params: AccountParams,
    querystring: Type.Object({
      before: Type.Optional(UnixMs('Unix ms: only transactions created before it; 0 = no bound')),
      after: Type.Optional(UnixMs('Unix ms: only transactions created after it; 0 = no bound')),
      limit: LimitQuery('per page maximum'),
      offset: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0, description: 'transactions to skip' }),
      ),
    }),
    data: Upstream(EarningsResponse),
  },
  check: ({ query }) =>
    query.before && query.after && query.before <= query.after
      ? 'before must be later than after: both are Unix ms and the range between them is exclusive'
      : undefined,
  run: async ({ query }, { call }) => {
    // Every page carries the same total (it counts the bounded range, whatever the offset).
    let total: unknown = 0;
    const { items } = await fetchPages(
      { limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 },
      async (page) => {
        const answer = obj(
          await call('earningsTransactions', {
            query: {
              // 0 is "no bound" upstream as at the gateway, so both pass unchanged (Unix ms on both sides).
              after: query.after,
              before: query.before,
              limit: page.limit,
              offset: page.offset,
            },
          }),
        );
        total = answer.total;
        return arr(answer.data).map(toEarningsTransaction);
      },
    );
    return upstreamData({ total: num(total), data: items });
  },
});

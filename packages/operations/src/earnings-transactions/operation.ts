import { inResponse, Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { DEFAULT_LIMIT, fetchPages, LimitQuery } from '../common/paging';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, UnixMs } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const { obj, arr, num } = coerce;

/**
 * The contract's Earnings transaction. amount, destinationTax, destinationAmount, newBalance and
 * newBalance64 are money: mills upstream, whole cents here (rounded, so a balance may differ by a
 * cent from the previous one plus destinationAmount).
 */
export const EarningsTransaction = record({
  walletId: f.id(),
  transactionId: f.id(),
  accountId: f.id(),
  correlationId: f.id(),
  correlationAccountId: f.id(),
  type: f.number(),
  destination: f.number(),
  amount: f.centsFromMills('cents, gross'),
  destinationTax: f.centsFromMills(),
  destinationAmount: f.centsFromMills('cents, net credited'),
  newBalance: f.centsFromMills('cents, wallet balance after the transaction'),
  newBalance64: f.from((raw) => raw.newBalance64 ?? raw.newBalance, f.centsFromMills()),
  createdAt: f.timestamp(),
  updatedAt: f.nullable(f.timestamp()),
  status: f.number(),
  senderId: f.nullableString(),
  receiverId: f.id(),
});
export type EarningsTransaction = RecordValue<typeof EarningsTransaction>;

export const EarningsResponse = Type.Object({
  total: Type.Number({ description: 'transactions within before/after' }),
  data: Type.Array(EarningsTransaction.schema),
});

export const earningsTransactions = defineOperation({
  name: 'earnings-transactions',
  paging: { offset: true, total: inResponse('total'), items: inResponse('data') },
  method: 'GET',
  path: '/:accountId/earnings/transactions',
  summary: 'Earnings transactions of the creator, newest first',
  tags: ['audience'],
  ...accountRead,
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
  example: {
    params: accountExample,
    // January 2025, the first 100 transactions.
    query: { after: 1735689600000, before: 1738368000000, limit: 100, offset: 0 },
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
        return arr(answer.data).map(EarningsTransaction.from);
      },
    );
    return upstreamData({ total: num(total), data: items });
  },
});

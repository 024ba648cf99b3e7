import { Upstream } from '@cg/contract';
import { Type } from 'typebox';
import { coerce } from '../common/coerce';
import { allTime, FanParams, fanExample, RangeQuery, rangeProblem, resolveRange } from '../common/earnings';
import { f, type RecordValue, record } from '../common/record';
import { accountRead, defineOperation, type OperationContext, upstreamData } from '../define';

const { obj, arr, num, str, bool } = coerce;

/**
 * The gateway's label of each of the platform's revenue types (upstream-extended.md 1.10); any other
 * type is `other`. The one table of these labels.
 */
export const REVENUE_SOURCES = {
  15001: 'subscription',
  2110: 'media',
  2116: 'bundle',
  7101: 'tip',
} as const satisfies Record<number, string>;
export const SOURCE_OTHER = 'other';
export type RevenueSource = (typeof REVENUE_SOURCES)[keyof typeof REVENUE_SOURCES] | typeof SOURCE_OTHER;

export const sourceOf = (type: number): RevenueSource =>
  (REVENUE_SOURCES as Record<number, RevenueSource>)[type] ?? SOURCE_OTHER;

const SOURCE_LABELS: RevenueSource[] = [...Object.values(REVENUE_SOURCES), SOURCE_OTHER];

/** Earnings by source row: one revenue type of one fan's spending, its label read from the type. */
export const EarningsBySourceRow = record({
  type: f.number('the platform’s revenue type'),
  source: f.from(
    'type',
    f.custom(
      Type.Enum(SOURCE_LABELS, {
        description: 'subscription, media, bundle, tip or other: the gateway’s label for type',
      }),
      (type) => sourceOf(num(type)),
    ),
  ),
  totalGross: f.number('mills'),
  totalNet: f.number('mills'),
  count: f.number('number of transactions'),
});
export type EarningsBySourceRow = RecordValue<typeof EarningsBySourceRow>;

/** The platform's largest page of a fan's transactions. */
const TRANSACTIONS_PAGE_MAX = 100;

interface FanTransaction {
  type: number;
  gross: number;
  net: number;
}

/**
 * Every transaction of the fan in the range, page after page: `cursor` is the last transactionId
 * read (0 for the newest), `hasMore` says whether another page follows.
 */
async function fanTransactions(
  call: OperationContext['call'],
  query: { correlationAccountId: string; after: number; before: number },
): Promise<FanTransaction[]> {
  const all: FanTransaction[] = [];
  let cursor = '0';
  for (;;) {
    const page = obj(
      await call('earningsTransactionsOfFan', { query: { ...query, cursor, limit: TRANSACTIONS_PAGE_MAX } }),
    );
    const rows = arr(page.data);
    for (const row of rows)
      all.push({ type: num(row.transactionType), gross: num(row.transactionAmount), net: num(row.amount) });
    const last = rows.at(-1);
    if (!bool(page.hasMore) || last === undefined) return all;
    cursor = str(last.transactionId);
  }
}

/** The transactions grouped by type, largest gross first. */
function bySource(transactions: readonly FanTransaction[]): EarningsBySourceRow[] {
  const groups = new Map<number, { type: number; totalGross: number; totalNet: number; count: number }>();
  for (const { type, gross, net } of transactions) {
    const group = groups.get(type) ?? { type, totalGross: 0, totalNet: 0, count: 0 };
    group.totalGross += gross;
    group.totalNet += net;
    group.count += 1;
    groups.set(type, group);
  }
  return [...groups.values()]
    .sort((a, b) => b.totalGross - a.totalGross || a.type - b.type)
    .map(EarningsBySourceRow.from);
}

export const earningsFanStats = defineOperation({
  name: 'earnings-fan-stats',
  method: 'GET',
  path: '/:accountId/earnings/fans/:fanId/stats',
  summary: 'One fan’s spending split by source, largest first (mills; all time by default)',
  tags: ['earnings'],
  ...accountRead,
  notFoundMessage: 'unknown fan: not one of the creator’s fans',
  schemas: {
    params: FanParams,
    querystring: Type.Object(RangeQuery),
    data: Upstream(Type.Array(EarningsBySourceRow.schema)),
  },
  example: { params: fanExample, query: { after: 1704067200000, before: 1735689600000 } },
  check: ({ query }) => rangeProblem(resolveRange(query, allTime)),
  // GUESS (docs/upstream-decisions.md, earnings by source): the platform's split is not established,
  // so the fan's own transactions are summed per revenue type here.
  run: async ({ params, query }, { call }) => {
    const range = resolveRange(query, allTime);
    const transactions = await fanTransactions(call, { correlationAccountId: params.fanId, ...range });
    return upstreamData(bySource(transactions));
  },
});

import {
  EARNINGS_DEFAULT_DAYS,
  EarningsBySourceRow,
  EarningsStatsRow,
  earnings,
  earningsFan,
  earningsFanStats,
  earningsMonthly,
  MonthlyStatsRow,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { type SimSession, simRequestCount } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

const DAY_MS = 86_400_000;

/** The contract's revenue types (Earnings stats row) and the labels it gives them (Earnings by source row). */
const CONTRACT_SOURCES: Record<number, string> = {
  15001: 'subscription',
  2110: 'media',
  2116: 'bundle',
  7101: 'tip',
};

/** A transaction as the sandbox itself answers it: amounts in mills. */
interface RawTransaction {
  transactionId: string;
  correlationAccountId: string;
  type: number;
  amount: number;
  destinationAmount: number;
  createdAt: number;
}

interface Totals {
  totalGross: number;
  totalNet: number;
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let creatorId: string;
/** Every transaction of the creator, newest first, from the sandbox. */
let transactions: RawTransaction[];

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  creatorId = account(stack, 'creator_demo').platformAccountId;
  transactions = [];
  for (;;) {
    const page = await sim.get('/account/wallets/earnings/transactions', {
      limit: 100,
      offset: transactions.length,
    });
    transactions.push(...page.data);
    if (page.data.length < 100) break;
  }
});
afterAll(async () => {
  await stack?.stop();
});

const simCalls = (key: string) => simRequestCount(stack, 'creator_demo', key);

/** The transactions with after < createdAt < before (0: no bound), of one fan when given. */
const within = (after: number, before: number, fanId?: string) =>
  transactions.filter(
    (tx) =>
      (after === 0 || tx.createdAt > after) &&
      (before === 0 || tx.createdAt < before) &&
      (fanId === undefined || tx.correlationAccountId === fanId),
  );

const totalsOf = (rows: readonly Totals[]): Totals => ({
  totalGross: rows.reduce((sum, row) => sum + row.totalGross, 0),
  totalNet: rows.reduce((sum, row) => sum + row.totalNet, 0),
});

/** Gross and net of some transactions, in mills. */
const spent = (txs: readonly RawTransaction[]): Totals =>
  totalsOf(txs.map((tx) => ({ totalGross: tx.amount, totalNet: tx.destinationAmount })));

/** Sums of transactions per key, keyed as `keyOf` says. */
function grouped(txs: readonly RawTransaction[], keyOf: (tx: RawTransaction) => string): Map<string, Totals> {
  const groups = new Map<string, Totals>();
  for (const tx of txs) {
    const group = groups.get(keyOf(tx)) ?? { totalGross: 0, totalNet: 0 };
    group.totalGross += tx.amount;
    group.totalNet += tx.destinationAmount;
    groups.set(keyOf(tx), group);
  }
  return groups;
}

const monthOf = (ms: number) => {
  const date = new Date(ms);
  return `${date.getUTCFullYear()}-${date.getUTCMonth() + 1}`;
};

/** The gateway's own transactions list over a range: gross in cents, and how many. */
async function gatewayTransactions(after: number, before: number) {
  const data: any[] = [];
  let total = 0;
  for (let offset = 0; ; offset += 500) {
    const response = await gw(
      stack,
      'GET',
      `/${accountId}/earnings/transactions?after=${after}&before=${before}&limit=500&offset=${offset}`,
    );
    expectSuccess(response);
    total = response.body.data.data.response.total;
    data.push(...response.body.data.data.response.data);
    if (response.body.data.data.response.data.length < 500) break;
  }
  expect(data).toHaveLength(total);
  return { grossCents: data.reduce((sum, tx) => sum + tx.amount, 0), count: total };
}

/** The fan who paid most often, and one who never paid. */
function fans() {
  const counts = new Map<string, number>();
  for (const tx of transactions)
    counts.set(tx.correlationAccountId, (counts.get(tx.correlationAccountId) ?? 0) + 1);
  const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
  const fanIds = account(stack, 'creator_demo').fanIds as string[];
  const idle = fanIds.find((id) => !counts.has(id));
  return { busiest, idle };
}

/** Checks the monthly rows of some transactions: per month, order, roll-up, shares. */
function expectMonths(rows: any[], txs: readonly RawTransaction[]) {
  for (const row of rows) expect(errorsOf(MonthlyStatsRow.schema, row)).toEqual([]);
  const rollUp = rows.at(-1);
  expect(rollUp).toMatchObject({ year: 0, month: 0, ...spent(txs) });
  const months = rows.slice(0, -1);
  for (const row of months) expect(row.year).toBeGreaterThan(2000);
  // Newest first, each month once.
  for (let n = 1; n < months.length; n++)
    expect(months[n - 1].year * 12 + months[n - 1].month).toBeGreaterThan(
      months[n].year * 12 + months[n].month,
    );
  // The months add up to the roll-up, and each is the sum of its own transactions.
  expect(totalsOf(months)).toEqual(totalsOf([rollUp]));
  const expected = grouped(txs, (tx) => monthOf(tx.createdAt));
  expect(months).toHaveLength(expected.size);
  for (const row of months)
    expect({ totalGross: row.totalGross, totalNet: row.totalNet }).toEqual(
      expected.get(`${row.year}-${row.month}`),
    );
  // percentage: the month's share of the range's gross, 0 to 100, two decimals.
  for (const row of rows) {
    const share = rollUp.totalGross === 0 ? 0 : (100 * row.totalGross) / rollUp.totalGross;
    expect(Math.abs(row.percentage - share)).toBeLessThanOrEqual(0.005 + 1e-9);
    expect(Math.round(row.percentage * 100)).toBeCloseTo(row.percentage * 100, 6);
  }
}

// ---------------------------------------------------------------------------------------------------

describe('GET /{accountId}/earnings', () => {
  it('joins the balance with daily per-type rows that add up to the transactions of the range', async () => {
    const before = transactions[20]!.createdAt;
    const after = transactions[400]!.createdAt;
    const response = await gw(stack, 'GET', `/${accountId}/earnings?after=${after}&before=${before}`);
    expectSuccess(response);
    expect(errorsOf(earnings.schemas.data, response.body.data)).toEqual([]);
    const { stats, ...balances } = response.body.data.data.response;
    // The balances are the platform's, by its names, in mills.
    expect(balances).toEqual(await sim.get('/account/wallets/earnings'));
    expect(typeof balances.pendingBalance).toBe('number');

    // More rows than one platform page (100): every day and type once, each the sum of its transactions.
    const txs = within(after, before);
    const expected = grouped(txs, (tx) => `${tx.createdAt - (tx.createdAt % DAY_MS)}:${tx.type}`);
    expect(stats.length).toBeGreaterThan(100);
    expect(stats).toHaveLength(expected.size);
    for (const row of stats) {
      expect(errorsOf(EarningsStatsRow.schema, row)).toEqual([]);
      expect(row.accountId).toBe(creatorId);
      expect(CONTRACT_SOURCES[row.type]).toBeDefined();
      expect({ totalGross: row.totalGross, totalNet: row.totalNet }).toEqual(
        expected.get(`${row.timestamp}:${row.type}`),
      );
    }
    for (let n = 1; n < stats.length; n++)
      expect(stats[n - 1].timestamp).toBeGreaterThanOrEqual(stats[n].timestamp);

    // The same range through the gateway's own transactions list (cents, gross a whole number of cents).
    const { grossCents, count } = await gatewayTransactions(after, before);
    expect(count).toBe(txs.length);
    expect(totalsOf(stats).totalGross).toBe(grossCents * 10);
    expect(totalsOf(stats)).toEqual(spent(txs));
  });

  it('covers the last 30 days by default, and all time before `before` with after=0', async () => {
    const sent = Date.now();
    const response = await gw(stack, 'GET', `/${accountId}/earnings`);
    const answered = Date.now();
    expectSuccess(response);
    const { stats } = response.body.data.data.response;
    const gross = totalsOf(stats).totalGross;
    // The window ends when the gateway handled the request, somewhere between these two times.
    const windows = [sent, answered].map(
      (end) => spent(within(end - EARNINGS_DEFAULT_DAYS * DAY_MS, end)).totalGross,
    );
    expect(windows).toContain(gross);
    expect(gross).toBeGreaterThan(0);
    for (const row of stats)
      expect(row.timestamp).toBeGreaterThan(sent - (EARNINGS_DEFAULT_DAYS + 1) * DAY_MS);

    const whole = await gw(stack, 'GET', `/${accountId}/earnings?after=0&before=${answered}`);
    expectSuccess(whole);
    expect(totalsOf(whole.body.data.data.response.stats)).toEqual(spent(transactions));
  });

  it('answers 400 when after is not before before, before anything reaches the platform', async () => {
    const key = 'GET /api/v1/account/wallets/earnings/stats';
    const calls = await simCalls(key);
    const at = transactions[50]!.createdAt;
    expectBadRequest(
      await gw(stack, 'GET', `/${accountId}/earnings?after=${at}&before=${at}`),
      'after',
      'before',
    );
    expectBadRequest(await gw(stack, 'GET', `/${accountId}/earnings?after=${at + 1}&before=${at}`), 'after');
    // before defaults to now: an after in the future leaves nothing.
    const future = Date.now() + DAY_MS;
    expectBadRequest(await gw(stack, 'GET', `/${accountId}/earnings?after=${future}`), 'after', 'before');
    expectBadRequest(await gw(stack, 'GET', `/${accountId}/earnings?before=yesterday`), 'before');
    expect(await simCalls(key)).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/earnings' },
    () => accountId,
  );
});

// ---------------------------------------------------------------------------------------------------

describe('GET /{accountId}/earnings/monthly', () => {
  it('answers months newest first and the roll-up last, summing the transactions of the range', async () => {
    const before = transactions[30]!.createdAt;
    const after = transactions[700]!.createdAt;
    const response = await gw(stack, 'GET', `/${accountId}/earnings/monthly?after=${after}&before=${before}`);
    expectSuccess(response);
    expect(errorsOf(earningsMonthly.schemas.data, response.body.data)).toEqual([]);
    const rows = response.body.data.data.response;
    expect(rows.length).toBeGreaterThan(3);
    expectMonths(rows, within(after, before));
    const { grossCents } = await gatewayTransactions(after, before);
    expect(rows.at(-1).totalGross).toBe(grossCents * 10);
  });

  it('covers the last 12 months by default: here every transaction (the sandbox keeps 180 days)', async () => {
    const response = await gw(stack, 'GET', `/${accountId}/earnings/monthly`);
    expectSuccess(response);
    const rows = response.body.data.data.response;
    expect(rows.length).toBeLessThanOrEqual(13);
    expectMonths(rows, transactions);
  });

  it('answers 400 when after is not before before, before anything reaches the platform', async () => {
    const key = 'GET /api/v1/account/wallets/earnings/monthlystats';
    const calls = await simCalls(key);
    expectBadRequest(
      await gw(stack, 'GET', `/${accountId}/earnings/monthly?after=1735689600000&before=1704067200000`),
      'after',
      'before',
    );
    expect(await simCalls(key)).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/earnings/monthly' },
    () => accountId,
  );
});

// ---------------------------------------------------------------------------------------------------

describe('GET /{accountId}/earnings/fans/{fanId} and …/stats', () => {
  const fanPath = (fanId: string, query = '') => `/${accountId}/earnings/fans/${fanId}${query}`;
  const statsPath = (fanId: string, query = '') => `/${accountId}/earnings/fans/${fanId}/stats${query}`;

  it('answers one fan’s totals and months over all time, from that fan’s transactions only', async () => {
    const { busiest } = fans();
    const response = await gw(stack, 'GET', fanPath(busiest));
    expectSuccess(response);
    expect(errorsOf(earningsFan.schemas.data, response.body.data)).toEqual([]);
    const result = response.body.data.data.response;
    const txs = within(0, 0, busiest);
    expect(txs.length).toBeGreaterThan(2);
    expect(result).toMatchObject({ accountId: creatorId, correlationAccountId: busiest, ...spent(txs) });
    expectMonths(result.months, txs);
  });

  it('splits the fan’s spending by source: rows that sum to the fan’s totals, largest first', async () => {
    const { busiest } = fans();
    const response = await gw(stack, 'GET', statsPath(busiest));
    expectSuccess(response);
    expect(errorsOf(earningsFanStats.schemas.data, response.body.data)).toEqual([]);
    const rows = response.body.data.data.response;
    const txs = within(0, 0, busiest);
    const fan = (await gw(stack, 'GET', fanPath(busiest))).body.data.data.response;
    expect(totalsOf(rows)).toEqual({ totalGross: fan.totalGross, totalNet: fan.totalNet });
    expect(rows.reduce((sum: number, row: any) => sum + row.count, 0)).toBe(txs.length);
    const byType = grouped(txs, (tx) => String(tx.type));
    expect(rows).toHaveLength(byType.size);
    for (const row of rows) {
      expect(errorsOf(EarningsBySourceRow.schema, row)).toEqual([]);
      expect(row.source).toBe(CONTRACT_SOURCES[row.type] ?? 'other');
      expect({ totalGross: row.totalGross, totalNet: row.totalNet }).toEqual(byType.get(String(row.type)));
      expect(row.count).toBe(txs.filter((tx) => tx.type === row.type).length);
    }
    for (let n = 1; n < rows.length; n++)
      expect(rows[n - 1].totalGross).toBeGreaterThanOrEqual(rows[n].totalGross);
  });

  it('honours after/before on both, and answers zeros for a fan who never paid', async () => {
    const { busiest, idle } = fans();
    const own = within(0, 0, busiest);
    // Between the fan's newest and oldest transaction: only those strictly inside.
    const before = own[0]!.createdAt;
    const after = own.at(-1)!.createdAt;
    const txs = within(after, before, busiest);
    const range = `?after=${after}&before=${before}`;
    const fan = await gw(stack, 'GET', fanPath(busiest, range));
    expectSuccess(fan);
    expect(fan.body.data.data.response).toMatchObject(spent(txs));
    expectMonths(fan.body.data.data.response.months, txs);
    const stats = await gw(stack, 'GET', statsPath(busiest, range));
    expectSuccess(stats);
    expect(totalsOf(stats.body.data.data.response)).toEqual(spent(txs));

    expect(idle).toBeDefined();
    const none = await gw(stack, 'GET', fanPath(idle as string));
    expectSuccess(none);
    expect(none.body.data.data.response).toEqual({
      accountId: creatorId,
      correlationAccountId: idle,
      totalGross: 0,
      totalNet: 0,
      months: [{ year: 0, month: 0, totalGross: 0, totalNet: 0, percentage: 0 }],
    });
    const noSources = await gw(stack, 'GET', statsPath(idle as string));
    expectSuccess(noSources);
    expect(noSources.body.data.data.response).toEqual([]);
  });

  it('answers 404 for an account that is not one of the creator’s fans, 400 for a bad id or range', async () => {
    const others = [
      '1234567890123456',
      account(stack, 'creator_2fa').platformAccountId,
      stack.fixtures.profilePlatformAccountIds[0] as string,
    ];
    for (const other of others) {
      expectNotFound(await gw(stack, 'GET', fanPath(other)), 'unknown fan');
      expectNotFound(await gw(stack, 'GET', statsPath(other)), 'unknown fan');
    }
    const { busiest } = fans();
    const calls = await simCalls('GET /api/v1/account/wallets/earnings/stats/accounts');
    expectBadRequest(await gw(stack, 'GET', fanPath('fan-1')), 'fanId');
    expectBadRequest(await gw(stack, 'GET', statsPath('fan-1')), 'fanId');
    expectBadRequest(await gw(stack, 'GET', fanPath(busiest, '?after=20&before=10')), 'after', 'before');
    expectBadRequest(await gw(stack, 'GET', statsPath(busiest, '?after=20&before=20')), 'after', 'before');
    expect(await simCalls('GET /api/v1/account/wallets/earnings/stats/accounts')).toBe(calls);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/earnings/fans/1234567890123456' },
    () => accountId,
  );
  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/earnings/fans/1234567890123456/stats' },
    () => accountId,
  );
});

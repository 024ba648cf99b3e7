import { GatewayError } from '@cg/contract';
import type { AuthEndpointName } from '@cg/platform-client';
import { Type } from 'typebox';
import type { OperationContext } from '../define';
import { coerce } from './coerce';
import { f, type RecordValue, record } from './record';
import { AccountParams, EXAMPLE_ACCOUNT_ID, PlatformId, UnixMs } from './schemas';

/**
 * What the earnings operations share: the after/before range, the platform's daily per-type rows
 * and monthly rows. Every amount is mills (1/1000 USD), the platform's own unit, passed through
 * unconverted (contract, Units).
 */

const { arr } = coerce;

const DAY_MS = 86_400_000;

/** `after` and `before` of the earnings operations: Unix ms, exclusive. */
export const RangeQuery = {
  after: Type.Optional(UnixMs('Unix ms: only earnings after it')),
  before: Type.Optional(UnixMs('Unix ms: only earnings before it')),
};

/** The path of one fan's earnings: the account and the fan's platform account id. */
export const FanParams = Type.Object({
  ...AccountParams.properties,
  fanId: PlatformId('the fan’s platform account id'),
});

export const fanExample = { accountId: EXAMPLE_ACCOUNT_ID, fanId: '788291264641499137' };

/** A resolved range, exclusive Unix ms bounds; 0 is no bound (the platform's own "none"). */
export interface EarningsRange {
  after: number;
  before: number;
}

/** How an operation fills the bounds a caller leaves out, given the time now. */
export type RangeDefaults = (given: { after?: number; before?: number }, now: number) => EarningsRange;

/** No bound on either side: all time. */
export const allTime: RangeDefaults = ({ after = 0, before = 0 }) => ({ after, before });

/** `days` up to `before` (now when absent). */
export const lastDays =
  (days: number): RangeDefaults =>
  ({ after, before }, now) => {
    const end = before ?? now;
    return { after: after ?? Math.max(0, end - days * DAY_MS), before: end };
  };

/** `months` calendar months (UTC) up to `before` (now when absent), the month of `before` included. */
export const lastMonths =
  (months: number): RangeDefaults =>
  ({ after, before }, now) => {
    const end = before ?? now;
    const date = new Date(end);
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - (months - 1), 1);
    return { after: after ?? Math.max(0, start), before: end };
  };

/** The range a request asks for, its missing bounds filled by `defaults`. */
export function resolveRange(
  query: { after?: number | undefined; before?: number | undefined },
  defaults: RangeDefaults,
  now = Date.now(),
): EarningsRange {
  return defaults(
    {
      ...(query.after === undefined ? {} : { after: query.after }),
      ...(query.before === undefined ? {} : { before: query.before }),
    },
    now,
  );
}

/** The 400 reason when the resolved range is empty (after not before before), else undefined. */
export const rangeProblem = (range: EarningsRange): string | undefined =>
  range.after !== 0 && range.before !== 0 && range.after >= range.before
    ? 'after must be earlier than before: both are Unix ms and the range between them is exclusive'
    : undefined;

/** Earnings stats row: one revenue type on one day. */
export const EarningsStatsRow = record({
  type: f.number('the platform’s revenue type, e.g. 15001 subscription, 2110 media, 2116 bundle, 7101 tip'),
  totalGross: f.number('mills'),
  totalNet: f.number('mills'),
  accountId: f.id('the creator'),
  timestamp: f.timestamp('Unix ms, the start of the day'),
});
export type EarningsStatsRow = RecordValue<typeof EarningsStatsRow>;

/** The platform's largest page of daily rows. */
const DAILY_PAGE_MAX = 100;

/**
 * Every daily row of `range`, newest day first. The platform answers at most 100 rows and ignores
 * `offset` (upstream-extended.md 1.10): a full page is cut before its oldest day, which may be
 * partial, and the next request ends where that day ends.
 */
export async function fetchDailyRows(
  call: OperationContext['call'],
  endpoint: Extract<AuthEndpointName, 'earningsStats' | 'earningsStatsOfFan'>,
  range: EarningsRange,
  extraQuery: Record<string, string> = {},
): Promise<EarningsStatsRow[]> {
  const rows: EarningsStatsRow[] = [];
  let before = range.before;
  for (;;) {
    const page = arr(
      await call(endpoint, {
        query: { ...extraQuery, after: range.after, before, limit: DAILY_PAGE_MAX },
      }),
    ).map(EarningsStatsRow.from);
    if (page.length < DAILY_PAGE_MAX) return [...rows, ...page];
    const oldestDay = Math.min(...page.map((row) => row.timestamp));
    const whole = page.filter((row) => row.timestamp > oldestDay);
    if (whole.length === 0)
      throw new GatewayError(
        'UPSTREAM_ERROR',
        'the platform answered more earnings rows for one day than it pages',
      );
    rows.push(...whole);
    before = oldestDay + DAY_MS;
  }
}

/** Gross and net of some rows, in mills. */
export function totalsOf(rows: readonly { totalGross: number; totalNet: number }[]): {
  totalGross: number;
  totalNet: number;
} {
  return {
    totalGross: rows.reduce((sum, row) => sum + row.totalGross, 0),
    totalNet: rows.reduce((sum, row) => sum + row.totalNet, 0),
  };
}

const MonthlyTotals = record({
  year: f.number('0 on the roll-up row'),
  month: f.number('1 to 12; 0 on the roll-up row, which totals the whole range'),
  totalGross: f.number('mills'),
  totalNet: f.number('mills'),
});

/** Monthly statistics row. */
export const MonthlyStatsRow = MonthlyTotals.extend({
  percentage: f.number('this month’s share of the range’s totalGross, 0 to 100, two decimals'),
});
export type MonthlyStatsRow = RecordValue<typeof MonthlyStatsRow>;

/** `part` as a percentage of `whole`, two decimals; 0 of nothing. */
const share = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 100;

/**
 * The platform's monthly rows as the contract orders them: newest month first, the roll-up row
 * (year 0, month 0) last, each with its share of the roll-up's gross. A roll-up the platform left
 * out is summed from the months.
 */
export function monthlyRows(raw: unknown): MonthlyStatsRow[] {
  const rows = arr(raw).map(MonthlyTotals.from);
  const isRollUp = (row: { year: number; month: number }) => row.year === 0 && row.month === 0;
  const months = rows.filter((row) => !isRollUp(row)).sort((a, b) => b.year - a.year || b.month - a.month);
  const rollUp = rows.find(isRollUp) ?? { year: 0, month: 0, ...totalsOf(months) };
  return [...months, rollUp].map((row) => ({ ...row, percentage: share(row.totalGross, rollUp.totalGross) }));
}

import { decodeId, encodeId, Kind } from '../ids';
import { type CreatorWorld, DAY_MS, type TransactionFacts } from './creator';

/**
 * The creator's earnings as the platform summarises them. Every series is summed from the seeded
 * transactions (creator.ts), so the balance, the daily rows, the per-fan totals and the months agree
 * with `GET /account/wallets/earnings/transactions` over the same range. Amounts in mills; a range
 * is exclusive Unix ms bounds on createdAt (null: no bound), as for the transactions list.
 */

export interface EarningsRange {
  after: number | null;
  before: number | null;
}

/** Net earnings of this many days before the anchor are still pending (not yet payable). */
export const PENDING_DAYS = 7;
/** Most rows of the per-fan ranking (`/account/wallets/earnings/accounts`). */
export const TOP_FANS_MAX = 100;

interface Totals {
  totalGross: number;
  totalNet: number;
}

export interface DailyStatsRow extends Totals {
  type: number;
  accountId: string;
  /** Unix ms, the start of the UTC day. */
  timestamp: number;
  correlationAccountId?: string;
}

export interface MonthlyStatsRow extends Totals {
  accountId: string;
  /** 0 on the roll-up row, which totals the range. */
  year: number;
  month: number;
  correlationAccountId?: string;
}

export interface FanTotalsRow extends Totals {
  accountId: string;
  correlationAccountId: string;
}

/** One transaction of a fan as `/transactions/accounts` lists it. */
export interface FanTransaction {
  transactionId: string;
  transactionType: number;
  /** Gross. */
  transactionAmount: number;
  /** Net. */
  amount: number;
  status: number;
  createdAt: number;
}

const TRANSACTION_COMPLETED = 1;

const add = (totals: Totals, facts: TransactionFacts): void => {
  totals.totalGross += facts.amount;
  totals.totalNet += facts.net;
};

/** The value of `key`'s entry in `map`, made by `create` the first time. */
function entry<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

export class Earnings {
  constructor(private readonly world: CreatorWorld) {}

  /** The facts of every transaction in the range (of one fan, when given), newest first. */
  private *facts(range: EarningsRange, fan: number | null = null): Generator<TransactionFacts> {
    const { lo, hi } = this.world.transactionRange(range.after, range.before);
    for (let i = lo; i < hi; i++) {
      const facts = this.world.transactionFacts(i);
      if (fan === null || facts.fan === fan) yield facts;
    }
  }

  /** The wallet: its balance after the newest transaction, of which the last PENDING_DAYS' net is pending. */
  summary(): { balance: number; availableBalance: number; pendingBalance: number } {
    const w = this.world;
    const balance = w.transactionCount > 0 ? w.transaction(0).newBalance : 0;
    let pendingBalance = 0;
    for (const facts of this.facts({ after: w.anchorMs - PENDING_DAYS * DAY_MS, before: null }))
      pendingBalance += facts.net;
    return { balance, availableBalance: balance - pendingBalance, pendingBalance };
  }

  /** Totals per UTC day and revenue type, newest day first, types ascending within a day. */
  daily(range: EarningsRange, fan: number | null = null): DailyStatsRow[] {
    const rows = new Map<string, DailyStatsRow>();
    for (const facts of this.facts(range, fan)) {
      const timestamp = facts.createdAt - (facts.createdAt % DAY_MS);
      const row = entry(rows, `${timestamp}:${facts.type}`, () => ({
        type: facts.type,
        totalGross: 0,
        totalNet: 0,
        accountId: this.world.accountId,
        timestamp,
        ...this.fanField(fan),
      }));
      add(row, facts);
    }
    return [...rows.values()].sort((a, b) => b.timestamp - a.timestamp || a.type - b.type);
  }

  /** Totals per UTC month, newest first, then the roll-up row (year 0, month 0) of the whole range. */
  monthly(range: EarningsRange, fan: number | null = null): MonthlyStatsRow[] {
    const months = new Map<number, MonthlyStatsRow>();
    const rollUp: MonthlyStatsRow = {
      accountId: this.world.accountId,
      year: 0,
      month: 0,
      totalGross: 0,
      totalNet: 0,
      ...this.fanField(fan),
    };
    for (const facts of this.facts(range, fan)) {
      const date = new Date(facts.createdAt);
      const year = date.getUTCFullYear();
      const month = date.getUTCMonth() + 1;
      add(
        entry(months, year * 100 + month, () => ({ ...rollUp, year, month, totalGross: 0, totalNet: 0 })),
        facts,
      );
      add(rollUp, facts);
    }
    const rows = [...months.values()].sort((a, b) => b.year - a.year || b.month - a.month);
    return [...rows, rollUp];
  }

  /** What each fan spent in the range, highest gross first (then by id), at most TOP_FANS_MAX. */
  topFans(range: EarningsRange): FanTotalsRow[] {
    const fans = new Map<number, FanTotalsRow>();
    for (const facts of this.facts(range)) {
      const row = entry(fans, facts.fan, () => ({
        accountId: this.world.accountId,
        correlationAccountId: this.world.fanId(facts.fan),
        totalGross: 0,
        totalNet: 0,
      }));
      add(row, facts);
    }
    return [...fans.values()]
      .sort(
        (a, b) => b.totalGross - a.totalGross || a.correlationAccountId.localeCompare(b.correlationAccountId),
      )
      .slice(0, TOP_FANS_MAX);
  }

  /**
   * One fan's transactions, newest first, `limit` after the transaction `afterId` (null: from the
   * newest); `hasMore` when more follow.
   */
  fanTransactions(
    fan: number,
    range: EarningsRange,
    afterId: string | null,
    limit: number,
  ): { data: FanTransaction[]; hasMore: boolean } {
    const afterMs = afterId === null ? null : (decodeId(afterId)?.ms ?? null);
    const data: FanTransaction[] = [];
    for (const facts of this.facts(range, fan)) {
      if (afterMs !== null && facts.createdAt >= afterMs) continue;
      if (data.length === limit) return { data, hasMore: true };
      data.push({
        transactionId: encodeId(facts.createdAt, this.world.namespace, Kind.transaction),
        transactionType: facts.type,
        transactionAmount: facts.amount,
        amount: facts.net,
        status: TRANSACTION_COMPLETED,
        createdAt: facts.createdAt,
      });
    }
    return { data, hasMore: false };
  }

  private fanField(fan: number | null): { correlationAccountId?: string } {
    return fan === null ? {} : { correlationAccountId: this.world.fanId(fan) };
  }
}

import { invalidField } from '../errors';
import { type Query, queryInt } from '../params';
import {
  bucketCount,
  profileStats,
  STATS_DATAPOINT_LIMIT,
  STATS_FREE_WINDOW_MS,
  type StatsRange,
} from '../world/stats';
import type { ApiContext, ApiRoute } from './types';

const DEFAULT_PERIOD_MS = 86_400_000;

/** A required Unix ms query value. */
function requiredMs(query: Query, name: string): number {
  const value = queryInt(query, name, -1, 0);
  if (value < 0) throw invalidField(name);
  return value;
}

/**
 * The range `/it/amoie/stats` reads. A named month (year and month both set) is read whole, up to
 * now, wherever it lies; a free range (both 0) only inside the trailing 31 days: its bounds are
 * clamped there, and one wholly outside is empty (`dateAfter === dateBefore`). The answer's `dataset`
 * says which range was read. More buckets than the limit: 400 code 10 `period`.
 */
export function statsRange(query: Query, now: number): StatsRange {
  const afterDate = requiredMs(query, 'afterDate');
  const beforeDate = requiredMs(query, 'beforeDate');
  const period = queryInt(query, 'period', DEFAULT_PERIOD_MS, 1);
  const year = queryInt(query, 'year', 0, 0, 9999);
  const month = queryInt(query, 'month', 0, 0);
  if (month > 12) throw invalidField('month');
  if (month !== 0 && year === 0) throw invalidField('year');
  if (year !== 0 && month === 0) throw invalidField('month');
  let after: number;
  let before: number;
  if (month !== 0) {
    after = Date.UTC(year, month - 1, 1);
    before = Math.min(Date.UTC(year, month, 1), now);
  } else {
    if (afterDate >= beforeDate) throw invalidField('afterDate');
    after = Math.max(afterDate, now - STATS_FREE_WINDOW_MS);
    before = Math.min(beforeDate, now);
  }
  const range = { after, before: Math.max(after, before), period };
  if (bucketCount(range) > STATS_DATAPOINT_LIMIT) throw invalidField('period');
  return range;
}

function stats(ctx: ApiContext): unknown {
  return profileStats(ctx.core.world.creator(ctx.creator), statsRange(ctx.query, ctx.now));
}

export const statsRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/it/amoie/stats',
    summary:
      'Profile statistics: `afterDate`, `beforeDate` (Unix ms, required), `period` (ms, default a day), `year`/`month` (0, or both: one UTC calendar month, read whole up to now). A free range is clamped into the last 31 days (wholly before: empty, `dateAfter` = `dateBefore`). More than 100 buckets, a month without its year or the reverse, `afterDate` not before `beforeDate`: 400 code 10. `{dataset: {period, dateAfter, dateBefore, datapointLimit: 100, datapoints, profileDatapoints, topMediaOffers, topFypMediaOffers, topFypTags}, aggregationData: {accountMedia, accountMediaBundles: [], tags}}`: buckets newest first, seeded per 5-minute slot (so bucket lengths agree); `datapoints` type 1 (media views), `profileDatapoints` types 10001/44001/44011/44031; the top offers are account media of the 24 newest media, FYP ones public videos of 3 s or more.',
    auth: 'session',
    handler: stats,
  },
];

import { GatewayError, Upstream } from '@cg/contract';
import { type Static, Type } from 'typebox';
import { AccountMedia } from '../chat-media-stats/operation';
import { coerce } from '../common/coerce';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, exampleClock, UnixMs } from '../common/schemas';
import { accountRead, defineOperation, upstreamData } from '../define';

const DAY_MS = 86_400_000;
/** Most buckets one request may hold: the platform's `datapointLimit`. */
export const PROFILE_STATS_MAX_BUCKETS = 100;
export const PROFILE_STATS_DEFAULT_PERIOD_MS = DAY_MS;
/** A free range without afterDate reaches this far back from beforeDate. */
export const PROFILE_STATS_DEFAULT_RANGE_MS = 30 * DAY_MS;
/** The longest bucket taken: a year (a longer one would hold any range in a single bucket anyway). */
const MAX_PERIOD_MS = 366 * DAY_MS;

/** One line of statistics of a bucket; `type` says what was counted (a traffic source, for profiles). */
export const StatEntry = record({
  type: f.number(
    'what was counted; in profileDatapoints the traffic source: 10001 direct, 44001 For You page, 44011 suggestions, 44031 search',
  ),
  views: f.number(),
  previewViews: f.number(),
  uniqueViewers: f.number(),
  previewUniqueViewers: f.number(),
  interactionTime: f.number('ms'),
  previewInteractionTime: f.number('ms'),
  videoViews: f.number(),
  previewVideoViews: f.number(),
  totalVideoPercentWatched: f.number('the watched shares (0 to 1) of the video views, summed'),
  previewTotalVideoPercentWatched: f.number(),
});

const Datapoint = record({
  timestamp: f.timestamp('Unix ms, the start of the bucket'),
  stats: f.array(StatEntry, 'empty when nothing was counted in the bucket'),
});

const TopMediaOffer = record({
  mediaOfferId: f.id('the account media id (aggregationData.accountMedia)'),
  mediaOfferBundleId: f.id('"0" when the offer is not in a bundle'),
  views: f.number(),
  previewViews: f.number(),
  interactionTime: f.number('ms'),
  previewInteractionTime: f.number('ms'),
});

const TopFypMediaOffer = record({
  mediaOfferId: f.id('the account media id (aggregationData.accountMedia)'),
  views: f.number(),
  uniqueViewers: f.number(),
  interactionTime: f.number('ms'),
  tagIds: f.array(f.id()),
});

const TopFypTag = record({ tagId: f.id('a tag of aggregationData.tags'), views: f.number() });

/** Profile statistics (contract: Profile statistics): the platform's record, its fields as seen. */
export const ProfileStats = record({
  dataset: f.record(
    record({
      period: f.number('the bucket length used, ms'),
      dateAfter: f.timestamp('the start of the range used'),
      dateBefore: f.timestamp('the end of the range used'),
      datapointLimit: f.number('most buckets per request'),
      datapoints: f.array(Datapoint, 'media views per bucket, newest first'),
      profileDatapoints: f.array(Datapoint, 'profile visits per bucket by traffic source'),
      topMediaOffers: f.array(TopMediaOffer),
      topFypMediaOffers: f.array(TopFypMediaOffer),
      topFypTags: f.array(TopFypTag, 'tags credited for the whole range'),
    }),
  ),
  aggregationData: f.record(
    record({
      accountMedia: f.array(AccountMedia),
      accountMediaBundles: f.array(f.object()),
      tags: f.array(f.object()),
    }),
  ),
});
export type ProfileStats = RecordValue<typeof ProfileStats>;

const Query = Type.Object({
  afterDate: Type.Optional(
    UnixMs('start of the range; default beforeDate minus 30 days; unused with year and month'),
  ),
  beforeDate: Type.Optional(UnixMs('end of the range; default now; unused with year and month')),
  period: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PERIOD_MS,
      description: 'bucket length in ms, e.g. 3600000 (hour) or 86400000 (day); default one day',
    }),
  ),
  year: Type.Optional(Type.Integer({ minimum: 0, maximum: 9999, description: '0, or the year of `month`' })),
  month: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 12,
      description: '0, or 1 to 12 with year: one calendar month (UTC)',
    }),
  ),
});

/** What the platform is asked: the range (a named month's own bounds), the bucket, the month. */
export interface StatsRequest {
  afterDate: number;
  beforeDate: number;
  period: number;
  year: number;
  month: number;
}

/**
 * The request a query stands for, with the contract's defaults, or the reason for a 400: a month
 * without its year (or a year without its month), a range not ending after it starts, or more
 * buckets than the platform gives. A named month is read whole (UTC), whatever afterDate/beforeDate say.
 */
export function statsRequest(query: Static<typeof Query>, now: number): StatsRequest | string {
  const { period = PROFILE_STATS_DEFAULT_PERIOD_MS, year = 0, month = 0 } = query;
  if (month !== 0 && year === 0) return 'month needs year: give both to read one calendar month';
  if (year !== 0 && month === 0) return 'year needs month (1 to 12): give both to read one calendar month';
  const named = month !== 0;
  const beforeDate = named ? Date.UTC(year, month, 1) : (query.beforeDate ?? now);
  const afterDate = named
    ? Date.UTC(year, month - 1, 1)
    : (query.afterDate ?? beforeDate - PROFILE_STATS_DEFAULT_RANGE_MS);
  if (afterDate >= beforeDate) return 'afterDate must be before beforeDate';
  const buckets = Math.ceil((beforeDate - afterDate) / period);
  if (buckets > PROFILE_STATS_MAX_BUCKETS)
    return `the range holds ${buckets} buckets of period ${period} ms; at most ${PROFILE_STATS_MAX_BUCKETS}: shorten the range or lengthen the period`;
  return { afterDate, beforeDate, period, year, month };
}

export const profileStats = defineOperation({
  name: 'profile-stats',
  method: 'GET',
  path: '/:accountId/analytics/profilestats',
  summary:
    'Profile and media view statistics over a range, in buckets (free ranges: the last ~31 days; older: by year and month)',
  tags: ['analytics'],
  ...accountRead,
  schemas: {
    params: AccountParams,
    querystring: Query,
    data: Upstream(ProfileStats.schema),
  },
  // A getter: a free range is read only within the last ~31 days of whenever the example is read.
  get example() {
    const beforeDate = Math.floor(exampleClock.now() / DAY_MS) * DAY_MS;
    return {
      params: accountExample,
      query: { afterDate: beforeDate - 3 * DAY_MS, beforeDate, period: 3_600_000 },
    };
  },
  check: ({ query }) => {
    const request = statsRequest(query, Date.now());
    return typeof request === 'string' ? request : undefined;
  },
  // The platform honours a free range only inside its trailing ~31 days and clamps it there: the
  // answer's dataset.dateAfter/dateBefore say which range was read.
  run: async ({ query }, { call }) => {
    const request = statsRequest(query, Date.now());
    // `check` refused this before it was queued (the clock moving since changes no bucket count).
    if (typeof request === 'string') throw new GatewayError('BAD_REQUEST', request);
    const stats = coerce.obj(await call('profileStats', { query: { ...request } }));
    return upstreamData(ProfileStats.from(stats));
  },
});

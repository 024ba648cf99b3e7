import {
  PROFILE_STATS_MAX_BUCKETS,
  type ProfileStats,
  profileStats,
  StatEntry,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import type { SimSession } from '../support/sim';
import { account, gw, scanKeys, startStack, type TestStack } from '../support/stack';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The contract's traffic sources of profileDatapoints. */
const PROFILE_TYPES = [10001, 44001, 44011, 44031];

let stack: TestStack;
let accountId: string;
/** The sandbox's own API as creator_demo: the reference the gateway is held to. */
let sim: SimSession;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack, 'creator_demo'));
});
afterAll(async () => {
  await stack?.stop();
});

const startOfUtcDay = (ms: number) => Math.floor(ms / DAY) * DAY;

async function stats(query: Record<string, number> = {}): Promise<ProfileStats> {
  const search = new URLSearchParams(
    Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const response = await gw(
    stack,
    'GET',
    `/${accountId}/analytics/profilestats${search ? `?${search}` : ''}`,
  );
  expectSuccess(response);
  expect(errorsOf(profileStats.schemas.data, response.body.data)).toEqual([]);
  return response.body.data.data.response;
}

const views = (points: ProfileStats['dataset']['datapoints'], type?: number) =>
  points
    .flatMap((p) => p.stats)
    .reduce((sum, s) => sum + (type === undefined || s.type === type ? s.views : 0), 0);

/** The buckets a range and period make, newest first: each bucket's start. */
const bucketStarts = (after: number, before: number, period: number) =>
  Array.from({ length: Math.ceil((before - after) / period) }, (_, i) => after + i * period).reverse();

describe('GET /{accountId}/analytics/profilestats', () => {
  it('reads the last 30 days in days by default: one bucket each, newest first', async () => {
    const from = Date.now();
    const { dataset } = await stats();
    const to = Date.now();
    expect(dataset.period).toBe(DAY);
    expect(dataset.datapointLimit).toBe(PROFILE_STATS_MAX_BUCKETS);
    expect(dataset.dateBefore).toBeGreaterThanOrEqual(from - 1000);
    expect(dataset.dateBefore).toBeLessThanOrEqual(to);
    expect(dataset.dateBefore - dataset.dateAfter).toBe(30 * DAY);
    const starts = bucketStarts(dataset.dateAfter, dataset.dateBefore, DAY);
    expect(dataset.datapoints.map((p) => p.timestamp)).toEqual(starts);
    expect(dataset.profileDatapoints.map((p) => p.timestamp)).toEqual(starts);
    for (const point of dataset.datapoints)
      for (const entry of point.stats) expect(errorsOf(StatEntry.schema, entry)).toEqual([]);
    expect(views(dataset.datapoints)).toBeGreaterThan(0);
    // Every traffic source shows over a month, and no other type.
    const types = new Set(dataset.profileDatapoints.flatMap((p) => p.stats.map((s) => s.type)));
    expect([...types].sort()).toEqual(PROFILE_TYPES);
  });

  it('counts the same history in any bucket length: a day’s hours add up to its day', async () => {
    const day = startOfUtcDay(Date.now()) - 3 * DAY;
    const whole = await stats({ afterDate: day, beforeDate: day + DAY, period: DAY });
    const hours = await stats({ afterDate: day, beforeDate: day + DAY, period: HOUR });
    expect(whole.dataset.datapoints).toHaveLength(1);
    expect(hours.dataset.datapoints).toHaveLength(24);
    expect(hours.dataset.datapoints.map((p) => p.timestamp)).toEqual(bucketStarts(day, day + DAY, HOUR));
    expect(views(hours.dataset.datapoints)).toBe(views(whole.dataset.datapoints));
    for (const type of PROFILE_TYPES)
      expect(views(hours.dataset.profileDatapoints, type), `type ${type}`).toBe(
        views(whole.dataset.profileDatapoints, type),
      );
    // Read again, the same range answers the same statistics (seeded, not random per call).
    expect(await stats({ afterDate: day, beforeDate: day + DAY, period: HOUR })).toEqual(hours);
  });

  it('answers the platform’s own statistics', async () => {
    const beforeDate = startOfUtcDay(Date.now());
    const query = { afterDate: beforeDate - 10 * DAY, beforeDate, period: DAY };
    const answered = await stats(query);
    const upstream = await sim.get('/it/amoie/stats', { ...query, year: 0, month: 0 });
    expect(answered.dataset.datapoints).toEqual(upstream.dataset.datapoints);
    expect(answered.dataset.topMediaOffers).toEqual(upstream.dataset.topMediaOffers);
    expect(answered.dataset.topFypTags).toEqual(upstream.dataset.topFypTags);
    // The platform's profile entries carry only views, viewers and time: the rest reads 0.
    const short = (points: any[]) =>
      points.map((p) => p.stats.map((s: any) => [s.type, s.views, s.uniqueViewers, s.interactionTime]));
    expect(short(answered.dataset.profileDatapoints)).toEqual(short(upstream.dataset.profileDatapoints));
    for (const entry of answered.dataset.profileDatapoints.flatMap((p) => p.stats))
      expect([entry.previewViews, entry.videoViews, entry.totalVideoPercentWatched]).toEqual([0, 0, 0]);
  });

  it('credits the creator’s own media: top offers, For You page offers and their tags', async () => {
    const fixture = account(stack, 'creator_demo');
    const mediaIds = new Set(fixture.mediaIds as string[]);
    const { dataset, aggregationData } = await stats();
    const byId = new Map(aggregationData.accountMedia.map((m) => [m.id, m]));
    expect(dataset.topMediaOffers.length).toBeGreaterThan(0);
    for (const offer of [...dataset.topMediaOffers, ...dataset.topFypMediaOffers]) {
      const media = byId.get(offer.mediaOfferId);
      expect(media, offer.mediaOfferId).toBeDefined();
      expect(mediaIds.has(media!.mediaId)).toBe(true);
      expect(media!.media.id).toBe(media!.mediaId);
    }
    const ranked = dataset.topMediaOffers.map((offer) => offer.views);
    expect(ranked).toEqual([...ranked].sort((a, b) => b - a));
    // The offers' views are a share of the range's views, never more.
    expect(ranked.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(views(dataset.datapoints));
    // FYP shows public videos of 3 s or more: the fixture's eligible video, never the short or private one.
    const fypMedia = dataset.topFypMediaOffers.map((offer) => byId.get(offer.mediaOfferId)!.mediaId);
    expect(fypMedia).toContain(fixture.fypVideoMediaId);
    expect(fypMedia).not.toContain(fixture.shortVideoMediaId);
    expect(fypMedia).not.toContain(fixture.privateVideoMediaId);
    const fypViews = dataset.topFypMediaOffers.reduce((sum, offer) => sum + offer.views, 0);
    expect(fypViews).toBeLessThanOrEqual(views(dataset.profileDatapoints, 44001));
    // A tag is credited at least the views of the listed FYP offers that carry it.
    const tags = new Set(aggregationData.tags.map((t) => t.id));
    expect(dataset.topFypTags.length).toBeGreaterThan(0);
    for (const { tagId, views: credited } of dataset.topFypTags) {
      expect(tags.has(tagId)).toBe(true);
      const carried = dataset.topFypMediaOffers.filter((o) => o.tagIds.includes(tagId));
      expect(credited).toBeGreaterThanOrEqual(carried.reduce((sum, o) => sum + o.views, 0));
    }
  });

  it('reads a named calendar month whole, even one older than the free range allows', async () => {
    const now = new Date();
    const back = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 3, 1));
    const year = back.getUTCFullYear();
    const month = back.getUTCMonth() + 1;
    const { dataset } = await stats({ year, month });
    const after = Date.UTC(year, month - 1, 1);
    const before = Date.UTC(year, month, 1);
    expect([dataset.dateAfter, dataset.dateBefore]).toEqual([after, before]);
    expect(dataset.datapoints.map((p) => p.timestamp)).toEqual(bucketStarts(after, before, DAY));
    expect(views(dataset.datapoints)).toBeGreaterThan(0);
  });

  it('gives a day the same counts read in a free range and in its named month', async () => {
    const day = startOfUtcDay(Date.now()) - 2 * DAY;
    const date = new Date(day);
    const free = await stats({ afterDate: day, beforeDate: day + DAY });
    const month = await stats({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 });
    const sameDay = month.dataset.datapoints.find((p) => p.timestamp === day);
    expect(sameDay).toEqual(free.dataset.datapoints[0]);
  });

  it('clamps a free range to the last ~31 days: older bounds are not honoured', async () => {
    const now = Date.now();
    const wide = await stats({ afterDate: now - 40 * DAY, beforeDate: now });
    expect(wide.dataset.dateAfter).toBeGreaterThanOrEqual(now - 31 * DAY - 1000);
    expect(wide.dataset.dateBefore).toBeLessThanOrEqual(Date.now());
    expect(wide.dataset.datapoints).toHaveLength(
      Math.ceil((wide.dataset.dateBefore - wide.dataset.dateAfter) / DAY),
    );
    // A range wholly before the window reads nothing: an empty range, no buckets.
    const old = await stats({ afterDate: now - 60 * DAY, beforeDate: now - 40 * DAY });
    expect(old.dataset.dateBefore).toBe(old.dataset.dateAfter);
    expect(old.dataset.datapoints).toEqual([]);
    expect(old.dataset.topMediaOffers).toEqual([]);
  });

  it('answers 400 naming the rule, before enqueueing', async () => {
    const keys = (await scanKeys(stack.redis, stack.prefix)).sort();
    const ask = (query: string) => gw(stack, 'GET', `/${accountId}/analytics/profilestats?${query}`);
    const now = Date.now();
    expectBadRequest(await ask('month=5'), 'month', 'year');
    expectBadRequest(await ask('year=2025'), 'year', 'month');
    expectBadRequest(await ask(`afterDate=${now}&beforeDate=${now}`), 'afterDate');
    expectBadRequest(await ask(`afterDate=${now}&beforeDate=${now - DAY}`), 'afterDate');
    expectBadRequest(await ask('period=0'), 'period');
    expectBadRequest(await ask('period=-5'), 'period');
    expectBadRequest(await ask('month=13&year=2025'), 'month');
    // 30 days in hours, and a month in hours: more than 100 buckets.
    expectBadRequest(await ask(`period=${HOUR}`), 'buckets');
    expectBadRequest(await ask(`year=2025&month=1&period=${HOUR}`), 'buckets');
    expectBadRequest(await ask(`afterDate=${now - 101 * HOUR}&beforeDate=${now}&period=${HOUR}`), 'buckets');
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keys);
    // 100 buckets is the most, and allowed.
    const edge = await stats({ afterDate: now - 100 * HOUR, beforeDate: now, period: HOUR });
    expect(edge.dataset.datapoints).toHaveLength(100);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/analytics/profilestats' },
    () => accountId,
  );
});

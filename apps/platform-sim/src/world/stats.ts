import { encodeId, GLOBAL_NAMESPACE, Kind } from '../ids';
import type { AccountMedia } from '../records';
import { offerMedia } from './chats';
import { type CreatorWorld, DAY_MS, HOUR_MS, MEDIA_VIDEO, MINUTE_MS } from './creator';

/**
 * Profile statistics (`GET /it/amoie/stats`): seeded view counts kept per five-minute slot of real
 * time, so any range and any bucket length read the same history (a day's buckets of an hour add up
 * to its bucket of a day), and the media offers of the creator's profile they are credited to.
 */

/** Most buckets one request may ask for (the platform's `datapointLimit`). */
export const STATS_DATAPOINT_LIMIT = 100;
/** Free ranges (year and month 0) are honoured only inside this trailing window of now. */
export const STATS_FREE_WINDOW_MS = 31 * DAY_MS;
/** The finest time kept: a bucket sums the slots that start inside it. */
const SLOT_MS = 5 * MINUTE_MS;

/** Stat type of the media views in `datapoints` (the one type the captures show there). */
export const MEDIA_STAT_TYPE = 1;
/** Stat types of `profileDatapoints`: where profile visits came from, and each one's share of them. */
export const PROFILE_TRAFFIC = [
  { type: 10001, name: 'direct', share: 1 },
  { type: 44001, name: 'fyp', share: 0.5 },
  { type: 44011, name: 'suggestions', share: 0.3 },
  { type: 44031, name: 'search', share: 0.15 },
] as const;
const FYP_TRAFFIC_TYPE = 44001;

/** The profile's offers (the newest media, posted free) and how many of each top list are given. */
const PROFILE_OFFER_COUNT = 24;
const TOP_COUNT = 10;
/** FYP publishes public videos of at least this many seconds. */
const FYP_MIN_SECONDS = 3;

const TAG_NAMES = [
  'cosplay',
  'fitness',
  'outdoors',
  'gaming',
  'lingerie',
  'asmr',
  'travel',
  'behindthescenes',
] as const;
/** Tags are the platform's, shared by every creator: their ids sit in the global namespace. */
const TAGS_CREATED_AT = 1_650_000_000_000;

export interface StatsRange {
  /** The range actually read, Unix ms; `after === before` when nothing of it could be. */
  after: number;
  before: number;
  period: number;
}

export interface StatEntry {
  type: number;
  views: number;
  previewViews: number;
  uniqueViewers: number;
  previewUniqueViewers: number;
  interactionTime: number;
  previewInteractionTime: number;
  videoViews: number;
  previewVideoViews: number;
  totalVideoPercentWatched: number;
  previewTotalVideoPercentWatched: number;
}

/** Profile entries carry only these fields, as the platform's do. */
type ProfileEntry = Pick<StatEntry, 'type' | 'views' | 'uniqueViewers' | 'interactionTime'>;

interface Datapoint<E> {
  timestamp: number;
  stats: E[];
}

/** How many buckets of `period` a range holds (the last one may be partial). */
export function bucketCount(range: StatsRange): number {
  return Math.max(0, Math.ceil((range.before - range.after) / range.period));
}

/**
 * The platform's answer for a range already resolved (clamped, within the bucket limit): buckets
 * newest first, each timestamped with its start; a bucket without views has empty `stats`.
 */
export function profileStats(world: CreatorWorld, range: StatsRange): unknown {
  const buckets = Array.from({ length: bucketCount(range) }, (_, i) => {
    const start = range.after + i * range.period;
    return { start, end: Math.min(start + range.period, range.before) };
  }).reverse();
  const datapoints = buckets.map((b) => ({ timestamp: b.start, stats: mediaStats(world, b.start, b.end) }));
  const profileDatapoints = buckets.map((b) => ({
    timestamp: b.start,
    stats: profileTraffic(world, b.start, b.end),
  }));
  const offers = profileOffers(world);
  const topMediaOffers = rankMediaOffers(world, offers, datapoints);
  const fyp = fypOffers(world, offers, profileDatapoints);
  const topFypMediaOffers = fyp.slice(0, TOP_COUNT);
  const topFypTags = creditTags(fyp);
  const listed = new Set([...topMediaOffers, ...topFypMediaOffers].map((offer) => offer.mediaOfferId));
  const tagIds = new Set([...topFypTags.map((t) => t.tagId), ...topFypMediaOffers.flatMap((o) => o.tagIds)]);
  return {
    dataset: {
      period: range.period,
      dateAfter: range.after,
      dateBefore: range.before,
      datapointLimit: STATS_DATAPOINT_LIMIT,
      datapoints,
      profileDatapoints,
      topMediaOffers,
      topFypMediaOffers,
      topFypTags,
    },
    aggregationData: {
      accountMedia: offers.filter((index) => listed.has(offerId(world, index))).map((i) => offer(world, i)),
      accountMediaBundles: [],
      tags: TAG_NAMES.map((_, k) => tag(k)).filter((t) => tagIds.has(t.id)),
    },
  };
}

// ---- per-slot history

/** Slot indexes (absolute: ms / SLOT_MS) starting in [from, to), none before the account existed. */
function slotsOf(world: CreatorWorld, from: number, to: number): number[] {
  const first = Math.ceil(Math.max(from, world.identity.createdAt) / SLOT_MS);
  const end = Math.ceil(to / SLOT_MS);
  return Array.from({ length: Math.max(0, end - first) }, (_, k) => first + k);
}

/** Busier in the evening (UTC) than at dawn: 0.25 to 1. */
function activity(slot: number): number {
  const hour = ((slot * SLOT_MS) % DAY_MS) / HOUR_MS;
  return 0.625 - 0.375 * Math.cos(((hour - 2) / 24) * 2 * Math.PI);
}

/** A seeded count of 0 to `max` for one slot, scaled by the time of day. */
function count(world: CreatorWorld, slot: number, salt: number, max: number): number {
  return Math.floor(world.rand.float(Kind.profileMedia, slot, salt) * (max + 1) * activity(slot));
}

function mediaStats(world: CreatorWorld, from: number, to: number): StatEntry[] {
  const entry: StatEntry = {
    type: MEDIA_STAT_TYPE,
    views: 0,
    previewViews: 0,
    uniqueViewers: 0,
    previewUniqueViewers: 0,
    interactionTime: 0,
    previewInteractionTime: 0,
    videoViews: 0,
    previewVideoViews: 0,
    totalVideoPercentWatched: 0,
    previewTotalVideoPercentWatched: 0,
  };
  for (const slot of slotsOf(world, from, to)) {
    const views = count(world, slot, 1, 3);
    const previews = count(world, slot, 2, 2);
    const videos = Math.min(views, count(world, slot, 3, 1));
    const previewVideos = Math.min(previews, count(world, slot, 4, 1));
    entry.views += views;
    entry.previewViews += previews;
    entry.uniqueViewers += Math.min(views, 1);
    entry.previewUniqueViewers += Math.min(previews, 1);
    entry.interactionTime += views * world.rand.int(1500, 20_000, Kind.profileMedia, slot, 5);
    entry.previewInteractionTime += previews * world.rand.int(800, 9000, Kind.profileMedia, slot, 6);
    entry.videoViews += videos;
    entry.previewVideoViews += previewVideos;
    // Each video view watched a share of its video (0 to 1), summed as the platform does.
    entry.totalVideoPercentWatched += videos * world.rand.float(Kind.profileMedia, slot, 7);
    entry.previewTotalVideoPercentWatched += previewVideos * world.rand.float(Kind.profileMedia, slot, 8);
  }
  return entry.views + entry.previewViews === 0 ? [] : [entry];
}

function profileTraffic(world: CreatorWorld, from: number, to: number): ProfileEntry[] {
  const entries = PROFILE_TRAFFIC.map((source) => ({
    type: source.type,
    views: 0,
    uniqueViewers: 0,
    interactionTime: 0,
  }));
  const slots = slotsOf(world, from, to);
  PROFILE_TRAFFIC.forEach((source, k) => {
    const entry = entries[k];
    if (!entry) return;
    for (const slot of slots) {
      const roll = world.rand.float(Kind.profileMedia, slot, 20 + k);
      const views = Math.floor(roll * (1 + 3 * source.share) * activity(slot));
      entry.views += views;
      entry.uniqueViewers += Math.min(views, 1);
      entry.interactionTime += views * world.rand.int(2000, 30_000, Kind.profileMedia, slot, 30 + k);
    }
  });
  return entries.filter((entry) => entry.views > 0);
}

// ---- the profile's offers

/** Media indexes of the profile's offers: the newest media. */
function profileOffers(world: CreatorWorld): number[] {
  return Array.from({ length: Math.min(PROFILE_OFFER_COUNT, world.mediaCount) }, (_, index) => index);
}

/** The account media id of a profile offer: posted a minute after its media was made. */
function offerId(world: CreatorWorld, index: number): string {
  return encodeId(world.media.at(index) + MINUTE_MS, world.namespace, Kind.profileMedia);
}

/** A profile offer as account media: the creator's own free post of the media. */
function offer(world: CreatorWorld, index: number): AccountMedia {
  return {
    id: offerId(world, index),
    accountId: world.accountId,
    mediaId: world.mediaId(index),
    previewId: null,
    price: 0,
    deleted: false,
    likeCount: world.rand.int(0, 400, Kind.profileMedia, index, 40),
    purchased: false,
    whitelisted: false,
    access: true,
    createdAt: world.media.at(index) + MINUTE_MS,
    saleStats: { purchased: false, purchasedAt: null, purchaseCount: 0, totalAmount: 0 },
    media: offerMedia(world, index),
  };
}

/** How strongly an offer draws views: its share of the range's totals. */
function weight(world: CreatorWorld, index: number): number {
  return 0.05 + world.rand.float(Kind.profileMedia, index, 41);
}

/** Shares `total` by weight, rounding down, so the shares never add up to more than it. */
function share(total: number, part: number, whole: number): number {
  return whole === 0 ? 0 : Math.floor((total * part) / whole);
}

function sum<E>(points: Datapoint<E>[], pick: (entry: E) => number): number {
  return points.reduce((acc, point) => acc + point.stats.reduce((inner, e) => inner + pick(e), 0), 0);
}

/** The range's media views split over the profile's offers by weight, the best first. */
function rankMediaOffers(world: CreatorWorld, offers: number[], datapoints: Datapoint<StatEntry>[]) {
  const whole = offers.reduce((acc, index) => acc + weight(world, index), 0);
  const totals = {
    views: sum(datapoints, (e) => e.views),
    previewViews: sum(datapoints, (e) => e.previewViews),
    interactionTime: sum(datapoints, (e) => e.interactionTime),
    previewInteractionTime: sum(datapoints, (e) => e.previewInteractionTime),
  };
  return offers
    .map((index) => {
      const part = weight(world, index);
      return {
        mediaOfferId: offerId(world, index),
        // Profile offers are single media: the platform's "0" for no bundle.
        mediaOfferBundleId: '0',
        views: share(totals.views, part, whole),
        previewViews: share(totals.previewViews, part, whole),
        interactionTime: share(totals.interactionTime, part, whole),
        previewInteractionTime: share(totals.previewInteractionTime, part, whole),
      };
    })
    .filter((row) => row.views + row.previewViews > 0)
    .sort((a, b) => b.views - a.views || b.previewViews - a.previewViews)
    .slice(0, TOP_COUNT);
}

/** The range's For You page views split over the offers FYP may show (public videos of 3 s or more). */
function fypOffers(world: CreatorWorld, offers: number[], profileDatapoints: Datapoint<ProfileEntry>[]) {
  const eligible = offers.filter((index) => {
    const info = world.mediaInfo(index);
    return info.type === MEDIA_VIDEO && info.isPublic && info.duration >= FYP_MIN_SECONDS;
  });
  const total = sum(profileDatapoints, (e) => (e.type === FYP_TRAFFIC_TYPE ? e.views : 0));
  const whole = eligible.reduce((acc, index) => acc + weight(world, index), 0);
  return eligible
    .map((index) => {
      const views = share(total, weight(world, index), whole);
      return {
        mediaOfferId: offerId(world, index),
        views,
        uniqueViewers: Math.floor(views * 0.8),
        interactionTime: views * world.rand.int(3000, 12_000, Kind.profileMedia, index, 42),
        tagIds: mediaTags(world, index).map((k) => tag(k).id),
      };
    })
    .filter((row) => row.views > 0)
    .sort((a, b) => b.views - a.views);
}

/** Each tag is credited the FYP views of every offer that carries it, the most viewed first. */
function creditTags(fyp: { views: number; tagIds: string[] }[]) {
  const views = new Map<string, number>();
  for (const row of fyp) for (const id of row.tagIds) views.set(id, (views.get(id) ?? 0) + row.views);
  return [...views]
    .map(([tagId, credited]) => ({ tagId, views: credited }))
    .sort((a, b) => b.views - a.views)
    .slice(0, TOP_COUNT);
}

/** One or two tags of a media (indexes into TAG_NAMES). */
function mediaTags(world: CreatorWorld, index: number): number[] {
  const first = world.rand.int(0, TAG_NAMES.length - 1, Kind.tag, index, 1);
  const second = world.rand.int(0, TAG_NAMES.length - 1, Kind.tag, index, 2);
  return first === second ? [first] : [first, second];
}

function tag(k: number): { id: string; tag: string } {
  return { id: encodeId(TAGS_CREATED_AT + k * 1000, GLOBAL_NAMESPACE, Kind.tag), tag: TAG_NAMES[k] ?? '' };
}

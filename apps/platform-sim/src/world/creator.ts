import { decodeId, encodeId, Kind } from '../ids';
import { ADJECTIVES, capitalize, coprimeStride, modularInverse, NOUNS, Rand, Timeline } from '../rand';
import type {
  EarningsTransaction,
  MediaLocation,
  MediaVariant,
  Subscription,
  SubscriptionTier,
  VaultMedia,
} from '../records';
import type { CdnLinks } from './cdn-links';
import type { CreatorIdentity } from './directory';

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

export const SUBSCRIPTION_ACTIVE = 3;
/** Not stated by the spec ("3 = active, 4 = ?" in public client code); the sandbox uses 4 for expired. */
export const SUBSCRIPTION_EXPIRED = 4;

const BALANCE_STRIDE = 32;

export const MEDIA_IMAGE = 1;
export const MEDIA_VIDEO = 2;

/**
 * The platform's revenue types (upstream-extended.md 1.10: 15001 subscriptions, 2110 media, 2116
 * bundles, 7101 tips), what the earnings series group by.
 */
export const TransactionType = { subscription: 15001, media: 2110, bundle: 2116, tip: 7101 } as const;

/** The money facts of one seeded transaction, what every earnings series sums (mills, Unix ms). */
export interface TransactionFacts {
  type: number;
  /** Gross, what the fan paid. */
  amount: number;
  /** Net, what the creator's wallet was credited. */
  net: number;
  fan: number;
  createdAt: number;
}

const TIER_TEMPLATES = [
  { name: 'Fan', color: '#2699f7', prices: [499, 799, 999] },
  { name: 'Supporter', color: '#e23d6d', prices: [1499, 1999] },
  { name: 'VIP', color: '#9b51e0', prices: [2999, 4999] },
] as const;

const PLAN_CYCLES = [30, 90, 180] as const;
const PLAN_DISCOUNTS = [1, 0.9, 0.85] as const;

export interface MediaInfo {
  index: number;
  id: string;
  createdAt: number;
  type: number;
  /** Seconds; 0 for images. */
  duration: number;
  /** Public media may be published to the For You page (when a video of 3 s or more). */
  isPublic: boolean;
  width: number;
  height: number;
  /** Set on media an upload made: what was uploaded (the bytes are the upload store's). */
  upload?: UploadedFile;
}

/** The file behind an uploaded media. */
export interface UploadedFile {
  fileName: string;
  mimeType: string;
  size: number;
}

interface SubscriptionCore {
  fan: number;
  tierIndex: number;
  planIndex: number;
  expired: boolean;
  promo: boolean;
}

/**
 * The seeded, read-only part of one creator's world. Big collections (fans, subscriptions,
 * transactions, messages, media) are virtual: item i is computed from the seed on demand, so an
 * idle creator costs a few hundred bytes and a page costs O(page). What can change lives in
 * CreatorState.
 */
/** The creator's subscription tiers (2 or 3), each with its plans and the first plan's promo. */
function seededTiers(rand: Rand, identity: CreatorIdentity): SubscriptionTier[] {
  const tierCount = rand.int(2, 3, Kind.tier, 0);
  return TIER_TEMPLATES.slice(0, tierCount).map((template, k) => {
    const tierMs = identity.createdAt + (k + 1) * 60_000;
    const price = rand.pick(template.prices, Kind.tier, k);
    return {
      id: encodeId(tierMs, identity.namespace, Kind.tier),
      name: template.name,
      color: template.color,
      pos: k,
      price,
      plans: PLAN_CYCLES.map((cycle, p) => ({
        id: encodeId(tierMs + p, identity.namespace, Kind.plan),
        billingCycle: cycle,
        price: Math.round((price * (cycle / 30) * (PLAN_DISCOUNTS[p] ?? 1)) / 10) * 10 - 1,
        promos:
          k === 0 && p === 0
            ? [
                {
                  id: encodeId(tierMs, identity.namespace, Kind.promo),
                  price: Math.round(price / 2),
                  description: 'First month half off',
                },
              ]
            : [],
      })),
    };
  });
}

export class CreatorWorld {
  readonly rand: Rand;
  readonly namespace: number;
  readonly accountId: string;

  readonly fanCount: number;
  readonly subscriptionCount: number;
  readonly followingCount: number;
  readonly transactionCount: number;
  readonly mediaCount: number;
  readonly groupCount: number;

  readonly fans: Timeline;
  readonly subscriptions: Timeline;
  readonly transactions: Timeline;
  readonly messages: Timeline;
  readonly media: Timeline;
  readonly groups: Timeline;

  readonly tiers: SubscriptionTier[];
  /** Media uploads made, oldest first (`addUpload`). */
  readonly uploaded: MediaInfo[] = [];
  readonly walletId: string;

  /** Per chat: how many slots its newest message is behind the newest chat, its length, its unread count. */
  readonly groupStart: Uint8Array;
  readonly groupLength: Uint8Array;
  readonly groupUnread: Uint8Array;

  private readonly subStride: number;
  private readonly subOffset: number;
  private readonly subInverse: number;
  private readonly followStride: number;
  private readonly followOffset: number;
  private readonly followInverse: number;
  private readonly groupFanStride: number;
  private readonly groupFanOffset: number;

  private subscriptionIndex: { status: Uint8Array; tier: Uint8Array; active: number } | null = null;
  private balanceCheckpoints: Float64Array | null = null;

  constructor(
    readonly identity: CreatorIdentity,
    seed: number,
    readonly anchorMs: number,
    readonly cdn: CdnLinks,
  ) {
    this.namespace = identity.namespace;
    this.accountId = identity.accountId;
    const rand = new Rand(seed, identity.namespace);
    this.rand = rand;

    this.fanCount = rand.int(360, 460, Kind.fan, 0, 1);
    this.subscriptionCount = rand.int(260, 340, Kind.subscription, 0, 1);
    this.followingCount = rand.int(200, 320, Kind.account, 0, 9);
    this.transactionCount = rand.int(700, 950, Kind.transaction, 0, 1);
    this.mediaCount = rand.int(140, 190, Kind.media, 0, 1);
    this.groupCount = rand.int(32, 44, Kind.group, 0, 1);

    this.fans = new Timeline(rand, Kind.fan, anchorMs - 6 * HOUR_MS, 12 * HOUR_MS);
    this.subscriptions = new Timeline(rand, Kind.subscription, anchorMs - 90 * MINUTE_MS, 9 * HOUR_MS);
    this.transactions = new Timeline(
      rand,
      Kind.transaction,
      anchorMs - 20 * MINUTE_MS,
      Math.floor((180 * DAY_MS) / this.transactionCount),
    );
    this.messages = new Timeline(rand, Kind.message, anchorMs - 3 * MINUTE_MS, 14 * MINUTE_MS);
    this.media = new Timeline(rand, Kind.media, anchorMs - 2 * HOUR_MS, 2 * DAY_MS);
    this.groups = new Timeline(rand, Kind.group, anchorMs - 90 * DAY_MS, DAY_MS);

    this.subStride = coprimeStride(this.fanCount, rand.int(50, 300, Kind.subscription, 0, 2));
    this.subOffset = rand.int(0, this.fanCount - 1, Kind.subscription, 0, 3);
    this.subInverse = modularInverse(this.subStride, this.fanCount);
    this.followStride = coprimeStride(this.fanCount, rand.int(50, 300, Kind.account, 0, 10));
    this.followOffset = rand.int(0, this.fanCount - 1, Kind.account, 0, 11);
    this.followInverse = modularInverse(this.followStride, this.fanCount);
    this.groupFanStride = coprimeStride(this.fanCount, rand.int(50, 300, Kind.group, 0, 2));
    this.groupFanOffset = rand.int(0, this.fanCount - 1, Kind.group, 0, 3);

    this.tiers = seededTiers(rand, identity);
    this.walletId = encodeId(identity.createdAt + 5_000, this.namespace, Kind.wallet);

    this.groupStart = new Uint8Array(this.groupCount);
    this.groupLength = new Uint8Array(this.groupCount);
    this.groupUnread = new Uint8Array(this.groupCount);
    for (let g = 0; g < this.groupCount; g++) {
      // The first three chats are long, so their media offers really page.
      const rich = g < 3;
      this.groupStart[g] = rich ? 0 : rand.int(0, 5, Kind.group, g, 4);
      const length = rich ? rand.int(70, 100, Kind.group, g, 5) : rand.int(8, 36, Kind.group, g, 5);
      this.groupLength[g] = length;
      this.groupUnread[g] =
        rich || rand.chance(0.55, Kind.group, g, 6) ? rand.int(1, Math.min(6, length), Kind.group, g, 7) : 0;
    }
  }

  // ---- fans (platform accounts that follow or subscribe to the creator)

  fanId(fan: number): string {
    return encodeId(this.fans.at(fan), this.namespace, Kind.fan);
  }

  fanIndexOf(id: string): number {
    const decoded = decodeId(id);
    if (!decoded || decoded.namespace !== this.namespace || decoded.kind !== Kind.fan) return -1;
    const fan = this.fans.indexOf(decoded.ms);
    return fan >= 0 && fan < this.fanCount ? fan : -1;
  }

  fanUsername(fan: number): string {
    const adjective = this.rand.pick(ADJECTIVES, Kind.fan, fan, 20);
    const noun = this.rand.pick(NOUNS, Kind.fan, fan, 21);
    return `${adjective}${noun}${fan * 7 + (this.rand.u32(Kind.fan, fan, 22) % 7) + 10}`;
  }

  fanDisplayName(fan: number): string {
    const adjective = this.rand.pick(ADJECTIVES, Kind.fan, fan, 20);
    const noun = this.rand.pick(NOUNS, Kind.fan, fan, 21);
    return `${capitalize(adjective)} ${capitalize(noun)}`;
  }

  /** Index of the subscription of a fan, or -1 when the fan never subscribed. */
  subscriptionOfFan(fan: number): number {
    const sub = (((fan - this.subOffset) % this.fanCount) + this.fanCount) % this.fanCount;
    const index = Number((BigInt(sub) * BigInt(this.subInverse)) % BigInt(this.fanCount));
    return index < this.subscriptionCount ? index : -1;
  }

  followedFan(position: number): number {
    return (position * this.followStride + this.followOffset) % this.fanCount;
  }

  /** Position of a fan in the seeded following list (newest follow first), or -1 when not followed. */
  followPosition(fan: number): number {
    const shifted = (((fan - this.followOffset) % this.fanCount) + this.fanCount) % this.fanCount;
    const position = Number((BigInt(shifted) * BigInt(this.followInverse)) % BigInt(this.fanCount));
    return position < this.followingCount ? position : -1;
  }

  /**
   * When the creator followed the account at seeded `position`: 7 h apart, a second off the minute
   * so these relation ids never meet the followers' (whole minutes, api/accounts.ts).
   */
  followedAt(position: number): number {
    return this.anchorMs - (position + 1) * 7 * HOUR_MS - 1000;
  }

  groupFan(group: number): number {
    return (group * this.groupFanStride + this.groupFanOffset) % this.fanCount;
  }

  // ---- subscriptions (newest first)

  private subscriptionCore(i: number): SubscriptionCore {
    const r = this.rand;
    const tierRoll = r.float(Kind.subscription, i, 10);
    const tierIndex = Math.min(this.tiers.length - 1, tierRoll < 0.6 ? 0 : tierRoll < 0.9 ? 1 : 2);
    const planRoll = r.float(Kind.subscription, i, 11);
    const planIndex = planRoll < 0.8 ? 0 : planRoll < 0.95 ? 1 : 2;
    const cycleMs = (PLAN_CYCLES[planIndex] ?? 30) * DAY_MS;
    const age = this.anchorMs - this.subscriptions.at(i);
    // An expired subscription needs at least one full period behind it.
    const expired = age > cycleMs && r.chance(0.16, Kind.subscription, i, 12);
    const promo = tierIndex === 0 && planIndex === 0 && r.chance(0.25, Kind.subscription, i, 13);
    return {
      fan: this.subscriberOf(i),
      tierIndex,
      planIndex,
      expired,
      promo,
    };
  }

  /** Fan index of subscription i (a permutation, so every subscription has its own fan). */
  subscriberOf(i: number): number {
    return (i * this.subStride + this.subOffset) % this.fanCount;
  }

  subscription(i: number): Subscription {
    const r = this.rand;
    const core = this.subscriptionCore(i);
    const tier = this.tiers[core.tierIndex] ?? this.tiers[0];
    if (!tier) throw new Error('creator has no tiers');
    const plan = tier.plans[core.planIndex] ?? tier.plans[0];
    if (!plan) throw new Error('tier has no plans');
    const createdAt = this.subscriptions.at(i);
    const cycleMs = plan.billingCycle * DAY_MS;
    const periods = Math.floor((this.anchorMs - createdAt) / cycleMs);
    const promo = core.promo ? (plan.promos[0] ?? null) : null;
    let renewDate: number;
    let updatedAt: number;
    let version: number;
    if (core.expired) {
      const lasted = 1 + (r.u32(Kind.subscription, i, 14) % Math.max(1, Math.min(periods, 3)));
      renewDate = createdAt + lasted * cycleMs;
      updatedAt = renewDate;
      version = lasted + 1;
    } else {
      renewDate = createdAt + (periods + 1) * cycleMs;
      updatedAt = createdAt + periods * cycleMs;
      version = periods + 1;
    }
    const gift = r.chance(0.03, Kind.subscription, i, 15);
    return {
      id: encodeId(createdAt, this.namespace, Kind.subscription),
      historyId: encodeId(createdAt, this.namespace, Kind.subscriptionHistory),
      subscriberId: this.fanId(core.fan),
      subscriptionTierId: tier.id,
      subscriptionTierName: tier.name,
      subscriptionTierColor: tier.color,
      planId: plan.id,
      promoId: promo ? promo.id : '0',
      giftCodeId: gift ? encodeId(createdAt, this.namespace, Kind.giftCode) : null,
      paymentMethodId: gift ? '0' : encodeId(createdAt, this.namespace, Kind.paymentMethod),
      status: core.expired ? SUBSCRIPTION_EXPIRED : SUBSCRIPTION_ACTIVE,
      price: promo ? promo.price : plan.price,
      renewPrice: plan.price,
      renewCorrelationId: encodeId(createdAt, this.namespace, Kind.renewCorrelation),
      autoRenew: core.expired ? 0 : r.chance(0.85, Kind.subscription, i, 16) ? 1 : 0,
      billingCycle: plan.billingCycle,
      duration: plan.billingCycle,
      renewDate,
      version,
      createdAt,
      updatedAt,
      endsAt: renewDate,
      promoPrice: promo ? promo.price : null,
      promoDuration: promo ? 30 : null,
      promoStatus: promo ? 1 : null,
      promoStartsAt: promo ? createdAt - 2 * DAY_MS : null,
      promoEndsAt: promo ? createdAt + 28 * DAY_MS : null,
    };
  }

  /** Status and tier of every subscription, computed once (a few hundred bytes). */
  subscriptionFacts(): { status: Uint8Array; tier: Uint8Array; active: number } {
    if (this.subscriptionIndex) return this.subscriptionIndex;
    const status = new Uint8Array(this.subscriptionCount);
    const tier = new Uint8Array(this.subscriptionCount);
    let active = 0;
    for (let i = 0; i < this.subscriptionCount; i++) {
      const core = this.subscriptionCore(i);
      status[i] = core.expired ? SUBSCRIPTION_EXPIRED : SUBSCRIPTION_ACTIVE;
      tier[i] = core.tierIndex;
      if (!core.expired) active += 1;
    }
    this.subscriptionIndex = { status, tier, active };
    return this.subscriptionIndex;
  }

  // ---- earnings transactions (newest first), amounts in mills

  private transactionCore(i: number): { type: number; amount: number; tax: number; fan: number } {
    const r = this.rand;
    const roll = r.float(Kind.transaction, i, 1);
    const fan = r.int(0, this.fanCount - 1, Kind.transaction, i, 2);
    let type: number;
    let amount: number;
    if (roll < 0.55) {
      type = TransactionType.subscription;
      amount = (this.tiers[r.int(0, this.tiers.length - 1, Kind.transaction, i, 3)]?.price ?? 999) * 10;
    } else if (roll < 0.8) {
      type = TransactionType.tip;
      amount = r.int(1, 100, Kind.transaction, i, 4) * 1000;
    } else if (roll < 0.93) {
      type = TransactionType.media;
      amount = r.pick([4990, 9990, 14990, 19990, 29990], Kind.transaction, i, 5);
    } else {
      type = TransactionType.bundle;
      amount = r.pick([24990, 39990, 59990], Kind.transaction, i, 5);
    }
    const tax = r.chance(0.2, Kind.transaction, i, 6) ? Math.round(amount * 0.05) : 0;
    return { type, amount, tax, fan };
  }

  private netAmount(core: { amount: number; tax: number }): number {
    return Math.round(core.amount * 0.8) - core.tax;
  }

  /**
   * Wallet balance (mills) right after transaction i. Balances are kept only every
   * BALANCE_STRIDE transactions (a few hundred bytes per creator); the rest is summed on demand.
   */
  private balanceAfter(i: number): number {
    if (!this.balanceCheckpoints) {
      const checkpoints = new Float64Array(Math.ceil(this.transactionCount / BALANCE_STRIDE) + 1);
      let balance = this.rand.int(0, 500, Kind.wallet, 0) * 1000;
      for (let k = this.transactionCount - 1; k >= 0; k--) {
        balance += this.netAmount(this.transactionCore(k));
        if (k % BALANCE_STRIDE === 0) checkpoints[k / BALANCE_STRIDE] = balance;
      }
      this.balanceCheckpoints = checkpoints;
    }
    // checkpoint c holds the balance after transaction c*STRIDE; newer ones add on top of older.
    const c = Math.floor(i / BALANCE_STRIDE);
    let balance = this.balanceCheckpoints[c] ?? 0;
    for (let k = c * BALANCE_STRIDE; k < i; k++) balance -= this.netAmount(this.transactionCore(k));
    return balance;
  }

  /** Transactions i with `after` < createdAt < `before` (Unix ms, null: no bound): indexes [lo, hi). */
  transactionRange(after: number | null, before: number | null): { lo: number; hi: number } {
    const count = this.transactionCount;
    const lo = before === null ? 0 : this.transactions.countNewerThan(before - 1, count);
    const hi = after === null ? count : this.transactions.countNewerThan(after, count);
    return { lo, hi: Math.max(lo, hi) };
  }

  /** The money of transaction i, without its balance (cheap: what the earnings series sum). */
  transactionFacts(i: number): TransactionFacts {
    const core = this.transactionCore(i);
    return {
      type: core.type,
      amount: core.amount,
      net: this.netAmount(core),
      fan: core.fan,
      createdAt: this.transactions.at(i),
    };
  }

  transaction(i: number): EarningsTransaction {
    const core = this.transactionCore(i);
    const createdAt = this.transactions.at(i);
    const fanId = this.fanId(core.fan);
    const balance = this.balanceAfter(i);
    return {
      walletId: this.walletId,
      transactionId: encodeId(createdAt, this.namespace, Kind.transaction),
      accountId: this.accountId,
      correlationId: encodeId(createdAt, this.namespace, Kind.transactionCorrelation),
      correlationAccountId: fanId,
      type: core.type,
      destination: 1,
      amount: core.amount,
      destinationTax: core.tax,
      destinationAmount: this.netAmount(core),
      newBalance: balance,
      newBalance64: balance,
      createdAt,
      updatedAt: this.rand.chance(0.3, Kind.transaction, i, 7)
        ? createdAt + this.rand.int(1000, 60_000, Kind.transaction, i, 8)
        : null,
      status: 1,
      senderId: fanId,
      receiverId: this.accountId,
    };
  }

  // ---- media (newest first). Media 0 is a public 12.5 s video for the For You page, media 1 a
  // public video too short for it, media 2 a long video that is not public.

  mediaId(index: number): string {
    return encodeId(this.media.at(index), this.namespace, Kind.media);
  }

  /** Seeded and uploaded media: an uploaded one's index follows the seeded ones. */
  mediaIndexOf(id: string): number {
    const decoded = decodeId(id);
    if (!decoded || decoded.kind !== Kind.media) return -1;
    if (decoded.namespace !== this.namespace) {
      const upload = this.uploaded.findIndex((info) => info.id === id);
      return upload < 0 ? -1 : this.mediaCount + upload;
    }
    const index = this.media.indexOf(decoded.ms);
    return index >= 0 && index < this.mediaCount ? index : -1;
  }

  /**
   * Files an upload's media (the one part of the media that is not seeded: `World.reset` empties it).
   * `id` is a runtime media id.
   */
  addUpload(id: string, createdAt: number, type: number, file: UploadedFile): MediaInfo {
    const info: MediaInfo = {
      index: this.mediaCount + this.uploaded.length,
      id,
      createdAt,
      type,
      duration: 0,
      isPublic: false,
      width: 1920,
      height: 1080,
      upload: file,
    };
    this.uploaded.push(info);
    return info;
  }

  mediaInfo(index: number): MediaInfo {
    if (index >= this.mediaCount) {
      const uploaded = this.uploaded[index - this.mediaCount];
      if (!uploaded) throw new Error(`no media #${index}`);
      return uploaded;
    }
    const r = this.rand;
    const createdAt = this.media.at(index);
    const id = encodeId(createdAt, this.namespace, Kind.media);
    let type: number;
    let duration = 0;
    let isPublic: boolean;
    if (index === 0) {
      type = MEDIA_VIDEO;
      duration = 12.5;
      isPublic = true;
    } else if (index === 1) {
      type = MEDIA_VIDEO;
      duration = 2;
      isPublic = true;
    } else if (index === 2) {
      type = MEDIA_VIDEO;
      duration = 45;
      isPublic = false;
    } else {
      type = r.chance(0.3, Kind.media, index, 1) ? MEDIA_VIDEO : MEDIA_IMAGE;
      if (type === MEDIA_VIDEO) duration = r.int(10, 1800, Kind.media, index, 2) / 10;
      isPublic = r.chance(0.7, Kind.media, index, 3);
    }
    const portrait = r.chance(0.6, Kind.media, index, 4);
    const [width, height] =
      type === MEDIA_VIDEO
        ? portrait
          ? [1080, 1920]
          : [1920, 1080]
        : portrait
          ? [1440, 1920]
          : [1920, 1280];
    return { index, id, createdAt, type, duration, isPublic, width, height };
  }

  mediaPath(info: MediaInfo): string {
    const extension = info.upload
      ? extensionOf(info.upload.fileName, info.type)
      : defaultExtension(info.type);
    return `/${this.accountId}/${info.id}.${extension}`;
  }

  mediaLocations(info: MediaInfo): MediaLocation[] {
    return [{ locationId: '1', location: this.cdn.link(this.mediaPath(info)) }];
  }

  mediaVariants(info: MediaInfo): MediaVariant[] {
    const sizes = info.type === MEDIA_VIDEO ? [720] : [720, 360];
    const variants: MediaVariant[] = sizes.map((size, v) => {
      const id = encodeId(info.createdAt - 1 - v, this.namespace, Kind.mediaVariant);
      const scale = size / Math.max(info.width, info.height);
      const path = `/${this.accountId}/${id}.jpeg`;
      return {
        id,
        type: MEDIA_IMAGE,
        status: 1,
        mimetype: 'image/jpeg',
        flags: 0,
        filename: `${id}.jpeg`,
        location: path,
        width: Math.round(info.width * scale),
        height: Math.round(info.height * scale),
        metadata: '{}',
        updatedAt: info.createdAt + 60_000,
        locations: [{ locationId: '1', location: this.cdn.link(path) }],
      };
    });
    if (info.type === MEDIA_VIDEO) {
      const id = encodeId(info.createdAt - 3, this.namespace, Kind.mediaVariant);
      const path = `/${this.accountId}/${id}.m3u8`;
      variants.push({
        id,
        type: 302,
        status: 1,
        mimetype: 'application/vnd.apple.mpegurl',
        flags: 0,
        filename: `${id}.m3u8`,
        location: path,
        width: info.width,
        height: info.height,
        metadata: JSON.stringify({ duration: info.duration, frameRate: 30 }),
        updatedAt: info.createdAt + 60_000,
        locations: [{ locationId: '1', location: this.cdn.link(path) }],
      });
    }
    return variants;
  }

  vaultMedia(index: number): VaultMedia {
    const info = this.mediaInfo(index);
    const metadata =
      info.type === MEDIA_VIDEO
        ? { duration: info.duration, frameRate: 30, resolutionMode: 1, public: info.isPublic }
        : { resolutionMode: 1, public: info.isPublic };
    return {
      id: info.id,
      type: info.type,
      status: 1,
      accountId: this.accountId,
      mimetype: info.upload?.mimeType ?? (info.type === MEDIA_VIDEO ? 'video/mp4' : 'image/jpeg'),
      flags: 0,
      filename:
        info.upload?.fileName ??
        `${info.type === MEDIA_VIDEO ? 'VID' : 'IMG'}_${4000 + this.mediaCount - index}.${defaultExtension(info.type)}`,
      location: this.mediaPath(info),
      width: info.width,
      height: info.height,
      metadata: JSON.stringify(metadata),
      updatedAt: info.createdAt + 60_000,
      createdAt: info.createdAt,
      variants: this.mediaVariants(info),
      variantHash: {},
      locations: this.mediaLocations(info),
    };
  }
}

const defaultExtension = (type: number) => (type === MEDIA_VIDEO ? 'mp4' : 'jpeg');

/** An uploaded file's own extension when it has a plain one, else the type's. */
function extensionOf(fileName: string, type: number): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(fileName);
  return match?.[1]?.toLowerCase() ?? defaultExtension(type);
}

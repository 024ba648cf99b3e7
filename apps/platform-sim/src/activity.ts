import { ControlError } from './errors';
import type { FaultScope } from './faults';
import { Kind } from './ids';
import { MESSAGE_LINES } from './rand';
import type { Realtime } from './realtime';
import type {
  FollowRecord,
  MediaOrder,
  Message,
  MessageAttachment,
  PlatformNotification,
  Subscription,
} from './records';
import { ATTACHMENT_BUNDLE } from './world/chats';
import type { Conversations } from './world/conversations';
import { DAY_MS, SUBSCRIPTION_EXPIRED } from './world/creator';
import { Posts } from './world/posts';
import type { NotificationEntry } from './world/state';
import type { World } from './world/world';

/**
 * POST /_sim/activity: something a fan does on a creator's account. The world changes (so REST
 * reads and a backfill after a gap find it) and the matching realtime event goes to the creator's
 * live connections (upstream-extended.md table 2.4).
 */

/** What the activity generator uses of the sandbox (core.ts `SimCore` is the one there is). */
export interface ActivityHost {
  readonly world: World;
  readonly realtime: Pick<Realtime, 'publish'>;
  resolveCreator(account: string): FaultScope | null;
}

export const ACTIVITY_TYPES = [
  'message',
  'tip',
  'subscription',
  'subscription_expired',
  'follow',
  'unfollow',
  'ppv_purchase',
  'message_read',
  'reaction',
  'typing',
  'post_like',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** Notification types (service * 1000 + N) of what activity records. */
export const NOTIFICATION_TYPE = {
  mediaPurchase: 2007,
  follow: 3002,
  unfollow: 3003,
  tip: 7001,
  newSubscriber: 15006,
  expiredSubscription: 15007,
} as const;

/** (serviceId, type, key) of each realtime event activity pushes. */
const EVENT = {
  postLike: [1, 2, 'like'],
  order: [2, 7, 'order'],
  follow: [3, 2, 'follow'],
  unfollow: [3, 3, 'follow'],
  ack: [4, 2, 'ackCommand'],
  message: [5, 1, 'message'],
  reaction: [5, 3, 'like'],
  typing: [5, 22, 'typingAnnounceEvent'],
  tip: [7, 1, 'tip'],
  notification: [9, 1, 'notification'],
  subscription: [15, 5, 'subscription'],
} as const;
type EventName = keyof typeof EVENT;

const TIP_AMOUNTS = [1000, 2000, 5000, 10000, 25000] as const;
const ACK_READ = 2;
const REACTION_LIKE = 1;
const ORDER_ITEM = 1;
const ORDER_BUNDLE = 2;
const SUBSCRIPTION_PENDING = 2;
const SUBSCRIPTION_CONFIRMED = 3;
const MAX_CONTENT = 5000;
/** How far back in a chat a purchase or a read receipt looks for the creator's messages. */
const CHAT_LOOKBACK = 100;
const FIELDS = ['type', 'creator', 'fanId', 'content', 'amount', 'messageId', 'postId'];

export interface ActivityRequest {
  type: ActivityType;
  creator: number;
  fanId?: string | undefined;
  content?: string | undefined;
  amount?: number | undefined;
  messageId?: string | undefined;
  postId?: string | undefined;
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    throw new ControlError(400, `"${name}" must be a non-empty string`);
  return value;
}

/** Checks a POST /_sim/activity body: 400 naming a bad field, 404 an unknown creator. */
export function parseActivity(core: ActivityHost, body: unknown): ActivityRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ControlError(400, 'body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((field) => !FIELDS.includes(field));
  if (unknown.length > 0)
    throw new ControlError(400, `unknown field "${unknown[0]}" (allowed: ${FIELDS.join(', ')})`);
  const type = fields.type;
  if (typeof type !== 'string' || !(ACTIVITY_TYPES as readonly string[]).includes(type))
    throw new ControlError(400, `"type" must be one of ${ACTIVITY_TYPES.join(', ')}`);
  const username = optionalString(fields, 'creator');
  if (username === undefined) throw new ControlError(400, '"creator" is required (a sandbox username)');
  const scope = core.resolveCreator(username);
  if (!scope) throw new ControlError(404, `unknown sandbox account "${username}"`);
  const amount = fields.amount;
  if (amount !== undefined && (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0))
    throw new ControlError(400, '"amount" must be a whole number of mills > 0');
  const content = fields.content;
  if (content !== undefined && (typeof content !== 'string' || content.length > MAX_CONTENT))
    throw new ControlError(400, `"content" must be a string of at most ${MAX_CONTENT} characters`);
  return {
    type: type as ActivityType,
    creator: scope.creator,
    fanId: optionalString(fields, 'fanId'),
    content: content as string | undefined,
    amount: amount as number | undefined,
    messageId: optionalString(fields, 'messageId'),
    postId: optionalString(fields, 'postId'),
  };
}

function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}

/** One activity being applied: the creator's world, the fan, the frames pushed so far. */
class Happening {
  readonly conversations: Conversations;
  readonly creatorId: string;
  readonly frames: { serviceId: number; type: number; key: string }[] = [];
  delivered = 0;
  fan = -1;
  group = -1;

  constructor(
    readonly core: ActivityHost,
    readonly request: ActivityRequest,
    readonly now: number,
  ) {
    this.conversations = core.world.conversations(request.creator);
    this.creatorId = this.world.accountId;
  }

  get world() {
    return this.conversations.chats.world;
  }

  get state() {
    return this.conversations.state;
  }

  get fanId(): string {
    return this.world.fanId(this.fan);
  }

  get groupId(): string | null {
    return this.group >= 0 ? this.conversations.chats.groupId(this.group) : null;
  }

  id(kind: Kind): string {
    return this.core.world.ids.next(kind);
  }

  push(name: EventName, object: unknown): void {
    const [serviceId, type, key] = EVENT[name];
    this.delivered = Math.max(
      this.delivered,
      this.core.realtime.publish(this.request.creator, serviceId, type, key, object),
    );
    this.frames.push({ serviceId, type, key });
  }

  /** Records a notification (what GET /notifications lists), pushed as (9,1) only when `push`. */
  notify(
    type: number,
    collection: NotificationEntry['collection'],
    record: unknown,
    correlationId: string,
    push = false,
  ): PlatformNotification {
    const notification: PlatformNotification = {
      id: this.id(Kind.notification),
      type,
      accountId: this.creatorId,
      correlationId,
      correlationGroupId: this.groupId,
      createdAt: this.now,
    };
    this.state.addNotification({ notification, collection, record });
    if (push) this.push('notification', notification);
    return notification;
  }

  /**
   * The fan: `fanId` (404 when not the creator's fan), else the partner of `messageId`'s chat, else
   * a random fan with a chat among those `eligible` accepts. Sets the fan's chat when there is one.
   */
  chooseFan(eligible: (group: number) => boolean = () => true): void {
    const { fanId, messageId } = this.request;
    if (fanId !== undefined) {
      this.fan = this.world.fanIndexOf(fanId);
      if (this.fan < 0) throw new ControlError(404, `unknown fan "${fanId}" of this creator`);
      this.group = this.conversations.groupOfFan(this.fan);
      return;
    }
    if (messageId !== undefined) {
      this.group = this.messageGroup(messageId);
      this.fan = this.conversations.chats.partnerFan(this.group);
      return;
    }
    const groups = Array.from({ length: this.conversations.chats.groupCount }, (_, g) => g).filter(eligible);
    const group = pick(groups);
    if (group === undefined)
      throw new ControlError(404, `no fan of this creator fits a ${this.request.type}`);
    this.group = group;
    this.fan = this.conversations.chats.partnerFan(group);
  }

  /** The chat of a message of this creator (404 unknown, deleted or not in a fan chat). */
  private messageGroup(messageId: string): number {
    const found = this.conversations.find(messageId);
    if (!found || found.deleted || found.group < 0)
      throw new ControlError(404, `unknown message "${messageId}"`);
    return found.group;
  }

  /** The fan's chat: 404 when the fan has none. */
  requireChat(): number {
    if (this.group < 0) throw new ControlError(404, `fan "${this.fanId}" has no chat with this creator`);
    return this.group;
  }

  /** `messageId` (it must be in the fan's chat), else the newest message `accepts` in the chat. */
  chatMessage(accepts: (message: Message) => boolean, what: string): Message {
    const group = this.requireChat();
    const { messageId } = this.request;
    if (messageId !== undefined) {
      const found = this.conversations.find(messageId);
      if (!found || found.deleted || found.group !== group)
        throw new ControlError(404, `unknown message "${messageId}" in the fan's chat`);
      if (!accepts(found.message)) throw new ControlError(404, `message "${messageId}" is not ${what}`);
      return found.message;
    }
    const message = this.conversations.messages(group, null, CHAT_LOOKBACK).find(accepts);
    if (!message) throw new ControlError(404, `no ${what} in the fan's chat`);
    return message;
  }

  fromCreator(message: Message): boolean {
    return message.senderId === this.creatorId;
  }
}

function offerOf(message: Message): MessageAttachment | undefined {
  return message.attachments[0];
}

function receiveMessage(h: Happening): Record<string, unknown> {
  h.chooseFan();
  const content = h.request.content ?? pick(MESSAGE_LINES) ?? 'hi';
  const message = h.conversations.receive(h.requireChat(), content, h.now);
  h.push('message', message);
  return { message };
}

function tip(h: Happening): Record<string, unknown> {
  h.chooseFan();
  const record = {
    id: h.id(Kind.tip),
    senderId: h.fanId,
    receiverId: h.creatorId,
    amount: h.request.amount ?? pick(TIP_AMOUNTS) ?? 5000,
    messageId: null,
    groupId: h.groupId,
    createdAt: h.now,
  };
  h.push('tip', record);
  return { tip: record, notification: h.notify(NOTIFICATION_TYPE.tip, 'tips', record, record.id) };
}

/** A new subscription to the fan's tier (the first tier when none): sent pending (2), then confirmed (3). */
function subscribe(h: Happening): Record<string, unknown> {
  h.chooseFan();
  const seeded = h.world.subscriptionOfFan(h.fan);
  const tierId = seeded >= 0 ? h.world.subscription(seeded).subscriptionTierId : null;
  const tier = h.world.tiers.find((t) => t.id === tierId) ?? h.world.tiers[0];
  const plan = tier?.plans[0];
  if (!tier || !plan) throw new ControlError(404, 'this creator has no subscription tier');
  const endsAt = h.now + plan.billingCycle * DAY_MS;
  const pending: Subscription = {
    id: h.id(Kind.subscription),
    historyId: h.id(Kind.subscriptionHistory),
    subscriberId: h.fanId,
    subscriptionTierId: tier.id,
    subscriptionTierName: tier.name,
    subscriptionTierColor: tier.color,
    planId: plan.id,
    promoId: '0',
    giftCodeId: null,
    paymentMethodId: h.id(Kind.paymentMethod),
    status: SUBSCRIPTION_PENDING,
    price: plan.price,
    renewPrice: plan.price,
    renewCorrelationId: h.id(Kind.renewCorrelation),
    autoRenew: 1,
    billingCycle: plan.billingCycle,
    duration: plan.billingCycle,
    renewDate: endsAt,
    version: 1,
    createdAt: h.now,
    updatedAt: h.now,
    endsAt,
    promoPrice: null,
    promoDuration: null,
    promoStatus: null,
    promoStartsAt: null,
    promoEndsAt: null,
  };
  const subscription: Subscription = { ...pending, status: SUBSCRIPTION_CONFIRMED, version: 2 };
  h.push('subscription', pending);
  h.push('subscription', subscription);
  return keepSubscription(h, subscription, NOTIFICATION_TYPE.newSubscriber);
}

/** The fan's subscription changed: kept (an expiry points at it) and notified. */
function keepSubscription(
  h: Happening,
  subscription: Subscription,
  type: number,
  push = false,
): Record<string, unknown> {
  h.state.recordSubscription(h.fan, subscription);
  const notification = h.notify(type, 'subscriptions', subscription, subscription.id, push);
  return { subscription, notification };
}

/** The fan's subscription: the one made through activity, else the seeded one. */
function subscriptionOf(h: Happening, fan: number): Subscription | null {
  const made = h.state.subscriptions.get(fan);
  if (made) return made;
  const seeded = h.world.subscriptionOfFan(fan);
  return seeded >= 0 ? h.world.subscription(seeded) : null;
}

/** Only a notification (9,1) type 15007 tells of an expiry (table 2.4). */
function expire(h: Happening): Record<string, unknown> {
  h.chooseFan((group) => subscriptionOf(h, h.conversations.chats.partnerFan(group)) !== null);
  const current = subscriptionOf(h, h.fan);
  if (!current) throw new ControlError(404, `fan "${h.fanId}" has no subscription`);
  const subscription = {
    ...current,
    status: SUBSCRIPTION_EXPIRED,
    updatedAt: h.now,
    endsAt: h.now,
    autoRenew: 0,
  };
  return keepSubscription(h, subscription, NOTIFICATION_TYPE.expiredSubscription, true);
}

/** A follow mints its record; the unfollow reuses it (the same id), or mints one for a seeded follower. */
function follow(h: Happening, following: boolean): Record<string, unknown> {
  h.chooseFan();
  const standing = h.state.follows.get(h.fan);
  const record: FollowRecord =
    !following && standing?.following
      ? standing.follow
      : { id: h.id(Kind.follow), followerId: h.fanId, accountId: h.creatorId, createdAt: h.now };
  h.state.recordFollow(h.fan, record, following);
  h.push(following ? 'follow' : 'unfollow', record);
  const type = following ? NOTIFICATION_TYPE.follow : NOTIFICATION_TYPE.unfollow;
  return { follow: record, notification: h.notify(type, 'follows', record, record.id) };
}

/** The fan buys an offer the creator sent in their chat: `messageId`'s, else the newest one. */
function purchase(h: Happening): Record<string, unknown> {
  h.chooseFan((group) => h.conversations.chats.hasOffers(group));
  const message = h.chatMessage(
    (m) => h.fromCreator(m) && m.attachments.length > 0,
    'a media offer of the creator',
  );
  const offer = offerOf(message);
  if (!offer) throw new ControlError(404, "no media offer in the fan's chat");
  const order: MediaOrder = {
    orderId: h.id(Kind.order),
    accountMediaId: offer.contentId,
    correlationAccountId: h.creatorId,
    accountId: h.fanId,
    type: offer.contentType === ATTACHMENT_BUNDLE ? ORDER_BUNDLE : ORDER_ITEM,
    orderMetadata: null,
    createdAt: h.now,
  };
  h.push('order', order);
  const notification = h.notify(NOTIFICATION_TYPE.mediaPurchase, 'orders', order, order.orderId);
  return { order, messageId: message.id, notification };
}

/** The fan reads the creator's message (`messageId`, else the newest): a read receipt (4,2). */
function read(h: Happening): Record<string, unknown> {
  h.chooseFan();
  const message = h.chatMessage((m) => h.fromCreator(m), 'a message of the creator');
  // A message sent at run time keeps the read time; seeded ones are computed and stay as seeded.
  for (const interaction of message.interactions)
    if (interaction.userId === h.fanId && interaction.readAt === null) interaction.readAt = h.now;
  const ackCommand = { groupId: message.groupId, messageIds: [message.id], userId: h.fanId, type: ACK_READ };
  h.push('ack', ackCommand);
  return { ackCommand };
}

/** The fan likes a message in the chat (`messageId`, else the creator's newest). */
function react(h: Happening): Record<string, unknown> {
  h.chooseFan();
  const message = h.chatMessage(
    (m) => h.request.messageId !== undefined || h.fromCreator(m),
    'a message of the creator',
  );
  const like = {
    id: h.id(Kind.fanLike),
    accountId: h.fanId,
    messageId: message.id,
    type: REACTION_LIKE,
    groupId: message.groupId,
    createdAt: h.now,
  };
  h.push('reaction', like);
  return { like };
}

function typing(h: Happening): Record<string, unknown> {
  h.chooseFan();
  h.requireChat();
  const typingAnnounceEvent = { accountId: h.fanId, groupId: h.groupId, lastAnnounce: h.now };
  h.push('typing', typingAnnounceEvent);
  return { typingAnnounceEvent };
}

/**
 * The fan likes a post the creator made (`postId`, else the newest), which counts one more like:
 * 404 when it has none.
 */
function likePost(h: Happening): Record<string, unknown> {
  h.chooseFan();
  // Only a published post can be liked: not one scheduled, cancelled or deleted.
  const posts = new Posts(h.world, h.state).publishDue(h.now);
  const published = [...h.state.posts.values()].filter((post) => posts.status(post) === 'published');
  const post =
    h.request.postId === undefined
      ? published.at(-1)
      : published.find((candidate) => candidate.id === h.request.postId);
  if (!post)
    throw new ControlError(
      404,
      h.request.postId === undefined ? 'this creator has no post' : `unknown post "${h.request.postId}"`,
    );
  const like = { id: h.id(Kind.fanLike), accountId: h.fanId, postId: post.id, createdAt: h.now };
  post.likeCount += 1;
  h.push('postLike', like);
  return { like };
}

const APPLY: Record<ActivityType, (h: Happening) => Record<string, unknown>> = {
  message: receiveMessage,
  tip,
  subscription: subscribe,
  subscription_expired: expire,
  follow: (h) => follow(h, true),
  unfollow: (h) => follow(h, false),
  ppv_purchase: purchase,
  message_read: read,
  reaction: react,
  typing,
  post_like: likePost,
};

/**
 * Applies one activity → the 201 body: `{type, creator, creatorId, fanId, groupId, <the records by
 * their frame key>, notification?, frames: [{serviceId, type, key}], delivered}`.
 */
export function applyActivity(
  core: ActivityHost,
  request: ActivityRequest,
  now = Date.now(),
): Record<string, unknown> {
  const h = new Happening(core, request, now);
  const records = APPLY[request.type](h);
  return {
    type: request.type,
    creator: core.world.identity(request.creator).username,
    creatorId: h.creatorId,
    fanId: h.fanId,
    groupId: h.groupId,
    ...records,
    frames: h.frames,
    delivered: h.delivered,
  };
}

/** A realistic mix for streams: mostly messages and typing, some money, a little churn. */
const MIX: readonly [ActivityType, number][] = [
  ['message', 45],
  ['typing', 12],
  ['message_read', 10],
  ['reaction', 7],
  ['tip', 8],
  ['ppv_purchase', 4],
  ['follow', 5],
  ['unfollow', 2],
  ['subscription', 4],
  ['subscription_expired', 1],
  ['post_like', 2],
];
const MIX_TOTAL = MIX.reduce((sum, [, weight]) => sum + weight, 0);

export function randomActivityType(): ActivityType {
  let roll = Math.random() * MIX_TOTAL;
  for (const [type, weight] of MIX) {
    roll -= weight;
    if (roll < 0) return type;
  }
  return 'message';
}

/** One random activity on a creator; one that does not fit (a post like without posts) is skipped. */
export function randomActivity(core: ActivityHost, creator: number): boolean {
  try {
    applyActivity(core, { type: randomActivityType(), creator });
    return true;
  } catch (error) {
    if (error instanceof ControlError) return false;
    throw error;
  }
}

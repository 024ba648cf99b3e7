import { compareIds, decodeId, encodeId, Kind, RUNTIME_NAMESPACE_BASE, type RuntimeIds } from '../ids';
import { CREATOR_LINES } from '../rand';
import type { Message, MessageAttachment, RecipientGroup, ScheduledBroadcastMessage } from '../records';
import { type Conversations, creatorMessage } from './conversations';
import { DAY_MS, HOUR_MS, SUBSCRIPTION_EXPIRED } from './creator';
import type { AudienceSpec, CreatorState, SentBroadcast } from './state';

/** `POST /group` `type` of a broadcast audience group (seen: S6 `buildBroadcastGroupBody`). */
export const GROUP_TYPE_BROADCAST = 3;
/** `groupFlags` bits of a broadcast group (seen: S6 `BROADCAST_FLAG_*`). */
export const AUDIENCE_FLAGS = {
  followers: 2,
  renewOn: 4,
  renewOff: 8,
  expired: 16,
  excludeCreators: 32,
  excludeOffline: 64,
} as const;
export const INCLUDE_FLAGS =
  AUDIENCE_FLAGS.followers | AUDIENCE_FLAGS.renewOn | AUDIENCE_FLAGS.renewOff | AUDIENCE_FLAGS.expired;
export const KNOWN_AUDIENCE_FLAGS = Object.values(AUDIENCE_FLAGS).reduce((all, bit) => all | bit, 0);
/** `recipients[].type`: the members of a list are added (30000) or removed (30001). */
export const RECIPIENT_INCLUDE_LIST = 30000;
export const RECIPIENT_EXCLUDE_LIST = 30001;
/** `groupFlagsMetadata` key holding `{subscriptionTierId}`: it narrows the subscriber bits. */
export const TIER_METADATA_KEY = String(AUDIENCE_FLAGS.renewOn);
/** `users[].permissionFlags` of the creator (all) and of an excluded user (none). */
export const CREATOR_PERMISSION_FLAGS = 65535;
export const EXCLUDED_USER_FLAGS = 0;
/** Status of a scheduled broadcast, and once its time has come (sandbox choice; it then leaves the list). */
export const BROADCAST_STATUS_SCHEDULED = 1;
export const BROADCAST_STATUS_SENT = 2;

const SEEDED_HISTORY = 30;
const SEEDED_DELETED_EVERY = 7;
const BROADCAST_NAMES = [
  'Weekend promo',
  'New set teaser',
  'Renewal reminder',
  'Stream announcement',
  'Bundle sale',
] as const;

/** A sent broadcast as `GET /_sim/broadcasts` lists it. */
export interface BroadcastLogEntry {
  messageId: string;
  groupId: string;
  content: string;
  deleted: boolean;
  recipientIds: string[];
}

/** What decides whether a fan is in an audience. */
export interface FanFacts {
  fanId: string;
  follower: boolean;
  /** Subscription state: none, renewing, not renewing, or expired. */
  subscription: 'none' | 'renewOn' | 'renewOff' | 'expired';
  tierId: string | null;
  creator: boolean;
  online: boolean;
}

/** The group record of an audience, as `POST /group` answers it and the scheduled list shows it. */
export function broadcastGroup(
  id: string,
  creatorId: string,
  spec: AudienceSpec,
  customName: string | null,
): RecipientGroup {
  const user = (userId: string, permissionFlags: number) => ({
    groupId: id,
    userId,
    type: 0,
    permissionFlags,
    userSettings: { customName: userId === creatorId ? customName : null, hidden: true },
  });
  const list = (recipientId: string, type: number) => ({
    groupId: id,
    recipientId,
    type,
    permissionFlags: null,
  });
  return {
    id,
    type: GROUP_TYPE_BROADCAST,
    groupFlags: spec.groupFlags,
    groupFlagsMetadata:
      spec.tierId === null
        ? ''
        : JSON.stringify({ [TIER_METADATA_KEY]: JSON.stringify({ subscriptionTierId: spec.tierId }) }),
    createdBy: creatorId,
    users: [
      user(creatorId, CREATOR_PERMISSION_FLAGS),
      ...spec.excludeUserIds.map((userId) => user(userId, EXCLUDED_USER_FLAGS)),
    ],
    permissionFlags: [],
    recipients: [
      ...spec.includeListIds.map((listId) => list(listId, RECIPIENT_INCLUDE_LIST)),
      ...spec.excludeListIds.map((listId) => list(listId, RECIPIENT_EXCLUDE_LIST)),
    ],
  };
}

/** The history of broadcasts sent before the sandbox started; a few deleted. */
export function seedSentBroadcasts(state: CreatorState): void {
  const w = state.world;
  const history: SentBroadcast[] = [];
  for (let b = 0; b < SEEDED_HISTORY; b++) {
    const createdAt =
      w.anchorMs - (b + 1) * 2 * DAY_MS - w.rand.int(0, 20, Kind.broadcastHistory, b, 0) * HOUR_MS;
    const id = encodeId(createdAt, w.namespace, Kind.broadcastHistory);
    const total = w.rand.int(40, 300, Kind.broadcastHistory, b, 1);
    const delivered = total - w.rand.int(0, 5, Kind.broadcastHistory, b, 2);
    const groupId = encodeId(createdAt - 1000, w.namespace, Kind.broadcastGroup);
    const content = w.rand.pick(CREATOR_LINES, Kind.broadcastHistory, b, 3);
    const message = creatorMessage(id, groupId, w.accountId, content, [], createdAt);
    if (b % SEEDED_DELETED_EVERY === 3) message.deletedAt = Math.floor(createdAt / 1000) + 3600;
    const read = Math.floor(delivered * w.rand.float(Kind.broadcastHistory, b, 4));
    history.push({ message, stats: { total, delivered, read }, recipientIds: [] });
  }
  // Each goes first in the history as it is recorded: the oldest first, so the newest ends first.
  for (const sent of history.toReversed()) state.recordSentBroadcast(sent);
}

/** The broadcasts scheduled before the sandbox started, each to a seeded audience group. */
export function seedScheduledBroadcasts(state: CreatorState): void {
  const w = state.world;
  const count = w.rand.int(3, 5, Kind.broadcast, 0);
  const lists = [...state.lists.values()];
  for (let b = 0; b < count; b++) {
    const createdAt = w.anchorMs - (5 - b) * DAY_MS + w.rand.int(0, HOUR_MS, Kind.broadcast, b, 1);
    const scheduledFor = w.anchorMs + (b + 1) * DAY_MS + w.rand.int(8, 22, Kind.broadcast, b, 2) * HOUR_MS;
    const groupId = encodeId(createdAt, w.namespace, Kind.broadcastGroup);
    const tier = w.tiers[b % w.tiers.length];
    const list = lists[b % Math.max(1, lists.length)];
    const spec: AudienceSpec = {
      groupFlags: tier ? AUDIENCE_FLAGS.renewOn | AUDIENCE_FLAGS.renewOff : AUDIENCE_FLAGS.followers,
      tierId: tier?.id ?? null,
      includeListIds: list && b % 2 === 1 ? [list.list.id] : [],
      excludeListIds: [],
      excludeUserIds: [],
    };
    state.addRecipientGroup(broadcastGroup(groupId, w.accountId, spec, BROADCAST_NAMES[b] ?? null), spec);
    const withMedia = b % 2 === 0;
    const template = {
      type: 1,
      attachments: withMedia ? [{ contentType: 1, contentId: w.mediaId(3 + b), pos: 0 }] : [],
      content: w.rand.pick(CREATOR_LINES, Kind.broadcast, b, 3),
      groupId,
      senderId: w.accountId,
      scheduledFor,
      clientCreatedAt: createdAt,
      gatewayMetadata: null,
    };
    state.scheduleBroadcast({
      id: encodeId(createdAt, w.namespace, Kind.broadcast),
      groupId,
      accountId: w.accountId,
      status: BROADCAST_STATUS_SCHEDULED,
      messageTemplate: JSON.stringify(template),
      version: 1,
      scheduledFor,
      createdAt,
    });
  }
}

/**
 * One creator's mass messages: audience groups (`POST /group` type 3), broadcasts sent at once or
 * scheduled (`POST /message/broadcast`), edits of scheduled ones, and the sent history with its
 * statistics. A broadcast reaches exactly the fans its group selects: the union of its includes
 * (flags, lists), narrowed to a tier, minus its excludes (creators, offline fans, lists, users).
 */
export class Broadcasts {
  constructor(
    private readonly conversations: Conversations,
    private readonly state: CreatorState,
    private readonly ids: RuntimeIds,
  ) {}

  private get world() {
    return this.state.world;
  }

  // ---- who the fans are

  fanFacts(fan: number): FanFacts {
    const w = this.world;
    const index = w.subscriptionOfFan(fan);
    let subscription: FanFacts['subscription'] = 'none';
    let tierId: string | null = null;
    if (index >= 0) {
      const record = w.subscription(index);
      tierId = record.subscriptionTierId;
      subscription =
        record.status === SUBSCRIPTION_EXPIRED ? 'expired' : record.autoRenew === 1 ? 'renewOn' : 'renewOff';
    }
    return {
      fanId: w.fanId(fan),
      follower: this.conversations.isFollower(fan),
      subscription,
      tierId,
      creator: w.rand.chance(0.05, Kind.fan, fan, 42),
      online: w.rand.chance(0.3, Kind.fan, fan, 43),
    };
  }

  everyFan(): FanFacts[] {
    return Array.from({ length: this.world.fanCount }, (_, fan) => this.fanFacts(fan));
  }

  private listMemberIds(listId: string): Set<string> {
    const entry = this.state.lists.get(listId);
    const ids = new Set<string>();
    if (!entry) return ids;
    const size = this.state.listSize(entry);
    for (let i = 0; i < size; i++) {
      const member = this.state.listMember(entry, i);
      if (member) ids.add(member.id);
    }
    return ids;
  }

  /** The fan ids an audience selects, in fan order. */
  audience(spec: AudienceSpec): string[] {
    const flags = spec.groupFlags;
    const included = new Set(spec.includeListIds.flatMap((id) => [...this.listMemberIds(id)]));
    const excluded = new Set([
      ...spec.excludeUserIds,
      ...spec.excludeListIds.flatMap((id) => [...this.listMemberIds(id)]),
    ]);
    const bySubscription = {
      renewOn: AUDIENCE_FLAGS.renewOn,
      renewOff: AUDIENCE_FLAGS.renewOff,
      expired: AUDIENCE_FLAGS.expired,
    };
    const selected = (fan: FanFacts): boolean => {
      if (included.has(fan.fanId)) return true;
      if ((flags & AUDIENCE_FLAGS.followers) !== 0 && fan.follower) return true;
      if (fan.subscription === 'none' || (flags & bySubscription[fan.subscription]) === 0) return false;
      return spec.tierId === null || fan.tierId === spec.tierId;
    };
    return this.everyFan()
      .filter(selected)
      .filter((fan) => !excluded.has(fan.fanId))
      .filter((fan) => (flags & AUDIENCE_FLAGS.excludeCreators) === 0 || !fan.creator)
      .filter((fan) => (flags & AUDIENCE_FLAGS.excludeOffline) === 0 || fan.online)
      .map((fan) => fan.fanId);
  }

  // ---- audience groups

  createGroup(spec: AudienceSpec): RecipientGroup {
    const group = broadcastGroup(this.ids.next(Kind.broadcastGroup), this.world.accountId, spec, null);
    this.state.addRecipientGroup(group, spec);
    return group;
  }

  /** The audience of a group made through `createGroup`; seeded and direct groups have none. */
  audienceOf(groupId: string): AudienceSpec | undefined {
    return this.state.audiences.get(groupId);
  }

  // ---- sending

  /** Sends at once: the message goes to every fan of the group's audience. */
  send(
    groupId: string,
    content: string,
    attachments: Omit<MessageAttachment, 'messageId'>[],
    now: number,
  ): Message {
    const id = this.ids.next(Kind.broadcastHistory);
    return this.deliver(id, groupId, content, attachments, now);
  }

  private deliver(
    id: string,
    groupId: string,
    content: string,
    attachments: Omit<MessageAttachment, 'messageId'>[],
    at: number,
  ): Message {
    const spec = this.audienceOf(groupId);
    const recipientIds = spec ? this.audience(spec) : [];
    const message = creatorMessage(id, groupId, this.world.accountId, content, attachments, at);
    const total = recipientIds.length;
    this.state.recordSentBroadcast({ message, stats: { total, delivered: total, read: 0 }, recipientIds });
    return message;
  }

  schedule(
    groupId: string,
    content: string,
    attachments: Omit<MessageAttachment, 'messageId'>[],
    scheduledFor: number,
    now: number,
  ): ScheduledBroadcastMessage {
    const scheduled: ScheduledBroadcastMessage = {
      id: this.ids.next(Kind.broadcast),
      groupId,
      accountId: this.world.accountId,
      status: BROADCAST_STATUS_SCHEDULED,
      messageTemplate: this.template(groupId, content, attachments, scheduledFor, now),
      version: 1,
      scheduledFor,
      createdAt: now,
    };
    this.state.scheduleBroadcast(scheduled);
    return scheduled;
  }

  private template(
    groupId: string,
    content: string,
    attachments: Omit<MessageAttachment, 'messageId'>[],
    scheduledFor: number,
    now: number,
  ): string {
    return JSON.stringify({
      type: 1,
      attachments,
      content,
      groupId,
      senderId: this.world.accountId,
      scheduledFor,
      clientCreatedAt: now,
      gatewayMetadata: null,
    });
  }

  /** Sends every scheduled broadcast whose time has come (each read and write calls this first). */
  deliverDue(now: number): void {
    const due = this.state.takeDueBroadcasts(now);
    if (due.length === 0) return;
    for (const scheduled of due) {
      const template = JSON.parse(scheduled.messageTemplate) as {
        content: string;
        attachments: Omit<MessageAttachment, 'messageId'>[];
      };
      scheduled.status = BROADCAST_STATUS_SENT;
      this.deliver(
        this.deliveredId(scheduled),
        scheduled.groupId,
        template.content,
        template.attachments,
        scheduled.scheduledFor,
      );
    }
    // Delivered late, they still sort by send time, newest first.
    this.state.sortSentBroadcasts();
  }

  /**
   * The message id of a scheduled broadcast once sent: a seeded one's is seeded too (from its time),
   * so two sandboxes of one seed agree; one scheduled at run time gets a fresh id.
   */
  private deliveredId(scheduled: ScheduledBroadcastMessage): string {
    const seeded = (decodeId(scheduled.id)?.namespace ?? RUNTIME_NAMESPACE_BASE) < RUNTIME_NAMESPACE_BASE;
    return seeded
      ? encodeId(scheduled.scheduledFor, this.world.namespace, Kind.broadcastHistory)
      : this.ids.next(Kind.broadcastHistory);
  }

  scheduled(id: string): ScheduledBroadcastMessage | undefined {
    return this.state.broadcasts.find((b) => b.id === id);
  }

  wasSent(id: string): boolean {
    return this.state.sentScheduled.has(id);
  }

  /** Replaces the text, media and time of a scheduled broadcast; its version goes up. */
  update(
    scheduled: ScheduledBroadcastMessage,
    content: string,
    attachments: Omit<MessageAttachment, 'messageId'>[],
    scheduledFor: number,
    now: number,
  ): ScheduledBroadcastMessage {
    scheduled.messageTemplate = this.template(scheduled.groupId, content, attachments, scheduledFor, now);
    scheduled.scheduledFor = scheduledFor;
    scheduled.version += 1;
    return scheduled;
  }

  // ---- statistics

  /** Every sent broadcast, newest first: its message id, group, text, and the fans it reached. */
  sentLog(): {
    messageId: string;
    groupId: string;
    content: string;
    deleted: boolean;
    recipientIds: string[];
  }[] {
    return this.state.sentBroadcasts.map(({ message, recipientIds }) => ({
      messageId: message.id,
      groupId: message.groupId,
      content: message.content,
      deleted: message.deletedAt !== null,
      recipientIds,
    }));
  }

  /** Sent (or sent and deleted) broadcasts, newest first, strictly older than `before`. */
  history(deleted: boolean, before: string | null, limit: number): SentBroadcast[] {
    return this.state.sentBroadcasts
      .filter((b) => (b.message.deletedAt !== null) === deleted)
      .filter((b) => before === null || compareIds(b.message.id, before) < 0)
      .slice(0, limit);
  }
}

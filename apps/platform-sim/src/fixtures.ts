import type { SimCore } from './core';
import { EXTRA_CREATOR_PREFIX, SANDBOX_ACCOUNTS, SANDBOX_PASSWORD } from './options';
import { automationsOf } from './world/automations';
import type { CreatorWorld } from './world/creator';
import { Posts } from './world/posts';
import {
  ALBUM_TYPE_ALL,
  PAYOUT_STATUS_ACTIVE,
  STANDARD_ALBUM_TYPES,
  TRACKING_LINK_DEFAULT,
} from './world/state';
import type { World } from './world/world';

/** How many message ids per chat the fixtures list (newest first). */
const MESSAGES_PER_CHAT = 5;

/** A chat's tips: how many, and their sum in mills. */
function tipFixture(tips: { amount: number }[]): { tipCount: number; tipTotal: number } {
  return { tipCount: tips.length, tipTotal: tips.reduce((sum, tip) => sum + tip.amount, 0) };
}

/**
 * One creator's entry of GET /_sim/fixtures: credentials and the ids a caller needs to exercise
 * every operation. It reflects the current state: deleted objects drop out, created ones appear.
 */
export function creatorFixture(core: SimCore, creator: number): Record<string, unknown> {
  const world = core.world;
  const identity = world.identity(creator);
  world.broadcasts(creator).deliverDue(Date.now());
  const chats = chatFixtures(world, creator);
  return {
    username: identity.username,
    password: identity.password,
    twofaCode: identity.twofaCode,
    email: identity.email,
    maskedEmail: identity.maskedEmail,
    platformAccountId: identity.accountId,
    ...chats,
    ...contentFixtures(world, creator),
    counts: countsFixture(world.creator(creator), chats.unreadMessageIds.length),
  };
}

/** The fans, and the seeded chats: those with offers, the unread ones, their newest message ids. */
function seededChatFixtures(world: World, creator: number) {
  const creatorWorld = world.creator(creator);
  const chats = world.chats(creator);
  const state = world.state(creator);
  const chatIds: string[] = [];
  const unreadChatIds: string[] = [];
  const messageIds: string[] = [];
  for (const group of chats.groupOrder()) {
    const groupId = chats.groupId(group);
    if (chats.hasOffers(group)) chatIds.push(groupId);
    if (chats.unreadCount(group) > 0) unreadChatIds.push(groupId);
    for (let position = 0; position < Math.min(MESSAGES_PER_CHAT, chats.length(group)); position++) {
      const id = chats.messageId(group, position);
      if (!state.deletedMessages.has(id)) messageIds.push(id);
    }
  }
  return {
    fanIds: Array.from({ length: creatorWorld.fanCount }, (_, fan) => creatorWorld.fanId(fan)),
    subscriberIds: Array.from({ length: creatorWorld.subscriptionCount }, (_, i) =>
      creatorWorld.fanId(creatorWorld.subscriberOf(i)),
    ),
    chatIds,
    unreadChatIds,
    messageIds,
    unreadMessageIds: Array.from(chats.unreadSlots(), (slot) => chats.unreadInteraction(slot).messageId),
  };
}

/**
 * One entry per chat, newest activity first, as it stands now: the fan on the other side, the
 * newest messages still there, split by author (only the creator's can be deleted), and the
 * offers they carry.
 */
function conversationFixtures(world: World, creator: number) {
  const creatorWorld = world.creator(creator);
  const chats = world.chats(creator);
  const accountId = creatorWorld.accountId;
  const conversations = world.conversations(creator);
  return conversations
    .order({ flags: 0, sortOrder: 1, search: undefined, subscriptionTierId: undefined })
    .map((group) => {
      const fan = chats.partnerFan(group);
      const latest = conversations.messages(group, null, MESSAGES_PER_CHAT);
      const own = latest.filter((message) => message.senderId === accountId);
      return {
        chatId: chats.groupId(group),
        fanId: creatorWorld.fanId(fan),
        fanUsername: creatorWorld.fanUsername(fan),
        vip: conversations.isVip(fan),
        muted: conversations.isMuted(fan),
        hidden: conversations.isHidden(group),
        readReceiptsEnabled: conversations.userSettings(group).readReceiptsEnabled,
        ...tipFixture(chats.tips(group)),
        follower: conversations.isFollower(fan),
        subscriber: conversations.isSubscriber(fan),
        unreadCount: chats.unreadCount(group),
        messageIds: latest.map((message) => message.id),
        creatorMessageIds: own.map((message) => message.id),
        fanMessageIds: latest.filter((message) => message.senderId !== accountId).map((m) => m.id),
        offerIds: latest.flatMap((message) => message.attachments.map((a) => a.contentId)),
      };
    });
}

/**
 * Fans without a chat: those a direct chat can be opened with (they follow or subscribe), and
 * those who refuse messages (POST /group is 403); up to 5 each. And the chats opened so far.
 */
function chatlessFixtures(world: World, creator: number) {
  const creatorWorld = world.creator(creator);
  const state = world.state(creator);
  const conversations = world.conversations(creator);
  const chatless = Array.from({ length: creatorWorld.fanCount }, (_, fan) => fan).filter(
    (fan) => conversations.groupOfFan(fan) < 0 && !state.directGroups.has(fan),
  );
  const fanIds = (accepting: boolean) =>
    chatless
      .filter((fan) => conversations.acceptsMessages(fan) === accepting)
      .slice(0, MESSAGES_PER_CHAT)
      .map((fan) => creatorWorld.fanId(fan));
  return {
    newChatFanIds: fanIds(true),
    refusingFanIds: fanIds(false),
    directChats: [...state.directGroups].map(([fan, group]) => ({
      chatId: group.id,
      fanId: creatorWorld.fanId(fan),
    })),
  };
}

function chatFixtures(world: World, creator: number) {
  return {
    ...seededChatFixtures(world, creator),
    chats: conversationFixtures(world, creator),
    ...chatlessFixtures(world, creator),
  };
}

/** Lists, payout methods, albums, links, walls, media, tiers, posts, broadcasts, automations. */
function contentFixtures(world: World, creator: number): Record<string, unknown> {
  const creatorWorld = world.creator(creator);
  const state = world.state(creator);
  const albums = [...state.albums.values()].filter((album) => album.deletedAt === undefined);
  const links = [...state.trackingLinks.values()];
  const posts = new Posts(creatorWorld, state).publishDue(Date.now());
  const readablePosts = [...state.posts.values()].filter((post) => posts.readable(post));
  return {
    listIds: [...state.lists.keys()],
    payoutMethodIds: [...state.payoutMethods.values()]
      .filter((m) => m.status === PAYOUT_STATUS_ACTIVE)
      .map((m) => m.id),
    albumIds: albums.filter((album) => album.type === null).map((album) => album.id),
    standardAlbumIds: albums
      .filter((album) => album.type !== null && STANDARD_ALBUM_TYPES.includes(album.type))
      .map((album) => album.id),
    allAlbumId: albums.find((album) => album.type === ALBUM_TYPE_ALL)?.id ?? null,
    trackingLinkIds: links.map((link) => link.id),
    defaultTrackingLinkId: links.find((link) => link.type === TRACKING_LINK_DEFAULT)?.id ?? null,
    wallIds: state.walls.map((wall) => wall.id),
    mainWallId: state.mainWall()?.id ?? null,
    mediaIds: Array.from({ length: creatorWorld.mediaCount }, (_, index) => creatorWorld.mediaId(index)),
    fypVideoMediaId: creatorWorld.mediaId(0),
    shortVideoMediaId: creatorWorld.mediaId(1),
    privateVideoMediaId: creatorWorld.mediaId(2),
    tierIds: creatorWorld.tiers.map((tier) => tier.id),
    // Posts still there (published or scheduled), and those still to be published (cancel takes them).
    postIds: readablePosts.map((post) => post.id),
    scheduledPostIds: readablePosts
      .filter((post) => posts.status(post) === 'scheduled')
      .map((post) => post.id),
    // Broadcasts still to go out (their ids take PUT .../mass-messaging/scheduled/{id}), and sent ones.
    scheduledBroadcastIds: state.broadcasts.map((broadcast) => broadcast.id),
    sentBroadcastIds: state.sentBroadcasts
      .filter((b) => b.message.deletedAt === null)
      .map((b) => b.message.id),
    automatedMessageIds: automationsOf(state, world.ids)
      .list()
      .map((rule) => rule.id),
  };
}

function countsFixture(creatorWorld: CreatorWorld, unreadMessages: number): Record<string, number> {
  const facts = creatorWorld.subscriptionFacts();
  return {
    fans: creatorWorld.fanCount,
    subscribers: creatorWorld.subscriptionCount,
    activeSubscribers: facts.active,
    expiredSubscribers: creatorWorld.subscriptionCount - facts.active,
    following: creatorWorld.followingCount,
    transactions: creatorWorld.transactionCount,
    chats: creatorWorld.groupCount,
    unreadMessages,
    media: creatorWorld.mediaCount,
  };
}

export function fixtures(core: SimCore, only: readonly number[] | null): Record<string, unknown> {
  const creators = only ?? SANDBOX_ACCOUNTS.map((_, index) => index);
  const extra = core.world.directory.extraCreators;
  return {
    accounts: creators.map((creator) => creatorFixture(core, creator)),
    profilePlatformAccountIds: Array.from({ length: core.world.profiles.count }, (_, index) =>
      core.world.profiles.id(index),
    ),
    extraCreators: {
      count: extra,
      usernames:
        extra > 0
          ? {
              first: `${EXTRA_CREATOR_PREFIX}00001`,
              last: `${EXTRA_CREATOR_PREFIX}${String(extra).padStart(5, '0')}`,
            }
          : null,
      password: SANDBOX_PASSWORD,
      twofaCode: null,
    },
    seed: core.options.seed,
    anchorMs: core.options.anchorMs,
  };
}

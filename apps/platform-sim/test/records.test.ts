import { beforeAll, describe, expect, it } from 'vitest';
import { loginDemo, SNOWFLAKE, useSim } from './support';

/**
 * Every record carries every field of its table in gateway-api.md (the gateway maps these
 * payloads onto its records), with the platform's types: ids are snowflake strings.
 */

type FieldType =
  | 'string'
  | 'number'
  | 'boolean'
  | 'object'
  | 'array'
  | 'id'
  | 'string|null'
  | 'number|null'
  | 'id|null'
  | 'any';

function check(value: unknown, type: FieldType, label: string): void {
  switch (type) {
    case 'id':
      expect(value, label).toMatch(SNOWFLAKE);
      return;
    case 'id|null':
      if (value !== null) expect(value, label).toMatch(SNOWFLAKE);
      return;
    case 'array':
      expect(Array.isArray(value), label).toBe(true);
      return;
    case 'object':
      expect(typeof value === 'object' && value !== null && !Array.isArray(value), label).toBe(true);
      return;
    case 'string|null':
    case 'number|null':
      if (value !== null) expect(typeof value, label).toBe(type.split('|')[0]);
      return;
    case 'any':
      return;
    default:
      expect(typeof value, label).toBe(type);
  }
}

function expectRecord(record: any, fields: Record<string, FieldType>, label: string): void {
  expect(record, label).toBeDefined();
  for (const [field, type] of Object.entries(fields)) {
    expect(Object.hasOwn(record, field), `${label}.${field} present`).toBe(true);
    check(record[field], type, `${label}.${field}`);
  }
}

const sim = useSim({ mediaOfferGapMs: 0 });
let token: string;
let demo: any;
let profileIds: string[];

beforeAll(async () => {
  ({ token, demo, profileIds } = await loginDemo(sim.client));
});

const get = (path: string) => sim.client.api('GET', path, token);
const post = (path: string, body: unknown) => sim.client.api('POST', path, token, body);

const PROFILE: Record<string, FieldType> = {
  id: 'id',
  username: 'string',
  displayName: 'string',
  about: 'string',
  location: 'string',
  flags: 'number',
  version: 'number',
  statusId: 'number',
  profileAccessFlags: 'number',
  profileFlags: 'number',
  createdAt: 'number',
  lastSeenAt: 'number',
  followCount: 'number',
  subscriberCount: 'number',
  accountMediaLikes: 'number',
  postLikes: 'number',
  permissions: 'object',
  mediaStoryState: 'object',
  timelineStats: 'object',
  profileSocials: 'array',
  profileBadges: 'array',
  pinnedPosts: 'array',
  subscriptionTiers: 'array',
  avatar: 'object',
  banner: 'object',
  hasMainWall: 'boolean',
  walls: 'array',
  streaming: 'object',
  profileAccess: 'boolean',
};

function expectProfile(profile: any, label: string): void {
  expectRecord(profile, PROFILE, label);
  check(profile.permissions.accountPermissionFlags.flags, 'number', `${label}.permissions`);
  expectRecord(
    profile.mediaStoryState,
    { accountId: 'id', status: 'number', storyCount: 'number', hasActiveStories: 'boolean' },
    `${label}.mediaStoryState`,
  );
  expectRecord(
    profile.timelineStats,
    { imageCount: 'number', videoCount: 'number', bundleCount: 'number', fetchedAt: 'number' },
    `${label}.timelineStats`,
  );
  for (const social of profile.profileSocials)
    expectRecord(social, { providerId: 'string', handle: 'string' }, `${label}.profileSocials`);
  for (const badge of profile.profileBadges) {
    expectRecord(
      badge,
      { badgeId: 'id', badgeType: 'number', badgeDescription: 'string', metadata: 'string' },
      `${label}.badge`,
    );
  }
  for (const pinned of profile.pinnedPosts)
    expectRecord(pinned, { postId: 'id', pos: 'number' }, `${label}.pinnedPosts`);
  for (const tier of profile.subscriptionTiers) {
    expectRecord(tier, { id: 'id', name: 'string', price: 'number', plans: 'array' }, `${label}.tier`);
    for (const plan of tier.plans) {
      expectRecord(
        plan,
        { id: 'id', billingCycle: 'number', price: 'number', promos: 'array' },
        `${label}.plan`,
      );
      for (const promo of plan.promos)
        expectRecord(promo, { id: 'id', price: 'number', description: 'string' }, `${label}.promo`);
    }
  }
  expectRecord(
    profile.avatar,
    { id: 'id', mimetype: 'string', location: 'string', variants: 'array' },
    `${label}.avatar`,
  );
  expectRecord(profile.banner, { id: 'id', mimetype: 'string', location: 'string' }, `${label}.banner`);
  for (const wall of profile.walls)
    expectRecord(wall, { id: 'id', name: 'string', mainWall: 'boolean' }, `${label}.walls`);
  expectRecord(profile.streaming, { enabled: 'boolean', channel: 'object' }, `${label}.streaming`);
  expectRecord(
    profile.streaming.channel,
    { status: 'number', playbackUrl: 'string|null' },
    `${label}.streaming.channel`,
  );
}

const WALL: Record<string, FieldType> = {
  id: 'id',
  accountId: 'id',
  pos: 'number',
  name: 'string',
  description: 'string',
  private: 'number',
  metadata: 'string',
};

describe('record fields (gateway-api.md tables)', () => {
  it('connection session', async () => {
    const result = await sim.client.call('POST', '/api/v1/login', {
      body: { username: 'creator_demo', password: 'sandbox-password', deviceId: '1' },
    });
    expectRecord(
      result.body.response.session,
      {
        accountId: 'id',
        deviceId: 'string|null',
        ip: 'string',
        status: 'number',
        metadata: 'any',
        id: 'id',
        token: 'string',
        checkToken: 'any',
      },
      'session',
    );
  });

  it('platform profiles of the creator, a fan and another creator; walls', async () => {
    const me = await get('/account/me');
    expectProfile(me.account, 'me');
    expect(me.account.walls.length).toBeGreaterThanOrEqual(2);
    expect(me.account.subscriptionTiers.length).toBeGreaterThanOrEqual(2);
    const profiles = await get(`/account?ids=${demo.fanIds[0]},${profileIds[3]}`);
    expect(profiles).toHaveLength(2);
    for (const profile of profiles) expectProfile(profile, `profile ${profile.id}`);

    const walls = await get('/account/walls');
    expect(walls.accountId).toBe(demo.platformAccountId);
    for (const wall of walls.walls) expectRecord(wall, WALL, 'wall');
    expect(walls.walls.filter((w: any) => w.mainWall === true)).toHaveLength(1);
    expect(walls.walls.filter((w: any) => w.defaultWall === true)).toHaveLength(1);
  });

  it('subscription and stats', async () => {
    const page = await get('/subscribers?limit=100');
    expectRecord(page.stats, { totalActive: 'number', totalExpired: 'number', total: 'number' }, 'stats');
    for (const subscription of page.subscriptions) {
      expectRecord(
        subscription,
        {
          id: 'id',
          historyId: 'id',
          subscriberId: 'id',
          subscriptionTierId: 'id',
          subscriptionTierName: 'string',
          subscriptionTierColor: 'string',
          planId: 'id',
          promoId: 'string',
          giftCodeId: 'id|null',
          paymentMethodId: 'string',
          status: 'number',
          price: 'number',
          renewPrice: 'number',
          renewCorrelationId: 'id',
          autoRenew: 'number',
          billingCycle: 'number',
          duration: 'number',
          renewDate: 'number',
          version: 'number',
          createdAt: 'number',
          updatedAt: 'number',
          endsAt: 'number',
          promoPrice: 'number|null',
          promoDuration: 'number|null',
          promoStatus: 'number|null',
          promoStartsAt: 'number|null',
          promoEndsAt: 'number|null',
        },
        'subscription',
      );
      expect(subscription.subscriptionTierColor).toMatch(/^#[0-9a-f]{6}$/);
      // Subscription prices are in cents.
      expect(subscription.price).toBeLessThan(100_000);
    }
    const active = page.subscriptions.filter((s: any) => s.status === 3);
    expect(active.every((s: any) => s.renewDate > Date.now() - 86_400_000)).toBe(true);
  });

  it('earnings transaction', async () => {
    const page = await get('/account/wallets/earnings/transactions?limit=50');
    for (const transaction of page.data) {
      expectRecord(
        transaction,
        {
          walletId: 'id',
          transactionId: 'id',
          accountId: 'id',
          correlationId: 'id',
          correlationAccountId: 'id',
          type: 'number',
          destination: 'number',
          amount: 'number',
          destinationTax: 'number',
          destinationAmount: 'number',
          newBalance: 'number',
          newBalance64: 'number',
          createdAt: 'number',
          updatedAt: 'number|null',
          status: 'number',
          senderId: 'id|null',
          receiverId: 'id',
        },
        'transaction',
      );
    }
  });

  it('vault album and vault media', async () => {
    const vault = await get('/vault/albumsnew');
    for (const album of vault.albums) {
      expectRecord(
        album,
        {
          id: 'id',
          accountId: 'id',
          pos: 'number',
          title: 'string',
          description: 'string|null',
          type: 'number|null',
          status: 'number',
          itemCount: 'number',
          lastItemId: 'id',
          version: 'number',
          createdAt: 'number',
        },
        'album',
      );
    }
    expect(vault.albums.filter((a: any) => a.type === null).length).toBeGreaterThanOrEqual(3);
    expect(vault.aggregationData.media.length).toBeGreaterThan(0);
    for (const media of vault.aggregationData.media) {
      expectRecord(
        media,
        {
          id: 'id',
          type: 'number',
          status: 'number',
          accountId: 'id',
          mimetype: 'string',
          flags: 'number',
          filename: 'string',
          location: 'string',
          width: 'number',
          height: 'number',
          metadata: 'string',
          updatedAt: 'number',
          createdAt: 'number',
          variants: 'array',
          variantHash: 'object',
          locations: 'array',
        },
        'vault media',
      );
      JSON.parse(media.metadata);
      for (const variant of media.variants) {
        expectRecord(
          variant,
          {
            id: 'id',
            type: 'number',
            status: 'number',
            mimetype: 'string',
            flags: 'number',
            filename: 'string',
            location: 'string',
            width: 'number',
            height: 'number',
            metadata: 'string',
            updatedAt: 'number',
            locations: 'array',
          },
          'variant',
        );
      }
      for (const location of media.locations)
        expectRecord(location, { locationId: 'string', location: 'string' }, 'location');
    }
    const deleted = await post('/vault/albums/delete', { albumId: demo.albumIds[1] });
    expectRecord(deleted, { lastSyncAt: 'number', deletedAt: 'number' }, 'deleted album');
  });

  it('media offer item and account media', async () => {
    const page = await get(`/mediaoffers/location?locationId=${demo.chatIds[0]}&locationType=4001&limit=50`);
    expect(page.data.length).toBeGreaterThan(0);
    for (const item of page.data) {
      expectRecord(
        item,
        {
          id: 'id',
          mediaOfferId: 'id',
          mediaOfferType: 'number',
          mediaOfferBundleId: 'id|null',
          mediaId: 'id',
          mediaType: 'number',
          previewId: 'id|null',
          accountId: 'id',
          locationId: 'id',
          correlationId: 'id',
          locationType: 'number',
        },
        'media offer item',
      );
    }
    for (const media of page.aggregationData.accountMedia) {
      expectRecord(
        media,
        {
          id: 'id',
          mediaId: 'id',
          price: 'number',
          deleted: 'boolean',
          likeCount: 'number',
          purchased: 'boolean',
          whitelisted: 'boolean',
          access: 'boolean',
          media: 'object',
          saleStats: 'object',
        },
        'account media',
      );
      expectRecord(
        media.media,
        {
          id: 'id',
          type: 'number',
          mimetype: 'string',
          filename: 'string',
          width: 'number',
          height: 'number',
          locations: 'array',
          variants: 'array',
        },
        'account media.media',
      );
      for (const variant of media.media.variants) {
        expectRecord(
          variant,
          {
            id: 'id',
            type: 'number',
            mimetype: 'string',
            width: 'number',
            height: 'number',
            locations: 'array',
          },
          'variant',
        );
      }
      if (media.price > 0) expect(media.price % 10).toBe(0);
    }
    const paywalled = page.aggregationData.accountMedia.filter((m: any) => m.price > 0);
    expect(paywalled.length).toBeGreaterThan(0);
  });

  it('unread message interaction and reaction', async () => {
    const unread = await get('/message/unread?limit=20');
    for (const interaction of unread.messageInteractions) {
      expectRecord(
        interaction,
        {
          messageId: 'id',
          groupId: 'id',
          userId: 'id',
          deliveredAt: 'number',
          readAt: 'number|null',
          deletedAt: 'number|null',
          attachments: 'array',
          validMessage: 'boolean',
        },
        'interaction',
      );
    }
    const reaction = await post('/message/like', {
      messageId: unread.messageInteractions[0].messageId,
      type: 3,
    });
    expectRecord(
      reaction,
      { id: 'id', accountId: 'id', messageId: 'id', type: 'number', groupId: 'id' },
      'reaction',
    );
  });

  it('list and list member', async () => {
    const list = await post('/lists', { label: 'Fields', description: '' });
    expectRecord(list, { id: 'id', accountId: 'id', type: 'number', label: 'string' }, 'list');
    const added = await post('/lists/items/add', {
      listItems: [{ id: demo.fanIds[9], listId: list.id, type: 1 }],
    });
    expectRecord(added[0], { id: 'id', listId: 'id', type: 'number', metadata: 'string' }, 'added member');
    const items = await get(`/lists/itemsnew?listId=${demo.listIds[0]}&limit=5`);
    for (const item of items)
      expectRecord(
        item,
        { id: 'id', sortId: 'id', listId: 'id', type: 'number', metadata: 'string' },
        'member',
      );
  });

  it('post', async () => {
    const created = await post('/post', {
      content: 'fields',
      attachments: [{ contentId: demo.mediaIds[4], contentType: 1, pos: 0 }],
    });
    expectRecord(
      created,
      {
        id: 'id',
        accountId: 'id',
        content: 'string',
        fypFlags: 'number',
        inReplyTo: 'id|null',
        quotedPostId: 'id|null',
        replyPermissionFlags: 'number',
        postReplyPermissionFlags: 'array',
        expiresAt: 'number',
        attachments: 'array',
        accessPermissions: 'array',
        previewId: 'id|null',
        wallIds: 'array',
        pinWallIds: 'array',
        pinned: 'number',
        mediaLikeCount: 'number',
        totalTipAmount: 'number',
        attachmentTipAmount: 'number',
        accountMentions: 'array',
        createdAt: 'number',
      },
      'post',
    );
    expectRecord(
      created.attachments[0],
      { contentType: 'number', contentId: 'id', pos: 'number', postId: 'id' },
      'attachment',
    );
    // Post createdAt is in seconds.
    expect(created.createdAt).toBeLessThan(10_000_000_000);
  });

  it('payout method', async () => {
    const deleted = await post('/payments/payoutmethod/delete', { payoutMethodId: demo.payoutMethodIds[0] });
    expectRecord(
      deleted,
      {
        id: 'id',
        accountId: 'id',
        providerId: 'id',
        type: 'number',
        flags: 'number',
        status: 'number',
        metadata: 'string',
        version: 'number',
        deletedAt: 'number',
      },
      'payout method',
    );
    JSON.parse(deleted.metadata);
  });

  it('tracking link', async () => {
    const fields: Record<string, FieldType> = {
      id: 'id',
      accountId: 'id',
      internalId: 'number',
      type: 'number',
      status: 'number',
      label: 'string',
      description: 'string',
      metadata: 'string',
      createdAt: 'number',
      clicks: 'number',
      claims: 'number',
      follows: 'number',
      subscriptions: 'number',
      totalNet: 'number',
      totalGross: 'number',
    };
    const links = await get('/trackinglinks');
    for (const link of links) expectRecord(link, fields, 'link');
    expect(links.filter((l: any) => l.type === 1)).toHaveLength(1);
    const created = await post('/trackinglinks', { label: 'Fields' });
    expectRecord(created, fields, 'created link');
    expectRecord(await post('/trackinglinks', { id: created.id, description: 'd' }), fields, 'updated link');
  });

  it('scheduled mass message and recipient group', async () => {
    const scheduled = await get('/message/broadcast/scheduled');
    expect(scheduled.scheduledBroadcastMessages.length).toBeGreaterThan(0);
    for (const message of scheduled.scheduledBroadcastMessages) {
      expectRecord(
        message,
        {
          id: 'id',
          groupId: 'id',
          accountId: 'id',
          status: 'number',
          messageTemplate: 'string',
          version: 'number',
          scheduledFor: 'number',
        },
        'scheduled',
      );
      expect(message.scheduledFor).toBeGreaterThan(Date.now());
      expectRecord(
        JSON.parse(message.messageTemplate),
        {
          type: 'number',
          attachments: 'array',
          content: 'string',
          groupId: 'id',
          senderId: 'id',
          scheduledFor: 'number',
          clientCreatedAt: 'number',
          gatewayMetadata: 'any',
        },
        'template',
      );
    }
    for (const group of scheduled.groups) {
      expectRecord(
        group,
        {
          id: 'id',
          type: 'number',
          groupFlags: 'number',
          groupFlagsMetadata: 'string',
          createdBy: 'id',
          users: 'array',
          permissionFlags: 'array',
          recipients: 'array',
        },
        'recipient group',
      );
      for (const user of group.users) {
        expectRecord(
          user,
          { groupId: 'id', userId: 'id', type: 'number', permissionFlags: 'number', userSettings: 'object' },
          'user',
        );
        expectRecord(user.userSettings, { customName: 'string|null', hidden: 'boolean' }, 'userSettings');
      }
      for (const recipient of group.recipients) {
        expectRecord(
          recipient,
          { groupId: 'id', recipientId: 'id', type: 'number', permissionFlags: 'number|null' },
          'recipient',
        );
      }
    }
  });
});

import {
  BroadcastStatsRow,
  Message,
  massMessagesSend,
  massMessagesStatsSent,
  ScheduledMassMessage,
  STATS_DEFAULT_LIMIT,
} from '@cg/operations/testing';
import type { BroadcastLogEntry, FanFacts } from '@cg/platform-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim } from '../support/common';
import { eventually } from '../support/processes';
import { type SimSession, simFixture, simJson, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: { mediaIds: string[]; tierIds: string[]; listIds: string[] };
let otherListId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  demo = await simFixture(stack, 'creator_demo');
  otherListId = (await simFixture(stack, 'creator_2fa')).listIds[0];
});
afterAll(async () => {
  await stack?.stop();
});

const massSend = (body: unknown, headers?: Record<string, string>) =>
  gw(stack, 'POST', `/${accountId}/mass-messaging`, { body, ...(headers ? { headers } : {}) });
const update = (id: string, body: unknown) =>
  gw(stack, 'PUT', `/${accountId}/mass-messaging/scheduled/${id}`, { body });
const stats = (kind: 'sent' | 'deleted', query = '') =>
  gw(stack, 'GET', `/${accountId}/mass-messaging/stats/${kind}${query}`);
const scheduledList = async () => {
  const response = await gw(stack, 'GET', `/${accountId}/mass-messaging/scheduled`);
  expectSuccess(response);
  return response.body.data.data.response.scheduledBroadcastMessages as ScheduledMassMessage[];
};

/** The sandbox's facts on every fan, and whom each broadcast reached. */
const broadcastsSeen = () =>
  simJson(stack, '/_sim/broadcasts?account=creator_demo') as Promise<{
    fans: FanFacts[];
    sent: BroadcastLogEntry[];
  }>;

const writes = async () => {
  const seen = await simRequests(stack, 'creator_demo');
  return (
    (seen['POST /api/v1/group'] ?? 0) +
    (seen['POST /api/v1/message/broadcast'] ?? 0) +
    (seen['POST /api/v1/account/media'] ?? 0)
  );
};

/** Every member of a list, read through the gateway (paged by nextCursor, "" at the end). */
async function listMembers(listId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor = '';
  for (let pages = 0; pages < 50; pages++) {
    const response = await gw(
      stack,
      'GET',
      `/${accountId}/lists/${listId}${cursor ? `?cursor=${cursor}` : ''}`,
    );
    expectSuccess(response);
    for (const member of response.body.data.data.response) ids.add(member.id);
    cursor = response.body.data.data.nextCursor;
    if (cursor === '') return ids;
  }
  throw new Error('the list never ended');
}

/** Whom a sent broadcast reached in the sandbox. */
async function reached(messageId: string): Promise<string[]> {
  const sent = (await broadcastsSeen()).sent.find((b) => b.messageId === messageId);
  if (!sent) throw new Error(`the sandbox has no broadcast ${messageId}`);
  return [...sent.recipientIds].sort();
}

const sorted = (fans: FanFacts[]) => fans.map((fan) => fan.fanId).sort();

describe('POST /{accountId}/mass-messaging: the audience', () => {
  it('followers minus a list reach exactly those fans, and the answer is the broadcast Message', async () => {
    const [excluded] = demo.listIds;
    const response = await massSend({
      content: 'Thanks for following 💕',
      includeFollowers: true,
      excludeListIds: [excluded],
    });
    expectSuccess(response, 201);
    expect(errorsOf(massMessagesSend.schemas.data, response.body.data)).toEqual([]);
    const message = response.body.data.data.response as Message;
    expect(errorsOf(Message.schema, message)).toEqual([]);
    expect(message.content).toBe('Thanks for following 💕');
    expect(message.id).toMatch(/^\d+$/);
    // createdAt is Unix seconds (the contract's exception for messages).
    expect(message.createdAt).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(message.createdAt).toBeLessThan(Date.now() / 1000 + 60);

    const { fans } = await broadcastsSeen();
    const members = await listMembers(excluded as string);
    const expected = sorted(fans.filter((fan) => fan.follower && !members.has(fan.fanId)));
    expect(expected.length).toBeGreaterThan(10);
    expect(members.size).toBeGreaterThan(0);
    expect(await reached(message.id)).toEqual(expected);
    // The audience is its own group, not a chat.
    expect(message.groupId).not.toBe('');
  });

  it('a tier on its own reaches its subscribers whichever their renewal, and nobody else', async () => {
    const tierId = demo.tierIds[0] as string;
    const response = await massSend({ content: 'Tier one only', includeSubscriptionTierId: tierId });
    expectSuccess(response, 201);
    const { fans } = await broadcastsSeen();
    const expected = sorted(
      fans.filter(
        (fan) => fan.tierId === tierId && (fan.subscription === 'renewOn' || fan.subscription === 'renewOff'),
      ),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(await reached(response.body.data.data.response.id)).toEqual(expected);
  });

  it('renewal flags, expired subscribers, included lists and every exclusion combine as union minus excludes', async () => {
    const [, included, excludedList] = demo.listIds as [string, string, string];
    const { fans } = await broadcastsSeen();
    const excludedUser = fans.find(
      (fan) => fan.subscription === 'renewOff' && !fan.creator && fan.online,
    )?.fanId;
    expect(excludedUser).toBeDefined();
    const response = await massSend({
      content: 'Renewal reminder',
      includeSubscribersAutoRenewOff: true,
      includeExpiredSubscribers: true,
      includeListIds: [included],
      excludeListIds: [excludedList],
      excludeUserIds: [excludedUser],
      excludeCreators: true,
      excludeOfflineUsers: true,
    });
    expectSuccess(response, 201);
    const add = await listMembers(included);
    const remove = await listMembers(excludedList);
    const expected = sorted(
      fans
        .filter(
          (fan) => fan.subscription === 'renewOff' || fan.subscription === 'expired' || add.has(fan.fanId),
        )
        .filter((fan) => !remove.has(fan.fanId) && fan.fanId !== excludedUser && !fan.creator && fan.online),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(await reached(response.body.data.data.response.id)).toEqual(expected);
  });

  it('sends PPV media: the broadcast carries the offer, priced in mills on the platform', async () => {
    const mediaId = demo.mediaIds[2] as string;
    const response = await massSend({
      content: 'New set, unlock it 🔒',
      includeFollowers: true,
      mediaIds: [mediaId],
      access_type: 'ppv',
      price: 9.99,
    });
    expectSuccess(response, 201);
    const message = response.body.data.data.response as Message;
    const [attachment] = message.attachments;
    expect(attachment).toMatchObject({ contentType: 1, messageId: message.id });
    const page = await sim.get('/message/broadcast/stats', { limit: 5 });
    const offer = page.accountMedia.find((m: { id: string }) => m.id === attachment?.contentId);
    expect(offer.mediaId).toBe(mediaId);
    expect(offer.permissions.permissionFlags[0]).toMatchObject({ flags: 1, price: 9990 });
  });

  it('honours Idempotency-Key: the same key twice sends one broadcast', async () => {
    const headers = { 'idempotency-key': `mass-${Date.now()}` };
    const body = { content: 'Only once', includeFollowers: true };
    const first = await massSend(body, headers);
    const second = await massSend(body, headers);
    expectSuccess(first, 201);
    expect(second.body.data.data.response.id).toBe(first.body.data.data.response.id);
    const copies = (await broadcastsSeen()).sent.filter((b) => b.content === 'Only once');
    expect(copies).toHaveLength(1);
  });
});

describe('POST /{accountId}/mass-messaging: refusals', () => {
  const future = () => Date.now() + 3_600_000;
  it.each([
    ['an audience with nothing included', { content: 'x' }, 'audience includes nobody'],
    [
      'only exclusions',
      { content: 'x', excludeCreators: true, excludeListIds: ['788240311431884800'] },
      'includes nobody',
    ],
    ['an empty includeListIds alone', { content: 'x', includeListIds: [] }, 'includes nobody'],
    ['empty content', { content: '', includeFollowers: true }, 'content'],
    ['blank content', { content: '   ', includeFollowers: true }, 'content'],
    [
      'a scheduledFor in the past',
      { content: 'x', includeFollowers: true, scheduledFor: 1_600_000_000_000 },
      'scheduledFor',
    ],
    [
      'a scheduledFor more than 180 days ahead',
      { content: 'x', includeFollowers: true, scheduledFor: Date.now() + 181 * 86_400_000 },
      '180 days',
    ],
    ['a price without ppv', { content: 'x', includeFollowers: true, mediaIds: ['1'], price: 5 }, 'price'],
    ['ppv without media', { content: 'x', includeFollowers: true, access_type: 'ppv', price: 5 }, 'mediaIds'],
    [
      'a price outside $1 to $500',
      { content: 'x', includeFollowers: true, mediaIds: ['1'], access_type: 'ppv', price: 501 },
      'price',
    ],
    [
      'an unknown access_type',
      { content: 'x', includeFollowers: true, mediaIds: ['1'], access_type: 'gold' },
      'access_type',
    ],
    ['a malformed list id', { content: 'x', includeListIds: ['list-1'] }, 'includeListIds'],
  ])('answers %s 400 naming it, and sends nothing', async (_name, body, word) => {
    const before = await writes();
    expectBadRequest(await massSend(body), word);
    expect(await writes()).toBe(before);
  });

  it('answers an unknown list, tier or media 404, and never broadcasts', async () => {
    const seen = async () =>
      (await simRequests(stack, 'creator_demo'))['POST /api/v1/message/broadcast'] ?? 0;
    const before = await seen();
    expectNotFound(await massSend({ content: 'x', includeListIds: [otherListId] }), 'list');
    expectNotFound(await massSend({ content: 'x', includeSubscriptionTierId: '788240311431884800' }), 'tier');
    expectNotFound(
      await massSend({
        content: 'x',
        includeFollowers: true,
        mediaIds: ['788240311431884800'],
        scheduledFor: future(),
      }),
      'media',
    );
    expect(await seen()).toBe(before);
  });
});

describe('scheduled mass messages: listed, updated, then sent', () => {
  it('a scheduled broadcast is listed, updated (version up), leaves the list when sent, and shows in sent stats', async () => {
    const scheduledFor = Date.now() + 60_000;
    const created = await massSend({ content: 'Later today', includeFollowers: true, scheduledFor });
    expectSuccess(created, 201);
    const scheduled = created.body.data.data.response as ScheduledMassMessage;
    expect(errorsOf(ScheduledMassMessage.schema, scheduled)).toEqual([]);
    expect(scheduled).toMatchObject({ scheduledFor, version: 1 });
    expect((await scheduledList()).map((m) => m.id)).toContain(scheduled.id);

    // Updated to go out in 2 s, with media now.
    const sendAt = Date.now() + 2_000;
    const updated = await update(scheduled.id, {
      content: 'Going out now',
      scheduledFor: sendAt,
      mediaIds: [demo.mediaIds[1]],
    });
    expectSuccess(updated);
    const record = updated.body.data.data.response as ScheduledMassMessage;
    expect(record).toMatchObject({ id: scheduled.id, version: 2, scheduledFor: sendAt });
    const template = JSON.parse(record.messageTemplate);
    expect(template.content).toBe('Going out now');
    expect(template.attachments).toHaveLength(1);
    const listed = (await scheduledList()).find((m) => m.id === scheduled.id);
    expect(listed).toMatchObject({ version: 2, scheduledFor: sendAt });

    // Once its time has come: gone from the scheduled list, first in the sent statistics.
    const row = await eventually(
      async () => {
        const page = await stats('sent', '?limit=5');
        expectSuccess(page);
        return (page.body.data.data.response.messages as BroadcastStatsRow[]).find(
          (m) => m.content === 'Going out now',
        );
      },
      15_000,
      'the scheduled broadcast was sent',
    );
    expect(row.attachments).toHaveLength(1);
    expect(row.stats.total).toBeGreaterThan(0);
    expect(row.createdAt).toBeCloseTo(sendAt / 1000, 0);
    expect((await scheduledList()).map((m) => m.id)).not.toContain(scheduled.id);
    // Sent: it can no longer change.
    expectError(
      await update(scheduled.id, { content: 'Too late', scheduledFor: Date.now() + 60_000 }),
      409,
      'CONFLICT',
    );
  });

  it('refuses audience fields, a missing or past scheduledFor 400; an unknown id 404', async () => {
    const [seeded] = await scheduledList();
    const id = seeded?.id as string;
    const before = await writes();
    expectBadRequest(
      await update(id, { content: 'x', scheduledFor: Date.now() + 60_000, includeFollowers: true }),
      'includeFollowers',
    );
    expectBadRequest(await update(id, { content: 'x' }), 'scheduledFor');
    expectBadRequest(await update(id, { content: 'x', scheduledFor: Date.now() - 1000 }), 'scheduledFor');
    expectBadRequest(await update(id, { content: '', scheduledFor: Date.now() + 60_000 }), 'content');
    expect(await writes()).toBe(before);
    expectNotFound(await update('788240311431884800', { content: 'x', scheduledFor: Date.now() + 60_000 }));
    const after = (await scheduledList()).find((m) => m.id === id);
    expect(after?.version).toBe(seeded?.version);
  });
});

describe('GET /{accountId}/mass-messaging/stats/sent and /stats/deleted', () => {
  it('pages the whole sent history newest first without a repeat; the cursor is data.data.nextCursor', async () => {
    const first = await stats('sent');
    expectSuccess(first);
    expect(errorsOf(massMessagesStatsSent.schemas.data, first.body.data)).toEqual([]);
    expect(first.body.data.data.response.messages).toHaveLength(STATS_DEFAULT_LIMIT);
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const page = await stats('sent', `?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expectSuccess(page);
      for (const row of page.body.data.data.response.messages as BroadcastStatsRow[]) {
        expect(errorsOf(BroadcastStatsRow.schema, row)).toEqual([]);
        expect(row.deletedAt).toBeUndefined();
        ids.push(row.id);
      }
      cursor = page.body.data.data.nextCursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(new Set(ids).size).toBe(ids.length);
    const seen = (await broadcastsSeen()).sent.filter((b) => !b.deleted).map((b) => b.messageId);
    expect(ids).toEqual(seen);
  });

  it('a deleted broadcast moves to the deleted statistics with its deletedAt (Unix seconds)', async () => {
    const sent = await massSend({ content: 'Oops, wrong price', includeFollowers: true });
    const id = sent.body.data.data.response.id as string;
    expectSuccess(await gw(stack, 'DELETE', `/${accountId}/messages/${id}`));
    const deleted = await stats('deleted', '?limit=50');
    expectSuccess(deleted);
    const rows = deleted.body.data.data.response.messages as BroadcastStatsRow[];
    const row = rows.find((m) => m.id === id);
    expect(row?.deletedAt).toBeGreaterThan(Date.now() / 1000 - 60);
    for (const other of rows) expect(typeof other.deletedAt).toBe('number');
    const stillSent = await stats('sent', '?limit=50');
    expect((stillSent.body.data.data.response.messages as BroadcastStatsRow[]).some((m) => m.id === id)).toBe(
      false,
    );
  });

  it('answers a limit outside 1 to 50 or a malformed cursor 400', async () => {
    expectBadRequest(await stats('sent', '?limit=51'), 'limit');
    expectBadRequest(await stats('deleted', '?limit=0'), 'limit');
    expectBadRequest(await stats('sent', '?cursor=abc'), 'cursor');
  });
});

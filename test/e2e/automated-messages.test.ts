import {
  ATTACHMENT_ACCOUNT_MEDIA,
  ATTACHMENT_BUNDLE,
  AUTOMATION_TRIGGERS,
  AutomatedMessage,
  automatedMessagesList,
  dollarsToMills,
  UNKNOWN_TRIGGER,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectAccount, connectWithSim } from '../support/common';
import { type SimSession, simFixture, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

/** A rule as the sandbox holds it (`GET /message/automated`): the fields these tests read. */
interface PlatformRule {
  id: string;
  triggerType: number;
  triggerMetadata: string;
  delay: number;
  cooldown: number;
  messageTemplate: {
    content: string;
    attachments: { contentId: string; contentType: number; pos: number }[];
  };
}

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: { platformAccountId: string; mediaIds: string[]; automatedMessageIds: string[] };
/** A rule of the other sandbox creator: unknown to creator_demo. */
let otherRuleId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  demo = await simFixture(stack, 'creator_demo');
  otherRuleId = (await simFixture(stack, 'creator_2fa')).automatedMessageIds[0];
});
afterAll(async () => {
  await stack?.stop();
});

const path = `/automated-messages`;
const list = (account = accountId) => gw(stack, 'GET', `/${account}${path}`);
const create = (body: unknown, headers?: Record<string, string>, account = accountId) =>
  gw(stack, 'POST', `/${account}${path}`, { body, ...(headers ? { headers } : {}) });
const remove = (id: string, account = accountId) => gw(stack, 'DELETE', `/${account}${path}/${id}`);
const upstream = () => sim.get<PlatformRule[]>('/message/automated');
const nameOf = new Map(Object.entries(AUTOMATION_TRIGGERS).map(([name, code]) => [code as number, name]));

/** The platform writes of creator_demo so far: rules created and deleted, media offers made. */
async function platformWrites() {
  const seen = await simRequests(stack, 'creator_demo');
  return {
    create: seen['POST /api/v1/message/automated'] ?? 0,
    delete: seen['POST /api/v1/message/automated/delete'] ?? 0,
    offers: (seen['POST /api/v1/account/media'] ?? 0) + (seen['POST /api/v1/account/media/bundle'] ?? 0),
  };
}

/** What the platform holds and was asked to write: equal before and after a refused request. */
async function platformState() {
  return { rules: await upstream(), writes: await platformWrites() };
}

describe('GET /{accountId}/automated-messages', () => {
  it('answers every rule as an Automated message, in the request vocabulary beside the platform fields', async () => {
    const response = await list();
    expectSuccess(response);
    expect(errorsOf(automatedMessagesList.schemas.data, response.body.data)).toEqual([]);
    const records = response.body.data.data.response as AutomatedMessage[];
    const rules = await upstream();
    expect(records.map((r) => r.id)).toEqual(demo.automatedMessageIds);
    expect(rules.map((r) => r.id)).toEqual(demo.automatedMessageIds);
    records.forEach((record, index) => {
      const rule = rules[index] as PlatformRule;
      expect(record).toMatchObject({
        accountId: demo.platformAccountId,
        triggerType: nameOf.get(rule.triggerType) ?? UNKNOWN_TRIGGER,
        platformTriggerType: rule.triggerType,
        delay: rule.delay,
        cooldown: rule.cooldown,
        content: rule.messageTemplate.content,
        triggerMetadata: rule.triggerMetadata,
        subscriptionStreak: JSON.parse(rule.triggerMetadata).subscriptionStreak ?? null,
        tipAmount: null,
        keywords: [],
      });
      const attachments = rule.messageTemplate.attachments.map((a) => ({ ...a, messageId: null }));
      expect(record.attachments).toEqual(attachments);
      expect(record.messageTemplate).toEqual({ ...rule.messageTemplate, attachments });
    });
    // Seeded: a new-subscriber welcome carrying a media offer, and a platform trigger with no name here.
    expect(records[0]).toMatchObject({ triggerType: 'new_subscriber', platformTriggerType: 3 });
    expect(records[0]?.attachments[0]?.contentType).toBe(ATTACHMENT_ACCOUNT_MEDIA);
    expect(records[1]?.triggerType).toBe(UNKNOWN_TRIGGER);
  });
});

/** Creates a rule through the gateway: its record, checked against the schema, and what the sandbox stored. */
async function createRule(
  body: Record<string, unknown>,
): Promise<{ record: AutomatedMessage; stored: PlatformRule }> {
  const response = await create(body);
  expectSuccess(response, 201);
  const record = response.body.data.data.response as AutomatedMessage;
  expect(errorsOf(AutomatedMessage.schema, record)).toEqual([]);
  const stored = (await upstream()).find((rule) => rule.id === record.id) as PlatformRule;
  expect(stored.triggerType).toBe(record.platformTriggerType);
  return { record, stored };
}

describe('POST /{accountId}/automated-messages', () => {
  const media = () => demo.mediaIds.slice(20, 22) as [string, string];

  it('creates a new_follower rule with its delay and cooldown in seconds; the list then shows it', async () => {
    const content = 'Thanks for the follow 💕';
    const { record, stored } = await createRule({
      triggerType: 'new_follower',
      content,
      delay: 90,
      cooldown: 3600,
    });
    expect(record).toMatchObject({
      triggerType: 'new_follower',
      platformTriggerType: AUTOMATION_TRIGGERS.new_follower,
      delay: 90,
      cooldown: 3600,
      content,
      attachments: [],
      subscriptionStreak: null,
      tipAmount: null,
      keywords: [],
    });
    expect(stored).toEqual({
      id: record.id,
      accountId: demo.platformAccountId,
      triggerType: AUTOMATION_TRIGGERS.new_follower,
      triggerMetadata: '{}',
      delay: 90,
      cooldown: 3600,
      messageTemplate: { type: 1, content, attachments: [], senderId: demo.platformAccountId },
    });
    const listed = (await list()).body.data.data.response as AutomatedMessage[];
    expect(listed.find((r) => r.id === record.id)).toEqual(record);
  });

  it('creates a new_tip rule: the tip in mills and the keywords in triggerMetadata, the media as an offer', async () => {
    const before = await platformWrites();
    const keywords = ['custom', 'request'];
    const { record, stored } = await createRule({
      triggerType: 'new_tip',
      content: 'Thank you for the tip!',
      tipAmount: 12.345,
      keywords,
      mediaIds: [media()[0]],
    });
    expect(record).toMatchObject({
      triggerType: 'new_tip',
      tipAmount: 12.345,
      keywords,
      delay: 0,
      cooldown: 0,
    });
    expect(JSON.parse(stored.triggerMetadata)).toEqual({ tipAmount: 12_345, keywords });
    expect(dollarsToMills(12.345)).toBe(12_345);
    const [attachment] = stored.messageTemplate.attachments;
    expect(attachment).toMatchObject({ contentType: ATTACHMENT_ACCOUNT_MEDIA, pos: 0 });
    expect(record.attachments).toEqual([{ ...attachment, messageId: null }]);
    const after = await platformWrites();
    expect(after.offers).toBe(before.offers + 1);
    expect(after.create).toBe(before.create + 1);
  });

  it('creates a renewal rule with its streak, gated media as one bundle offer', async () => {
    const { record, stored } = await createRule({
      triggerType: 'new_gift_link_subscriber_renew',
      content: 'Six months 🥰 a little extra for you',
      subscriptionStreak: 6,
      mediaIds: media(),
      access_type: 'ppv',
      price: 4.99,
    });
    expect(record).toMatchObject({ triggerType: 'new_gift_link_subscriber_renew', subscriptionStreak: 6 });
    expect(JSON.parse(stored.triggerMetadata)).toEqual({ subscriptionStreak: 6 });
    expect(stored.messageTemplate.attachments).toEqual([
      { contentId: record.attachments[0]?.contentId, contentType: ATTACHMENT_BUNDLE, pos: 0 },
    ]);
  });

  it('creates gift-link, renewal and disabled rules; disabled may hold several', async () => {
    for (const triggerType of [
      'new_gift_link_subscriber',
      'disabled',
      'disabled',
      'subscriber_renew',
    ] as const) {
      const { record, stored } = await createRule({ triggerType, content: `rule for ${triggerType}` });
      expect(record.triggerType).toBe(triggerType);
      expect(stored.triggerType).toBe(AUTOMATION_TRIGGERS[triggerType]);
      expect(stored.triggerMetadata).toBe('{}');
    }
  });

  it.each([
    ['an unknown trigger', { triggerType: 'new_message', content: 'x' }, 'triggerType'],
    ['no trigger', { content: 'x' }, 'triggerType'],
    [
      'subscriptionStreak with new_follower',
      { triggerType: 'new_follower', content: 'x', subscriptionStreak: 2 },
      'subscriptionStreak',
    ],
    [
      'a streak of 0',
      { triggerType: 'subscriber_renew', content: 'x', subscriptionStreak: 0 },
      'subscriptionStreak',
    ],
    [
      'tipAmount with new_subscriber',
      { triggerType: 'new_subscriber', content: 'x', tipAmount: 5 },
      'tipAmount',
    ],
    ['a tipAmount of 0', { triggerType: 'new_tip', content: 'x', tipAmount: 0 }, 'tipAmount'],
    ['keywords with disabled', { triggerType: 'disabled', content: 'x', keywords: ['hi'] }, 'keywords'],
    ['a negative delay', { triggerType: 'new_tip', content: 'x', delay: -1 }, 'delay'],
    ['a negative cooldown', { triggerType: 'new_tip', content: 'x', cooldown: -60 }, 'cooldown'],
    ['blank content', { triggerType: 'new_tip', content: '   ' }, 'content'],
    ['no content', { triggerType: 'new_tip' }, 'content'],
    [
      'ppv without a price',
      { triggerType: 'new_tip', content: 'x', mediaIds: ['1'], access_type: 'ppv' },
      'price',
    ],
    ['a price without ppv', { triggerType: 'new_tip', content: 'x', mediaIds: ['1'], price: 5 }, 'price'],
    [
      'permissions without media',
      { triggerType: 'new_tip', content: 'x', access_type: 'follow' },
      'mediaIds',
    ],
  ])('refuses %s with a 400 naming the field; nothing reaches the platform', async (_, body, field) => {
    const before = await platformState();
    expectBadRequest(await create(body), field);
    expect(await platformState()).toEqual(before);
  });

  it('answers 404 for a media the account does not own, creating no rule', async () => {
    const before = await platformState();
    expectNotFound(await create({ triggerType: 'disabled', content: 'x', mediaIds: ['123456789012345678'] }));
    const after = await platformState();
    expect(after.rules).toEqual(before.rules);
    expect(after.writes.create).toBe(before.writes.create);
  });

  it('answers 409 when the platform refuses a second rule for the same trigger', async () => {
    const before = await platformState();
    const response = await create({ triggerType: 'new_subscriber', content: 'a second welcome' });
    expectError(response, 409, 'CONFLICT', 'new_subscriber');
    const after = await platformState();
    expect(after.rules).toEqual(before.rules);
    // The platform was asked once, and refused.
    expect(after.writes.create).toBe(before.writes.create + 1);
  });

  it('honours Idempotency-Key: a repeat answers the same rule, created once', async () => {
    const headers = { 'Idempotency-Key': 'automated-disabled-once' };
    const body = { triggerType: 'disabled', content: 'only once' };
    const before = await platformState();
    const first = await create(body, headers);
    const second = await create(body, headers);
    expectSuccess(first, 201);
    expect(second.body.data.data.response.id).toBe(first.body.data.data.response.id);
    const after = await platformState();
    expect(after.writes.create).toBe(before.writes.create + 1);
    expect(after.rules).toHaveLength(before.rules.length + 1);
  });
});

describe('DELETE /{accountId}/automated-messages/{automatedMessageId}', () => {
  it('answers the deleted rule as its record; the list no longer shows it; again is 404', async () => {
    const id = demo.automatedMessageIds[1] as string;
    const listed = ((await list()).body.data.data.response as AutomatedMessage[]).find((r) => r.id === id);
    const response = await remove(id);
    expectSuccess(response);
    const record = response.body.data.data.response as AutomatedMessage;
    expect(errorsOf(AutomatedMessage.schema, record)).toEqual([]);
    expect(record).toEqual(listed);
    expect(((await list()).body.data.data.response as AutomatedMessage[]).map((r) => r.id)).not.toContain(id);
    expect((await upstream()).map((r) => r.id)).not.toContain(id);
    expect((await simFixture(stack, 'creator_demo')).automatedMessageIds).not.toContain(id);
    expectNotFound(await remove(id), 'automated message');
  });

  it('answers 404 for an unknown rule and for another creator’s', async () => {
    const before = await upstream();
    expectNotFound(await remove('123456789012345678'));
    expectNotFound(await remove(otherRuleId));
    expect(await upstream()).toEqual(before);
    expect((await simFixture(stack, 'creator_2fa')).automatedMessageIds).toContain(otherRuleId);
  });
});

describe('accounts', () => {
  it('answers 404 for an unknown account and for another tenant’s, on each route, reaching no platform', async () => {
    const otherTenants = await connectAccount(stack, 'creator_2fa', stack.keys.t2);
    const seen = async () => ({
      demo: await simRequests(stack, 'creator_demo'),
      other: await simRequests(stack, 'creator_2fa'),
    });
    const before = await seen();
    for (const account of ['acct_0000000000000000000000', otherTenants]) {
      expectNotFound(await list(account), account);
      expectNotFound(await create({ triggerType: 'disabled', content: 'x' }, undefined, account), account);
      expectNotFound(await remove(otherRuleId, account), account);
    }
    expect(await seen()).toEqual(before);
  });
});

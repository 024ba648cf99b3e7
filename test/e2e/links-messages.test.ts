import {
  CreatedTrackingLink,
  massMessagesScheduled,
  RecipientGroup,
  ScheduledMassMessage,
  TrackingLink,
  trackingLinksCreate,
  trackingLinksUpdate,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectEnvelope, expectError } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import type { SimSession } from '../support/sim';
import { account, gw, scanKeys, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let demoId: string;
/** The sandbox's own API as creator_demo: the reference the gateway is held to. */
let sim: SimSession;

beforeAll(async () => {
  stack = await startStack({ sim: { mediaOfferGapMs: 0 } });
  ({ accountId: demoId, sim } = await connectWithSim(stack, 'creator_demo'));
});
afterAll(async () => {
  await stack?.stop();
});

/** The sandbox's tracking links of creator_demo, straight from its own API. */
const simLinks = async (): Promise<any[]> => sim.get('/trackinglinks');

const CREATED_KEYS = Object.keys(CreatedTrackingLink.schema.properties).sort();
const LINK_KEYS = Object.keys(TrackingLink.schema.properties).sort();
const MESSAGE_KEYS = Object.keys(ScheduledMassMessage.schema.properties);

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, record[key]]));
}

/** The contract's view of a platform link: totals from mills to cents, the rest as is. */
function expectedLink(upstream: any) {
  return {
    ...pick(upstream, LINK_KEYS),
    totalNet: Math.round(upstream.totalNet / 10),
    totalGross: Math.round(upstream.totalGross / 10),
  };
}

// ---- tracking links

let createdId: string;

describe('POST /{account_id}/tracking-links', () => {
  it('creates a link: 201 with id, accountId, internalId, type, status, label, description', async () => {
    const demo = account(stack, 'creator_demo');
    const before = await simLinks();
    const response = await gw(stack, 'POST', `/${demoId}/tracking-links`, {
      body: { label: 'Spring promo', description: 'IG story' },
    });
    expect(response.status).toBe(201);
    expectEnvelope(response.body, 201);
    expect(errorsOf(trackingLinksCreate.schemas.data, response.body.data)).toEqual([]);
    const link = response.body.data.data.response;
    expect(errorsOf(CreatedTrackingLink.schema, link)).toEqual([]);
    expect(Object.keys(link).sort()).toEqual(CREATED_KEYS);
    expect(link).toMatchObject({
      accountId: demo.platformAccountId,
      label: 'Spring promo',
      description: 'IG story',
    });
    expect(link.type).not.toBe(1);
    expect(link.internalId).toBe(Math.max(...before.map((l) => l.internalId)) + 1);
    expect(before.map((l) => l.id)).not.toContain(link.id);
    createdId = link.id;

    // Visible on the platform: the next read lists it with the same identity.
    const after = await simLinks();
    const stored = after.find((l) => l.id === link.id);
    expect(stored).toBeDefined();
    expect(stored).toMatchObject(link);
    expect(after).toHaveLength(before.length + 1);
  });

  it('creates a link without a description (an empty description)', async () => {
    const response = await gw(stack, 'POST', `/${demoId}/tracking-links`, { body: { label: 'Bio link' } });
    expect(response.status).toBe(201);
    expect(response.body.data.data.response).toMatchObject({ label: 'Bio link', description: '' });
    expect((await simLinks()).some((l) => l.id === response.body.data.data.response.id)).toBe(true);
  });

  it('answers 400 naming the field for bad bodies, before enqueueing', async () => {
    const keys = (await scanKeys(stack.redis, stack.prefix)).sort();
    const count = (await simLinks()).length;
    const create = (body?: unknown) => gw(stack, 'POST', `/${demoId}/tracking-links`, { body });
    expectBadRequest(await create({}), 'label');
    expectBadRequest(await create({ description: 'no label' }), 'label');
    expectBadRequest(await create({ label: '' }), 'label');
    expectBadRequest(await create({ label: '   ' }), 'label');
    expectBadRequest(await create({ label: 42 }), 'label');
    expectBadRequest(await create({ label: 'x'.repeat(101) }), 'label');
    expectBadRequest(await create({ label: 'ok', description: 7 }), 'description');
    expectBadRequest(await create({ label: 'ok', description: 'x'.repeat(501) }), 'description');
    expect((await create()).status).toBe(400);
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keys);
    expect(await simLinks()).toHaveLength(count);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/tracking-links', body: { label: 'Common route test' } },
    () => demoId,
  );
});

describe('PUT /{account_id}/tracking-links', () => {
  it('updates label and description: the full link with counters, visible on the next read', async () => {
    const response = await gw(stack, 'PUT', `/${demoId}/tracking-links`, {
      body: { id: createdId, label: 'Summer promo', description: 'TikTok bio' },
    });
    expect(response.status).toBe(200);
    expectEnvelope(response.body, 200, { message: 'Tracking link updated successfully' });
    expect(errorsOf(trackingLinksUpdate.schemas.data, response.body.data)).toEqual([]);
    const link = response.body.data.data.response;
    expect(errorsOf(TrackingLink.schema, link)).toEqual([]);
    expect(Object.keys(link).sort()).toEqual(LINK_KEYS);
    expect(link).toMatchObject({ id: createdId, label: 'Summer promo', description: 'TikTok bio' });
    expect(JSON.parse(link.metadata)).toBeTypeOf('object');

    const stored = (await simLinks()).find((l) => l.id === createdId);
    expect(stored).toMatchObject({ label: 'Summer promo', description: 'TikTok bio' });
    expect(link).toEqual(expectedLink(stored));
  });

  it('changes only what is sent: a description-only update keeps the label', async () => {
    const response = await gw(stack, 'PUT', `/${demoId}/tracking-links`, {
      body: { id: createdId, description: 'Twitter pin' },
    });
    expect(response.status).toBe(200);
    expect(response.body.data.data.response).toMatchObject({
      label: 'Summer promo',
      description: 'Twitter pin',
    });
    const labelOnly = await gw(stack, 'PUT', `/${demoId}/tracking-links`, {
      body: { id: createdId, label: 'Autumn promo' },
    });
    expect(labelOnly.body.data.data.response).toMatchObject({
      label: 'Autumn promo',
      description: 'Twitter pin',
    });
  });

  it('gives the counters of a seeded link, totals converted from mills to cents', async () => {
    const seeded =
      (await simLinks()).find((l) => l.type !== 1 && l.totalNet % 10 !== 0 && l.totalGross > 0) ??
      (await simLinks()).find((l) => l.type !== 1 && l.totalGross > 0);
    expect(seeded).toBeDefined();
    const response = await gw(stack, 'PUT', `/${demoId}/tracking-links`, {
      body: { id: seeded.id, label: `${seeded.label} (edited)` },
    });
    expect(response.status).toBe(200);
    const link = response.body.data.data.response;
    const stored = (await simLinks()).find((l) => l.id === seeded.id);
    expect(link).toEqual(expectedLink(stored));
    expect(link.clicks).toBeGreaterThan(0);
    expect(link.totalGross).toBe(Math.round(seeded.totalGross / 10));
    expect(link.totalNet).toBe(Math.round(seeded.totalNet / 10));
    expect(link.createdAt).toBe(seeded.createdAt);
    expect(link.createdAt).toBeGreaterThan(1_000_000_000_000);
  });

  it('refuses to edit the default type-1 link with 403 FORBIDDEN_ACTION naming the rule', async () => {
    const defaultId = account(stack, 'creator_demo').defaultTrackingLinkId as string;
    const before = (await simLinks()).find((l) => l.id === defaultId);
    expect(before.type).toBe(1);
    const response = await gw(stack, 'PUT', `/${demoId}/tracking-links`, {
      body: { id: defaultId, label: 'Hijacked' },
    });
    expectError(response, 403, 'FORBIDDEN_ACTION');
    expect(response.body.error).toBe('Forbidden');
    expect(response.body.message).toMatch(/default tracking link/);
    expect((await simLinks()).find((l) => l.id === defaultId)).toEqual(before);
  });

  it('answers 404 for an unknown link', async () => {
    const response = await gw(stack, 'PUT', `/${demoId}/tracking-links`, {
      body: { id: '999999999999999999', label: 'Nobody' },
    });
    expectError(response, 404, 'NOT_FOUND');
    expect(response.body.message).toContain('tracking link');
  });

  it('answers 400 naming the field for bad bodies, before enqueueing', async () => {
    const keys = (await scanKeys(stack.redis, stack.prefix)).sort();
    const update = (body?: unknown) => gw(stack, 'PUT', `/${demoId}/tracking-links`, { body });
    expectBadRequest(await update({ label: 'no id' }), 'id');
    expectBadRequest(await update({ id: 5, label: 'x' }), 'id');
    expectBadRequest(await update({ id: '', label: 'x' }), 'id');
    expectBadRequest(await update({ id: '  ', label: 'x' }), 'id');
    // label is optional: an empty one was sent, not left out.
    const empty = await update({ id: createdId, label: '' });
    expectBadRequest(empty, 'label');
    expect(empty.body.message).toBe('The label body field must not be empty');
    expectBadRequest(await update({ id: createdId, label: '  ' }), 'label');
    expectBadRequest(await update({ id: createdId, label: 'x'.repeat(101) }), 'label');
    expectBadRequest(await update({ id: createdId, description: false }), 'description');
    expect((await update()).status).toBe(400);
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keys);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'PUT', path: '/{accountId}/tracking-links', body: { id: '999999999999999999', label: 'x' } },
    () => demoId,
  );
});

// ---- scheduled mass messages

describe('GET /{account_id}/mass-messaging/scheduled', () => {
  it('lists the scheduled mass messages and their recipient groups as the platform has them', async () => {
    const demo = account(stack, 'creator_demo');
    const response = await gw(stack, 'GET', `/${demoId}/mass-messaging/scheduled`);
    expect(response.status).toBe(200);
    expectEnvelope(response.body, 200);
    expect(errorsOf(massMessagesScheduled.schemas.data, response.body.data)).toEqual([]);
    const { scheduledBroadcastMessages: messages, groups } = response.body.data.data.response;
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const message of messages) {
      expect(errorsOf(ScheduledMassMessage.schema, message)).toEqual([]);
      expect(Object.keys(message).sort()).toEqual([...MESSAGE_KEYS].sort());
    }
    for (const group of groups) expect(errorsOf(RecipientGroup.schema, group)).toEqual([]);

    const upstream = await sim.get('/message/broadcast/scheduled');
    expect(messages).toEqual(upstream.scheduledBroadcastMessages.map((m: any) => pick(m, MESSAGE_KEYS)));
    expect(groups).toEqual(upstream.groups);

    for (const message of messages) {
      expect(message.accountId).toBe(demo.platformAccountId);
      // scheduledFor is Unix ms, in the future of the sandbox's day; the template is JSON text.
      expect(message.scheduledFor).toBeGreaterThan(Date.now() - 86_400_000);
      expect(message.scheduledFor).toBeGreaterThan(1_000_000_000_000);
      const template = JSON.parse(message.messageTemplate);
      expect(Object.keys(template).sort()).toEqual(
        [
          'type',
          'attachments',
          'content',
          'groupId',
          'senderId',
          'scheduledFor',
          'clientCreatedAt',
          'gatewayMetadata',
        ].sort(),
      );
      expect(template.groupId).toBe(message.groupId);
      expect(template.scheduledFor).toBe(message.scheduledFor);
      const group = groups.find((g: any) => g.id === message.groupId);
      expect(group).toBeDefined();
      expect(group.createdBy).toBe(demo.platformAccountId);
      expect(group.users.length).toBeGreaterThan(0);
      // An audience: flags (followers, subscribers) or lists it includes.
      expect(group.groupFlags > 0 || group.recipients.length > 0).toBe(true);
      for (const recipient of group.recipients) expect(recipient.groupId).toBe(group.id);
    }
  });

  it('answers 404 for an account id that is not one of the caller’s, whatever its shape', async () => {
    expectError(await gw(stack, 'GET', '/bad-account/mass-messaging/scheduled'), 404, 'NOT_FOUND');
  });

  runCommonRouteTests(
    () => stack,
    { method: 'GET', path: '/{accountId}/mass-messaging/scheduled' },
    () => demoId,
  );
});

import type { AuthEndpointName, CallArgs } from '@cg/platform-client';
import { describe, expect, it } from 'vitest';
import type { OperationContext } from '../../src/define';
import { BACKFILL_MAX_PAGES, realtimeBackfill } from '../../src/realtime-backfill/operation';

/**
 * The backfill against a platform of `count` fan messages (one chat) and as many tips, one a
 * second from `start` on (ids in time order), each list paged newest first by `before`.
 */
function platform(count: number, start = 1_800_000_000_000) {
  const at = (n: number) => start + n * 1000;
  const id = (n: number, kind: number) => String(1_000_000 + n * 10 + kind);
  const messages = Array.from({ length: count }, (_, n) => ({
    id: id(n, 1),
    groupId: 'g1',
    senderId: 'fan',
    createdAt: at(n) / 1000,
  }));
  const notifications = Array.from({ length: count }, (_, n) => ({
    id: id(n, 2),
    type: 7001,
    correlationId: `tip${n}`,
    createdAt: at(n),
  }));
  const calls: { endpoint: AuthEndpointName; before: unknown }[] = [];
  const page = <T extends { id: string }>(items: T[], query: Record<string, unknown>): T[] => {
    const before = query.before === undefined ? null : BigInt(String(query.before));
    return items
      .filter((item) => before === null || BigInt(item.id) < before)
      .reverse()
      .slice(0, Number(query.limit));
  };
  const call = async (endpoint: AuthEndpointName, args?: CallArgs) => {
    const query = (args?.query ?? {}) as Record<string, unknown>;
    calls.push({ endpoint, before: query.before });
    if (endpoint === 'messageUnread')
      return {
        messageInteractions: page(messages, query).map((m) => ({
          messageId: m.id,
          groupId: m.groupId,
          deliveredAt: m.createdAt * 1000,
        })),
      };
    if (endpoint === 'chatMessages') return { messages: page(messages, query) };
    const notified = page(notifications, query);
    return {
      notifications: notified,
      aggregationData: { tips: notified.map((n) => ({ id: n.correlationId })) },
    };
  };
  const context = { call, account: { platformAccountId: 'creator' } } as unknown as OperationContext;
  const run = (since: number, limit: number) =>
    realtimeBackfill.run(
      { params: { accountId: 'acct_1' }, query: { since, types: '7001', limit } } as never,
      context,
    ) as Promise<{
      items: { kind: string; object: { id: string } }[];
      aggregationData: any;
      coveredFrom: number;
    }>;
  return { at, run, calls };
}

describe('realtime-backfill', () => {
  it('pages every list down to `since` and answers one list, oldest first', async () => {
    const { at, run, calls } = platform(30);
    const found = await run(at(3), 4);
    // Items 3 to 29 of each list: 27 messages and 27 notifications, interleaved as they happened.
    expect(found.items.map((item) => item.kind)).toEqual(
      Array.from({ length: 27 }, () => ['message', 'notification']).flat(),
    );
    const ids = found.items.map((item) => BigInt(item.object.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    expect(found.aggregationData.tips).toHaveLength(28);
    expect(found.coveredFrom).toBe(at(3));
    // Each page asks for what is older than the last one's oldest.
    const unread = calls.filter((c) => c.endpoint === 'messageUnread');
    expect(unread).toHaveLength(7);
    expect(unread[0]?.before).toBeUndefined();
    expect(unread[1]?.before).toBe(found.items.at(-8)?.object.id);
  });

  it(`reads ${BACKFILL_MAX_PAGES} pages of a list at most, and says from when it is whole`, async () => {
    const { at, run, calls } = platform(BACKFILL_MAX_PAGES * 2 + 10);
    const found = await run(at(0), 2);
    const notifications = found.items.filter((item) => item.kind === 'notification');
    expect(notifications).toHaveLength(BACKFILL_MAX_PAGES * 2);
    expect(calls.filter((c) => c.endpoint === 'notifications')).toHaveLength(BACKFILL_MAX_PAGES);
    // The newest 50 are read; what came before the oldest of them is not.
    expect(found.coveredFrom).toBe(at(10));
  });
});

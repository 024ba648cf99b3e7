import { connectRedis } from '@cg/store';
import { describe, expect, inject, it } from 'vitest';
import { fileRedis } from '../../../test/support/redis';
import { storeKeys } from '../src/keys';
import { USAGE_RETENTION_DAYS, UsageCounter, UsageStore } from '../src/usage';

const { redis, prefix } = fileRedis();
const keys = storeKeys(prefix);
const HOUR_MS = 3_600_000;

const rowsOf = (tenantId: string, groupBy: 'key' | 'account', visible = () => true) =>
  new UsageStore(redis, keys).rows(tenantId, {
    fromMs: Date.now() - HOUR_MS,
    toMs: Date.now(),
    groupBy,
    bucket: 'day',
    visible,
  });

describe('UsageCounter', () => {
  it('writes running totals: a repeated write adds nothing, two processes add up', async () => {
    const other = connectRedis(inject('redisUrl'));
    try {
      const one = new UsageCounter(redis, keys);
      const two = new UsageCounter(other, keys);
      one.add('u1', 'key_a', 'acct_1', 'requests2xx');
      one.add('u1', 'key_a', 'acct_1', 'requests2xx');
      one.add('u1', 'key_a', null, 'mediaBytesUp', 1_500);
      two.add('u1', 'key_a', 'acct_2', 'requests4xx');
      two.add('u1', null, 'acct_2', 'eventsPublished');
      await Promise.all([one.flush(), two.flush()]);
      // Written again (what a resend after a dropped connection does): the same totals.
      await one.flush();
      one.add('u1', 'key_a', 'acct_1', 'requests2xx');
      await one.flush();
      const byKey = await rowsOf('u1', 'key');
      expect(
        byKey.map(({ id, requests2xx, requests4xx, mediaBytesUp, eventsPublished }) => ({
          id,
          requests2xx,
          requests4xx,
          mediaBytesUp,
          eventsPublished,
        })),
      ).toEqual([
        { id: null, requests2xx: 0, requests4xx: 0, mediaBytesUp: 0, eventsPublished: 1 },
        { id: 'key_a', requests2xx: 3, requests4xx: 1, mediaBytesUp: 1_500, eventsPublished: 0 },
      ]);
      const byAccount = await rowsOf('u1', 'account', ((id: string | null) => id !== 'acct_2') as never);
      expect(byAccount.map((row) => [row.id, row.requests2xx, row.mediaBytesUp])).toEqual([
        [null, 0, 1_500],
        ['acct_1', 3, 0],
      ]);
      // One hash per (tenant, hour) in the tenant's slot, expiring 35 days after its hour.
      const hour = Math.floor(Date.now() / HOUR_MS);
      const ttl = await redis.ttl(keys.usageHour('u1', hour));
      expect(ttl).toBeGreaterThan(USAGE_RETENTION_DAYS * 86_400 - 10);
      expect(ttl).toBeLessThanOrEqual(USAGE_RETENTION_DAYS * 86_400 + 3_600);
      expect(keys.usageHour('u1', hour)).toContain('{t:u1}');
    } finally {
      other.disconnect();
    }
  });

  it('keeps what a failed write held and writes it with the next', async () => {
    const errors: unknown[] = [];
    const counter = new UsageCounter(redis, keys, (error) => errors.push(error));
    counter.add('u2', 'key_b', 'acct_1', 'platformCalls', 4);
    const pipeline = redis.pipeline;
    // The first write fails, nothing of it applied (Redis away for good, the connection closed).
    const refused = {
      hset: () => refused,
      expireat: () => refused,
      exec: async () => {
        throw new Error('Connection is closed.');
      },
    };
    (redis as { pipeline: unknown }).pipeline = () => refused;
    try {
      await counter.flush();
    } finally {
      (redis as { pipeline: unknown }).pipeline = pipeline;
    }
    expect(errors).toHaveLength(1);
    counter.add('u2', 'key_b', 'acct_1', 'platformCalls');
    await counter.close();
    expect((await rowsOf('u2', 'key')).map((row) => [row.id, row.platformCalls])).toEqual([['key_b', 5]]);
  });
});

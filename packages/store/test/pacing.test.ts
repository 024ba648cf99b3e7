import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis } from '@cg/store';
import { describe, expect, inject, it } from 'vitest';
import { fileRedis } from '../../../test/support/redis';
import { storeKeys } from '../src/keys';
import { PacingStore } from '../src/pacing';

const { redis, prefix } = fileRedis();
const pacing = new PacingStore(redis, storeKeys(prefix));

describe('PacingStore.claim', () => {
  it('lets one claim of a window win, across connections, until it expires', async () => {
    // A second connection stands for another process.
    const other = connectRedis(inject('redisUrl'));
    try {
      const elsewhere = new PacingStore(other, storeKeys(prefix));
      const claims = await Promise.all([
        pacing.claim('t1', 'acct_a', 'typing:1', 300),
        elsewhere.claim('t1', 'acct_a', 'typing:1', 300),
        pacing.claim('t1', 'acct_a', 'typing:1', 300),
      ]);
      expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
      // Other windows, accounts and tenants are their own.
      expect(await pacing.claim('t1', 'acct_a', 'typing:2', 300)).not.toBeNull();
      expect(await pacing.claim('t1', 'acct_b', 'typing:1', 300)).not.toBeNull();
      expect(await pacing.claim('t2', 'acct_a', 'typing:1', 300)).not.toBeNull();
      const ttl = await redis.pttl(storeKeys(prefix).accountWindow('t1', 'acct_a', 'typing:1'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(300);
      await sleep(350);
      expect(await elsewhere.claim('t1', 'acct_a', 'typing:1', 300)).not.toBeNull();
    } finally {
      other.disconnect();
    }
  });

  it('gives a window up on release, but only its own claim', async () => {
    const first = await pacing.claim('t1', 'acct_c', 'typing:1', 200);
    expect(first).not.toBeNull();
    await first?.release();
    const second = await pacing.claim('t1', 'acct_c', 'typing:1', 200);
    expect(second).not.toBeNull();
    // The first claim, released already, no longer owns the key: releasing it again keeps the second's.
    await first?.release();
    expect(await pacing.claim('t1', 'acct_c', 'typing:1', 200)).toBeNull();
  });
});

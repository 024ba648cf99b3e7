import { connectRedis } from '@cg/store';
import { describe, expect, inject, it } from 'vitest';
import { fileRedis } from '../../../test/support/redis';
import { ApiKeyStore, LAST_ADMIN } from '../src/api-keys';
import { storeKeys } from '../src/keys';

const { redis, prefix } = fileRedis();
const keys = new ApiKeyStore(redis, storeKeys(prefix));

/** Two admin keys of a new tenant. */
async function twoAdmins(tenant: string) {
  const first = await keys.create(tenant, { access: 'admin' });
  const second = await keys.create(tenant, { access: 'admin' });
  return [first.info.keyId, second.info.keyId] as const;
}

const admins = async (tenant: string) =>
  (await keys.ofTenant(tenant)).filter((key) => key.access === 'admin').length;

describe('ApiKeyStore: the last admin key', () => {
  it('lets one of two concurrent demotions on one connection pass, never both', async () => {
    for (let round = 0; round < 10; round++) {
      const tenant = `demote${round}`;
      const [a, b] = await twoAdmins(tenant);
      const done = await Promise.all([
        keys.update(tenant, a, { access: 'read' }),
        keys.update(tenant, b, { access: 'write' }),
      ]);
      expect(done.filter((result) => result === LAST_ADMIN)).toHaveLength(1);
      expect(await admins(tenant)).toBe(1);
    }
  });

  it('lets one of two concurrent revocations pass, across connections too', async () => {
    const other = connectRedis(inject('redisUrl'));
    try {
      const elsewhere = new ApiKeyStore(other, storeKeys(prefix));
      for (let round = 0; round < 10; round++) {
        const tenant = `revoke${round}`;
        const [a, b] = await twoAdmins(tenant);
        const done = await Promise.all([keys.remove(tenant, a), elsewhere.remove(tenant, b)]);
        expect(done.filter((result) => result === LAST_ADMIN)).toHaveLength(1);
        expect(await admins(tenant)).toBe(1);
      }
    } finally {
      other.disconnect();
    }
  });
});

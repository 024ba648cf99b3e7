import { describe, expect, it } from 'vitest';
import { SNOWFLAKE, startSim, useSim } from './support';

const ANCHOR = Date.UTC(2025, 5, 1);
const sim = useSim({ anchorMs: ANCHOR });

const ID_LISTS = [
  'fanIds',
  'chatIds',
  'messageIds',
  'listIds',
  'payoutMethodIds',
  'albumIds',
  'trackingLinkIds',
  'wallIds',
  'mediaIds',
  'unreadMessageIds',
  'tierIds',
  'standardAlbumIds',
];

describe('GET /_sim/fixtures', () => {
  it('describes both sandbox accounts with every id list the gateway operations need', async () => {
    const fixtures = await sim.client.fixtures();
    expect(fixtures.accounts.map((a: any) => [a.username, a.password, a.twofaCode])).toEqual([
      ['creator_demo', 'sandbox-password', null],
      ['creator_2fa', 'sandbox-password', '424242'],
    ]);
    for (const account of fixtures.accounts) {
      expect(account.platformAccountId).toMatch(SNOWFLAKE);
      for (const key of ID_LISTS) {
        expect(account[key], key).toBeInstanceOf(Array);
        expect(account[key].length, key).toBeGreaterThan(0);
        for (const id of account[key]) expect(id, key).toMatch(SNOWFLAKE);
      }
      expect(account.fanIds.length).toBeGreaterThanOrEqual(200);
      expect(account.chatIds.length).toBeGreaterThanOrEqual(10);
      expect(account.trackingLinkIds).toContain(account.defaultTrackingLinkId);
      expect(account.mediaIds).toContain(account.fypVideoMediaId);
      expect(account.wallIds).toContain(account.mainWallId);
      expect(account.standardAlbumIds).toHaveLength(3);
      expect(account.counts.subscribers).toBeGreaterThanOrEqual(200);
      expect(account.counts.transactions).toBeGreaterThanOrEqual(300);
    }
    expect(fixtures.profilePlatformAccountIds.length).toBeGreaterThanOrEqual(10);
  });

  it('names a public video of 3 s or longer for the For You page', async () => {
    const token = await sim.client.login();
    const demo = (await sim.client.fixtures()).accounts[0];
    const vault = await sim.client.api('GET', '/vault/albumsnew', token);
    const fyp = vault.aggregationData.media.find((m: any) => m.id === demo.fypVideoMediaId);
    expect(fyp).toBeDefined();
    expect(fyp.type).toBe(2);
    expect(fyp.mimetype).toBe('video/mp4');
    const metadata = JSON.parse(fyp.metadata);
    expect(metadata.duration).toBeGreaterThanOrEqual(3);
    expect(metadata.public).toBe(true);
  });

  it('is deterministic for a seed and differs across seeds', async () => {
    const same = await startSim({ anchorMs: ANCHOR });
    const other = await startSim({ anchorMs: ANCHOR, seed: 2 });
    try {
      const [a, b, c] = await Promise.all([
        sim.client.fixtures(),
        same.client.fixtures(),
        other.client.fixtures(),
      ]);
      expect(b).toEqual(a);
      expect(c.accounts[0].platformAccountId).not.toBe(a.accounts[0].platformAccountId);
      expect(c.accounts[0].fanIds).not.toEqual(a.accounts[0].fanIds);
      const tokenA = await sim.client.login();
      const tokenB = await same.client.login();
      const pageA = await sim.client.api('GET', '/subscribers?limit=50', tokenA);
      const pageB = await same.client.api('GET', '/subscribers?limit=50', tokenB);
      expect(pageB).toEqual(pageA);
    } finally {
      await same.close();
      await other.close();
    }
  });
});

describe('extra creators', () => {
  it('starts with 10,000 lazy creators in under a second and serves any of them', async () => {
    const started = Date.now();
    const big = await startSim({ extraCreators: 10_000 });
    try {
      expect(Date.now() - started).toBeLessThan(1000);
      const fixtures = await big.client.fixtures();
      expect(fixtures.accounts).toHaveLength(2);
      expect(fixtures.extraCreators).toMatchObject({
        count: 10_000,
        usernames: { first: 'sim_creator_00001', last: 'sim_creator_10000' },
      });

      const token = await big.client.login('sim_creator_10000');
      const me = await big.client.api('GET', '/account/me', token);
      expect(me.account.username).toBe('sim_creator_10000');
      const one = await big.client.control('GET', '/fixtures?accounts=sim_creator_10000,sim_creator_00042');
      expect(one.accounts.map((a: any) => a.username)).toEqual(['sim_creator_10000', 'sim_creator_00042']);
      expect(one.accounts[0].platformAccountId).toBe(me.account.id);
      const subscribers = await big.client.api('GET', '/subscribers?limit=100', token);
      expect(subscribers.subscriptions).toHaveLength(100);
      const unknown = await big.client.call('POST', '/api/v1/login', {
        body: { username: 'sim_creator_10001', password: 'sandbox-password' },
      });
      expect(unknown.body.error.code).toBe(1);
    } finally {
      await big.close();
    }
  });
});

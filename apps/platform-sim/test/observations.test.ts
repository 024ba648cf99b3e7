import { beforeEach, describe, expect, it } from 'vitest';
import { loginDemo, sleep, useSim } from './support';

const sim = useSim({}, { resetEach: true });
let token: string;
let demo: any;

beforeEach(async () => {
  ({ token, demo } = await loginDemo(sim.client));
});

async function observed(): Promise<any> {
  return (await sim.client.control('GET', '/observations')).accounts[demo.platformAccountId];
}

const offersPath = (chatId: string) =>
  `/api/v1/mediaoffers/location?locationId=${chatId}&locationType=4001&accountId=${demo.platformAccountId}&before=0&after=0&limit=25&offset=0`;

describe('observations', () => {
  it('counts requests per "METHOD /api/v1/path" without the query', async () => {
    await sim.client.call('GET', '/api/v1/account/me', { token });
    await sim.client.call('GET', '/api/v1/account/me?foo=bar', { token });
    await sim.client.call('GET', '/api/v1/subscribers?status=3&limit=5', { token });
    const account = await observed();
    expect(account.username).toBe('creator_demo');
    expect(account.requests).toMatchObject({
      'POST /api/v1/login': 1,
      'GET /api/v1/account/me': 2,
      'GET /api/v1/subscribers': 1,
    });
    expect(account.responses['200']).toBeGreaterThanOrEqual(4);
    const all = await sim.client.control('GET', '/observations');
    expect(all.totals.requests).toBeGreaterThanOrEqual(4);
  });

  it('returns empty media offers within mediaOfferGapMs and reports the smallest gap', async () => {
    const first = await sim.client.call('GET', offersPath(demo.chatIds[0]), { token });
    expect(first.body.response.data.length).toBeGreaterThan(0);
    const tooSoon = await sim.client.call('GET', offersPath(demo.chatIds[1]), { token });
    expect(tooSoon.status).toBe(200);
    expect(tooSoon.body.response).toEqual({
      data: [],
      aggregationData: { accountMedia: [], accountMediaBundles: [], posts: [] },
    });

    const account = await observed();
    expect(account.mediaOfferCalls).toBe(2);
    expect(account.minMediaOfferGapMs).toBeGreaterThanOrEqual(0);
    expect(account.minMediaOfferGapMs).toBeLessThan(5000);

    await sim.client.control('POST', '/config', { mediaOfferGapMs: 100 });
    await sleep(150);
    const later = await sim.client.call('GET', offersPath(demo.chatIds[1]), { token });
    expect(later.body.response.data.length).toBeGreaterThan(0);
  });

  it('reports null as the media-offer gap with fewer than two calls', async () => {
    await sim.client.call('GET', offersPath(demo.chatIds[0]), { token });
    expect((await observed()).minMediaOfferGapMs).toBeNull();
  });

  it('reports writes received twice with the same body within duplicateWindowMs', async () => {
    // Logging in again is not a write: it opens another session and is never a duplicate.
    await sim.client.login();
    const body = { label: 'Same twice' };
    await sim.client.call('POST', '/api/v1/lists', { token, body });
    await sim.client.call('POST', '/api/v1/lists', { token, body });
    await sim.client.call('POST', '/api/v1/lists', { token, body: { label: 'Different' } });
    await sim.client.call('POST', '/api/v1/message/like', {
      token,
      body: { messageId: demo.messageIds[0], type: 1 },
    });
    const account = await observed();
    expect(account.duplicates).toEqual([{ method: 'POST', path: '/api/v1/lists', count: 1 }]);
    expect((await sim.client.control('GET', '/observations')).totals.duplicates).toBe(1);
  });

  it('does not count repeats outside the window', async () => {
    await sim.client.control('POST', '/config', { duplicateWindowMs: 50 });
    await sim.client.call('POST', '/api/v1/lists', { token, body: { label: 'Slow retry' } });
    await sleep(100);
    await sim.client.call('POST', '/api/v1/lists', { token, body: { label: 'Slow retry' } });
    expect((await observed()).duplicates).toEqual([]);
  });

  it('clears on POST /_sim/observations/reset but keeps the world', async () => {
    await sim.client.call('POST', '/api/v1/lists', { token, body: { label: 'Kept' } });
    await sim.client.control('POST', '/observations/reset');
    const all = await sim.client.control('GET', '/observations');
    expect(all.accounts).toEqual({});
    expect(all.totals.requests).toBe(0);
    const lists = await sim.client.api('GET', '/lists', token);
    expect(lists.map((l: any) => l.label)).toContain('Kept');
  });

  it('filters by ?account= and 404s an unknown account', async () => {
    await sim.client.login('creator_2fa');
    const only = await sim.client.control('GET', '/observations?account=creator_2fa');
    expect(Object.values(only.accounts).map((a: any) => a.username)).toEqual(['creator_2fa']);
    expect((await sim.client.call('GET', '/_sim/observations?account=ghost')).status).toBe(404);
  });
});

import { describe, expect, it } from 'vitest';
import { useSim } from './support';

const sim = useSim({}, { resetEach: true });

async function observationOf(username: string): Promise<any> {
  const observed = await sim.client.control('GET', `/observations?account=${username}`);
  return Object.values(observed.accounts)[0];
}

describe('own limits', () => {
  it('answers 429 when one account has more than maxInFlightPerAccount requests in flight', async () => {
    const token = await sim.client.login();
    const other = await sim.client.login('creator_2fa');
    await sim.client.control('POST', '/faults', { path: '/account/me', kind: 'latency', ms: 300 });
    const results = await Promise.all(
      Array.from({ length: 7 }, () => sim.client.call('GET', '/api/v1/account/me', { token })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429]);
    const limited = results.find((r) => r.status === 429);
    expect(limited?.headers.get('retry-after')).toBe('1');
    expect(limited?.body).toEqual({ success: false, error: { code: 429, details: 'Too many requests' } });

    expect((await sim.client.call('GET', '/api/v1/account/walls', { token: other })).status).toBe(200);
    const observed = await observationOf('creator_demo');
    // Four held by the latency plus each rejected one while it is being answered.
    expect(observed.maxInFlight).toBeGreaterThanOrEqual(5);
    expect(observed.served429).toBe(3);
  });

  it('follows a changed maxInFlightPerAccount', async () => {
    const token = await sim.client.login();
    await sim.client.control('POST', '/config', { maxInFlightPerAccount: 1 });
    await sim.client.control('POST', '/faults', { path: '/account/me', kind: 'latency', ms: 200 });
    const results = await Promise.all(
      [1, 2].map(() => sim.client.call('GET', '/api/v1/account/me', { token })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 429]);
  });

  it('answers 429 with Retry-After above maxRequestsPerMinutePerAccount in a rolling minute', async () => {
    const token = await sim.client.login();
    const other = await sim.client.login('creator_2fa');
    // The login counted too: six requests a minute leave five for the calls below.
    const config = await sim.client.control('POST', '/config', { maxRequestsPerMinutePerAccount: 6 });
    expect(config.maxRequestsPerMinutePerAccount).toBe(6);
    for (let i = 0; i < 5; i++)
      expect((await sim.client.call('GET', '/api/v1/account/walls', { token })).status).toBe(200);
    const limited = await sim.client.call('GET', '/api/v1/account/walls', { token });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await sim.client.call('GET', '/api/v1/account/walls', { token: other })).status).toBe(200);
    expect((await observationOf('creator_demo')).served429).toBe(1);
  });

  it('rejects config keys that cannot change at run time and bad values', async () => {
    for (const body of [{ seed: 2 }, { maxInFlightPerAccount: 0 }, { mediaOfferGapMs: 'soon' }]) {
      const result = await sim.client.call('POST', '/_sim/config', { body });
      expect(result.status).toBe(400);
    }
  });
});

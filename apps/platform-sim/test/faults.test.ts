import { beforeEach, describe, expect, it } from 'vitest';
import { sleep, useSim } from './support';

const sim = useSim({}, { resetEach: true });
let demoToken: string;
let twofaToken: string;

beforeEach(async () => {
  demoToken = await sim.client.login('creator_demo');
  twofaToken = await sim.client.login('creator_2fa');
});

const me = (token: string) => sim.client.call('GET', '/api/v1/account/me', { token });
const addFault = (body: unknown) => sim.client.control<{ id: string }>('POST', '/faults', body);

async function listLabels(token: string): Promise<string[]> {
  return (await sim.client.api('GET', '/lists', token)).map((list: any) => list.label);
}

describe('fault injection', () => {
  it('adds fixed latency to matching requests only, for count requests', async () => {
    await addFault({
      account: 'creator_demo',
      path: '/api/v1/account/me',
      count: 1,
      kind: 'latency',
      ms: 250,
    });
    const slowStart = Date.now();
    expect((await me(demoToken)).status).toBe(200);
    expect(Date.now() - slowStart).toBeGreaterThanOrEqual(240);
    const fastStart = Date.now();
    await me(demoToken);
    expect(Date.now() - fastStart).toBeLessThan(200);
  });

  it('adds latency drawn from a range', async () => {
    await addFault({ kind: 'latency', minMs: 100, maxMs: 150, count: 1 });
    const start = Date.now();
    await me(demoToken);
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(95);
    expect(elapsed).toBeLessThan(1000);
  });

  it('serves 5xx errors for count requests, scoped to one account', async () => {
    const { id } = await addFault({ account: 'creator_demo', kind: 'error', status: 503, rate: 1, count: 2 });
    expect(id).toMatch(/^flt_/);
    for (let i = 0; i < 2; i++) {
      const failed = await me(demoToken);
      expect(failed.status).toBe(503);
      expect(failed.body).toEqual({ success: false, error: { code: 500, details: 'Injected fault.' } });
    }
    expect((await me(demoToken)).status).toBe(200);
    expect((await sim.client.control('GET', '/faults')).faults).toEqual([]);
  });

  it('leaves other accounts, paths and methods alone', async () => {
    await addFault({
      account: 'creator_demo',
      path: '/message/like',
      method: 'POST',
      kind: 'error',
      status: 500,
    });
    expect((await me(demoToken)).status).toBe(200);
    expect((await me(twofaToken)).status).toBe(200);
    const fixtures = await sim.client.fixtures();
    const like = await sim.client.call('POST', '/api/v1/message/like', {
      token: demoToken,
      body: { messageId: fixtures.accounts[0].messageIds[0], type: 1 },
    });
    expect(like.status).toBe(500);
    const faults = (await sim.client.control('GET', '/faults')).faults;
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({
      kind: 'error',
      account: 'creator_demo',
      path: '/api/v1/message/like',
      method: 'POST',
      applied: 1,
    });
    expect(await sim.client.control('DELETE', '/faults')).toEqual({ cleared: 1 });
    expect((await sim.client.control('GET', '/faults')).faults).toEqual([]);
  });

  it('fails about `rate` of the requests', async () => {
    await addFault({ kind: 'error', status: 502, rate: 0.5 });
    let failures = 0;
    for (let i = 0; i < 60; i++) if ((await me(demoToken)).status === 502) failures += 1;
    expect(failures).toBeGreaterThan(10);
    expect(failures).toBeLessThan(50);
  });

  it('serves 429 with Retry-After for a rateLimit fault', async () => {
    await addFault({ account: 'creator_demo', kind: 'rateLimit', retryAfterSeconds: 2, count: 1 });
    const limited = await me(demoToken);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.body.error.code).toBe(429);
    expect((await me(demoToken)).status).toBe(200);
  });

  it('stops after durationMs', async () => {
    await addFault({ kind: 'error', status: 503, durationMs: 150 });
    expect((await me(demoToken)).status).toBe(503);
    await sleep(200);
    expect((await me(demoToken)).status).toBe(200);
  });

  it('resets the connection before applying a write', async () => {
    await addFault({
      account: 'creator_demo',
      path: '/lists',
      method: 'POST',
      kind: 'resetBeforeApply',
      count: 1,
    });
    await expect(
      sim.client.call('POST', '/api/v1/lists', { token: demoToken, body: { label: 'never made' } }),
    ).rejects.toThrow();
    expect(await listLabels(demoToken)).not.toContain('never made');
  });

  it('applies a write, then resets the connection without answering', async () => {
    await addFault({
      account: 'creator_demo',
      path: '/lists',
      method: 'POST',
      kind: 'resetAfterApply',
      count: 1,
    });
    await expect(
      sim.client.call('POST', '/api/v1/lists', { token: demoToken, body: { label: 'made but unanswered' } }),
    ).rejects.toThrow();
    expect(await listLabels(demoToken)).toContain('made but unanswered');
    const observed = await sim.client.control('GET', '/observations?account=creator_demo');
    const account = Object.values(observed.accounts)[0] as any;
    expect(account.requests['POST /api/v1/lists']).toBe(1);
    expect(account.responses.reset).toBe(1);
  });

  it('expires the sessions of one account at once until a new login', async () => {
    const result = await addFault({ account: 'creator_demo', kind: 'sessionExpiry' });
    expect(result).toMatchObject({ id: expect.stringMatching(/^flt_/), revokedSessions: 1 });
    expect((await me(demoToken)).status).toBe(401);
    expect((await me(twofaToken)).status).toBe(200);
    const fresh = await sim.client.login('creator_demo');
    expect((await me(fresh)).status).toBe(200);
  });

  it('accepts the platform account id as scope and rejects bad fault bodies', async () => {
    const fixtures = await sim.client.fixtures();
    await addFault({ account: fixtures.accounts[1].platformAccountId, kind: 'error', status: 503, count: 1 });
    expect((await me(demoToken)).status).toBe(200);
    expect((await me(twofaToken)).status).toBe(503);
    for (const body of [
      { kind: 'nope' },
      { kind: 'latency' },
      { kind: 'error', rate: 2 },
      { kind: 'error', account: 'ghost' },
      // A misspelled field would make the fault global; fields a kind ignores; faults that cannot match.
      { kind: 'error', acount: 'creator_demo' },
      { kind: 'sessionExpiry', account: 'creator_demo', count: 1 },
      { kind: 'error', method: 'FOO' },
      { kind: 'error', status: 429 },
      { kind: 'rateLimit', retryAfterSeconds: 0 },
    ]) {
      const result = await sim.client.call('POST', '/_sim/faults', { body });
      expect(result.status).toBe(400);
      expect(typeof result.body.error).toBe('string');
    }
  });

  it('clears only faults still in effect, and numbers them from 1 again after a reset', async () => {
    const used = await addFault({ kind: 'error', path: '/account/me', count: 1 });
    expect((await me(demoToken)).status).toBe(503);
    expect((await sim.client.call('DELETE', `/_sim/faults/${used.id}`)).status).toBe(404);
    await addFault({ kind: 'error', path: '/account/me', count: 1 });
    await me(demoToken);
    expect((await sim.client.call('DELETE', '/_sim/faults')).body).toEqual({ cleared: 0 });
    await sim.client.control('POST', '/reset');
    expect((await addFault({ kind: 'error', path: '/account/me', count: 1 })).id).toBe('flt_1');
  });

  it('authenticates a request held by injected latency when it is handled, not before', async () => {
    await addFault({ account: 'creator_demo', path: '/lists', method: 'POST', kind: 'latency', ms: 400 });
    const held = sim.client.call('POST', '/api/v1/lists', { token: demoToken, body: { label: 'too late' } });
    await sleep(100);
    await addFault({ account: 'creator_demo', kind: 'sessionExpiry' });
    expect((await held).status).toBe(401);
    const fresh = await sim.client.login('creator_demo');
    expect(await listLabels(fresh)).not.toContain('too late');
  });

  it('does not count an injected 429 or error against the account’s own per-minute limit', async () => {
    await sim.client.control('POST', '/config', { maxRequestsPerMinutePerAccount: 4 });
    await addFault({ account: 'creator_demo', kind: 'rateLimit', retryAfterSeconds: 1, count: 2 });
    await addFault({ account: 'creator_demo', kind: 'error', path: '/account/me', count: 1 });
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await me(demoToken)).status);
    // Four accepted in the minute: the login before the test, then three; the faults' answers are not counted.
    expect(statuses).toEqual([429, 429, 503, 200, 200, 200, 429]);
  });
});

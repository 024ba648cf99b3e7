import { ApiKeyStore, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCredentials } from '../support/common';
import { eventually, spawnApi, spawnApp } from '../support/processes';
import { gw, startStack, type TestStack } from '../support/stack';

type Spawned = ReturnType<typeof spawnApp>;

/** An API process of its own on `stack`'s Redis and prefix; `output` receives its log lines. */
async function apiProcess(
  stack: TestStack,
  processes: Spawned[],
  env: Record<string, string> = {},
  output?: (text: string) => void,
) {
  const api = await spawnApi({ ...stack.env, ...env }, output);
  processes.push(api);
  return api.url;
}

async function killAll(processes: Spawned[]) {
  for (const { child, exited } of processes) {
    child.kill('SIGKILL');
    await exited;
  }
}

const accounts = (apiUrl: string, key: string) =>
  fetch(`${apiUrl}/api/fansly/accounts`, { headers: { 'x-api-key': key } }).then(async (response) => ({
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as any,
  }));

/**
 * Limits count per clock minute: a test that must stay inside one starts at least `needMs` before
 * the minute ends, waiting for the next one if need be.
 */
async function inOneMinute(needMs = 20_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((done) => setTimeout(done, left + 100));
}

const limitHeaders = (headers: Headers) => ({
  limit: headers.get('x-ratelimit-limit'),
  remaining: headers.get('x-ratelimit-remaining'),
  reset: headers.get('x-ratelimit-reset'),
});

describe('per-key limits shared by two API processes', () => {
  let stack: TestStack;
  const processes: Spawned[] = [];
  let urls: string[];
  let apiKeys: ApiKeyStore;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    apiKeys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
    urls = await Promise.all([apiProcess(stack, processes), apiProcess(stack, processes)]);
  }, 60_000);
  afterAll(async () => {
    await killAll(processes);
    await stack?.stop();
  });

  it('lets 600 requests of a 600 a minute key through, across both, and refuses the 601st with 429', async () => {
    const { key } = await apiKeys.create('t1', { label: 'plan-600', rpm: 600 });
    const passed: { remaining: number; reset: number }[] = [];
    // 600 requests, alternating between the processes, 20 at a time: a few seconds in all, inside one
    // clock minute.
    await inOneMinute();
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_unused, i) => accounts(urls[(batch * 20 + i) % 2] as string, key)),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        const headers = limitHeaders(answer.headers);
        expect(headers.limit).toBe('600');
        passed.push({ remaining: Number(headers.remaining), reset: Number(headers.reset) });
      }
    }
    // Counted once each, atomically across both processes: every count from 599 down to 0 once.
    expect(passed.map((p) => p.remaining).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 600 }, (_u, i) => i),
    );
    for (const { reset } of passed) {
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }

    for (const url of urls) {
      const refused = await accounts(url, key);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        statusCode: 429,
        code: 'RATE_LIMITED',
        error: 'Too Many Requests',
      });
      expect(refused.body.message).toContain('600 requests a minute');
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      expect(limitHeaders(refused.headers)).toEqual({ limit: '600', remaining: '0', reset: String(wait) });
    }
    // Another key of the same tenant has a limit of its own.
    const other = await apiKeys.create('t1', { label: 'other', rpm: 600 });
    expect((await accounts(urls[0] as string, other.key)).status).toBe(200);
  }, 60_000);

  it('does not count or limit a key created with rpm 0 (unlimited)', async () => {
    const { key } = await apiKeys.create('t1', { label: 'unlimited', rpm: 0 });
    const answer = await accounts(urls[1] as string, key);
    expect(answer.status).toBe(200);
    expect(limitHeaders(answer.headers)).toEqual({ limit: null, remaining: null, reset: null });
  });
});

describe('the default limit', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { API_KEY_RPM_DEFAULT: '5' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('holds keys stored without a limit (made before limits, the bootstrap key) to API_KEY_RPM_DEFAULT', async () => {
    // The stack's keys are made without one.
    expect(
      (await new ApiKeyStore(stack.redis, storeKeys(stack.prefix)).resolve(stack.keys.t2))?.rpm,
    ).toBeUndefined();
    const statuses: number[] = [];
    await inOneMinute(5_000);
    for (let i = 0; i < 5; i++) {
      const answer = await gw(stack, 'GET', '/accounts', { key: stack.keys.t2 });
      statuses.push(answer.status);
      expect(limitHeaders(answer.headers)).toMatchObject({ limit: '5', remaining: String(4 - i) });
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await gw(stack, 'GET', '/accounts', { key: stack.keys.t2 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('puts the headers on every answer under the API prefix: errors and unknown paths too', async () => {
    for (const [method, path, status] of [
      ['GET', '/no-such-route', 404],
      ['GET', '/accounts/by-ids', 400],
      ['GET', '/jobs/job_nope', 404],
    ] as const) {
      const answer = await gw(stack, method, path, { key: stack.keys.t1 });
      expect(answer.status, `${method} ${path}`).toBe(status);
      expect(answer.headers.get('x-ratelimit-limit'), `${method} ${path}`).toBe('5');
    }
  });
});

describe('keys at the defaults', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // API_KEY_RPM_DEFAULT left unset (an empty value sets nothing).
    stack = await startStack({ worker: false, env: { API_KEY_RPM_DEFAULT: '' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('are unlimited: 700 requests in a minute, none refused, no limit headers', async () => {
    // All in one clock minute: a limit of 600 would refuse the last 100.
    await inOneMinute(20_000);
    const statuses = new Map<number, number>();
    for (let sent = 0; sent < 700; sent += 50) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => gw(stack, 'GET', '/accounts', { key: stack.keys.t1 })),
      );
      for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      expect(limitHeaders(answers[0]?.headers ?? new Headers())).toEqual({
        limit: null,
        remaining: null,
        reset: null,
      });
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 700 });
  });
});

const UNBELIEVED = '198.51.100.99';

describe('failed authentications', () => {
  let stack: TestStack;
  const processes: Spawned[] = [];
  let url: string;
  let log = '';
  // An API process behind a load balancer: the test's requests come from 127.0.0.1, the balancer.
  let trustedUrl: string;
  let trustedLog = '';

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    [url, trustedUrl] = await Promise.all([
      apiProcess(
        stack,
        processes,
        { AUTH_FAILURE_THRESHOLD: '3', AUTH_FAILURE_MAX_DELAY_MS: '2000' },
        (text) => {
          log += text;
        },
      ),
      apiProcess(
        stack,
        processes,
        {
          TRUST_PROXY: '10.0.0.0/8, loopback',
          AUTH_FAILURE_THRESHOLD: '2',
          AUTH_FAILURE_MAX_DELAY_MS: '2000',
        },
        (text) => {
          trustedLog += text;
        },
      ),
    ]);
  }, 60_000);
  afterAll(async () => {
    await killAll(processes);
    await stack?.stop();
  });

  const timed = async (key: string | undefined) => {
    const started = Date.now();
    // Without TRUST_PROXY a forwarded address is not believed: the peer is the client.
    const response = await fetch(`${url}/api/fansly/accounts`, {
      headers: { 'x-forwarded-for': UNBELIEVED, ...(key === undefined ? {} : { 'x-api-key': key }) },
    });
    await response.text();
    return { status: response.status, ms: Date.now() - started };
  };

  it('logs each with the key prefix and the address (never the key), and slows an address past the threshold; valid keys are not', async () => {
    const wrong = `cgk_${'W'.repeat(32)}`;
    const first = [await timed(wrong), await timed(wrong), await timed(undefined)];
    expect(first.map((a) => a.status)).toEqual([401, 401, 401]);
    for (const { ms } of first) expect(ms).toBeLessThan(1_000);

    // Past 3 failures: 250 ms, 500 ms, 1 s, then 2 s (the cap) before each 401.
    const slowed = [
      await timed(wrong),
      await timed(wrong),
      await timed(wrong),
      await timed(wrong),
      await timed(wrong),
    ];
    expect(slowed.map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    expect(slowed[0]?.ms).toBeGreaterThanOrEqual(240);
    expect(slowed[2]?.ms).toBeGreaterThanOrEqual(990);
    expect(slowed[3]?.ms).toBeGreaterThanOrEqual(1_990);
    expect(slowed[4]?.ms).toBeGreaterThanOrEqual(1_990);
    expect(slowed[4]?.ms).toBeLessThan(3_500);

    // The same address with a valid key: answered at once, the failures notwithstanding.
    const valid = await timed(stack.keys.t1);
    expect(valid.status).toBe(200);
    expect(valid.ms).toBeLessThan(1_000);

    await eventually(async () => (log.includes('"failures":3') ? true : undefined), 5_000, 'failure logged');
    const lines = log.split('\n').filter((line) => line.includes('authentication failed'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(
      lines.some(
        (line) => line.includes('"keyPrefix":"cgk_WWWW…"') && line.includes('"address":"127.0.0.1"'),
      ),
    ).toBe(true);
    expect(lines.some((line) => line.includes('no API key'))).toBe(true);
    expect(log).not.toContain(UNBELIEVED);
    expect(log).not.toContain(wrong);
    expect(log).not.toContain(stack.keys.t1);
  });

  const failAs = async (forwardedFor: string) => {
    const started = Date.now();
    const response = await fetch(`${trustedUrl}/api/fansly/accounts`, {
      headers: { 'x-forwarded-for': forwardedFor, 'x-api-key': `cgk_${'F'.repeat(32)}` },
    });
    await response.text();
    return { status: response.status, ms: Date.now() - started };
  };

  it('behind a load balancer (TRUST_PROXY): counts per forwarded client, not per balancer, and logs the client', async () => {
    const first = [await failAs('198.51.100.7'), await failAs('198.51.100.7')];
    expect(first.map((a) => a.status)).toEqual([401, 401]);
    // Its third is past the threshold of 2: slowed.
    const third = await failAs('198.51.100.7');
    expect(third.status).toBe(401);
    expect(third.ms).toBeGreaterThanOrEqual(240);
    // Another client behind the same balancer: its own first failure.
    expect((await failAs('198.51.100.8')).status).toBe(401);

    const failures = (address: string) =>
      trustedLog
        .split('\n')
        .filter((line) => line.includes(`"address":"${address}"`))
        .map((line) => JSON.parse(line).failures);
    await eventually(
      async () => (failures('198.51.100.8').length > 0 ? true : undefined),
      5_000,
      'the other client logged',
    );
    expect(failures('198.51.100.7')).toEqual([1, 2]);
    expect(failures('198.51.100.8')).toEqual([1]);
    expect(trustedLog).not.toContain('"address":"127.0.0.1"');
  });

  it('behind a load balancer: believes the chain only as far as the trusted hops: a client cannot name itself another address', async () => {
    // The client sent "X-Forwarded-For: 192.0.2.1", an internal hop (10.1.2.3, trusted) added the
    // client's real address and the balancer the internal hop's.
    await failAs('192.0.2.1, 198.51.100.20, 10.1.2.3');
    await eventually(
      async () => (trustedLog.includes('"address":"198.51.100.20"') ? true : undefined),
      5_000,
      'the real client logged',
    );
    expect(trustedLog).not.toContain('192.0.2.1');
  });

  it("behind a load balancer: writes job status links with the caller's scheme and host", async () => {
    const response = await fetch(`${trustedUrl}/api/fansly/connect`, {
      method: 'POST',
      headers: {
        'x-api-key': stack.keys.t1,
        'content-type': 'application/json',
        prefer: 'respond-async',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'gateway.example.com',
      },
      body: JSON.stringify(connectCredentials(stack, 'creator_demo')),
    });
    const body = (await response.json()) as any;
    expect(response.status).toBe(202);
    expect(body.data.statusUrl).toBe(`https://gateway.example.com/api/fansly/jobs/${body.data.jobId}`);
  });

  it('refuses TRUST_PROXY with an entry that is no address, CIDR or range name', async () => {
    let stderr = '';
    const failed = spawnApp(
      'api',
      { ...stack.env, PORT: '0', TRUST_PROXY: '10.0.0.0/8, lb.internal' },
      (text) => {
        stderr += text;
      },
    );
    processes.push(failed);
    expect(await failed.exited).toBe(1);
    expect(stderr).toContain('invalid environment variable TRUST_PROXY: "lb.internal"');
  });
});

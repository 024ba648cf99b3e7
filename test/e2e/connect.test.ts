import { PlatformProfile } from '@cg/operations';
import { ConnectionSession } from '@cg/operations/testing';
import { parseKeyring } from '@cg/secrets';
import { createStore } from '@cg/store';
import { MAX_TWOFA_ATTEMPTS } from '@cg/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectEnvelope, expectError } from '../support/assert';
import { connectCredentials } from '../support/common';
import { eventually } from '../support/processes';
import { clearFaults, injectFault, observations, resetObservations } from '../support/sim';
import { account, finished, gw, redisText, scanKeys, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
/** Every platform secret the sandbox handed out during this file, for the plaintext scan. */
const secrets = new Set<string>(['sandbox-password', '424242']);

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** This file holds answers to the envelope alone; what `data` carries is checked where it matters. */
const ENVELOPE_ONLY = { message: expect.any(String), platform: 'none' } as const;

async function connectDemo(key = stack.keys.t1) {
  const response = await gw(stack, 'POST', '/connect', {
    key,
    body: connectCredentials(stack, 'creator_demo', 'Demo'),
  });
  expect(response.status).toBe(201);
  secrets.add(response.body.data.data.response.token);
  return response;
}

describe('API keys', () => {
  it('rejects a missing key with 401 in the error shape', async () => {
    expectError(await gw(stack, 'GET', '/accounts', { key: null }), 401, 'UNAUTHORIZED');
  });

  it('rejects a wrong key with 401', async () => {
    const response = await gw(stack, 'POST', '/connect', { key: 'cgk_wrong', body: {} });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(response.body.error).toBe('Unauthorized');
  });
});

describe('connect', () => {
  it('connects creator_demo and answers the connected shape', async () => {
    const demo = account(stack, 'creator_demo');
    const { body } = await connectDemo();
    expectEnvelope(body, 201, ENVELOPE_ONLY);
    expect(body.data.status_code).toBe(200);
    expect(body.data.account_id).toMatch(/^acct_/);
    expect(body.data.data.success).toBe(true);
    const session = body.data.data.response;
    expect(session.accountId).toBe(demo.platformAccountId);
    expect(errorsOf(ConnectionSession.schema, session)).toEqual([]);
  });

  it('keeps the account id when the same platform account is connected again', async () => {
    const first = await connectDemo();
    const second = await connectDemo();
    expect(second.body.data.account_id).toBe(first.body.data.account_id);
  });

  it('rejects a wrong password with a clear 4xx and stores nothing', async () => {
    const response = await gw(stack, 'POST', '/connect', {
      key: stack.keys.t2,
      body: { username: 'creator_demo', password: 'not-the-password', name: 'X', countryCode: 'US' },
    });
    expectError(response, 400, 'INVALID_CREDENTIALS');
    expect((await gw(stack, 'GET', '/accounts', { key: stack.keys.t2 })).body.data.accounts).toEqual([]);
  });

  it('answers a login the platform refuses with 401 as 502 UPSTREAM_ERROR, not "connect again"', async () => {
    await injectFault(stack, { path: '/api/v1/login', method: 'POST', kind: 'error', status: 401, count: 1 });
    try {
      const response = await gw(stack, 'POST', '/connect', {
        key: stack.keys.t2,
        body: connectCredentials(stack, 'creator_demo', 'X'),
      });
      expectError(response, 502, 'UPSTREAM_ERROR');
      expect(response.body.message).toBe('the platform refused the login');
    } finally {
      await clearFaults(stack);
    }
  });

  it('validates the body before anything is enqueued', async () => {
    const before = await scanKeys(stack.redis, stack.prefix);
    const response = await gw(stack, 'POST', '/connect', {
      body: { username: 'creator_demo', password: 'x', name: 'Demo', countryCode: 'us' },
    });
    expectBadRequest(response, 'countryCode');
    const missing = await gw(stack, 'POST', '/connect', {
      body: { username: 'creator_demo', name: 'Demo', countryCode: 'US' },
    });
    expect(missing.body.message).toContain('password');
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(before.sort());
  });

  it('connects creator_2fa in two steps, rejecting a wrong code', async () => {
    const twofa = account(stack, 'creator_2fa');
    const credentials = connectCredentials(stack, 'creator_2fa', 'Two', 'GB');
    const started = await gw(stack, 'POST', '/connect', { body: credentials });
    expect(started.status).toBe(201);
    expectEnvelope(started.body, 201, ENVELOPE_ONLY);
    expect(started.body.data).toMatchObject({ status_code: 200, requires_2fa: true });
    expect(typeof started.body.data.twofa_token).toBe('string');
    expect(started.body.data.masked_email).toContain('*');
    expect(started.body.data.message).toContain('verify-2fa');
    expect(started.body.data.account_id).toBeUndefined();

    const verify = (code: string, password = credentials.password) =>
      gw(stack, 'POST', '/verify-2fa', {
        body: {
          ...credentials,
          password,
          twoFactorToken: started.body.data.twofa_token,
          twoFactorCode: code,
        },
      });
    expectError(await verify('000000'), 400, 'INVALID_2FA_CODE');
    // The right code with another password than /connect's: refused before the code is spent.
    expectError(await verify(twofa.twofaCode!, `${credentials.password}-other`), 400, 'INVALID_CREDENTIALS');

    const done = await verify(twofa.twofaCode!);
    expect(done.status).toBe(201);
    expect(done.body.data.account_id).toMatch(/^acct_/);
    expect(done.body.data.data.response.accountId).toBe(twofa.platformAccountId);
    secrets.add(done.body.data.data.response.token);
  });

  it('takes MAX_TWOFA_ATTEMPTS attempts of one token, then asks for a new /connect', async () => {
    const credentials = connectCredentials(stack, 'creator_2fa', 'Two', 'GB');
    const started = await gw(stack, 'POST', '/connect', { body: credentials });
    const verify = (password: string) =>
      gw(stack, 'POST', '/verify-2fa', {
        body: {
          ...credentials,
          password,
          twoFactorToken: started.body.data.twofa_token,
          twoFactorCode: account(stack, 'creator_2fa').twofaCode,
        },
      });
    for (let n = 0; n < MAX_TWOFA_ATTEMPTS; n++)
      expectError(await verify('wrong'), 400, 'INVALID_CREDENTIALS');
    const spent = await verify(credentials.password);
    expectError(spent, 400, 'TWOFA_TOKEN_EXPIRED');
    expect(spent.body.message).toContain('call /connect again');
  });

  it('refuses a twofa token of another tenant or an unknown one', async () => {
    const twofa = account(stack, 'creator_2fa');
    const credentials = connectCredentials(stack, 'creator_2fa', 'Two', 'GB');
    const started = await gw(stack, 'POST', '/connect', { body: credentials });
    const body = {
      ...credentials,
      twoFactorToken: started.body.data.twofa_token,
      twoFactorCode: twofa.twofaCode,
    };
    expectError(
      await gw(stack, 'POST', '/verify-2fa', { key: stack.keys.t2, body }),
      400,
      'TWOFA_TOKEN_EXPIRED',
    );
    expectError(
      await gw(stack, 'POST', '/verify-2fa', { body: { ...body, twoFactorToken: 'tfa_unknown' } }),
      400,
      'TWOFA_TOKEN_EXPIRED',
    );
  });
});

describe('accounts', () => {
  it('lists the tenant’s accounts and nobody else’s', async () => {
    const { body } = await connectDemo();
    const listed = await gw(stack, 'GET', '/accounts');
    expect(listed.status).toBe(200);
    const mine = listed.body.data.accounts.find((a: any) => a.accountId === body.data.account_id);
    expect(mine).toMatchObject({
      name: 'Demo',
      country: 'US',
      username: 'creator_demo',
      status: 'connected',
    });
    const other = await gw(stack, 'GET', '/accounts', { key: stack.keys.t2 });
    expect(other.body.data.accounts.map((a: any) => a.accountId)).not.toContain(body.data.account_id);
  });

  it('answers another tenant’s account exactly like a missing one', async () => {
    const { body } = await connectDemo();
    const foreign = await gw(stack, 'GET', `/${body.data.account_id}/me`, { key: stack.keys.t2 });
    const missing = await gw(stack, 'GET', '/acct_doesnotexist/me', { key: stack.keys.t2 });
    expectError(foreign, 404, 'NOT_FOUND');
    expectError(missing, 404, 'NOT_FOUND');
    expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(missing.body).sort());
    expectError(
      await gw(stack, 'DELETE', `/accounts/${body.data.account_id}`, { key: stack.keys.t2 }),
      404,
      'NOT_FOUND',
    );
  });

  it('returns the connected account’s own profile', async () => {
    const demo = account(stack, 'creator_demo');
    const { body } = await connectDemo();
    const me = await gw(stack, 'GET', `/${body.data.account_id}/me`);
    expect(me.status).toBe(200);
    expectEnvelope(me.body, 200, ENVELOPE_ONLY);
    expect(me.body.data.data.success).toBe(true);
    const profile = me.body.data.data.response;
    expect(errorsOf(PlatformProfile.schema, profile)).toEqual([]);
    expect(profile.id).toBe(demo.platformAccountId);
    expect(profile.username).toBe('creator_demo');
  });

  /** Once a request used the account, so the API trusts it as connected (ACCOUNT_CACHE_MS). */
  async function connectAndUse(): Promise<string> {
    const { body } = await connectDemo(stack.keys.t2);
    const id = body.data.account_id;
    expect((await gw(stack, 'GET', `/${id}/me`, { key: stack.keys.t2 })).status).toBe(200);
    return id;
  }

  /**
   * Nothing of the connection stays. Its platform account's lane state (pacing, no secret) does, named
   * by the platform account: other connections of it share it (docs/scheduling.md). The job just
   * answered gives its slot back after its answer, so this may take a moment.
   */
  async function expectNothingLeft(id: string) {
    await eventually(
      async () =>
        (await scanKeys(stack.redis, stack.prefix)).some((key) => key.includes(id)) ? undefined : true,
      5_000,
      `no key of account ${id} left`,
    );
  }

  it('disconnects: the record and its sealed secrets are gone, and the API answers 404 at once', async () => {
    const id = await connectAndUse();
    const removed = await gw(stack, 'DELETE', `/accounts/${id}`, { key: stack.keys.t2 });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ account_id: id, disconnected: true });
    // Its own DELETE drops the API's trust: the API answers, nothing is queued.
    const after = await gw(stack, 'GET', `/${id}/me`, { key: stack.keys.t2 });
    expectError(after, 404, 'NOT_FOUND');
    expect(after.body.message).toBe(`account ${id} not found`);
    await expectNothingLeft(id);
  });

  it('disconnects: the jobs that connected it go too (credentials sealed in, session sealed out)', async () => {
    const twofa = account(stack, 'creator_2fa');
    const credentials = connectCredentials(stack, 'creator_2fa', 'Two', 'GB');
    const asynchronously = { key: stack.keys.t2, headers: { prefer: 'respond-async' } };
    const started = await gw(stack, 'POST', '/connect', { ...asynchronously, body: credentials });
    const first = await finished(started.body.data.statusUrl, stack.keys.t2);
    const verify = (twoFactorCode: string) =>
      gw(stack, 'POST', '/verify-2fa', {
        ...asynchronously,
        body: { ...credentials, twoFactorToken: first.body.data.twofa_token, twoFactorCode },
      });
    // A wrong code first: that attempt's input holds the password too.
    const wrong = await verify('000000');
    expect((await finished(wrong.body.data.statusUrl, stack.keys.t2)).status).toBe(400);
    const verified = await verify(twofa.twofaCode!);
    const done = await finished(verified.body.data.statusUrl, stack.keys.t2);
    expect(done.status).toBe(201);
    secrets.add(done.body.data.data.response.token);
    const id = done.body.data.account_id;
    // The jobs' BullMQ keys (the write ledger's mark of the sent code holds no secret, and expires).
    const jobKeys = async () =>
      (await scanKeys(stack.redis, stack.prefix)).filter((key) =>
        [started, wrong, verified].some((job) => key.includes(`:operations:${job.body.data.jobId}`)),
      );
    expect(await jobKeys()).not.toEqual([]);

    expect((await gw(stack, 'DELETE', `/accounts/${id}`, { key: stack.keys.t2 })).status).toBe(200);
    for (const job of [started, wrong, verified]) {
      const gone = await fetch(job.body.data.statusUrl, { headers: { 'x-api-key': stack.keys.t2 } });
      expect(gone.status).toBe(404);
    }
    expect(await jobKeys()).toEqual([]);
  });

  it('an account removed by another API process: the worker answers 404 and nothing of it stays', async () => {
    const id = await connectAndUse();
    const otherProcess = createStore(stack.redis, stack.prefix, parseKeyring(stack.env.ENCRYPTION_KEY ?? ''));
    expect(await otherProcess.accounts.remove('t2', id)).toMatchObject({ accountId: id });
    // This API process still trusts it: the job is queued, and the worker finds the account gone.
    const after = await gw(stack, 'GET', `/${id}/me`, { key: stack.keys.t2 });
    expectError(after, 404, 'NOT_FOUND');
    expect(after.body.message).toBe('the account was disconnected');
    await expectNothingLeft(id);
  });
});

describe('accounts/by-ids', () => {
  it('looks up the fixture profiles', async () => {
    await connectDemo();
    const ids = stack.fixtures.profilePlatformAccountIds.slice(0, 3);
    const response = await gw(stack, 'GET', `/accounts/by-ids?ids=${ids.join(',')}`);
    expect(response.status).toBe(200);
    expectEnvelope(response.body, 200, ENVELOPE_ONLY);
    const profiles = response.body.data.data.response;
    expect(profiles.map((p: any) => p.id).sort()).toEqual([...ids].sort());
    for (const profile of profiles) expect(errorsOf(PlatformProfile.schema, profile)).toEqual([]);
  });

  it('takes as many ids as it says it does (1,000 of 19 digits: a 20 KB URL), and refuses one more', async () => {
    await connectDemo();
    const known = stack.fixtures.profilePlatformAccountIds.slice(0, 2);
    const ids = [
      ...known,
      ...Array.from({ length: 998 }, (_, i) => String(9_000_000_000_000_000_000n + BigInt(i))),
    ];
    const response = await gw(stack, 'GET', `/accounts/by-ids?ids=${ids.join(',')}`);
    expect(response.status).toBe(200);
    expect(response.body.data.data.response.map((p: any) => p.id).sort()).toEqual([...known].sort());
    const tooMany = await gw(stack, 'GET', `/accounts/by-ids?ids=${[...ids, '1'].join(',')}`);
    expectBadRequest(tooMany);
    expect(tooMany.body.message).toMatch(/at most 1000/);
  });

  it('answers 400 naming the ids query parameter when it is missing', async () => {
    for (const path of ['/accounts/by-ids', '/accounts/by-ids?ids=']) {
      const response = await gw(stack, 'GET', path);
      expectBadRequest(response);
      expect(response.body.message).toMatch(/ids query parameter is required/);
    }
  });

  it('needs a connected account of the tenant', async () => {
    const response = await gw(
      stack,
      'GET',
      `/accounts/by-ids?ids=${stack.fixtures.profilePlatformAccountIds[0]}`,
      {
        key: stack.keys.t2,
      },
    );
    expectError(response, 409, 'ACCOUNT_REQUIRED');
  });
});

describe('connecting one platform account again and again', () => {
  it('holds its logins to one account’s limits: at most ACCOUNT_CONCURRENCY (2) in flight', async () => {
    await resetObservations(stack);
    await injectFault(stack, { account: 'creator_demo', kind: 'latency', ms: 300, durationMs: 10_000 });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        gw(stack, 'POST', '/connect', { body: connectCredentials(stack, 'creator_demo') }),
      ),
    );
    await clearFaults(stack);
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    const seen = await observations(stack, account(stack, 'creator_demo').platformAccountId);
    expect(seen.requests['POST /api/v1/login']).toBe(6);
    expect(seen.maxInFlight).toBeLessThanOrEqual(2);
    expect(seen.served429).toBe(0);
    // Anyone may try any username: what its lane keeps expires (its pacing state, a minute on).
    const laneKeys = (await scanKeys(stack.redis, stack.prefix)).filter((key) =>
      key.includes(':lane:login:'),
    );
    expect(laneKeys.length).toBeGreaterThan(0);
    for (const key of laneKeys) {
      expect(key).toMatch(/:state$/);
      expect(await stack.redis.pttl(key)).toBeGreaterThan(0);
    }
  });
});

describe('platform sessions', () => {
  it('renews an expired session with the stored credentials, transparently', async () => {
    const { body } = await connectDemo();
    // Throws unless the sandbox accepts the fault.
    await injectFault(stack, { kind: 'sessionExpiry', account: 'creator_demo' });
    const me = await gw(stack, 'GET', `/${body.data.account_id}/me`);
    expect(me.status).toBe(200);
    expect(me.body.data.data.response.username).toBe('creator_demo');
  });
});

describe('re-authentication', () => {
  it('marks an account whose renewal needs a second factor, answers 409, and recovers on connect', async () => {
    const twofa = account(stack, 'creator_2fa');
    const credentials = connectCredentials(stack, 'creator_2fa', 'Two', 'GB');
    const connectTwofa = async () => {
      const started = await gw(stack, 'POST', '/connect', { body: credentials });
      const done = await gw(stack, 'POST', '/verify-2fa', {
        body: {
          ...credentials,
          twoFactorToken: started.body.data.twofa_token,
          twoFactorCode: twofa.twofaCode,
        },
      });
      secrets.add(done.body.data.data.response.token);
      return done.body.data.account_id as string;
    };
    const id = await connectTwofa();
    expect((await gw(stack, 'GET', `/${id}/me`)).status).toBe(200);

    await injectFault(stack, { kind: 'sessionExpiry', account: 'creator_2fa' });
    const expired = await gw(stack, 'GET', `/${id}/me`);
    expectError(expired, 409, 'REAUTH_REQUIRED');
    expect(expired.body.message).toMatch(/connect/);
    const listed = (await gw(stack, 'GET', '/accounts')).body.data.accounts.find(
      (a: any) => a.accountId === id,
    );
    expect(listed.status).toBe('reauth_required');
    // Told as an event too; a second factor asked is no failed authentication.
    const told = async (name: string) =>
      (await gw(stack, 'GET', `/events?event=${name}&accountId=${id}`)).body.data.events;
    expect(await told('accounts.reauth_required')).toHaveLength(1);
    expect((await told('accounts.reauth_required'))[0].data).toMatchObject({
      accountId: id,
      status: 'reauth_required',
    });
    expect(await told('accounts.authentication_failed')).toHaveLength(0);
    // Refused before anything is queued while the account waits for a new login.
    expectError(await gw(stack, 'GET', `/${id}/me`), 409, 'REAUTH_REQUIRED');

    expect(await connectTwofa()).toBe(id);
    expect((await gw(stack, 'GET', `/${id}/me`)).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  it('leaves no sandbox password, token or code in plaintext in any Redis key or value', async () => {
    const haystack = await redisText(stack);
    expect(haystack.length).toBeGreaterThan(0);
    const all = haystack.join('\n');
    expect(secrets.size).toBeGreaterThan(2);
    for (const secret of secrets) expect(all.includes(secret), `a secret is stored in plaintext`).toBe(false);
  });
});

describe('request parsing', () => {
  it('takes a JSON content type with an empty body as no body, and names nested fields', async () => {
    const response = await fetch(`${stack.apiUrl}/api/fansly/accounts/acct_none`, {
      method: 'DELETE',
      headers: { 'x-api-key': stack.keys.t1, 'content-type': 'application/json' },
    });
    expect(response.status).toBe(404);
    const malformed = await fetch(`${stack.apiUrl}/api/fansly/connect`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keys.t1, 'content-type': 'application/json' },
      body: '{"username":',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).code).toBe('BAD_REQUEST');
  });
});

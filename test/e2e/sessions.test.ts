import { AccountSessions, accountEgress } from '@cg/platform-access';
import { PlatformClient } from '@cg/platform-client';
import { parseKeyring } from '@cg/secrets';
import { createStore } from '@cg/store';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError } from '../support/assert';
import { connectAccount, connectCredentials } from '../support/common';
import { testLogger } from '../support/logs';
import {
  clearFaults,
  injectFault,
  resetObservations,
  sawRequests,
  simRequests,
  simSession,
  slowDown,
} from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

// Renewing platform sessions (README, "How it works": the worker logs in again with the stored
// credentials when a platform session expires), seen from the caller and from the sandbox.
let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
beforeEach(async () => {
  await resetObservations(stack);
});
afterEach(async () => {
  await clearFaults(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const seen = (username: string, key: string, count: number) => sawRequests(stack, username, key, count);
const logins = async (username: string) => (await simRequests(stack, username))['POST /api/v1/login'] ?? 0;
const status = async (id: string) =>
  (await gw(stack, 'GET', '/accounts')).body.data.accounts.find((a: any) => a.accountId === id)?.status;
const expire = (username: string) => injectFault(stack, { kind: 'sessionExpiry', account: username });
/** Every request of the account to `path` is answered 401, whatever its session. */
const refuse401 = (username: string, path: string) =>
  injectFault(stack, { account: username, path, kind: 'error', status: 401 });
/** The account's next login is held `ms` at the sandbox. */
const slowLogin = (username: string, ms: number) =>
  slowDown(stack, username, '/api/v1/login', ms, { method: 'POST', count: 1 });

describe('a session the platform ends', () => {
  it('is renewed again when the platform also ends the new one while the call is on its way', async () => {
    const id = await connectAccount(stack, 'creator_demo');
    await resetObservations(stack);
    // Each /account/me is held 600 ms and authenticated when it is answered.
    await slowDown(stack, 'creator_demo', '/api/v1/account/me', 600);
    await expire('creator_demo');
    const me = gw(stack, 'GET', `/${id}/me`);
    // The first call is refused (401) after 600 ms, the worker logs in and repeats it: end that
    // session too while the repeat is held. The sandbox counts a request when it arrives, and only
    // once its token names the account: the repeat is the first it counts.
    await seen('creator_demo', 'GET /api/v1/account/me', 1);
    await expire('creator_demo');

    const answer = await me;
    expect(answer.status).toBe(200);
    expect(await logins('creator_demo')).toBe(2);
    expect(await status(id)).toBe('connected');
  });

  it('is not condemned by a re-login that fails after the account was connected again', async () => {
    const fixture = account(stack, 'creator_2fa');
    const connect = async () => {
      const started = await gw(stack, 'POST', '/connect', { body: connectCredentials(stack, 'creator_2fa') });
      const body = {
        ...connectCredentials(stack, 'creator_2fa'),
        twoFactorToken: started.body.data.twofa_token,
      };
      return (await gw(stack, 'POST', '/verify-2fa', { body: { ...body, twoFactorCode: fixture.twofaCode } }))
        .body.data.account_id as string;
    };
    const id = await connect();
    await resetObservations(stack);
    // The worker's re-login (which will meet the second factor) is held while the user connects again.
    await slowLogin('creator_2fa', 5_000);
    await expire('creator_2fa');
    const me = gw(stack, 'GET', `/${id}/me`);
    await seen('creator_2fa', 'POST /api/v1/login', 1);
    expect(await connect()).toBe(id);

    // The stale re-login ends in "second factor needed"; the connection made meanwhile stands, and
    // the waiting request goes on with it.
    expect((await me).status).toBe(200);
    expect(await status(id)).toBe('connected');
    expect((await gw(stack, 'GET', `/${id}/me`)).status).toBe(200);
  });

  it('sends no write for an account disconnected while its session was renewed', async () => {
    const id = await connectAccount(stack, 'creator_demo');
    await resetObservations(stack);
    await slowLogin('creator_demo', 2_000);
    await expire('creator_demo');
    const label = `after-disconnect-${Date.now()}`;
    const created = gw(stack, 'POST', `/${id}/lists/create`, { body: { name: label } });
    // Disconnected while the re-login is held at the platform.
    await seen('creator_demo', 'POST /api/v1/login', 1);
    expect((await gw(stack, 'DELETE', `/accounts/${id}`)).status).toBe(200);

    expectError(await created, 404, 'NOT_FOUND');
    const lists = await (await simSession(stack, 'creator_demo')).get('/lists');
    expect(lists.map((list: any) => list.label)).not.toContain(label);
  });

  it('answers a login the platform refuses oddly as the platform’s failure, and keeps the account', async () => {
    const id = await connectAccount(stack, 'creator_demo');
    await injectFault(stack, {
      account: 'creator_demo',
      path: '/api/v1/login',
      kind: 'error',
      status: 400,
      count: 1,
    });
    await expire('creator_demo');
    const me = await gw(stack, 'GET', `/${id}/me`);
    expectError(me, 502, 'UPSTREAM_ERROR');
    expect(me.body.message).toMatch(/renew/);
    expect(await status(id)).toBe('connected');
    expect((await gw(stack, 'GET', `/${id}/me`)).status).toBe(200);
  });
});

describe('re-logins across worker processes', () => {
  it('logs in once when two processes meet the same expiry, the lock held past its first term', async () => {
    const id = await connectAccount(stack, 'creator_demo');
    const store = createStore(stack.redis, stack.prefix, parseKeyring(stack.env.ENCRYPTION_KEY as string));
    const client = new PlatformClient({ baseUrl: stack.simUrl, timeoutMs: 5_000, connections: 8 });
    // Two processes' sessions: each shares re-logins only within itself. Their lock would lapse
    // after 300 ms, but the login takes 1 s: it is renewed while the login runs.
    const processes = [0, 1].map(() => new AccountSessions(store.accounts, 300));
    const record = await store.accounts.get('t1', id);
    const logger = testLogger();
    const egress = accountEgress({
      client,
      plan: null,
      store,
      redis: stack.redis,
      prefix: stack.prefix,
      log: logger,
    });
    const route = await egress.ofAccount('t1', record!);
    const stale = await store.accounts.session('t1', id);
    await slowLogin('creator_demo', 1_000);
    await expire('creator_demo');
    await resetObservations(stack);

    const answers = await Promise.all(
      processes.map((sessions) => sessions.call<unknown>('t1', id, route, 'accountMe', {}, undefined, stale)),
    );
    expect(answers.map((a) => JSON.stringify(a).includes('"creator_demo"'))).toEqual([true, true]);
    expect(await logins('creator_demo')).toBe(1);
    await client.close();
  });
});

describe('a call the platform refuses with 401 whatever the session', () => {
  it('fails that request alone when the session holds for the account’s profile: no login, no pause', async () => {
    const id = await connectAccount(stack, 'creator_demo');
    await refuse401('creator_demo', '/api/v1/vault/albumsnew');
    await resetObservations(stack);
    const albums = await gw(stack, 'GET', `/${id}/vault/albums`, { headers: { prefer: 'wait=5' } });
    expectError(albums, 502, 'UPSTREAM_ERROR');
    expect(albums.body.message).toContain('session is valid');
    expect(await logins('creator_demo')).toBe(0);
    expect((await gw(stack, 'GET', `/${id}/me`, { headers: { prefer: 'wait=5' } })).status).toBe(200);
  });
});

// Last in the file: it leaves creator_demo's lane paused.
describe('sessions the platform never lets hold', () => {
  it('pause the whole account instead of logging in again for each job as fast as logins come back', async () => {
    const id = await connectAccount(stack, 'creator_demo');
    await refuse401('creator_demo', '/api/v1/account/me');
    await resetObservations(stack);
    const respondAsync = { headers: { prefer: 'respond-async' } };
    const accepted = await Promise.all([1, 2, 3, 4].map(() => gw(stack, 'GET', `/${id}/me`, respondAsync)));
    expect(accepted.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
    const calls = async () => {
      const seen = await simRequests(stack, 'creator_demo');
      return { me: seen['GET /api/v1/account/me'] ?? 0, logins: seen['POST /api/v1/login'] ?? 0 };
    };
    // Each job running at once (ACCOUNT_CONCURRENCY 2) renews twice, then the account waits.
    await seen('creator_demo', 'GET /api/v1/account/me', 3);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const paused = await calls();
    expect(paused.me).toBeLessThanOrEqual(6);
    expect(paused.logins).toBeLessThanOrEqual(4);
    // Retries come after JOB_BACKOFF_MS (50 ms here): none while the account waits.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await calls()).toEqual(paused);
    expect((await gw(stack, 'GET', `/jobs/${accepted[0]?.body.data.jobId}`)).status).toBe(202);
  });
});

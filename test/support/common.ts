import { expect, it } from 'vitest';
import { type SimSession, simSession } from './sim';
import { account, gw, type TestStack } from './stack';

/**
 * The security cases every route must pass, from one place: a missing key and a wrong key are 401,
 * and an account of another tenant is 404 exactly like an unknown one. `path` may contain
 * `{accountId}`, replaced by an account of tenant t1 that `accountId()` returns.
 */
export function runCommonRouteTests(
  getStack: () => TestStack,
  route: { method: string; path: string; body?: unknown },
  accountId?: () => string,
): void {
  const url = () => route.path.replace('{accountId}', accountId?.() ?? 'acct_unknown');

  it(`${route.method} ${route.path}: 401 without an API key`, async () => {
    const response = await gw(getStack(), route.method, url(), { key: null, body: route.body });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code: 'UNAUTHORIZED' });
  });

  it(`${route.method} ${route.path}: 401 with a wrong API key`, async () => {
    const response = await gw(getStack(), route.method, url(), { key: 'cgk_not_a_key', body: route.body });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('UNAUTHORIZED');
  });

  if (route.path.includes('{accountId}')) {
    it(`${route.method} ${route.path}: another tenant's account is 404 like an unknown one`, async () => {
      const stack = getStack();
      const foreign = await gw(stack, route.method, url(), { key: stack.keys.t2, body: route.body });
      const unknown = await gw(stack, route.method, route.path.replace('{accountId}', 'acct_unknown0'), {
        key: stack.keys.t2,
        body: route.body,
      });
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(foreign.body.code).toBe('NOT_FOUND');
      expect(unknown.body.code).toBe('NOT_FOUND');
    });
  }
}

/** The body of POST /connect for sandbox account `username`, connected under `name` and `countryCode`. */
export function connectCredentials(stack: TestStack, username: string, name = username, countryCode = 'US') {
  const fixture = account(stack, username);
  return { username: fixture.username, password: fixture.password, name, countryCode };
}

/** Connects a sandbox account for tenant t1 (or `key`) and returns its service account id. */
export async function connectAccount(
  stack: TestStack,
  username = 'creator_demo',
  key = stack.keys.t1,
): Promise<string> {
  const credentials = connectCredentials(stack, username);
  const started = await gw(stack, 'POST', '/connect', { key, body: credentials });
  if (started.body?.data?.account_id) return started.body.data.account_id as string;
  const done = await gw(stack, 'POST', '/verify-2fa', {
    key,
    body: {
      ...credentials,
      twoFactorToken: started.body.data.twofa_token,
      twoFactorCode: account(stack, username).twofaCode,
    },
  });
  if (done.status !== 201) throw new Error(`connect ${username} failed: ${JSON.stringify(done.body)}`);
  return done.body.data.account_id as string;
}

/**
 * Connects `username` for tenant t1 and logs into the sandbox as it, so a test can hold the gateway's
 * answers against the platform's own.
 */
export async function connectWithSim(
  stack: TestStack,
  username = 'creator_demo',
): Promise<{ accountId: string; sim: SimSession }> {
  const accountId = await connectAccount(stack, username);
  return { accountId, sim: await simSession(stack, username) };
}

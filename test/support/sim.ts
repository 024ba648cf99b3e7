import { eventually } from './processes';
import { account, type TestStack } from './stack';

/**
 * The sandbox reached directly over HTTP, as the tests use it: its control surface (faults,
 * observations, fixtures) and its own API as the platform's client would call it, so a test can
 * compare what the gateway answers with the sandbox's own data (README: "A session with curl").
 */

/** A JSON call to the sandbox; fails on an HTTP error or a platform envelope with `success: false`. */
export async function simJson(stack: TestStack, path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${stack.simUrl}${path}`, init);
  const body = (await response.json()) as any;
  if (!response.ok || body?.success === false)
    throw new Error(`sandbox ${init.method ?? 'GET'} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const postJson = (stack: TestStack, path: string, body: unknown) =>
  simJson(stack, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

// ---- the sandbox's own API

export interface SimSession {
  /** GET under /api/v1 with the session's token; resolves with the envelope's `response`. */
  get<T = any>(path: string, query?: Record<string, string | number>): Promise<T>;
  /** POST of a JSON body under /api/v1 with the session's token; resolves with the envelope's `response`. */
  post<T = any>(path: string, body: unknown): Promise<T>;
}

/** Logs `username` into the sandbox with its fixture's password (and second factor, if it has one). */
export async function simSession(stack: TestStack, username: string): Promise<SimSession> {
  const fixture = account(stack, username);
  const login = (
    await postJson(stack, '/api/v1/login', { username, password: fixture.password, deviceId: '1' })
  ).response;
  const twofa = { token: login?.twofa?.token, code: fixture.twofaCode };
  const session = login?.twofa
    ? (await postJson(stack, '/api/v1/login/twofa', twofa)).response
    : login?.session;
  const token = session?.token;
  if (typeof token !== 'string') throw new Error(`sandbox login of ${username} failed`);
  const headers = () => ({
    authorization: token,
    'fansly-client-id': '1',
    'fansly-client-ts': String(Date.now()),
    'fansly-client-check': 'test',
  });
  const answer = async (method: string, path: string, response: Response) => {
    const body = (await response.json()) as any;
    if (!response.ok || body?.success !== true)
      throw new Error(`sandbox ${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
    return body.response;
  };
  return {
    get: async (path, query = {}) => {
      const url = new URL(`${stack.simUrl}/api/v1${path}`);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
      return answer('GET', path, await fetch(url, { headers: headers() }));
    },
    post: async (path, body) => {
      const init = {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      };
      return answer('POST', path, await fetch(`${stack.simUrl}/api/v1${path}`, init));
    },
  };
}

// ---- the control surface

/** The sandbox's fixture of one account (ids of its seeded records), as it stands now. */
export async function simFixture(stack: TestStack, username: string): Promise<any> {
  const body = await simJson(stack, `/_sim/fixtures?accounts=${username}`);
  return body.accounts[0];
}

export async function injectFault(stack: TestStack, fault: Record<string, unknown>): Promise<void> {
  await postJson(stack, '/_sim/faults', fault);
}

/**
 * Every request of `username` to `path` ("/api/v1/…") is held `ms` at the sandbox; `more` narrows the
 * fault (`method`, `count`, `durationMs`).
 */
export function slowDown(
  stack: TestStack,
  username: string,
  path: string,
  ms: number,
  more: Record<string, unknown> = {},
): Promise<void> {
  return injectFault(stack, { account: username, path, kind: 'latency', ms, ...more });
}

/** Changes the sandbox's settings (`POST /_sim/config`, sandbox.md). */
export async function simConfig(stack: TestStack, config: Record<string, unknown>): Promise<void> {
  await postJson(stack, '/_sim/config', config);
}

export async function clearFaults(stack: TestStack): Promise<void> {
  await fetch(`${stack.simUrl}/_sim/faults`, { method: 'DELETE' });
}

export interface AccountObservation {
  username: string;
  requests: Record<string, number>;
  maxInFlight: number;
  minMediaOfferGapMs: number | null;
  duplicates: { method: string; path: string; count: number }[];
  served429: number;
}

export async function observations(stack: TestStack, platformAccountId: string): Promise<AccountObservation> {
  const all = (await simJson(stack, '/_sim/observations')) as {
    accounts: Record<string, AccountObservation>;
  };
  // An account the platform has not heard from since the last reset has no entry yet.
  return (
    all.accounts[platformAccountId] ?? {
      username: '',
      requests: {},
      maxInFlight: 0,
      minMediaOfferGapMs: null,
      duplicates: [],
      served429: 0,
    }
  );
}

/** Requests the sandbox saw for one account, keyed "METHOD /api/v1/path" (README: observations). */
export async function simRequests(stack: TestStack, username: string): Promise<Record<string, number>> {
  const body = (await simJson(stack, `/_sim/observations?account=${username}`)) as {
    accounts?: Record<string, AccountObservation>;
  };
  return Object.values(body.accounts ?? {})[0]?.requests ?? {};
}

/** Requests `key` ("METHOD /api/v1/path") the sandbox saw for one account so far. */
export async function simRequestCount(stack: TestStack, username: string, key: string): Promise<number> {
  return (await simRequests(stack, username))[key] ?? 0;
}

/** Every item of an offset-paged sandbox collection, paged as the platform pages it (100 a page). */
export async function simAll<T>(
  sim: SimSession,
  path: string,
  pick: (page: any) => T[],
  query: Record<string, string | number> = {},
): Promise<T[]> {
  const all: T[] = [];
  for (;;) {
    const page = pick(await sim.get(path, { ...query, limit: 100, offset: all.length }));
    all.push(...page);
    if (page.length < 100) return all;
  }
}

/**
 * Waits until the sandbox has seen at least `count` requests `key` ("METHOD /api/v1/path") of
 * `username` (it counts a request when it arrives, once its token names the account).
 */
export function sawRequests(stack: TestStack, username: string, key: string, count: number): Promise<true> {
  return eventually(
    async () => ((await simRequestCount(stack, username, key)) >= count ? true : undefined),
    10_000,
    `${count} × ${key}`,
  );
}

export async function resetObservations(stack: TestStack): Promise<void> {
  await fetch(`${stack.simUrl}/_sim/observations/reset`, { method: 'POST' });
}

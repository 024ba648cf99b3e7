import type { TestStack } from './stack';

/**
 * Talks to the sandbox directly, as the platform's own client would, so a test can compare what
 * the gateway answers with the sandbox's own data (README: "A session with curl").
 */
export interface SimSession {
  get<T = any>(path: string, query?: Record<string, string | number>): Promise<T>;
}

export async function simSession(stack: TestStack, username: string, password: string): Promise<SimSession> {
  const login = await fetch(`${stack.simUrl}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, deviceId: '1' }),
  });
  const token = ((await login.json()) as any)?.response?.session?.token;
  if (typeof token !== 'string') throw new Error(`sandbox login of ${username} failed`);
  return {
    get: async (path, query = {}) => {
      const search = new URLSearchParams(
        Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
      );
      const response = await fetch(`${stack.simUrl}/api/v1${path}?${search}`, {
        headers: {
          authorization: token,
          'fansly-client-id': '1',
          'fansly-client-ts': String(Date.now()),
          'fansly-client-check': 'test',
        },
      });
      const body = (await response.json()) as any;
      if (!response.ok || body?.success !== true)
        throw new Error(`sandbox GET ${path}: ${response.status} ${JSON.stringify(body)}`);
      return body.response;
    },
  };
}

/** Requests the sandbox saw for one account, keyed "METHOD /api/v1/path" (README: observations). */
export async function simRequests(stack: TestStack, username: string): Promise<Record<string, number>> {
  const response = await fetch(`${stack.simUrl}/_sim/observations?account=${username}`);
  const body = (await response.json()) as any;
  const accounts = Object.values(body.accounts ?? {}) as { requests?: Record<string, number> }[];
  return accounts[0]?.requests ?? {};
}

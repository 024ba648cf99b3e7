import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { buildSim } from '../src/app';
import type { SimOptions } from '../src/options';

/** Helpers for the sandbox's own tests: a listening instance and a small HTTP client. */

/** Response bodies are navigated ad hoc in tests; the README documents their shapes. */
// biome-ignore lint/suspicious/noExplicitAny: test payloads are read field by field, like a user would
export type Payload = any;

export interface HttpResult<T = Payload> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  body?: unknown;
  token?: string | null;
  /** Client headers (fansly-*) are sent with a token unless this is false. */
  clientHeaders?: boolean;
  headers?: Record<string, string>;
}

export class SimClient {
  constructor(readonly baseUrl: string) {}

  async call<T = Payload>(method: string, path: string, options: CallOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { accept: 'application/json, text/plain, */*' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) {
      headers.authorization = options.token;
      if (options.clientHeaders !== false) {
        headers['fansly-client-id'] = '700000000000000001';
        headers['fansly-client-ts'] = String(Date.now());
        headers['fansly-client-check'] = 'a1b2c3d4e5f6';
      }
    }
    Object.assign(headers, options.headers ?? {});
    const separator = path.includes('?') ? '&' : '?';
    const url = path.startsWith('/api/')
      ? `${this.baseUrl}${path}${separator}ngsw-bypass=true`
      : `${this.baseUrl}${path}`;
    const response = await fetch(url, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : JSON.parse(text),
    };
  }

  /** GET under /api/v1 with a token; returns `response` after asserting success. */
  async api<T = Payload>(method: string, path: string, token: string, body?: unknown): Promise<T> {
    const result = await this.call(method, `/api/v1${path}`, { token, body });
    if (result.status !== 200 || result.body?.success !== true) {
      throw new Error(`${method} ${path} failed: ${result.status} ${JSON.stringify(result.body)}`);
    }
    return result.body.response as T;
  }

  async login(username = 'creator_demo', password = 'sandbox-password'): Promise<string> {
    const result = await this.call('POST', '/api/v1/login', {
      body: { username, password, deviceId: '700000000000000001' },
    });
    if (result.status !== 200) throw new Error(`login failed: ${JSON.stringify(result.body)}`);
    if (result.body.response.twofa) {
      const second = await this.call('POST', '/api/v1/login/twofa', {
        body: { token: result.body.response.twofa.token, code: '424242' },
      });
      return second.body.response.token as string;
    }
    return result.body.response.session.token as string;
  }

  async control<T = Payload>(method: string, path: string, body?: unknown): Promise<T> {
    const result = await this.call(method, `/_sim${path}`, body === undefined ? {} : { body });
    if (result.status !== 200)
      throw new Error(`${method} /_sim${path} failed: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body as T;
  }

  async fixtures(): Promise<Payload> {
    return this.control('GET', '/fixtures');
  }
}

export interface RunningSim {
  app: FastifyInstance;
  client: SimClient;
  close: () => Promise<void>;
}

export async function startSim(options: Partial<SimOptions> = {}): Promise<RunningSim> {
  const app = await buildSim({ logLevel: 'silent', ...options });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, client: new SimClient(baseUrl), close: () => app.close() };
}

/**
 * The test file's sandbox: started before its tests, closed after them and, with `resetEach`, back
 * to its seeded state before each test. The handle reaches the running sandbox once `beforeAll`
 * has run, so use it inside tests and hooks.
 */
export function useSim(options: Partial<SimOptions> = {}, { resetEach = false } = {}): RunningSim {
  let running: RunningSim | undefined;
  const current = (): RunningSim => {
    if (!running) throw new Error('the sandbox starts in beforeAll: use it inside a test or hook');
    return running;
  };
  beforeAll(async () => {
    running = await startSim(options);
  });
  afterAll(async () => {
    await running?.close();
  });
  if (resetEach) {
    beforeEach(async () => {
      await current().client.control('POST', '/reset');
    });
  }
  return {
    get app() {
      return current().app;
    },
    get client() {
      return current().client;
    },
    close: () => current().close(),
  };
}

/** A session of creator_demo with its fixture: where most tests of the sandbox's API start. */
export interface DemoSession {
  token: string;
  /** creator_demo's fixture: the ids of its seeded records. */
  demo: Payload;
  /** Platform account ids of the profiles the sandbox can look up. */
  profileIds: string[];
}

export async function loginDemo(client: SimClient): Promise<DemoSession> {
  const token = await client.login();
  const fixtures = await client.fixtures();
  return { token, demo: fixtures.accounts[0], profileIds: fixtures.profilePlatformAccountIds };
}

export const SNOWFLAKE = /^\d{15,19}$/;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, retryAfterSeconds } from '../src/client';
import { GatewayApiError } from '../src/errors';

// The client's decisions on answers the real stack gives only under faults (Redis away, a full
// backlog, a proxy's error page, a hostile Location), scripted by a small HTTP server on loopback.
// test/e2e/sdk.test.ts runs the client against the stack itself.

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
interface Request {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A server that answers its queue of scripted answers in order and records every request. */
function scriptedServer() {
  const requests: Request[] = [];
  let script: Answer[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = script.shift() ?? { status: 500, body: 'script ended' };
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(text);
    });
  });
  return {
    server,
    requests,
    script: (...answers: Answer[]) => {
      script = answers;
      requests.length = 0;
    },
  };
}

const ok = (data: unknown, status = 200): Answer => ({
  status,
  body: { statusCode: status, message: 'OK', data, timestamp: new Date().toISOString() },
});
const failure = (status: number, code: string, headers?: Record<string, string>): Answer => ({
  status,
  body: { statusCode: status, message: `failed: ${code}`, error: 'Failure', code, requestId: 'req_1' },
  ...(headers ? { headers } : {}),
});

const gateway = scriptedServer();
const elsewhere = scriptedServer();
let base: string;
let otherBase: string;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
beforeAll(async () => {
  base = await listen(gateway.server);
  otherBase = await listen(elsewhere.server);
});
afterAll(() => {
  gateway.server.close();
  elsewhere.server.close();
});
beforeEach(() => elsewhere.script());

const client = () => createClient({ baseUrl: `${base}/api/fansly`, apiKey: 'key_secret' });
const connectBody = { username: 'u', password: 'p', name: 'n', countryCode: 'US' };

describe('retries', () => {
  it('repeats a request the gateway refused before queueing it, as Retry-After says, a write too', async () => {
    gateway.script(
      failure(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }),
      failure(429, 'RATE_LIMITED', { 'retry-after': '0' }),
      ok({ account_id: 'acct_1' }, 201),
    );
    const answer = await client().connect({ body: connectBody });
    expect(answer.statusCode).toBe(201);
    expect(gateway.requests.map((r) => r.url)).toEqual(Array(3).fill('/api/fansly/connect'));
    // The login takes no Idempotency-Key: none is sent.
    expect(gateway.requests.every((r) => r.headers['idempotency-key'] === undefined)).toBe(true);
  });

  it('does not repeat what may have run: 503 UPSTREAM_UNAVAILABLE, 502 outcome unknown', async () => {
    for (const [status, code] of [
      [503, 'UPSTREAM_UNAVAILABLE'],
      [502, 'UPSTREAM_OUTCOME_UNKNOWN'],
    ] as const) {
      gateway.script(failure(status, code, { 'retry-after': '0' }), ok({}));
      const error = await client()
        .trackingLinksCreate({ accountId: 'acct_1', body: { label: 'x' } })
        .catch((e: GatewayApiError) => e);
      expect(error).toBeInstanceOf(GatewayApiError);
      expect(error).toMatchObject({ statusCode: status, code, requestId: 'req_1', retryAfter: 0 });
      expect(gateway.requests).toHaveLength(1);
    }
  });

  it('repeats a keyed write under the same key while its first request is being queued', async () => {
    gateway.script(failure(409, 'IDEMPOTENCY_KEY_IN_USE', { 'retry-after': '0' }), ok({ id: '1' }, 201));
    await client().trackingLinksCreate(
      { accountId: 'acct_1', body: { label: 'x' } },
      { idempotencyKey: 'k-1' },
    );
    expect(gateway.requests.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
  });

  it('gives up at once when Retry-After is longer than it may wait, and after its attempts', async () => {
    gateway.script(failure(429, 'RATE_LIMITED', { 'retry-after': '60' }));
    const late = await client()
      .listAccounts()
      .catch((e: GatewayApiError) => e);
    expect(late).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', retryAfter: 60 });
    expect(gateway.requests).toHaveLength(1);

    gateway.script(...Array(3).fill(failure(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' })));
    const down = await client()
      .listAccounts()
      .catch((e: GatewayApiError) => e);
    expect(down).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(gateway.requests).toHaveLength(3);
  });
});

describe('answers', () => {
  it('reads an error page that is not the gateway’s as INVALID_RESPONSE', async () => {
    gateway.script({
      status: 502,
      body: '<html>Bad Gateway</html>',
      headers: { 'content-type': 'text/html' },
    });
    const error = await client()
      .listAccounts()
      .catch((e: GatewayApiError) => e);
    expect(error).toMatchObject({ statusCode: 502, code: 'INVALID_RESPONSE' });
  });

  it('polls its own API root for a job, whatever host the status URL names', async () => {
    const accepted = {
      jobId: 'job_abc',
      state: 'waiting',
      statusUrl: `${otherBase}/api/fansly/jobs/job_abc`,
    };
    gateway.script(ok(accepted, 202), ok(accepted, 202), ok({ status_code: 200, data: { response: 'me' } }));
    const answer = await createClient({
      baseUrl: base,
      apiKey: 'key_secret',
      poll: { intervalMs: 10 },
    }).me({ accountId: 'acct_1' });
    expect(answer.data).toEqual({ status_code: 200, data: { response: 'me' } });
    expect(gateway.requests.map((r) => r.url)).toEqual([
      '/api/fansly/acct_1/me',
      '/api/fansly/jobs/job_abc',
      '/api/fansly/jobs/job_abc',
    ]);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('follows no redirect, so the API key never travels to another host', async () => {
    // A refused redirect is fetch's TypeError, like a dropped connection: a read tries it again.
    gateway.script(...Array(3).fill({ status: 307, headers: { location: `${otherBase}/steal` } }));
    const error = await client()
      .listAccounts()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(gateway.requests).toHaveLength(3);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('puts path parameters encoded in the path and the rest in the query', async () => {
    gateway.script(ok({}));
    await createClient({ baseUrl: `${base}/`, apiKey: 'key_secret', platform: 'other' }).profileByUsername({
      username: 'a b/c',
    });
    expect(gateway.requests[0]?.url).toBe('/api/other/search/a%20b%2Fc');
    gateway.script(ok({}));
    await client().subscribers({ accountId: 'acct_1', status: 'all', limit: 5, search: undefined });
    expect(gateway.requests[0]?.url).toBe('/api/fansly/acct_1/subscribers?status=all&limit=5');
    expect(gateway.requests[0]?.headers['x-api-key']).toBe('key_secret');
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterSeconds('5')).toBe(5);
    expect(
      retryAfterSeconds(new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2026, 0, 1)),
    ).toBe(30);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});

import { Buffer } from 'node:buffer';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHECK_KEY, PlatformClient } from '../src/client';
import { endpoints } from '../src/endpoints';
import { PlatformError } from '../src/errors';
import { clientCheck } from '../src/signing';

// A stand-in for the platform on 127.0.0.1: it records exactly what the client sent and answers with
// whatever the test sets, so headers, paths and error mapping are checked over real HTTP.

interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

const SESSION_ID = '312345678901234567';
const TOKEN = Buffer.from(`${SESSION_ID}:1:2:0a1b2c3d4e5f60718293a4b5c6d7e8f9`).toString('base64');
const DEVICE_ID = '298765432109876543';
const AUTH = { token: TOKEN, deviceId: DEVICE_ID };
const CHECK_KEY = 'necvac-govry3-tybkYz';

const requests: Received[] = [];
let handler: Handler = (_req, res) => json(res, 200, { success: true, response: {} });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const received: Received = {
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(received);
    handler(req, res, received);
  });
});

let baseUrl = '';
let client: PlatformClient;

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function fail(status: number, code: number, details: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => json(res, status, { success: false, error: { code, details } }, headers);
}

function only(): Received {
  expect(requests).toHaveLength(1);
  const [first] = requests;
  if (first === undefined) throw new Error('no request received');
  return first;
}

async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

const session = {
  id: '411111111111111111',
  token: TOKEN,
  accountId: '511111111111111111',
  deviceId: DEVICE_ID,
  status: 2,
  ip: '203.0.113.7',
  metadata: null,
  checkToken: null,
  lastUsed: 1736942400000,
};

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new PlatformClient({ baseUrl, checkKey: CHECK_KEY, timeoutMs: 2000, connections: 8 });
});

afterEach(() => {
  requests.length = 0;
  handler = (_req, res) => json(res, 200, { success: true, response: {} });
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('getDeviceId', () => {
  it('asks GET /api/v1/device/id without any fansly-* or session header', async () => {
    handler = (_req, res) => json(res, 200, { success: true, response: DEVICE_ID });
    await expect(client.getDeviceId()).resolves.toBe(DEVICE_ID);
    const req = only();
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/api/v1/device/id');
    expect(req.query.get('ngsw-bypass')).toBe('true');
    expect(Object.keys(req.headers).filter((h) => h.startsWith('fansly-'))).toEqual([]);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers.origin).toBe('https://fansly.com');
    expect(req.headers.referer).toBe('https://fansly.com/');
    expect(req.headers.accept).toBe('application/json, text/plain, */*');
    expect(req.headers['user-agent']).toMatch(/^Mozilla\/5\.0 /);
  });

  it('refuses a device id that is not a string', async () => {
    handler = (_req, res) => json(res, 200, { success: true, response: { id: DEVICE_ID } });
    const err = await rejection(client.getDeviceId());
    expect(err.kind).toBe('bad_response');
    expect(err.retry).toBe('permanent');
  });
});

describe('login', () => {
  it('posts the credentials and returns the session', async () => {
    handler = (_req, res) => json(res, 200, { success: true, response: { session } });
    const outcome = await client.login({
      username: 'creator@example.com',
      password: 'hunter2!',
      deviceId: DEVICE_ID,
    });
    expect(outcome).toEqual({ kind: 'session', session });

    const req = only();
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/api/v1/login');
    expect(req.query.get('ngsw-bypass')).toBe('true');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({
      username: 'creator@example.com',
      password: 'hunter2!',
      deviceId: DEVICE_ID,
    });
    // No session yet: the device headers are signed, the session ones absent.
    expect(req.headers['fansly-client-id']).toBe(DEVICE_ID);
    expect(req.headers['fansly-client-check']).toBe(clientCheck(CHECK_KEY, '/api/v1/login', DEVICE_ID));
    expect(req.headers['fansly-client-ts']).toMatch(/^\d+$/);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers['fansly-session-id']).toBeUndefined();
  });

  it('returns the second-factor challenge', async () => {
    handler = (_req, res) =>
      json(res, 200, {
        success: true,
        response: { twofa: { token: 'twofa-tok-1', email: 'c***@example.com' } },
      });
    await expect(client.login({ username: 'u', password: 'p', deviceId: DEVICE_ID })).resolves.toEqual({
      kind: 'twofa',
      token: 'twofa-tok-1',
      email: 'c***@example.com',
    });
  });

  it('maps wrong credentials to invalid_credentials without echoing the password', async () => {
    handler = fail(400, 1, 'Incorrect username or password.');
    const err = await rejection(
      client.login({ username: 'u', password: 'S3cret-pass', deviceId: DEVICE_ID }),
    );
    expect(err).toMatchObject({
      kind: 'invalid_credentials',
      retry: 'permanent',
      status: 400,
      upstreamCode: 1,
    });
    expect(err.endpoint).toBe('login');
    expect(err.message).toBe('login: HTTP 400 code 1: Incorrect username or password.');
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toContain('S3cret-pass');
  });

  it('calls a session without a token a bad response', async () => {
    handler = (_req, res) => json(res, 200, { success: true, response: { session: { id: '1' } } });
    const err = await rejection(client.login({ username: 'u', password: 'p', deviceId: DEVICE_ID }));
    expect(err.kind).toBe('bad_response');
  });
});

describe('loginTwofa', () => {
  it('posts token and code and returns the session given as the response', async () => {
    handler = (_req, res) => json(res, 200, { success: true, response: session });
    await expect(
      client.loginTwofa({ token: 'twofa-tok-1', code: '123456', deviceId: DEVICE_ID }),
    ).resolves.toEqual(session);
    const req = only();
    expect(req.path).toBe('/api/v1/login/twofa');
    expect(JSON.parse(req.body)).toEqual({ token: 'twofa-tok-1', code: '123456' });
    expect(req.headers['fansly-client-check']).toBe(clientCheck(CHECK_KEY, '/api/v1/login/twofa', DEVICE_ID));
  });

  it('also reads the session under response.session, filling absent fields with null', async () => {
    const { lastUsed: _lastUsed, ip: _ip, checkToken: _checkToken, ...partial } = session;
    handler = (_req, res) => json(res, 200, { success: true, response: { session: partial } });
    const result = await client.loginTwofa({ token: 't', code: '1', deviceId: DEVICE_ID });
    expect(result).toEqual({ ...partial, ip: null, checkToken: null });
  });

  it.each([
    [2, 'Invalid two-factor code.', 'invalid_twofa_code'],
    [3, 'Two-factor token expired.', 'twofa_token_expired'],
  ] as const)('maps code %i to %s without echoing the code', async (code, details, kind) => {
    handler = fail(400, code, details);
    const err = await rejection(
      client.loginTwofa({ token: 'twofa-tok-9', code: '987654', deviceId: DEVICE_ID }),
    );
    expect(err).toMatchObject({
      kind,
      retry: 'permanent',
      status: 400,
      upstreamCode: code,
      endpoint: 'loginTwofa',
    });
    expect(err.message).not.toContain('987654');
    expect(err.message).not.toContain('twofa-tok-9');
  });
});

describe('call', () => {
  it('sends every header of the protocol, the path params and the query', async () => {
    handler = (_req, res) => json(res, 200, { success: true, response: [{ accountId: '7' }] });
    const before = Date.now();
    const result = await client.call(AUTH, 'following', {
      params: { accountId: '611111111111111111' },
      query: { before: 0, after: 0, limit: 25, offset: 50, search: undefined, flag: true },
    });
    expect(result).toEqual([{ accountId: '7' }]);

    const req = only();
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/api/v1/account/611111111111111111/following');
    expect(Object.fromEntries(req.query)).toEqual({
      before: '0',
      after: '0',
      limit: '25',
      offset: '50',
      flag: 'true',
      'ngsw-bypass': 'true',
    });
    expect(req.headers.authorization).toBe(TOKEN);
    expect(req.headers['fansly-client-id']).toBe(DEVICE_ID);
    expect(req.headers['fansly-session-id']).toBe(SESSION_ID);
    expect(req.headers['fansly-client-check']).toBe(
      clientCheck(CHECK_KEY, '/api/v1/account/611111111111111111/following', DEVICE_ID),
    );
    const ts = Number(req.headers['fansly-client-ts']);
    expect(ts).toBeGreaterThanOrEqual(before - 5000);
    expect(ts).toBeLessThanOrEqual(Date.now() + 5000);
    expect(req.headers.origin).toBe('https://fansly.com');
    expect(req.headers.referer).toBe('https://fansly.com/');
    expect(req.headers.accept).toBe('application/json, text/plain, */*');
    expect(req.headers['user-agent']).toMatch(/Chrome\//);
    expect(req.headers['content-type']).toBeUndefined();
    expect(req.body).toBe('');
  });

  it('posts a JSON body with its content type', async () => {
    const post = { id: '9', content: 'hello' };
    handler = (_req, res) => json(res, 200, { success: true, response: post });
    const body = {
      content: 'hello',
      fypFlags: 0,
      attachments: [{ contentId: '81', contentType: 1, pos: 0 }],
      wallIds: ['71'],
    };
    await expect(client.call(AUTH, 'postCreate', { body })).resolves.toEqual(post);
    const req = only();
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/api/v1/post');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual(body);
    expect(req.headers['fansly-client-check']).toBe(clientCheck(CHECK_KEY, '/api/v1/post', DEVICE_ID));
  });

  it('escapes path parameters and signs the escaped path', async () => {
    handler = (_req, res) => json(res, 200, { success: true, response: [] });
    await client.call(AUTH, 'following', { params: { accountId: 'a/b c' } });
    const req = only();
    expect(req.path).toBe('/api/v1/account/a%2Fb%20c/following');
    expect(req.headers['fansly-client-check']).toBe(
      clientCheck(CHECK_KEY, '/api/v1/account/a%2Fb%20c/following', DEVICE_ID),
    );
  });

  it('keeps fansly-client-ts from going backwards across calls', async () => {
    for (let i = 0; i < 20; i++) await client.call(AUTH, 'accountMe');
    const stamps = requests.map((r) => Number(r.headers['fansly-client-ts']));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThanOrEqual(stamps[i - 1] ?? 0);
  });

  it('uses the default check key and a configured user agent', async () => {
    const other = new PlatformClient({ baseUrl, userAgent: 'Mozilla/5.0 test-agent' });
    try {
      await other.call(AUTH, 'accountMe');
    } finally {
      await other.close();
    }
    const req = only();
    expect(req.headers['fansly-client-check']).toBe(
      clientCheck(DEFAULT_CHECK_KEY, '/api/v1/account/me', DEVICE_ID),
    );
    expect(req.headers['user-agent']).toBe('Mozilla/5.0 test-agent');
  });

  it('refuses a token without a session id before sending anything', async () => {
    const err = await rejection(client.call({ token: 'not-a-token!', deviceId: DEVICE_ID }, 'accountMe'));
    expect(err).toMatchObject({ kind: 'unauthorized', retry: 'permanent', endpoint: 'accountMe' });
    expect(err.message).not.toContain('not-a-token');
    expect(requests).toHaveLength(0);
  });

  it('rejects a missing path parameter as a programming error', async () => {
    await expect(client.call(AUTH, 'following', {})).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });
});

describe('error mapping (docs/upstream-decisions.md)', () => {
  type Case = [
    label: string,
    endpoint: 'accountMe' | 'listItemsAdd' | 'payoutMethodDelete' | 'trackingLinkUpsert' | 'vaultAlbumDelete',
    status: number,
    code: number,
    details: string,
    expected: { kind: string; retry: string },
  ];
  const cases: Case[] = [
    [
      'no session token',
      'accountMe',
      400,
      99,
      'missing parameter "sessionToken"',
      { kind: 'session_missing', retry: 'permanent' },
    ],
    [
      'missing fansly header',
      'accountMe',
      400,
      98,
      'missing header "fansly-client-check"',
      { kind: 'bad_request', retry: 'permanent' },
    ],
    [
      'invalid session',
      'accountMe',
      401,
      401,
      'invalid session',
      { kind: 'unauthorized', retry: 'permanent' },
    ],
    [
      'step-up required',
      'payoutMethodDelete',
      400,
      4,
      'Two-factor verification required.',
      { kind: 'twofa_required', retry: 'permanent' },
    ],
    [
      'validation',
      'listItemsAdd',
      400,
      10,
      'invalid field "type"',
      { kind: 'bad_request', retry: 'permanent' },
    ],
    [
      'not allowed',
      'trackingLinkUpsert',
      403,
      20,
      'default link cannot be edited',
      { kind: 'forbidden', retry: 'permanent' },
    ],
    [
      'unknown object',
      'vaultAlbumDelete',
      404,
      404,
      'album not found',
      { kind: 'not_found', retry: 'permanent' },
    ],
    ['500 on a read', 'accountMe', 500, 500, 'internal error', { kind: 'unavailable', retry: 'retryable' }],
    [
      '500 on a write',
      'listItemsAdd',
      500,
      500,
      'internal error',
      { kind: 'outcome_unknown', retry: 'outcome_unknown' },
    ],
    ['503 on a write', 'listItemsAdd', 503, 500, 'maintenance', { kind: 'unavailable', retry: 'retryable' }],
  ];

  it.each(cases)('%s', async (_label, endpoint, status, code, details, expected) => {
    handler = fail(status, code, details);
    const err = await rejection(
      client.call(AUTH, endpoint, { body: endpoint === 'accountMe' ? undefined : {} }),
    );
    expect(err).toMatchObject({ ...expected, status, upstreamCode: code, endpoint });
    expect(err.message).toBe(`${endpoint}: HTTP ${status} code ${code}: ${details}`);
    expect(err.message).not.toContain(TOKEN);
    expect('retryAfterMs' in err).toBe(false);
  });

  it('honours Retry-After in seconds on a 429', async () => {
    handler = fail(429, 429, 'Too many requests', { 'retry-after': '3' });
    const err = await rejection(client.call(AUTH, 'listItemsAdd', { body: {} }));
    expect(err).toMatchObject({ kind: 'rate_limited', retry: 'retryable', status: 429, retryAfterMs: 3000 });
  });

  it('honours Retry-After as an HTTP date', async () => {
    handler = (_req, res) =>
      json(
        res,
        429,
        { success: false, error: { code: 429, details: 'Too many requests' } },
        { 'retry-after': new Date(Date.now() + 60_000).toUTCString() },
      );
    const err = await rejection(client.call(AUTH, 'accountMe'));
    expect(err.kind).toBe('rate_limited');
    // toUTCString drops the milliseconds, so the wait is between 59 and 60 s.
    expect(err.retryAfterMs).toBeGreaterThan(58_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('bounds a Retry-After to an hour, in seconds or as a date', async () => {
    handler = fail(429, 429, 'Too many requests', { 'retry-after': '999999999' });
    const seconds = await rejection(client.call(AUTH, 'accountMe'));
    expect(seconds).toMatchObject({ kind: 'rate_limited', retryAfterMs: 3_600_000 });
    handler = fail(429, 429, 'Too many requests', { 'retry-after': 'Fri, 01 Jan 2100 00:00:00 GMT' });
    const date = await rejection(client.call(AUTH, 'accountMe'));
    expect(date).toMatchObject({ kind: 'rate_limited', retryAfterMs: 3_600_000 });
  });

  it('leaves the wait to the caller when a 429 has no Retry-After', async () => {
    handler = fail(429, 429, 'Too many requests');
    const err = await rejection(client.call(AUTH, 'accountMe'));
    expect(err).toMatchObject({ kind: 'rate_limited', retry: 'retryable' });
    expect('retryAfterMs' in err).toBe(false);
  });

  it('reads `message` when an error has no `details`, and keeps it short and on one line', async () => {
    handler = (_req, res) =>
      json(res, 400, { success: false, error: { code: 10, message: `bad\nfield ${'x'.repeat(500)}` } });
    const err = await rejection(client.call(AUTH, 'accountMe'));
    expect(err.kind).toBe('bad_request');
    expect(err.message).not.toContain('\n');
    expect(err.message.length).toBeLessThan(260);
    expect(err.message).toMatch(/^accountMe: HTTP 400 code 10: bad field x+…$/);
  });

  it('maps a 200 with success false by its code', async () => {
    handler = fail(200, 3, 'Two-factor token expired.');
    const err = await rejection(client.loginTwofa({ token: 't', code: '1', deviceId: DEVICE_ID }));
    expect(err).toMatchObject({ kind: 'twofa_token_expired', retry: 'permanent', status: 200 });
  });

  it('calls an unreadable 2xx a bad response: permanent for a read, outcome unknown for a write', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>maintenance</html>');
    };
    expect(await rejection(client.call(AUTH, 'accountMe'))).toMatchObject({
      kind: 'bad_response',
      retry: 'permanent',
    });
    expect(await rejection(client.call(AUTH, 'messageLike', { body: {} }))).toMatchObject({
      kind: 'bad_response',
      retry: 'outcome_unknown',
    });
  });

  it('calls a success whose response is not the endpoint’s container a bad response, never an empty result', async () => {
    for (const response of [null, 'text', 0, []]) {
      handler = (_req, res) => json(res, 200, { success: true, response });
      const write = await rejection(client.call(AUTH, 'trackingLinkUpsert', { body: {} }));
      expect(write).toMatchObject({ kind: 'bad_response', retry: 'outcome_unknown' });
      expect(write.message).toBe('trackingLinkUpsert: response is not an object');
    }
    for (const response of [null, {}]) {
      handler = (_req, res) => json(res, 200, { success: true, response });
      const read = await rejection(client.call(AUTH, 'listItemsRead'));
      expect(read).toMatchObject({ kind: 'bad_response', retry: 'permanent' });
      expect(read.message).toBe('listItemsRead: response is not an array');
    }
  });

  it('knows the container of every response read through call', () => {
    const undeclared = Object.entries(endpoints)
      .filter(([, def]) => def.auth && !('response' in def))
      .map(([name]) => name);
    expect(undeclared).toEqual([]);
  });

  it('classifies an HTML 502 from the edge by its status', async () => {
    handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    };
    const read = await rejection(client.call(AUTH, 'listItemsRead', { query: { listId: '1' } }));
    expect(read).toMatchObject({ kind: 'unavailable', retry: 'retryable', status: 502 });
    // A write's 502 proves nothing: the edge may have lost the answer of an origin that applied it.
    const err = await rejection(client.call(AUTH, 'listItemsAdd', { body: {} }));
    expect(err).toMatchObject({ kind: 'outcome_unknown', retry: 'outcome_unknown', status: 502 });
    expect('upstreamCode' in err).toBe(false);
    expect(err.message).toBe('listItemsAdd: HTTP 502');
  });

  it('treats 418 as throttling', async () => {
    handler = fail(418, 418, 'teapot');
    const err = await rejection(client.call(AUTH, 'postCreate', { body: {} }));
    expect(err).toMatchObject({ kind: 'rate_limited', retry: 'retryable' });
  });
});

describe('transport failures', () => {
  it('a socket destroyed after the request arrived: outcome unknown for a POST, retryable for a GET', async () => {
    handler = (req) => req.socket.destroy();
    const write = await rejection(client.call(AUTH, 'listItemsAdd', { body: { listItems: [] } }));
    expect(write).toMatchObject({
      kind: 'outcome_unknown',
      retry: 'outcome_unknown',
      endpoint: 'listItemsAdd',
    });
    expect(write.networkCode).toMatch(/^(UND_ERR_SOCKET|ECONNRESET)$/);
    expect(write.message).toContain('after the request was sent');

    const read = await rejection(client.call(AUTH, 'accountMe'));
    expect(read).toMatchObject({ kind: 'unavailable', retry: 'retryable', endpoint: 'accountMe' });
    expect(requests).toHaveLength(2);
    expect('status' in read).toBe(false);
  });

  it('no answer within timeoutMs: outcome unknown for a POST, retryable for a GET', async () => {
    const hasty = new PlatformClient({ baseUrl, timeoutMs: 150 });
    handler = () => {
      // Never answer; the client's headers timeout ends the wait.
    };
    try {
      const write = await rejection(hasty.call(AUTH, 'vaultAlbumDelete', { body: { albumId: '1' } }));
      expect(write).toMatchObject({
        kind: 'outcome_unknown',
        retry: 'outcome_unknown',
        networkCode: 'UND_ERR_HEADERS_TIMEOUT',
      });
      const read = await rejection(hasty.call(AUTH, 'vaultAlbums'));
      expect(read).toMatchObject({
        kind: 'unavailable',
        retry: 'retryable',
        networkCode: 'UND_ERR_HEADERS_TIMEOUT',
      });
    } finally {
      await hasty.close();
      server.closeAllConnections();
    }
  });

  it('a body that trickles past bodyDeadlineMs: outcome unknown for a POST, retryable for a GET', async () => {
    // Each pause (50 ms) is well inside timeoutMs; only the deadline over the whole body ends it.
    const patient = new PlatformClient({ baseUrl, timeoutMs: 1000, bodyDeadlineMs: 300 });
    const streams: NodeJS.Timeout[] = [];
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":true,"response":"');
      streams.push(setInterval(() => res.write('x'), 50));
    };
    try {
      const started = Date.now();
      const write = await rejection(patient.call(AUTH, 'listItemsAdd', { body: { listItems: [] } }));
      expect(write).toMatchObject({
        kind: 'outcome_unknown',
        retry: 'outcome_unknown',
        networkCode: 'UND_ERR_BODY_DEADLINE',
      });
      expect(write.message).toBe(
        'listItemsAdd: no whole body within 300 ms of the headers after the request was sent',
      );
      const read = await rejection(patient.call(AUTH, 'accountMe'));
      expect(read).toMatchObject({
        kind: 'unavailable',
        retry: 'retryable',
        networkCode: 'UND_ERR_BODY_DEADLINE',
      });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      for (const stream of streams) clearInterval(stream);
      await patient.close();
      server.closeAllConnections();
    }
  });

  it('an answer larger than maxResponseBytes is not read: a bad response, whether its length is announced or not', async () => {
    const small = new PlatformClient({ baseUrl, timeoutMs: 2000, maxResponseBytes: 1024 });
    const big = JSON.stringify({ success: true, response: 'x'.repeat(4096) });
    try {
      handler = (_req, res) => json(res, 200, JSON.parse(big));
      const announced = await rejection(small.call(AUTH, 'accountMe'));
      expect(announced).toMatchObject({ kind: 'bad_response', retry: 'permanent' });
      expect(announced.message).toBe('accountMe: answer larger than 1024 bytes');
      handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length announced
        for (let at = 0; at < big.length; at += 512) res.write(big.slice(at, at + 512));
        res.end();
      };
      const streamed = await rejection(small.call(AUTH, 'listItemsAdd', { body: {} }));
      expect(streamed).toMatchObject({ kind: 'bad_response', retry: 'outcome_unknown' });
      expect(streamed.message).toBe('listItemsAdd: answer larger than 1024 bytes');
      // Within the bound, the same client reads answers as before.
      handler = (_req, res) => json(res, 200, { success: true, response: { ok: 1 } });
      await expect(small.call(AUTH, 'accountMe')).resolves.toEqual({ ok: 1 });
    } finally {
      await small.close();
      server.closeAllConnections();
    }
  });

  it('a refused connection is network_not_sent and retryable, even for a write', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const refused = new PlatformClient({ baseUrl: `http://127.0.0.1:${port}` });
    try {
      const err = await rejection(
        refused.call(AUTH, 'payoutMethodDelete', { body: { payoutMethodId: '1' } }),
      );
      expect(err).toMatchObject({
        kind: 'network_not_sent',
        retry: 'retryable',
        networkCode: 'ECONNREFUSED',
        endpoint: 'payoutMethodDelete',
      });
      expect(err.message).toBe('payoutMethodDelete: ECONNREFUSED before the request was sent');
      await expect(refused.getDeviceId()).rejects.toMatchObject({ kind: 'network_not_sent' });
    } finally {
      await refused.close();
    }
  });
});

describe('construction', () => {
  it('takes an origin only, since the signature starts at /api/v1', () => {
    expect(() => new PlatformClient({ baseUrl: 'http://127.0.0.1:4010/api/v1' })).toThrow(TypeError);
    expect(() => new PlatformClient({ baseUrl: 'not a url' })).toThrow(TypeError);
    expect(() => new PlatformClient({ baseUrl, userAgent: 'bad\r\nx-injected: 1' })).toThrow(TypeError);
  });
});

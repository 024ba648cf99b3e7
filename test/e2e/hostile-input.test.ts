import { connect } from 'node:net';
import { MAX_JSON_DEPTH } from '@cg/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBadRequest, expectError } from '../support/assert';
import { connectWithSim } from '../support/common';
import { eventually } from '../support/processes';
import { simFixture, simRequests } from '../support/sim';
import { gw, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let accountId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ accountId } = await connectWithSim(stack));
});
afterAll(async () => {
  await stack?.stop();
});

/** Every call the sandbox has seen from creator_demo's session, all routes together. */
const upstreamCalls = async () =>
  Object.values(await simRequests(stack, 'creator_demo')).reduce((sum, n) => sum + n, 0);

/** A request with a raw JSON text or bytes, which `gw` (JSON.stringify) cannot produce. */
async function rawJson(
  method: string,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${stack.apiUrl}/api/fansly${path}`, {
    method,
    headers: { 'x-api-key': stack.keys.t1, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Bytes straight onto a socket, for requests fetch refuses to send; resolves with the whole answer. */
function rawHttp(request: string): Promise<string> {
  const { hostname, port } = new URL(stack.apiUrl);
  return new Promise((resolve, reject) => {
    // Written, not ended: a half-closed socket gets no answer. The server closes it after answering
    // (an HTTP/1.0 request, or one its parser refuses).
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.setTimeout(5_000, () => socket.destroy());
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function expectRequestId(body: any) {
  expect(body.requestId).toMatch(/^req_[a-z0-9]+$/);
}

describe('bodies no schema keyword refuses', () => {
  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels, in an unknown field too, and calls nothing`, async () => {
    const before = await upstreamCalls();
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const tooDeep = await rawJson('POST', `/${accountId}/lists/create`, `{"name":"deep","x":${deep(5000)}}`);
    expectBadRequest(tooDeep, 'nests deeper than');
    expectRequestId(tooDeep.body);
    // The limit itself: the body object and 31 levels of objects below it are taken.
    const atLimit = await rawJson(
      'POST',
      `/${accountId}/lists/create`,
      `{"name":"at-limit","x":${deep(MAX_JSON_DEPTH - 1)}}`,
    );
    expect(atLimit.status).toBe(201);
    const overLimit = await rawJson(
      'POST',
      `/${accountId}/lists/create`,
      `{"name":"over-limit","x":${deep(MAX_JSON_DEPTH)}}`,
    );
    expectBadRequest(overLimit, 'nests deeper than');
    expect(await upstreamCalls()).toBe(before + 1);
  });

  it('refuses a number JSON can only read as Infinity instead of sending it on as null', async () => {
    const before = await upstreamCalls();
    for (const field of ['scheduledFor', 'expiresAt']) {
      const response = await rawJson('POST', `/${accountId}/posts`, `{"content":"x","${field}":1e400}`);
      expectBadRequest(response, 'too large to represent');
    }
    expect(await upstreamCalls()).toBe(before);
  });

  it('refuses bytes that are not the UTF-8 text they claim to be instead of sending U+FFFD on', async () => {
    const before = await upstreamCalls();
    const create = (body: string | Buffer, headers?: Record<string, string>) =>
      rawJson('POST', `/${accountId}/lists/create`, body, headers);
    // "café" in Latin-1: not UTF-8, whether or not the charset says so.
    const latin1 = Buffer.from('{"name":"caf\u00e9"}', 'latin1');
    expectBadRequest(await create(latin1), 'not valid UTF-8');
    expectBadRequest(
      await create(latin1, { 'content-type': 'application/json; charset=iso-8859-1' }),
      'UTF-8 JSON',
    );
    expectBadRequest(
      await create('{"name":"x"}', { 'content-type': 'application/json; charset=utf-16' }),
      'UTF-8 JSON',
    );
    expectBadRequest(await create('{"name":"x"}', { 'content-encoding': 'gzip' }), 'content-encoded');
    // Half of a surrogate pair, escaped, in a value and in a name.
    expectBadRequest(await create('{"name":"x\\ud800"}'), 'surrogate');
    expectBadRequest(await create('{"name":"x","\\udc00":1}'), 'surrogate');
    expect(await upstreamCalls()).toBe(before);

    // UTF-8 named in capitals and quotes, with a whole surrogate pair: taken, and sent as such.
    const utf8 = await create(Buffer.from('{"name":"caf\u00e9 \\ud83d\\ude00"}', 'utf8'), {
      'content-type': 'application/json; charset="UTF-8"',
    });
    expect(utf8.status).toBe(201);
    expect(utf8.body.data.data.response.label).toBe('caf\u00e9 \u{1f600}');
    // ASCII is UTF-8 too: some clients name it.
    const ascii = await create('{"name":"plain"}', { 'content-type': 'application/json; charset=us-ascii' });
    expect(ascii.status).toBe(201);
    expect(await upstreamCalls()).toBe(before + 2);
  });

  it('says what is wrong with a __proto__ key or a text/plain body, instead of "not valid JSON"', async () => {
    const before = await upstreamCalls();
    const poisoned = await rawJson('POST', `/${accountId}/lists/create`, '{"name":"x","__proto__":{"a":1}}');
    expectBadRequest(poisoned, '__proto__');
    const text = await fetch(`${stack.apiUrl}/api/fansly/${accountId}/lists/create`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keys.t1, 'content-type': 'text/plain' },
      body: '{"name":"x"}',
    });
    expectBadRequest({ status: text.status, body: await text.json() }, 'application/json');
    expect(await upstreamCalls()).toBe(before);
  });
});

describe('account ids', () => {
  it('answers 404 for an account id that names another of its keys (`<id>:jobs`), not a 500', async () => {
    const before = await upstreamCalls();
    for (const suffix of [':jobs', ':relogin']) {
      const id = `${accountId}${suffix}`;
      expectError(await gw(stack, 'GET', `/${id}/me`), 404, 'NOT_FOUND');
      expectError(await gw(stack, 'DELETE', `/accounts/${id}`), 404, 'NOT_FOUND');
      const ids = (await simFixture(stack, 'creator_demo')).platformAccountId;
      expectError(await gw(stack, 'GET', `/accounts/by-ids?ids=${ids}&accountId=${id}`), 404, 'NOT_FOUND');
    }
    expect((await gw(stack, 'GET', `/${accountId}/me`)).status).toBe(200);
    expect(await upstreamCalls()).toBe(before + 1);
  });

  it('bounds ?accountId= as the path parameter is bounded: not blank, at most 100 characters', async () => {
    for (const value of ['', 'a'.repeat(101)])
      expectBadRequest(await gw(stack, 'GET', `/accounts/by-ids?ids=1&accountId=${value}`), 'accountId');
  });
});

describe('string lengths', () => {
  it('are counted as the platform counts them (UTF-16 units): 60 emoji are 120, over a 100 limit', async () => {
    const before = await upstreamCalls();
    const emoji = await gw(stack, 'POST', `/${accountId}/lists/create`, { body: { name: '😀'.repeat(60) } });
    expectBadRequest(emoji, 'name');
    expect(await upstreamCalls()).toBe(before);
    const plain = await gw(stack, 'POST', `/${accountId}/lists/create`, { body: { name: 'é'.repeat(100) } });
    expect(plain.status).toBe(201);
  });
});

describe('text fields', () => {
  const createList = (name: string) => gw(stack, 'POST', `/${accountId}/lists/create`, { body: { name } });
  const createLink = (body: { label: string; description?: string }) =>
    gw(stack, 'POST', `/${accountId}/tracking-links`, { body });

  it('refuses control characters and unpaired bidirectional controls, naming the field and the rule, sending nothing', async () => {
    const before = await upstreamCalls();
    const control = 'must not contain control characters';
    const unpaired = 'has an unpaired bidirectional control';
    // Newline and tab are long text's only: a list name is one line; CR and DEL are no field's.
    for (const name of ['a\nb', 'a\tb', 'a\u007fb', 'a\u0000b'])
      expectBadRequest(await createList(name), `The name body field ${control}`);
    expectBadRequest(
      await createLink({ label: 'x', description: 'a\r\nb' }),
      `The description body field ${control}`,
    );
    // A closer without its opener, an opener never closed, crossed pairs, and an embedding the end of
    // its line closes (where the bidirectional algorithm ends it) before its PDF comes.
    for (const name of ['\u202c', 'a\u202ab', '\u2066a', '\u202ba\u2067b\u202cc\u2069', 'a\u2069\u2067'])
      expectBadRequest(await createList(name), `The name body field ${unpaired}`);
    expectBadRequest(
      await createLink({ label: 'x', description: '\u202bone\ntwo\u202c' }),
      `The description body field ${unpaired}`,
    );
    expect(await upstreamCalls()).toBe(before);
  });

  it('takes newline and tab in long text, paired bidirectional controls and U+200B, and sends them as written', async () => {
    const label = 'Spring \u202bpromo\u202c\u200b \u2067\u202aA\u202c\u2069';
    const description = 'line one\n\tline two\n';
    const link = await createLink({ label, description });
    expect(link.status).toBe(201);
    expect(link.body.data.data.response).toMatchObject({ label, description });
    const list = await createList('zero\u200bwidth \u202epaired\u202c');
    expect(list.status).toBe(201);
    expect(list.body.data.data.response.label).toBe('zero\u200bwidth \u202epaired\u202c');
    // The answers are the platform's records: it holds the text as sent.
    const chatId = (await simFixture(stack, 'creator_demo')).chatIds[0];
    const content = 'first line\n\tsecond line';
    const sent = await gw(stack, 'POST', `/${accountId}/chats/${chatId}/messages`, { body: { content } });
    expect(sent.status).toBe(201);
    expect(sent.body.data.data.response.content).toBe(content);
  });
});

describe('unknown body fields', () => {
  it('are dropped before the input is queued, so job data stays small whatever the body carries', async () => {
    const accepted = await gw(stack, 'POST', `/${accountId}/lists/create`, {
      body: { name: 'with junk', junk: 'x'.repeat(200_000), nested: { more: 'y'.repeat(100_000) } },
      headers: { prefer: 'respond-async' },
    });
    expect(accepted.status).toBe(202);
    const jobKey = `{${stack.prefix}:q}:operations:${accepted.body.data.jobId}`;
    const data = await stack.redis.hget(jobKey, 'data');
    expect(data).not.toBeNull();
    expect((data as string).length).toBeLessThan(2_000);
    // Let the list be created before the next test counts the platform's calls.
    await eventually(
      async () => {
        const status = await fetch(accepted.body.data.statusUrl, { headers: { 'x-api-key': stack.keys.t1 } });
        return status.status === 202 ? undefined : status.status;
      },
      10_000,
      'the list created',
    );
  });
});

describe('query strings coerced to numbers', () => {
  const earnings = (query: string) => gw(stack, 'GET', `/${accountId}/earnings/transactions?${query}`);

  it('refuses a query number that is not finite, naming the parameter', async () => {
    const before = await upstreamCalls();
    // Infinity, and a finite number past any date (it would reach the platform as "1e+21").
    for (const [name, value] of [
      ['after', '1e400'],
      ['before', 'Infinity'],
      ['before', '1000000000000000000000'],
    ]) {
      expectBadRequest(await earnings(`${name}=${value}&limit=1`), `The ${name} query parameter`);
    }
    // Minus infinity is already below the minimum.
    expectBadRequest(await earnings('after=-1e999&limit=1'), 'The after query parameter');
    expect(await upstreamCalls()).toBe(before);
    expect((await earnings('after=1700000000000&limit=1')).status).toBe(200);
  });

  it('reads query numbers in decimal only: hex, blanks and words are refused, naming the parameter', async () => {
    const before = await upstreamCalls();
    for (const [name, value] of [
      ['offset', '0x10'],
      ['offset', '%20'],
      ['offset', ''],
      ['limit', '0b11'],
      ['limit', 'ten'],
      ['after', '1_700_000_000_000'],
    ]) {
      expectBadRequest(
        await earnings(`${name}=${value}`),
        `The ${name} query parameter must be a decimal number`,
      );
    }
    expectBadRequest(
      await gw(stack, 'GET', `/${accountId}/subscribers?status=active&limit=0x5`),
      'The limit query parameter must be a decimal number',
    );
    expect(await upstreamCalls()).toBe(before);
    for (const query of ['offset=16&limit=5', 'after=1.7e12&limit=5'])
      expect((await earnings(query)).status, query).toBe(200);
  });
});

describe("the router's and the HTTP parser's refusals", () => {
  it('asks for the key before it says a path under the API is no route (404) or takes another method (405)', async () => {
    for (const [method, path, status] of [
      ['GET', '/no/such/route', 404],
      ['PATCH', `/${accountId}/me`, 405],
    ] as const) {
      expectError(await gw(stack, method, path, { key: null }), 401, 'UNAUTHORIZED');
      expectError(await gw(stack, method, path, { key: 'cgk_not_a_key' }), 401, 'UNAUTHORIZED');
      const known = await gw(stack, method, path);
      expectError(known, status, status === 404 ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED');
      expectRequestId(known.body);
    }
    // Outside it, no key is asked for.
    const outside = await fetch(`${stack.apiUrl}/nothing-here`);
    expect(outside.status).toBe(404);
  });

  it('answers a method a route does not take with 405 and the methods it takes (Allow), sending nothing', async () => {
    const before = await upstreamCalls();
    for (const [method, path, allow] of [
      ['DELETE', `/${accountId}/me`, 'GET'],
      // `lists/create` is also a list id to `GET /{account_id}/lists/{list_id}`.
      ['DELETE', `/${accountId}/lists/create`, 'GET, POST'],
      ['PATCH', `/${accountId}/tracking-links`, 'POST, PUT'],
      ['POST', `/${accountId}/vault/albums/123`, 'DELETE'],
      // Where HEAD works (not on operations, which refuse it), it is listed.
      ['PUT', '/jobs/job_x', 'DELETE, GET, HEAD'],
      ['POST', '/accounts', 'GET, HEAD'],
    ] as const) {
      const response = await gw(stack, method, path, { body: {} });
      expectError(response, 405, 'METHOD_NOT_ALLOWED', path, method, allow.replaceAll(', ', ' or '));
      expect(response.body.error).toBe('Method Not Allowed');
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
    // Outside the API's prefix too, without a key.
    const health = await fetch(`${stack.apiUrl}/healthz`, { method: 'POST' });
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
    // Paths the router does not take stay 404: a trailing slash, a parameter over 100 characters
    // (where the router says nothing else), and Bull Board's, whose own credentials come first.
    for (const [method, path] of [
      ['GET', '/healthz/'],
      ['POST', '/admin/queues/api/queues/operations/job_1/retry'],
      ['DELETE', '/admin/queues/api/queues'],
    ] as const) {
      const response = await fetch(`${stack.apiUrl}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expectError(await gw(stack, 'GET', `/${accountId}/me/`), 404, 'NOT_FOUND');
    await new Promise((done) => setTimeout(done, 300));
    expect(await upstreamCalls()).toBe(before);
  });

  it('answers HEAD on an operation with 405 Allow: GET, calling nothing', async () => {
    const chatId = (await simFixture(stack, 'creator_demo')).chatIds[0];
    const before = await upstreamCalls();
    for (const path of [`/${accountId}/me`, `/${accountId}/chats/${chatId}/media-stats`]) {
      const response = await fetch(`${stack.apiUrl}/api/fansly${path}`, {
        method: 'HEAD',
        headers: { 'x-api-key': stack.keys.t1 },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
    }
    await new Promise((done) => setTimeout(done, 300));
    expect(await upstreamCalls()).toBe(before);
  });

  it('answers a path parameter over 100 characters with 400 in the error shape, not echoing the path', async () => {
    const long = 'a'.repeat(150);
    for (const path of [`/${long}/me`, `/accounts/${long}`]) {
      const response = await gw(stack, path.startsWith('/accounts') ? 'DELETE' : 'GET', path);
      expectBadRequest(response, 'longer than 100 characters');
      expectRequestId(response.body);
      expect(JSON.stringify(response.body)).not.toContain(long);
    }
  });

  it('answers broken percent-encoding with 400 in the error shape, in the path or the query', async () => {
    const response = await gw(stack, 'GET', `/${accountId}/lists/%ZZ`);
    expectBadRequest(response, 'not a valid URL');
    expectRequestId(response.body);
    const before = await upstreamCalls();
    // Not UTF-8, a surrogate's bytes, no hex, a bare "%": each used to be searched for as it stood.
    for (const search of ['%FF', '%ED%A0%80', '%ZZ', '100%']) {
      const query = await gw(stack, 'GET', `/${accountId}/subscribers?status=active&search=${search}`);
      expectBadRequest(query, 'percent-encoded UTF-8');
    }
    expect(await upstreamCalls()).toBe(before);
    const encoded = await gw(
      stack,
      'GET',
      `/${accountId}/subscribers?status=active&search=caf%C3%A9%2025%25`,
    );
    expect(encoded.status).toBe(200);
  });

  it('gives a request without a Host header (HTTP/1.0) a status URL that is a path, not a bogus host', async () => {
    const answer = await rawHttp(
      `GET /api/fansly/${accountId}/me HTTP/1.0\r\nx-api-key: ${stack.keys.t1}\r\nprefer: respond-async\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 202 /);
    const jobPath = /\r\nlocation: (\S+)\r\n/i.exec(answer)?.[1];
    expect(jobPath).toMatch(/^\/api\/fansly\/jobs\/job_/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).data.statusUrl).toBe(jobPath);
  });

  it('does not put a Host header that is no host name into the status URL', async () => {
    const answer = await rawHttp(
      `GET /api/fansly/${accountId}/me HTTP/1.1\r\nhost: a"b<script>\r\nx-api-key: ${stack.keys.t1}\r\nprefer: respond-async\r\nconnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 202 /);
    expect(/\r\nlocation: (\S+)\r\n/i.exec(answer)?.[1]).toMatch(/^\/api\/fansly\/jobs\/job_/);
  });

  it('answers a header Node refuses, and headers too large, in the error shape', async () => {
    const host = new URL(stack.apiUrl).host;
    const control = await rawHttp(
      `GET /api/fansly/${accountId}/me HTTP/1.1\r\nHost: ${host}\r\nx-api-key: a\u0001b\r\n\r\n`,
    );
    expect(control).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const controlBody = JSON.parse(control.slice(control.indexOf('\r\n\r\n') + 4));
    expect(controlBody).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'BAD_REQUEST' });
    expectRequestId(controlBody);

    const big = await fetch(`${stack.apiUrl}/api/fansly/${accountId}/me`, {
      headers: { 'x-api-key': stack.keys.t1, 'x-filler': 'a'.repeat(40_000) },
    });
    const bigBody = { status: big.status, body: (await big.json()) as any };
    expectError(bigBody, 431, 'HEADERS_TOO_LARGE', 'too large');
    expect(bigBody.body.error).toBe('Request Header Fields Too Large');
  });
});

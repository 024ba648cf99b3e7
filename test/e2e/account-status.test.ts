import { loadGatewayConfig } from '@cg/config';
import { createListener, type Listener } from '@cg/listener';
import { ProxyHealth } from '@cg/platform-access';
import { parseKeyring } from '@cg/secrets';
import { ApiKeyStore, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalProxy, startProxy } from '../../scripts/lib/proxy';
import { expectError } from '../support/assert';
import { connectAccount, runCommonRouteTests } from '../support/common';
import { testLogger } from '../support/logs';
import { eventually } from '../support/processes';
import { clearFaults, injectFault } from '../support/sim';
import { account, finished, gw, startStack, type TestStack } from '../support/stack';

// `GET /accounts/{id}/status`: why an account may not be answering, read from the gateway's own
// store. The account's calls leave through a proxy with basic auth, so its egress shows a URL whose
// password is masked.

const PROXY_PASSWORD = 'st4tus-proxy-Pw9';

let stack: TestStack;
let proxy: LocalProxy;
let id: string;

beforeAll(async () => {
  proxy = await startProxy({ bind: '127.0.0.2', auth: { user: 'agency', password: PROXY_PASSWORD } });
  stack = await startStack({
    env: {
      EGRESS_PROXIES: JSON.stringify({ US: [proxy.url] }),
      LISTENER_PING_MS: '300',
      LISTENER_FAILOVER_MS: '3000',
    },
  });
  id = await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
  await proxy?.remove();
});

const status = async (key = stack.keys.t1) => {
  const answer = await gw(stack, 'GET', `/accounts/${id}/status`, { key });
  expect(answer.status).toBe(200);
  return answer.body.data;
};
const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

runCommonRouteTests(
  () => stack,
  { method: 'GET', path: '/accounts/{accountId}/status' },
  () => id,
);

describe('a connected account', () => {
  it('tells its connection, session, latest success, idle lane and masked egress', async () => {
    const before = Date.now();
    expect((await gw(stack, 'GET', `/${id}/me`)).status).toBe(200);
    const answer = await gw(stack, 'GET', `/accounts/${id}/status`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ statusCode: 200, message: 'Success' });
    const data = answer.body.data;
    expect(data).toMatchObject({
      accountId: id,
      connection: { state: 'connected' },
      session: { present: true, lastReloginAt: null },
      platform: { lastFailure: null },
      lane: {
        inFlight: 0,
        backlog: 0,
        waiting: 0,
        pausedUntil: null,
        pauseReason: null,
        nextMediaStatsAt: null,
      },
      egress: {
        country: 'US',
        direct: false,
        proxy: {
          label: proxy.label,
          url: `http://agency:***@${proxy.label}`,
          country: 'US',
          configured: true,
          down: false,
          downUntil: null,
        },
      },
    });
    expect(ms(data.connection.since)).toBeLessThanOrEqual(before);
    expect(ms(data.session.obtainedAt)).toBe(ms(data.connection.since));
    expect(data.session.ageSeconds).toBeGreaterThanOrEqual(0);
    expect(ms(data.platform.lastSuccessAt)).toBeGreaterThanOrEqual(before - 1_000);
    // Never a secret: not the proxy's password, not the platform's, not the session.
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(PROXY_PASSWORD);
    expect(text).not.toContain(account(stack, 'creator_demo').password);
    expect(text).not.toMatch(/token/i);
  });

  it('answers with a read key of that account, and 404 worded as for an unknown one otherwise', async () => {
    const keys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
    const reaching = (await keys.create('t1', { access: 'read', accounts: [id] })).key;
    const elsewhere = (await keys.create('t1', { access: 'read', accounts: ['acct_someoneelse'] })).key;
    expect((await status(reaching)).accountId).toBe(id);
    const outside = await gw(stack, 'GET', `/accounts/${id}/status`, { key: elsewhere });
    const unknown = await gw(stack, 'GET', '/accounts/acct_unknown0/status');
    expectError(outside, 404, 'NOT_FOUND');
    expectError(unknown, 404, 'NOT_FOUND');
    expect(outside.body.message).toBe(`account ${id} not found`);
    expect(unknown.body.message).toBe('account acct_unknown0 not found');
  });

  it('tells a proxy marked down, until when', async () => {
    const health = new ProxyHealth(stack.redis, storeKeys(stack.prefix));
    const proxyId = (await stack.redis.hget(storeKeys(stack.prefix).account('t1', id), 'egressId')) as string;
    await health.recordFailure(proxyId, { failures: 1, windowMs: 1_000, cooldownMs: 60_000 });
    try {
      const { egress } = await status();
      expect(egress.proxy).toMatchObject({ label: proxy.label, down: true });
      expect(ms(egress.proxy.downUntil)).toBeGreaterThan(Date.now() + 50_000);
    } finally {
      await stack.redis.del(storeKeys(stack.prefix).egressDown(proxyId));
    }
    expect((await status()).egress.proxy.down).toBe(false);
  });
});

describe('after a platform 429', () => {
  it('tells the pause, why and until when, the failure, and then the success that follows it', async () => {
    await injectFault(stack, {
      kind: 'rateLimit',
      account: 'creator_demo',
      path: '/api/v1/account/me',
      retryAfterSeconds: 4,
      count: 1,
    });
    const accepted = await gw(stack, 'GET', `/${id}/me`, { headers: { prefer: 'respond-async' } });
    expect(accepted.status).toBe(202);
    const paused = await eventually(
      async () => {
        const data = await status();
        // The failure's note is written beside the pause, not in the same step: wait for both.
        return data.lane.pausedUntil === null || data.platform.lastFailure === null ? undefined : data;
      },
      10_000,
      'the lane paused, its failure noted',
    );
    expect(paused.lane.pauseReason).toBe('the platform answered 429 with Retry-After 4 s');
    expect(ms(paused.lane.pausedUntil)).toBeGreaterThan(Date.now());
    expect(ms(paused.lane.pausedUntil)).toBeLessThanOrEqual(Date.now() + 4_500);
    // The request waits out the pause: unfinished, waiting for its turn.
    expect(paused.lane.backlog).toBe(1);
    expect(paused.platform.lastFailure).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      upstream: { kind: 'rate_limited', status: 429 },
    });
    expect(paused.platform.lastFailure.message).toContain('rate limiting');

    const done = await finished(accepted.body.data.statusUrl, stack.keys.t1);
    expect(done.status).toBe(200);
    const after = await status();
    expect(after.lane).toMatchObject({ pausedUntil: null, pauseReason: null, backlog: 0 });
    expect(ms(after.platform.lastSuccessAt)).toBeGreaterThan(ms(after.platform.lastFailure.at) as number);
  });

  it('tells a failure the gateway does not retry', async () => {
    await injectFault(stack, {
      kind: 'error',
      status: 403,
      account: 'creator_demo',
      path: '/api/v1/account/me',
      count: 1,
    });
    expectError(await gw(stack, 'GET', `/${id}/me`), 403, 'FORBIDDEN_ACTION');
    expect((await status()).platform.lastFailure).toMatchObject({
      code: 'FORBIDDEN_ACTION',
      retryable: false,
      upstream: { kind: 'forbidden', status: 403 },
    });
    await clearFaults(stack);
  });
});

describe('the realtime connection', () => {
  let listener: Listener | undefined;
  afterAll(async () => {
    await listener?.close();
  });

  it('is told held, since when and its last frame while a listener holds it; closed once it stops', async () => {
    expect((await status()).realtime).toMatchObject({ held: false, connected: false, lastFrameAt: null });
    const before = Date.now();
    listener = await createListener(loadGatewayConfig(stack.env), testLogger());
    listener.start();
    const held = await eventually(
      async () => {
        const { realtime } = await status();
        return realtime.connected && realtime.lastFrameAt !== null ? realtime : undefined;
      },
      15_000,
      'the connection held, a frame marked',
    );
    expect(held).toMatchObject({ held: true, connected: true });
    expect(ms(held.since)).toBeGreaterThanOrEqual(before);
    // The frames of this connection: its first came before it counted as open (its session frame).
    expect(ms(held.lastFrameAt)).toBeGreaterThanOrEqual(before);

    const stopped = Date.now();
    await listener.close();
    listener = undefined;
    const { realtime } = await status();
    expect(realtime).toMatchObject({ held: false, connected: false, lastCloseReason: 'closing' });
    expect(ms(realtime.since)).toBeGreaterThanOrEqual(stopped - 1_000);
  });
});

// Last in the file: the account ends disconnected.
describe('an account whose stored login no longer works', () => {
  it('tells reauth_required since when, without a session; disconnected, it is 404', async () => {
    // The stored password is changed to one the platform refuses, and its session ended.
    const keyring = parseKeyring(stack.env.ENCRYPTION_KEY as string);
    const wrong = keyring.sealJson({ username: 'creator_demo', password: 'not-the-password' }, id);
    await stack.redis.hset(storeKeys(stack.prefix).account('t1', id), 'credentials', wrong);
    await injectFault(stack, { kind: 'sessionExpiry', account: 'creator_demo' });
    const before = Date.now();
    expectError(await gw(stack, 'GET', `/${id}/me`), 409, 'REAUTH_REQUIRED');

    const data = await status();
    expect(data.connection.state).toBe('reauth_required');
    expect(ms(data.connection.since)).toBeGreaterThanOrEqual(before - 1_000);
    expect(data.session).toMatchObject({ present: false, ageSeconds: null });
    expect(data.platform.lastFailure).toMatchObject({ code: 'REAUTH_REQUIRED', retryable: false });

    expect((await gw(stack, 'DELETE', `/accounts/${id}`)).status).toBe(200);
    const gone = await gw(stack, 'GET', `/accounts/${id}/status`);
    expectError(gone, 404, 'NOT_FOUND');
    expect(gone.body.message).toBe(`account ${id} not found`);
  });
});

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadGatewayConfig } from '@cg/config';
import { createListener } from '@cg/listener';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalProxy, startProxy } from '../../scripts/lib/proxy';
import { expectError } from '../support/assert';
import { connectCredentials } from '../support/common';
import { keepLog, testLogger } from '../support/logs';
import { eventually, spawnWorker } from '../support/processes';
import { observations, resetObservations } from '../support/sim';
import { account, gw, redisText, scanKeys, startStack, type TestStack } from '../support/stack';

const PROXY_PASSWORD = 'pr0xy-secret-Zq81';

let stack: TestStack;
let us1: LocalProxy;
let us2: LocalProxy;
let gb1: LocalProxy;
let worker: ChildProcess;
let workerLog = '';

beforeAll(async () => {
  [us1, us2, gb1] = await Promise.all([
    startProxy({ bind: '127.0.0.2', auth: { user: 'agency', password: PROXY_PASSWORD } }),
    startProxy({ bind: '127.0.0.3' }),
    startProxy({ bind: '127.0.0.4' }),
  ]);
  const egress = { US: [us1.url, us2.url], GB: [gb1.url] };
  stack = await startStack({
    worker: false,
    env: {
      EGRESS_PROXIES: JSON.stringify(egress),
      EGRESS_FAILURES: '2',
      EGRESS_COOLDOWN_MS: '60000',
    },
  });
  worker = spawnWorker(stack.env, (text) => {
    workerLog += text;
    keepLog(text);
  }).child;
});

afterAll(async () => {
  worker?.kill('SIGKILL');
  await stack?.stop();
  await Promise.all([us1, us2, gb1].map((proxy) => proxy?.remove()));
});

async function accounts(): Promise<{ accountId: string; country: string; egress: string }[]> {
  return (await gw(stack, 'GET', '/accounts')).body.data.accounts;
}

/** Where the sandbox saw an account's requests come from: address → requests. */
async function addresses(username: string): Promise<Record<string, number>> {
  const seen = await observations(stack, account(stack, username).platformAccountId);
  return (seen as unknown as { remoteAddresses?: Record<string, number> }).remoteAddresses ?? {};
}

describe('egress proxies', () => {
  let demo: string;

  it('connects a US account through a US proxy: the session ip and every request come from it', async () => {
    await resetObservations(stack);
    const connected = await gw(stack, 'POST', '/connect', {
      body: connectCredentials(stack, 'creator_demo'),
    });
    expect(connected.status).toBe(201);
    demo = connected.body.data.account_id;
    const ip = connected.body.data.data.response.ip;
    // The least loaded: both have none, so the first listed (the one with basic auth).
    expect(ip).toBe(us1.bind);
    for (let n = 0; n < 3; n++) expect((await gw(stack, 'GET', `/${demo}/me`)).status).toBe(200);
    expect(Object.keys(await addresses('creator_demo'))).toEqual([us1.bind]);
    const listed = (await accounts()).find((a) => a.accountId === demo);
    expect(listed).toMatchObject({ country: 'US', egress: us1.label });
    // Connected again, it keeps its proxy, though the other US one has fewer accounts.
    const again = await gw(stack, 'POST', '/connect', { body: connectCredentials(stack, 'creator_demo') });
    expect(again.body.data).toMatchObject({ account_id: demo, data: { response: { ip: us1.bind } } });
  });

  it('holds the account’s realtime connection through its proxy too (a CONNECT tunnel, basic auth)', async () => {
    const listener = await createListener(loadGatewayConfig(stack.env), testLogger());
    listener.start();
    try {
      const realtime = await eventually(
        async () => {
          const seen = (await observations(
            stack,
            account(stack, 'creator_demo').platformAccountId,
          )) as unknown as {
            realtime?: { current: number; addresses: Record<string, number> };
          };
          return seen.realtime?.current === 1 ? seen.realtime : undefined;
        },
        10_000,
        'the realtime connection',
      );
      expect(Object.keys(realtime.addresses)).toEqual([us1.bind]);
    } finally {
      await listener.close();
    }
    expect(us1.log()).not.toContain(PROXY_PASSWORD);
  });

  it('uploads and downloads the account’s media through its proxy, byte for byte', async () => {
    await resetObservations(stack);
    const bytes = randomBytes(300_000);
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/png' }), 'proxied.png');
    const started = await fetch(`${stack.apiUrl}/api/fansly/${demo}/media/upload`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keys.t1 },
      body: form,
    });
    const { jobId } = ((await started.json()) as { data: { jobId: string } }).data;
    // Processing is polled with a backoff up to 5 s: on a loaded machine this takes several polls.
    const job = await eventually(async () => {
      const { data } = (await gw(stack, 'GET', `/media/upload/${jobId}/status`)).body;
      if (data.state === 'failed') throw new Error(`the upload failed: ${data.error}`);
      return data.state === 'completed' ? data : undefined;
    }, 45_000);
    const cdnUrl = job.result.accountMedia[0].media.locations[0].location;
    const downloaded = await fetch(`${stack.apiUrl}/api/fansly/media/download?accountId=${demo}`, {
      method: 'POST',
      headers: { 'x-api-key': stack.keys.t1, 'content-type': 'application/json' },
      body: JSON.stringify({ cdnUrl }),
    });
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes)).toBe(true);
    // The part upload and the CDN fetch left from the proxy like the API calls.
    const seen = await observations(stack, account(stack, 'creator_demo').platformAccountId);
    expect(Object.keys(seen.requests)).toEqual(expect.arrayContaining(['PUT /_upload', 'GET /cdn']));
    expect(Object.keys(await addresses('creator_demo'))).toEqual([us1.bind]);
  }, 60_000);

  it('connects a GB account with a second factor through the GB proxy', async () => {
    await resetObservations(stack);
    const body = connectCredentials(stack, 'creator_2fa', 'Two', 'GB');
    const started = await gw(stack, 'POST', '/connect', { body });
    expect(started.body.data.requires_2fa).toBe(true);
    const verified = await gw(stack, 'POST', '/verify-2fa', {
      body: {
        ...body,
        twoFactorToken: started.body.data.twofa_token,
        twoFactorCode: account(stack, 'creator_2fa').twofaCode,
      },
    });
    expect(verified.status).toBe(201);
    expect(verified.body.data.data.response.ip).toBe(gb1.bind);
    const id = verified.body.data.account_id;
    expect((await gw(stack, 'GET', `/${id}/me`)).status).toBe(200);
    expect(Object.keys(await addresses('creator_2fa'))).toEqual([gb1.bind]);
    expect((await accounts()).find((a) => a.accountId === id)).toMatchObject({
      country: 'GB',
      egress: gb1.label,
    });
  });

  it('refuses a country without proxies (400 naming it and the configured ones), storing nothing', async () => {
    const before = await accounts();
    const keysBefore = new Set(await scanKeys(stack.redis, stack.prefix));
    const refused = await gw(stack, 'POST', '/connect', {
      body: connectCredentials(stack, 'creator_demo', 'France', 'FR'),
    });
    expectError(refused, 400, 'BAD_REQUEST', 'FR', 'US, GB');
    expect(await accounts()).toEqual(before);
    // No job, no pending login: no key but BullMQ's own periodic one.
    const added = (await scanKeys(stack.redis, stack.prefix)).filter((key) => !keysBefore.has(key));
    expect(added).toEqual([]);
  });

  it('keeps the proxy password out of Redis and out of the worker’s logs', async () => {
    expect(workerLog.length).toBeGreaterThan(0);
    expect(workerLog).not.toContain(PROXY_PASSWORD);
    const values = (await redisText(stack)).join('\n');
    expect(values).toContain(us1.label);
    expect(values).not.toContain(PROXY_PASSWORD);
  });

  it('moves the account to the other US proxy when its proxy stops: no failed read, no write twice', async () => {
    await resetObservations(stack);
    await us1.stop();
    const names = ['egress-a', 'egress-b', 'egress-c'];
    for (const name of names) {
      expect((await gw(stack, 'GET', `/${demo}/me`)).status).toBe(200);
      expect((await gw(stack, 'POST', `/${demo}/lists/create`, { body: { name } })).status).toBe(201);
    }
    expect((await accounts()).find((a) => a.accountId === demo)).toMatchObject({ egress: us2.label });
    const seen = await observations(stack, account(stack, 'creator_demo').platformAccountId);
    expect(Object.keys(await addresses('creator_demo'))).toEqual([us2.bind]);
    expect(seen.requests['POST /api/v1/lists']).toBe(names.length);
    expect(seen.duplicates).toEqual([]);
    expect(workerLog).toContain('account moved to another egress');
    expect(workerLog).not.toContain(PROXY_PASSWORD);
  });

  it('answers 503 with Retry-After when every proxy of the country is down', async () => {
    await gb1.stop();
    // The first login meets the dead proxy and marks it down; it waits for the proxy (202).
    const first = await gw(stack, 'POST', '/connect', {
      body: connectCredentials(stack, 'creator_2fa', 'Two', 'GB'),
      headers: { prefer: 'wait=3' },
    });
    expect(first.status).toBe(202);
    const next = await eventually(async () => {
      const answer = await gw(stack, 'POST', '/connect', {
        body: connectCredentials(stack, 'creator_2fa', 'Two', 'GB'),
        headers: { prefer: 'respond-async' },
      });
      return answer.status === 503 ? answer : undefined;
    }, 10_000);
    expectError(next, 503, 'UPSTREAM_UNAVAILABLE', 'GB', 'down');
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

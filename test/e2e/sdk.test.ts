import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  createClient,
  GatewayApiError,
  type GatewayClient,
  idempotencyKey,
  JobTimeoutError,
  verifyWebhook,
  type WebhookVerificationError,
} from '@cg/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCredentials } from '../support/common';
import { eventually } from '../support/processes';
import { simRequestCount } from '../support/sim';
import { account, startStack, type TestStack } from '../support/stack';

// The SDK against the whole stack over HTTP: every call below goes through `@cg/sdk` as a user's
// code would, with the real fetch. Where a test needs to see the wire (a 202, a retry's headers),
// `recording` wraps that fetch and only watches.
let stack: TestStack;
let client: GatewayClient;
let accountId: string;
let receiver: Server;
let receiverUrl: string;
const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];

interface Seen {
  method: string;
  url: string;
  status: number;
  headers: Headers;
}

/** A fetch that records each request and its status, and can lose one answer on the way back. */
function recording(loseAnswerOf?: (request: Seen) => boolean) {
  const seen: Seen[] = [];
  let lost = false;
  const fetcher: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const request = {
      method: init?.method ?? 'GET',
      url: String(input),
      status: response.status,
      headers: new Headers(init?.headers),
    };
    seen.push(request);
    if (!lost && loseAnswerOf?.(request)) {
      // The gateway has answered; the caller never hears it, as when a connection drops.
      lost = true;
      await response.body?.cancel();
      throw new TypeError('fetch failed');
    }
    return response;
  };
  return { seen, fetch: fetcher };
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  stack = await startStack({ webhooks: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  // The API root, as `pnpm start` prints it.
  client = createClient({ baseUrl: `${stack.apiUrl}/api/fansly`, apiKey: stack.keys.t1 });
});
afterAll(async () => {
  await stack?.stop();
  receiver?.close();
});

describe('the SDK against the stack', () => {
  it('connects a sandbox account', async () => {
    const connected = await client.connect({ body: connectCredentials(stack, 'creator_demo') });
    expect(connected.statusCode).toBe(201);
    if (!('account_id' in connected.data)) throw new Error(`no account: ${JSON.stringify(connected)}`);
    accountId = connected.data.account_id;
    expect(accountId).toMatch(/^acct_/);
    const listed = await client.listAccounts();
    expect(listed.data.accounts.map((a) => a.accountId)).toContain(accountId);
  });

  it('pages every subscriber through the iterator, across several pages', async () => {
    const demo = account(stack, 'creator_demo') as unknown as { counts: { subscribers: number } };
    const { seen, fetch } = recording();
    const paging = createClient({ baseUrl: stack.apiUrl, apiKey: stack.keys.t1, fetch });
    const ids: string[] = [];
    for await (const subscription of paging.paginate.subscribers({ accountId, status: 'all', limit: 40 }))
      ids.push(subscription.id);
    expect(ids).toHaveLength(demo.counts.subscribers);
    expect(new Set(ids).size).toBe(ids.length);
    // One request per page, the last short: the iterator followed the cursor to its end.
    const pages = seen.filter((request) => request.url.includes('/subscribers'));
    expect(pages).toHaveLength(Math.ceil(demo.counts.subscribers / 40));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.slice(1).every((request) => /[?&]cursor=o\d+/.test(request.url))).toBe(true);

    // The whole answers, page by page, for what sits beside the items.
    const totals: number[] = [];
    for await (const page of client.pages.subscribers({ accountId, status: 'all', limit: 200 }))
      totals.push(page.data.data.response.stats.total);
    expect(totals).toHaveLength(Math.ceil(demo.counts.subscribers / 200));
    expect(totals.every((total) => total === demo.counts.subscribers)).toBe(true);
  });

  it('follows a 202 to the job’s end: the same envelope the synchronous call answers', async () => {
    const { seen, fetch } = recording();
    const polling = createClient({
      baseUrl: stack.apiUrl,
      apiKey: stack.keys.t1,
      fetch,
      poll: { intervalMs: 50 },
    });
    const answered = await polling.me({ accountId }, { waitSeconds: 0 });
    expect(seen[0]?.status).toBe(202);
    expect(seen.at(-1)?.url).toMatch(/\/api\/fansly\/jobs\/job_[A-Za-z0-9-]+$/);
    expect(seen.at(-1)?.status).toBe(200);
    const direct = await client.me({ accountId });
    expect(answered.statusCode).toBe(200);
    expect(answered.data.data.response.username).toBe('creator_demo');
    // The same envelope, field for field (values such as lastSeenAt move between two reads).
    expect(answered.data.data.response.id).toBe(direct.data.data.response.id);
    expect(Object.keys(answered.data.data.response).sort()).toEqual(
      Object.keys(direct.data.data.response).sort(),
    );

    const job = await client.submit.me({ accountId });
    expect(job.jobId).toMatch(/^job_/);
    expect((await job.result()).data.data.response.username).toBe('creator_demo');
  });

  it('stops following a job at its timeout or when aborted; the job goes on', async () => {
    await stack.stopWorker();
    let left = '';
    try {
      const short = { poll: { intervalMs: 50, timeoutMs: 400 } };
      const late = await client.me({ accountId }, { waitSeconds: 0, ...short }).catch((error) => error);
      expect(late).toBeInstanceOf(JobTimeoutError);
      expect(late.jobId).toMatch(/^job_/);
      left = late.jobId;
      const aborted = await client
        .me({ accountId }, { waitSeconds: 0, signal: AbortSignal.timeout(300) })
        .catch((error) => error);
      expect(aborted).toBeInstanceOf(DOMException);
      expect(aborted.name).toBe('TimeoutError');
    } finally {
      await stack.startWorker();
    }
    // The job was only left, not lost: once a worker runs, it ends, and its result can be fetched.
    const ended = (await client.waitForJob(left)) as { statusCode: number };
    expect(ended.statusCode).toBe(200);
  });

  it('an Idempotency-Key repeated by hand gives one result and one platform call', async () => {
    const created = 'POST /api/v1/trackinglinks';
    const before = await simRequestCount(stack, 'creator_demo', created);
    const key = idempotencyKey('promo');
    const first = await client.trackingLinksCreate(
      { accountId, body: { label: 'Spring' } },
      { idempotencyKey: key },
    );
    const again = await client.trackingLinksCreate(
      { accountId, body: { label: 'Spring' } },
      { idempotencyKey: key },
    );
    expect(again.data.data.response.id).toBe(first.data.data.response.id);
    expect(await simRequestCount(stack, 'creator_demo', created)).toBe(before + 1);
  });

  it('a write whose answer was lost is retried once under its own key: one result, one platform call', async () => {
    const created = 'POST /api/v1/trackinglinks';
    const before = await simRequestCount(stack, 'creator_demo', created);
    const { seen, fetch } = recording((request) => request.method === 'POST');
    const retrying = createClient({ baseUrl: stack.apiUrl, apiKey: stack.keys.t1, fetch });
    const link = await retrying.trackingLinksCreate({ accountId, body: { label: 'Summer' } });
    expect(link.statusCode).toBe(201);
    expect(seen).toHaveLength(2);
    const [lost, retry] = seen.map((request) => request.headers.get('idempotency-key'));
    expect(lost).toMatch(/^sdk-[0-9a-f-]{36}$/);
    expect(retry).toBe(lost);
    expect(await simRequestCount(stack, 'creator_demo', created)).toBe(before + 1);

    // Without a key the client cannot know the write was not done: the failure is the caller's.
    const unkeyed = recording((request) => request.method === 'POST');
    const careful = createClient({ baseUrl: stack.apiUrl, apiKey: stack.keys.t1, fetch: unkeyed.fetch });
    const failed = await careful
      .trackingLinksCreate({ accountId, body: { label: 'Autumn' } }, { idempotencyKey: false })
      .catch((error) => error);
    expect(failed).toBeInstanceOf(TypeError);
    expect(unkeyed.seen).toHaveLength(1);
  });

  it('answers a failure as GatewayApiError with the contract’s error body', async () => {
    const missing = await client.me({ accountId: 'acct_doesnotexist' }).catch((error) => error);
    expect(missing).toBeInstanceOf(GatewayApiError);
    expect(missing).toMatchObject({ statusCode: 404, code: 'NOT_FOUND', error: 'Not Found' });
    expect(missing.requestId).toEqual(expect.any(String));
    expect(missing.toJSON()).toMatchObject({
      statusCode: 404,
      code: 'NOT_FOUND',
      requestId: missing.requestId,
    });

    const bad = await client
      .subscribers({ accountId, status: 'sometimes', limit: 5 })
      .catch((error: GatewayApiError) => error);
    expect(bad).toMatchObject({ statusCode: 400, code: 'BAD_REQUEST' });
    expect(bad.message).toMatch(/status/);

    const stranger = createClient({ baseUrl: stack.apiUrl, apiKey: 'not-a-key' });
    const refused = await stranger.listAccounts().catch((error: GatewayApiError) => error);
    expect(refused).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
  });

  it('verifies a webhook the gateway delivered, and refuses it altered, late or under another secret', async () => {
    const endpoint = await client.webhooksCreate({ body: { url: receiverUrl } });
    const { id, secret } = endpoint.data;
    await client.webhooksTest({ id });
    const delivery = await eventually(
      async () => deliveries.find((d) => d.body.includes('"webhooks.test"')),
      15_000,
      'the test delivery',
    );
    const headers = delivery.headers;
    const event = await verifyWebhook({ body: delivery.body, headers, secret });
    expect(event.event).toBe('webhooks.test');
    expect(event.id).toBe(headers['webhook-id']);

    const refusal = (input: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({ body: delivery.body, headers, secret, ...input }).then(
        () => 'accepted',
        (error: WebhookVerificationError) => error.reason,
      );
    expect(await refusal({ body: delivery.body.replace('webhooks.test', 'tips.received') })).toBe(
      'signature',
    );
    expect(await refusal({ now: Date.now() + 10 * 60_000 })).toBe('timestamp');
    const other = await client.webhooksCreate({ body: { url: receiverUrl, events: ['tips.received'] } });
    expect(await refusal({ secret: other.data.secret })).toBe('signature');
  });

  it('reaches the routes outside the API root from the same client', async () => {
    const health = await client.healthz();
    expect(health).toEqual({ status: 'ok', redis: 'ok' });
  });
});

describe('the SDK README', () => {
  it('its five lines connect an account and print every active subscriber, as pasted', async () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../packages/sdk/README.md'), 'utf8');
    const block = /## Five lines[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(block.trim().split('\n')).toHaveLength(5);
    // The repository's README shows the same five lines.
    const root = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
    expect(/## From TypeScript: the SDK[\s\S]*?```ts\n([\s\S]*?)```/.exec(root)?.[1]).toBe(block);
    // Only where the stack lives changes; the package is the workspace's own source.
    const script = block
      .replace('http://127.0.0.1:3000/api/fansly', `${stack.apiUrl}/api/fansly`)
      .replace("'@cg/sdk'", JSON.stringify(resolve(import.meta.dirname, '../../packages/sdk/src/index.ts')));
    expect(script).not.toBe(block);
    const folder = mkdtempSync(join(tmpdir(), 'sdk-readme-'));
    try {
      writeFileSync(join(folder, 'five-lines.mts'), script);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(folder, 'five-lines.mts')],
        {
          cwd: resolve(import.meta.dirname, '../..'),
          env: { ...process.env, KEY: stack.keys.t1 },
          timeout: 60_000,
        },
      );
      const demo = account(stack, 'creator_demo') as unknown as { counts: { activeSubscribers: number } };
      const printed = stdout.trim().split('\n');
      expect(printed).toHaveLength(demo.counts.activeSubscribers);
      expect(printed.every((line) => /^\d+$/.test(line))).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

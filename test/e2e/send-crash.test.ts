import type { ChildProcess } from 'node:child_process';
import { buildSim } from '@cg/platform-sim';
import { generateKey } from '@cg/secrets';
import { ApiKeyStore, connectRedis, randomId, storeKeys } from '@cg/store';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { tellOnFailure } from '../support/logs';
import { eventually, sleep, spawnApi, spawnWorker } from '../support/processes';
import { providedRedis } from '../support/provided';
import { scanKeys } from '../support/stack';

// Crash drill (issue: "the sandbox sees every accepted send exactly once or the caller was told the
// outcome is unknown"). The API and two workers run as processes of their own; a burst of chat
// sends carrying media (two platform writes each: the offer, then the message) is queued, both
// calls held at the sandbox, and one worker is SIGKILLed while each worker has a send between its
// write-ahead mark and its end. The other takes the killed worker's jobs over once their locks lapse.

const USERNAME = 'creator_demo';
const SENDS = 40;
/**
 * How long the sandbox holds each offer and each message call (uniform, so sends drift out of step):
 * a send spends most of its time with a write out, and the kill lands inside one.
 */
const HOLD_MS = { minMs: 200, maxMs: 600 };
/** Messages the sandbox has seen before the kill: the burst is well under way. */
const SEEN_BEFORE_KILL = 6;
const LOCK_MS = 2_000;
const RUN = randomId(6);

interface Send {
  n: number;
  content: string;
  key: string;
  body: Record<string, unknown>;
  jobId: string;
  statusUrl: string;
  final?: { status: number; body: any };
}

/** An offer the sandbox made (`POST /account/media` answered with success). */
interface Offer {
  id: string;
  mediaId: string;
}

const redis = connectRedis(providedRedis());
const prefix = `cgt-${randomId(8)}`;
const children: ChildProcess[] = [];
const logs: string[] = [];
let sim: FastifyInstance;
let simUrl = '';
let apiUrl = '';
let apiKey = '';
let accountId = '';
let chatId = '';
let mediaIds: string[] = [];
const offers: Offer[] = [];
let workers: ReturnType<typeof spawnWorker>[] = [];

const jobKey = (id: string) => `{${prefix}:q}:operations:${id}`;
const markKey = (id: string) => `{${prefix}:q}:sent:${id}`;

async function simJson(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${simUrl}${path}`, {
    ...init,
    ...(init.body === undefined ? {} : { headers: { 'content-type': 'application/json' } }),
  });
  const body = (await response.json()) as any;
  if (!response.ok) throw new Error(`sandbox ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function gw(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${apiUrl}/api/fansly${path}`, {
    method,
    headers: {
      'x-api-key': apiKey,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** The sandbox's own count of the account's requests, keyed "METHOD /api/v1/path". */
async function simRequests(): Promise<Record<string, number>> {
  const body = await simJson(`/_sim/observations?account=${USERNAME}`);
  return (Object.values(body.accounts ?? {})[0] as any)?.requests ?? {};
}

/** Every message of the drill's chat as the sandbox holds it, read with a session of the test's own. */
async function chatAtSandbox(): Promise<{ id: string; content: string; attachments: any[] }[]> {
  const fixture = (await simJson(`/_sim/fixtures?accounts=${USERNAME}`)).accounts[0];
  const login = await simJson('/api/v1/login', {
    method: 'POST',
    body: JSON.stringify({ username: USERNAME, password: fixture.password, deviceId: '1' }),
  });
  const headers = {
    authorization: login.response.session.token as string,
    'fansly-client-id': '1',
    'fansly-client-ts': String(Date.now()),
    'fansly-client-check': 'test',
  };
  const messages: { id: string; content: string; attachments: any[] }[] = [];
  for (;;) {
    const url = `${simUrl}/api/v1/message?groupId=${chatId}&limit=100&before=${messages.at(-1)?.id ?? '0'}`;
    const page = ((await (await fetch(url, { headers })).json()) as any).response;
    messages.push(...page.messages);
    if (page.messages.length < 100) return messages;
  }
}

/** The API as a process of its own (test/support's `spawnApi`); resolves with its origin once it serves. */
async function startApi(env: Record<string, string>): Promise<string> {
  const api = await spawnApi(env);
  children.push(api.child);
  return api.url;
}

/** Starts a worker process whose lines go to `logs` (named `name`); resolves once it has started. */
async function startWorker(env: Record<string, string>, name: string) {
  let output = '';
  const worker = spawnWorker(env, (text) => {
    output += text;
    for (const line of text.split('\n')) if (line.trim() !== '') logs.push(`${name}: ${line}`);
  });
  children.push(worker.child);
  await eventually(
    async () => (output.includes('worker started') ? true : undefined),
    30_000,
    `${name} started`,
  );
  return worker;
}

beforeAll(async () => {
  sim = await buildSim({ logLevel: 'silent', mediaOfferGapMs: 0, maxInFlightPerAccount: 32 });
  // The offers the sandbox made, whether or not their answer reached a worker still alive.
  sim.addHook('preSerialization', async (request, reply, payload: any) => {
    if (
      request.method === 'POST' &&
      request.routeOptions.url === '/api/v1/account/media' &&
      reply.statusCode === 200
    )
      for (const offer of payload?.response ?? []) offers.push({ id: offer.id, mediaId: offer.mediaId });
    return payload;
  });
  simUrl = await sim.listen({ port: 0, host: '127.0.0.1' });
  const env: Record<string, string> = {
    ...providedRedis(),
    REDIS_PREFIX: prefix,
    ENCRYPTION_KEY: generateKey(),
    PLATFORM_URL: simUrl,
    LOG_LEVEL: 'warn',
    SYNC_WAIT_MS: '10000',
    JOB_BACKOFF_MS: '50',
    ACCOUNT_RATE_PER_MINUTE: '60000',
    ACCOUNT_CONCURRENCY: '8',
    MEDIA_STATS_GAP_MS: '0',
    WORKER_LOCK_MS: String(LOCK_MS),
  };
  apiKey = (await new ApiKeyStore(redis, storeKeys(prefix)).create('t1')).key;
  const [url, ...started] = await Promise.all([
    startApi(env),
    startWorker(env, 'worker-a'),
    startWorker(env, 'worker-b'),
  ]);
  apiUrl = url;
  workers = started;

  const fixture = (await simJson(`/_sim/fixtures?accounts=${USERNAME}`)).accounts[0];
  chatId = fixture.chatIds[1];
  mediaIds = fixture.mediaIds;
  const connected = await gw('POST', '/connect', {
    body: { username: USERNAME, password: fixture.password, name: USERNAME, countryCode: 'US' },
  });
  expect(connected.status).toBe(201);
  accountId = connected.body.data.account_id;
});

afterAll(async () => {
  // Every process gone before its keys are removed, so none writes one again.
  await Promise.all(
    children
      .filter((child) => child.exitCode === null && child.signalCode === null)
      .map((child) => {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGKILL');
        return exited;
      }),
  );
  await sim?.close();
  for (const key of await scanKeys(redis, prefix)) await redis.unlink(key);
  redis.disconnect();
});

/** The drill's running jobs that have written their mark (a write may be out), by owning worker id. */
async function midWrite(sends: Send[]): Promise<Map<string, string[]>> {
  const pipeline = redis.pipeline();
  for (const send of sends) pipeline.get(markKey(send.jobId)).get(`${jobKey(send.jobId)}:lock`);
  const replies = (await pipeline.exec()) ?? [];
  const byWorker = new Map<string, string[]>();
  sends.forEach((send, i) => {
    const mark = replies[2 * i]?.[1];
    const lock = replies[2 * i + 1]?.[1];
    // The BullMQ lock token is `<worker id>:<n>`, and the mark is the token of the attempt that wrote it.
    if (typeof mark !== 'string' || mark !== lock) return;
    const worker = mark.slice(0, mark.lastIndexOf(':'));
    byWorker.set(worker, [...(byWorker.get(worker) ?? []), send.jobId]);
  });
  return byWorker;
}

async function finalAnswer(send: Send): Promise<{ status: number; body: any }> {
  return eventually(
    async () => {
      const response = await fetch(send.statusUrl, { headers: { 'x-api-key': apiKey } });
      return response.status === 202 ? undefined : { status: response.status, body: await response.json() };
    },
    20_000,
    `job ${send.jobId} (${send.content}) finished`,
  );
}

describe('a worker SIGKILLed during a burst of chat sends with media', () => {
  it('leaves every send in the sandbox once, or answered outcome unknown; never twice', async () => {
    const started = Date.now();
    // The workers' own lines (debug level), as evidence when the drill finds something.
    onTestFailed(() => {
      process.stdout.write(`${logs.join('\n')}\n`);
    });
    // Both platform writes of a send are held at the sandbox, so a kill lands between a mark and the
    // answer of the write it guards: in the offer's hold (the message never goes) or the message's.
    for (const path of ['/api/v1/account/media', '/api/v1/message'])
      await simJson('/_sim/faults', {
        method: 'POST',
        body: JSON.stringify({ account: USERNAME, path, method: 'POST', kind: 'latency', ...HOLD_MS }),
      });
    await simJson('/_sim/observations/reset', { method: 'POST' });

    const sends: Send[] = await Promise.all(
      Array.from({ length: SENDS }, async (_, n) => {
        const content = `drill-${RUN}-${n}`;
        const mediaId = mediaIds[20 + n] as string;
        // Every third one pay-per-view.
        const body =
          n % 3 === 0
            ? { content, mediaIds: [mediaId], access_type: 'ppv', price: 3 + n }
            : { content, mediaIds: [mediaId] };
        const key = `drill-${RUN}-${n}`;
        const accepted = await gw('POST', `/${accountId}/chats/${chatId}/messages`, {
          body,
          headers: { 'idempotency-key': key, prefer: 'respond-async' },
        });
        expect(accepted.status).toBe(202);
        return {
          n,
          content,
          key,
          body,
          jobId: accepted.body.data.jobId,
          statusUrl: accepted.body.data.statusUrl,
        };
      }),
    );

    // The kill: once sends reach the sandbox's messages and both workers have a send past its mark.
    const atKill = await eventually(
      async () => {
        if (((await simRequests())['POST /api/v1/message'] ?? 0) < SEEN_BEFORE_KILL) return undefined;
        const byWorker = await midWrite(sends);
        return byWorker.size >= 2 ? byWorker : undefined;
      },
      15_000,
      'both workers mid-write',
    );
    const [victim, survivor] = workers as [(typeof workers)[0], (typeof workers)[0]];
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now() - started;

    for (const send of sends) send.final = await finalAnswer(send);
    const finishedAt = Date.now() - started;
    await simJson('/_sim/faults', { method: 'DELETE' });
    // A held call of the killed worker may still be on its way in the sandbox: let it land.
    await sleep(HOLD_MS.maxMs + 100);

    // Jobs taken over from the killed worker: BullMQ found them stalled (lock lapsed) and ran them again.
    const meta = await Promise.all(sends.map((send) => redis.hmget(jobKey(send.jobId), 'stc', 'ats')));
    const takenOver = sends.filter((_, i) => Number(meta[i]?.[0] ?? 0) > 0 || Number(meta[i]?.[1] ?? 0) > 1);
    // Sends past their mark at the kill that were run again: the killed worker's (and, should a lock
    // have lapsed under load, any other's). One may have ended in the moment before the kill.
    const killedMidWrite = [...atKill.values()]
      .flat()
      .filter((id) => takenOver.some((send) => send.jobId === id));

    const messages = await chatAtSandbox();
    const countOf = (content: string) => messages.filter((m) => m.content === content).length;
    const outcomes = { success: 0, unknown: 0, other: 0 };
    for (const send of sends) {
      const { status, body } = send.final as { status: number; body: any };
      const held = countOf(send.content);
      const what = `${send.content} (job ${send.jobId}): ${status} ${body?.code ?? ''}, ${held} in the sandbox`;
      expect(held, what).toBeLessThanOrEqual(1);
      if (status === 201) {
        outcomes.success += 1;
        expect(held, what).toBe(1);
        expect(messages.find((m) => m.content === send.content)?.id, what).toBe(body.data.data.response.id);
      } else if (status === 502 && ['UPSTREAM_OUTCOME_UNKNOWN', 'JOB_FAILED'].includes(body.code)) {
        // JOB_FAILED (stalled past its limit) also tells the caller to check before repeating a write.
        outcomes.unknown += 1;
      } else {
        outcomes.other += 1;
        expect(held, what).toBe(0);
      }
    }
    // Every send run again after its mark was answered outcome unknown: none was sent again.
    for (const id of killedMidWrite) {
      const send = sends.find((s) => s.jobId === id) as Send;
      expect(send.final?.status, `${send.content} (job ${id})`).toBe(502);
      expect(['UPSTREAM_OUTCOME_UNKNOWN', 'JOB_FAILED']).toContain(send.final?.body.code);
    }
    expect(takenOver.length).toBeGreaterThan(0);
    expect(killedMidWrite.length).toBeGreaterThan(0);
    expect(outcomes.unknown).toBeGreaterThan(0);

    // Offers: one per send that reached it; those no message carries are the allowed orphans.
    const attached = new Set(messages.flatMap((m) => m.attachments.map((a) => a.contentId)));
    const drillMedia = new Set(sends.map((_, n) => mediaIds[20 + n]));
    const orphans = offers.filter((o) => drillMedia.has(o.mediaId) && !attached.has(o.id));
    const perMedia = new Map<string, number>();
    for (const offer of offers) perMedia.set(offer.mediaId, (perMedia.get(offer.mediaId) ?? 0) + 1);
    // No send made two offers (its offer write is never repeated either).
    expect(Math.max(...perMedia.values())).toBe(1);

    // Callers repeating sends with their Idempotency-Key get the first answer; nothing is sent again.
    const before = await simRequests();
    const repeats = [
      ...sends.filter((s) => s.final?.status === 201).slice(0, 3),
      ...sends.filter((s) => s.final?.status !== 201).slice(0, 3),
    ];
    for (const send of repeats) {
      const again = await gw('POST', `/${accountId}/chats/${chatId}/messages`, {
        body: send.body,
        headers: { 'idempotency-key': send.key },
      });
      expect(again.status, send.content).toBe(send.final?.status);
      expect(again.headers.get('idempotent-replayed'), send.content).toBe('true');
    }
    const after = await simRequests();
    expect(after['POST /api/v1/message'] ?? 0).toBe(before['POST /api/v1/message'] ?? 0);
    expect(after['POST /api/v1/account/media'] ?? 0).toBe(before['POST /api/v1/account/media'] ?? 0);
    const again = await chatAtSandbox();
    for (const send of sends)
      expect(again.filter((m) => m.content === send.content).length).toBe(countOf(send.content));

    const unknownHeld = sends.filter((s) => s.final?.status === 502 && countOf(s.content) === 1).length;
    // The killed worker's sends past their mark: killed in the offer's hold (offer made, no message)
    // or in the message's (delivered, its answer lost).
    const killedSends = killedMidWrite.map((id) => sends.find((s) => s.jobId === id) as Send);
    const killedDelivered = killedSends.filter((s) => countOf(s.content) === 1).length;
    tellOnFailure(
      `send-crash drill: ${SENDS} sends; killed at ${killedAt} ms with ${killedMidWrite.length} of its sends mid-write ` +
        `(${[...atKill.values()].map((jobs) => jobs.length).join('/')} per worker; ${killedDelivered} delivered, ` +
        `${killedSends.length - killedDelivered} between offer and message); all finished at ${finishedAt} ms; ` +
        `success ${outcomes.success}, outcome unknown ${outcomes.unknown} (${unknownHeld} of them delivered), ` +
        `other ${outcomes.other}; taken over ${takenOver.length}; offers ${offers.length}, orphan offers ${orphans.length}`,
    );
    expect(survivor.child.exitCode).toBeNull();
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectBadRequest, expectError } from '../support/assert';
import { connectAccount, connectCredentials } from '../support/common';
import { clearFaults, injectFault, observations, resetObservations, sawRequests } from '../support/sim';
import { account, finished, gw, scanKeys, startStack, type TestStack } from '../support/stack';

// Callers' Idempotency-Key on writes: a repeated request is answered by the first one's job and
// sends nothing more to the platform. Tracking links, since each creation is a new link there.
const BACKLOG = 2;
let stack: TestStack;
let demoId: string;
let platformId: string;

beforeAll(async () => {
  // A small backlog, so that a refused request is easy to make.
  stack = await startStack({ env: { ACCOUNT_MAX_BACKLOG: String(BACKLOG), ACCOUNT_CONCURRENCY: '2' } });
  demoId = await connectAccount(stack, 'creator_demo');
  platformId = account(stack, 'creator_demo').platformAccountId;
});
afterAll(async () => {
  await stack?.stop();
});
afterEach(async () => {
  await clearFaults(stack);
});

const CREATE = 'POST /api/v1/trackinglinks';
let n = 0;
const fresh = () => `key-${Date.now()}-${++n}`;
const createLink = (
  key: string | undefined,
  body: unknown,
  more: { headers?: Record<string, string>; tenantKey?: string; accountId?: string } = {},
) =>
  gw(stack, 'POST', `/${more.accountId ?? demoId}/tracking-links`, {
    body,
    ...(more.tenantKey ? { key: more.tenantKey } : {}),
    headers: { ...(key === undefined ? {} : { 'idempotency-key': key }), ...more.headers },
  });
const creations = async () => (await observations(stack, platformId)).requests[CREATE] ?? 0;
/** A fault on creator_demo's tracking-link creations at the sandbox. */
const faultOnCreate = (fault: Record<string, unknown>) =>
  injectFault(stack, { account: 'creator_demo', path: '/api/v1/trackinglinks', method: 'POST', ...fault });

describe('Idempotency-Key on writes', () => {
  it('answers a repeated request with the first one’s result, and sends it to the platform once', async () => {
    await resetObservations(stack);
    const key = fresh();
    const first = await createLink(key, { label: 'Once', description: 'idempotent' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same fields in another order are the same request.
    const again = await createLink(key, { description: 'idempotent', label: 'Once' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect(await creations()).toBe(1);
    expect((await observations(stack, platformId)).duplicates).toEqual([]);
  });

  it('without a key, the same request is sent again', async () => {
    await resetObservations(stack);
    const a = await createLink(undefined, { label: 'Twice' });
    const b = await createLink(undefined, { label: 'Twice' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.data.data.response.id).not.toBe(a.body.data.data.response.id);
    expect(await creations()).toBe(2);
  });

  it('treats fields and query parameters the operation does not know as no part of the request', async () => {
    await resetObservations(stack);
    const albumId = (account(stack, 'creator_demo').albumIds as string[])[0]!;
    const key = fresh();
    const del = (suffix: string, body?: unknown) =>
      gw(stack, 'DELETE', `/${demoId}/vault/albums/${albumId}${suffix}`, {
        body,
        headers: { 'idempotency-key': key, prefer: 'respond-async' },
      });
    const first = await del('', { junk: 'JUNK_FIELD_XYZ' });
    expect(first.status).toBe(202);
    // Dropped before queueing: the job holds none of it.
    const job = await stack.redis.hget(`{${stack.prefix}:q}:operations:${first.body.data.jobId}`, 'data');
    expect(job).not.toContain('JUNK_FIELD_XYZ');
    const deleted = await finished(first.body.data.statusUrl, stack.keys.t1);
    expect(deleted.status).toBe(200);
    for (const [suffix, body] of [
      ['?x=1', undefined],
      ['', {}],
      ['', { other: 1 }],
    ] as const) {
      const again = await del(suffix, body);
      expect(again.headers.get('idempotent-replayed'), `${suffix} ${JSON.stringify(body)}`).toBe('true');
      expect(again.body.data.jobId).toBe(first.body.data.jobId);
    }
    const link = await createLink(key.replace('key', 'link'), { label: 'Query' });
    const linkAgain = await gw(stack, 'POST', `/${demoId}/tracking-links?foo=bar`, {
      body: { label: 'Query', junk: true },
      headers: { 'idempotency-key': key.replace('key', 'link') },
    });
    expect(linkAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(linkAgain.body.data).toEqual(link.body.data);
    expect((await observations(stack, platformId)).requests['POST /api/v1/vault/albums/delete']).toBe(1);
  });

  it('refuses a key sent again with another request (422), sending nothing', async () => {
    const key = fresh();
    expect((await createLink(key, { label: 'First' })).status).toBe(201);
    await resetObservations(stack);
    const other = await createLink(key, { label: 'Second' });
    expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(other.body.error).toBe('Unprocessable Entity');
    expect(other.body.message).toMatch(/different request/);
    // Another operation with the same key is another request too.
    const list = await gw(stack, 'POST', `/${demoId}/lists/create`, {
      body: { name: 'First' },
      headers: { 'idempotency-key': key },
    });
    expectError(list, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await creations()).toBe(0);
    expect((await observations(stack, platformId)).requests['POST /api/v1/lists'] ?? 0).toBe(0);
  });

  it('keeps keys per tenant: another tenant’s same key is a key of its own', async () => {
    const key = fresh();
    const otherId = await connectAccount(stack, 'creator_demo', stack.keys.t2);
    await resetObservations(stack);
    const mine = await createLink(key, { label: 'Tenant one' });
    const theirs = await createLink(
      key,
      { label: 'Tenant two' },
      { tenantKey: stack.keys.t2, accountId: otherId },
    );
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await creations()).toBe(2);
  });

  it('a repeat while the first is at the platform waits for that same job', async () => {
    await resetObservations(stack);
    await faultOnCreate({ kind: 'latency', ms: 1_500, count: 1 });
    const key = fresh();
    const first = createLink(key, { label: 'Slow' });
    await sawRequests(stack, 'creator_demo', CREATE, 1);
    const again = await createLink(key, { label: 'Slow' });
    const original = await first;
    expect([original.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.data.response.id).toBe(original.body.data.data.response.id);
    expect(await creations()).toBe(1);
  });

  it('of requests sent at once with one key, one is queued: the others replay it or are told to retry (409)', async () => {
    await resetObservations(stack);
    const key = fresh();
    const answers = await Promise.all(Array.from({ length: 6 }, () => createLink(key, { label: 'Burst' })));
    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(created.length + busy.length).toBe(answers.length);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((a) => a.body.data.data.response.id)).size).toBe(1);
    for (const answer of busy) {
      expectError(answer, 409, 'IDEMPOTENCY_KEY_IN_USE');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(await creations()).toBe(1);
  });

  it('answers an asynchronous first request’s repeat with the same job: 202 at once, or its result', async () => {
    await resetObservations(stack);
    const key = fresh();
    const body = { label: 'Later' };
    const accepted = await createLink(key, body, { headers: { prefer: 'respond-async' } });
    expect(accepted.status).toBe(202);
    const { jobId, statusUrl } = accepted.body.data;
    const asyncAgain = await createLink(key, body, { headers: { prefer: 'respond-async' } });
    expect(asyncAgain.status).toBe(202);
    expect(asyncAgain.body.data.jobId).toBe(jobId);
    const done = await finished(statusUrl, stack.keys.t1);
    const syncAgain = await createLink(key, body);
    expect(syncAgain.status).toBe(201);
    expect(syncAgain.body).toMatchObject({ data: done.body.data });
    expect(await creations()).toBe(1);
  });

  it('replays a payout deletion (sealed input and result) instead of answering 404 the second time', async () => {
    await resetObservations(stack);
    const payoutMethodId = (account(stack, 'creator_demo').payoutMethodIds as string[])[0]!;
    const once = { body: { payoutMethodId }, headers: { 'idempotency-key': fresh() } };
    const first = await gw(stack, 'DELETE', `/${demoId}/payout/delete`, once);
    expect(first.status).toBe(200);
    expect(first.body.data.data.response).toMatchObject({ id: payoutMethodId, status: 3 });
    const again = await gw(stack, 'DELETE', `/${demoId}/payout/delete`, once);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const seen = (await observations(stack, platformId)).requests;
    expect(seen['POST /api/v1/payments/payoutmethod/delete']).toBe(1);
  });

  it('replays a failure too: an outcome-unknown write is not sent again under its key', async () => {
    await resetObservations(stack);
    await faultOnCreate({ count: 1, kind: 'resetAfterApply' });
    const key = fresh();
    const first = await createLink(key, { label: 'Unknown' });
    expectError(first, 502, 'UPSTREAM_OUTCOME_UNKNOWN');
    const again = await createLink(key, { label: 'Unknown' });
    expectError(again, 502, 'UPSTREAM_OUTCOME_UNKNOWN');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await creations()).toBe(1);
  });

  it('runs a repeat again when the first failed with nothing applied (503 after the retries)', async () => {
    await resetObservations(stack);
    await faultOnCreate({ count: 50, kind: 'error', status: 503 });
    const key = fresh();
    const first = await createLink(key, { label: 'Unavailable first' });
    expectError(first, 503, 'UPSTREAM_UNAVAILABLE');
    const refused = await creations();
    expect(refused).toBeGreaterThan(0);
    await clearFaults(stack);
    const again = await createLink(key, { label: 'Unavailable first' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Then the key is that run's.
    const third = await createLink(key, { label: 'Unavailable first' });
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body.data).toEqual(again.body.data);
    expect(await creations()).toBe(refused + 1);
  });

  it('runs a repeat again when the first failed because the account needed a new login', async () => {
    const twofaId = await connectAccount(stack, 'creator_2fa');
    const twofaPlatform = account(stack, 'creator_2fa').platformAccountId;
    await resetObservations(stack);
    // The session ends, and its renewal asks for a second factor: the write was sent once, refused.
    await injectFault(stack, { kind: 'sessionExpiry', account: 'creator_2fa' });
    const key = fresh();
    const first = await createLink(key, { label: 'After a new login' }, { accountId: twofaId });
    expectError(first, 409, 'REAUTH_REQUIRED');
    await clearFaults(stack);
    expect(await connectAccount(stack, 'creator_2fa')).toBe(twofaId);
    const again = await createLink(key, { label: 'After a new login' }, { accountId: twofaId });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const third = await createLink(key, { label: 'After a new login' }, { accountId: twofaId });
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body.data).toEqual(again.body.data);
    expect((await observations(stack, twofaPlatform)).duplicates).toEqual([]);
  });

  it('gives the key back when the request was refused before it was queued (full backlog: 429)', async () => {
    await resetObservations(stack);
    await faultOnCreate({ kind: 'latency', ms: 1_500, count: BACKLOG });
    const filling = await Promise.all(
      Array.from({ length: BACKLOG }, (_, i) =>
        createLink(undefined, { label: `Filler ${i}` }, { headers: { prefer: 'respond-async' } }),
      ),
    );
    expect(filling.map((r) => r.status)).toEqual(Array(BACKLOG).fill(202));
    const key = fresh();
    const refused = await createLink(key, { label: 'Refused first' });
    expectError(refused, 429, 'RATE_LIMITED');
    for (const { body } of filling) await finished(body.data.statusUrl, stack.keys.t1);
    const retried = await createLink(key, { label: 'Refused first' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await creations()).toBe(BACKLOG + 1);
  });

  it.each([
    ['empty', '', 'The idempotency-key header must not be empty'],
    ['longer than 255', 'k'.repeat(256), 'The idempotency-key header must NOT have more than 255 characters'],
    ['with a space', 'two words', 'The idempotency-key header must be 1 to 255 visible ASCII characters'],
  ])('refuses a key %s (400), sending nothing', async (_what, key, says) => {
    await resetObservations(stack);
    const response = await createLink(key, { label: 'Bad key' });
    expectBadRequest(response, says);
    expect(await creations()).toBe(0);
  });

  it('ignores the header on reads, which are sent each time', async () => {
    await resetObservations(stack);
    const key = fresh();
    const headers = { 'idempotency-key': key };
    const a = await gw(stack, 'GET', `/${demoId}/posts/walls`, { headers });
    const b = await gw(stack, 'GET', `/${demoId}/posts/walls`, { headers });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    const seen = (await observations(stack, platformId)).requests;
    expect(Object.values(seen).reduce((sum, count) => sum + count, 0)).toBe(2);
  });

  it('answers 502 for a key whose job is gone while its write may have been applied, sending nothing', async () => {
    const key = fresh();
    const accepted = await createLink(key, { label: 'Lost' }, { headers: { prefer: 'respond-async' } });
    const { jobId, statusUrl } = accepted.body.data;
    expect((await finished(statusUrl, stack.keys.t1)).status).toBe(201);
    await resetObservations(stack);
    // The job removed early (eviction, a worker clock ahead), its claim past the window; its
    // write-ahead mark stays, as after any write that was sent.
    const names = await scanKeys(stack.redis, stack.prefix);
    const records = names.filter((name) => name.includes(':idem:'));
    const values = await Promise.all(records.map((name) => stack.redis.get(name)));
    const at = values.findIndex((value) => value?.split(' ')[1] === jobId);
    const [digest] = (values[at] as string).split(' ');
    await stack.redis.set(records[at] as string, `${digest} ${jobId} ${Date.now() - 61_000}`, 'KEEPTTL');
    await stack.redis.del(`{${stack.prefix}:q}:operations:${jobId}`);
    expect(names).toContain(`{${stack.prefix}:q}:sent:${jobId}`);
    const again = await createLink(key, { label: 'Lost' });
    expectError(again, 502, 'UPSTREAM_OUTCOME_UNKNOWN', 'no longer kept');
    expect(await creations()).toBe(0);
  });

  it('seals only what is sealed without a key: a keyed tracking link’s job keeps its input readable', async () => {
    const accepted = await createLink(
      fresh(),
      { label: 'Readable' },
      { headers: { prefer: 'respond-async' } },
    );
    expect(accepted.status).toBe(202);
    const data = JSON.parse(
      (await stack.redis.hget(
        `{${stack.prefix}:q}:operations:${accepted.body.data.jobId}`,
        'data',
      )) as string,
    );
    expect(data.sealed).toBeUndefined();
    expect(data.input.body).toEqual({ label: 'Readable' });
    await finished(accepted.body.data.statusUrl, stack.keys.t1);
  });

  it('ignores the header on /connect, whose repeat keeps the account id', async () => {
    const headers = { 'idempotency-key': fresh() };
    const body = connectCredentials(stack, 'creator_demo');
    const a = await gw(stack, 'POST', '/connect', { body, headers });
    const b = await gw(stack, 'POST', '/connect', { body, headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.data.account_id).toBe(a.body.data.account_id);
  });

  it('keeps no key in clear in Redis', async () => {
    const key = `secret-order-${Date.now()}`;
    expect((await createLink(key, { label: 'Hashed' })).status).toBe(201);
    const names = await scanKeys(stack.redis, stack.prefix);
    expect(names.filter((name) => name.includes(':idem:')).length).toBeGreaterThan(0);
    expect(names.some((name) => name.includes(key))).toBe(false);
    const records = names.filter((name) => name.includes(':idem:'));
    for (const value of await Promise.all(records.map((name) => stack.redis.get(name))))
      expect(value).not.toContain(key);
  });
});

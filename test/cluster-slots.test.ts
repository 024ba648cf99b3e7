import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ApiKeyStore, connectRedis, LAST_ADMIN, type Redis, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPath, type RedisHandle, spawnRedis } from '../scripts/lib/redis';
import { connectAccount, connectCredentials } from './support/common';
import { eventually } from './support/processes';
import { clearFaults, slowDown } from './support/sim';
import { account, finished, gw, startStack, type TestStack } from './support/stack';

// Scale-out is more processes on one Redis, a Cluster included: every MULTI, script and multi-key
// command of the gateway must keep its keys in one slot. A one-node Cluster owning every slot answers
// a plain client like any Redis, except that it refuses those that do not (CROSSSLOT), so the
// gateway's paths run here against one. (The whole suite runs against one with `REDIS_URL`.)
describe.skipIf(!onPath('redis-server'))('on a Redis Cluster (one node, every slot)', () => {
  let dir: string;
  let cluster: RedisHandle;
  let redis: Redis;
  let stack: TestStack;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cg-cluster-'));
    cluster = await spawnRedis(dir, ['--cluster-enabled', 'yes', '--appendonly', 'no']);
    redis = connectRedis(cluster.url);
    await redis.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    for (
      let i = 0;
      i < 100 && !String(await redis.call('CLUSTER', 'INFO')).includes('cluster_state:ok');
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    stack = await startStack({
      redisUrl: cluster.url,
      env: { ACCOUNT_CONCURRENCY: '1', MEDIA_STATS_GAP_MS: '500' },
      sim: { mediaOfferGapMs: 500 },
    });
  }, 30_000);
  afterAll(async () => {
    await stack?.stop();
    redis?.disconnect();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a write across slots, so the tests below can see one', async () => {
    await expect(redis.multi().set('a', '1').set('b', '1').exec()).rejects.toThrow(/CROSSSLOT/);
  });

  it('creates, lists and revokes API keys (the store and `pnpm keys`)', async () => {
    const keys = new ApiKeyStore(redis, storeKeys(stack.prefix));
    const created = await keys.create('acme', { label: 'cluster' });
    expect(await keys.resolve(created.key)).toMatchObject({ tenantId: 'acme' });
    expect((await keys.list()).map((k) => k.keyId)).toContain(created.info.keyId);
    // The guarded changes (one script in the keys' slot): the last admin key stays admin.
    expect(await keys.update('acme', created.info.keyId, { access: 'read' })).toBe(LAST_ADMIN);
    const second = await keys.create('acme', { label: 'second' });
    expect(await keys.update('acme', created.info.keyId, { access: 'read' })).toMatchObject({
      access: 'read',
    });
    expect(await keys.remove('acme', second.info.keyId)).toBe(LAST_ADMIN);
    expect(await keys.update('acme', created.info.keyId, { access: 'admin' })).toMatchObject({
      access: 'admin',
    });
    expect(await keys.remove('acme', second.info.keyId)).toBe(true);

    const cli = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'apps/api/src/cli.ts', 'revoke', created.info.keyId],
      {
        cwd: resolve(import.meta.dirname, '..'),
        env: { ...process.env, REDIS_URL: cluster.url, REDIS_PREFIX: stack.prefix },
      },
    );
    expect(cli.stderr).toContain('revoked');
    expect(await keys.resolve(created.key)).toBeNull();
  });

  it('connects with and without a second factor, runs reads, writes and async jobs, disconnects', async () => {
    const demo = await connectAccount(stack, 'creator_demo');
    const fixture = account(stack, 'creator_2fa');
    const started = await gw(stack, 'POST', '/connect', { body: connectCredentials(stack, 'creator_2fa') });
    expect(started.body.data.requires_2fa).toBe(true);
    const verify = (code: string) =>
      gw(stack, 'POST', '/verify-2fa', {
        body: {
          ...connectCredentials(stack, 'creator_2fa'),
          twoFactorToken: started.body.data.twofa_token,
          twoFactorCode: code,
        },
      });
    expect((await verify('000000')).status).toBe(400);
    const twofa = (await verify(fixture.twofaCode as string)).body.data.account_id as string;

    // Reads that meet share a batch; with ACCOUNT_CONCURRENCY 1 the rest wait in the account's lane.
    const reads = await Promise.all(
      Array.from({ length: 12 }, (_, i) => gw(stack, 'GET', `/${i % 2 ? demo : twofa}/me`)),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(12).fill(200));

    const list = await gw(stack, 'POST', `/${demo}/lists/create`, { body: { name: 'cluster' } });
    expect(list.status).toBe(201);
    // A write under an Idempotency-Key, then its replay: the key's record and its job share a slot.
    const once = { body: { name: 'cluster once' }, headers: { 'idempotency-key': 'cluster-1' } };
    const first = await gw(stack, 'POST', `/${demo}/lists/create`, once);
    const again = await gw(stack, 'POST', `/${demo}/lists/create`, once);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.data.response.id).toBe(first.body.data.data.response.id);

    const queued = await gw(stack, 'GET', `/${demo}/me`, { headers: { prefer: 'respond-async' } });
    expect(queued.status).toBe(202);
    expect((await finished(queued.headers.get('location') as string, stack.keys.t1)).status).toBe(200);

    // Media stats of one account leave a gap between them: the second waits parked, then is woken.
    const chats = account(stack, 'creator_demo').chatIds as string[];
    const stats = await Promise.all(
      chats.slice(0, 2).map((chat) => gw(stack, 'GET', `/${demo}/chats/${chat}/media-stats`)),
    );
    expect(stats.map((s) => s.status)).toEqual([200, 200]);

    // A write waiting behind a slow call is cancelled: its lane, its mark and its job share a slot.
    await slowDown(stack, 'creator_demo', '/api/v1/account/me', 1_000);
    const slow = await gw(stack, 'GET', `/${demo}/me`, { headers: { prefer: 'respond-async' } });
    const waiting = await gw(stack, 'POST', `/${demo}/lists/create`, {
      body: { name: 'never' },
      headers: { prefer: 'respond-async' },
    });
    expect((await gw(stack, 'DELETE', `/jobs/${waiting.body.data.jobId}`)).status).toBe(200);
    expect((await gw(stack, 'GET', `/jobs/${waiting.body.data.jobId}`)).body.code).toBe('JOB_CANCELLED');
    expect((await finished(slow.body.data.statusUrl, stack.keys.t1)).status).toBe(200);
    await clearFaults(stack);

    for (const id of [demo, twofa]) expect((await gw(stack, 'DELETE', `/accounts/${id}`)).status).toBe(200);
    expect((await gw(stack, 'GET', `/${demo}/me`)).status).toBe(404);
  }, 60_000);

  it('writes the usage and the audit log in the tenant’s slot, and reads them back', async () => {
    // Each process writes its counts about once a second: polled until the jobs' calls are in.
    const usage = await eventually(async () => {
      const answer = await gw(stack, 'GET', '/usage?groupBy=account&bucket=day');
      return answer.status === 200 && answer.body.data.totals.platformCalls > 0 ? answer : undefined;
    }, 10_000);
    expect(usage.body.data.totals.requests2xx).toBeGreaterThan(0);
    const audit = await gw(stack, 'GET', '/audit?operation=lists-create&limit=2');
    expect(audit.status).toBe(200);
    expect(audit.body.data.entries).toHaveLength(2);
  });
});

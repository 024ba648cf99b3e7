import { createApi } from '@cg/api';
import { loadGatewayConfig } from '@cg/config';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectNotFound } from '../support/assert';
import { connectAccount } from '../support/common';
import { testLogger } from '../support/logs';
import { sleep } from '../support/processes';
import { clearFaults, injectFault } from '../support/sim';
import { gw, redisText, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
/** Two connected accounts of tenant t1 (creator_demo, creator_2fa) and one of t2 (creator_demo). */
const ids = { demo: '', extra: '', other: '' };
/** A second API process on the same Redis, with the default key cache. */
let second: FastifyInstance;
let secondUrl = '';

beforeAll(async () => {
  stack = await startStack();
  ids.demo = await connectAccount(stack, 'creator_demo', stack.keys.t1);
  ids.extra = await connectAccount(stack, 'creator_2fa', stack.keys.t1);
  ids.other = await connectAccount(stack, 'creator_demo', stack.keys.t2);
  second = await createApi(loadGatewayConfig({ ...stack.env, API_KEY_CACHE_MS: '1000' }), testLogger());
  secondUrl = `${await second.listen({ port: 0, host: '127.0.0.1' })}/api/fansly`;
});
afterAll(async () => {
  await second?.close();
  await stack?.stop();
});

/** A new key of t1 made over HTTP by the stack's admin key (or `by`). */
async function makeKey(
  body: Record<string, unknown>,
  by = stack.keys.t1,
): Promise<{ key: string; keyId: string }> {
  const created = await gw(stack, 'POST', '/keys', { key: by, body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

describe('keys over HTTP', () => {
  it('shows a new key once: its answer has it, no listing and no Redis value does', async () => {
    const created = await gw(stack, 'POST', '/keys', {
      body: { label: 'chatter', access: 'write', accounts: [ids.demo], rpm: 120 },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      label: 'chatter',
      access: 'write',
      accounts: [ids.demo],
      rpm: 120,
      key: expect.stringMatching(/^cgk_/),
    });
    const { key, keyId } = created.body.data;
    const listed = await gw(stack, 'GET', '/keys');
    expect(listed.body.data.keys.find((k: { keyId: string }) => k.keyId === keyId)).toEqual({
      keyId,
      label: 'chatter',
      access: 'write',
      accounts: [ids.demo],
      rpm: 120,
      createdAt: expect.any(Number),
    });
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(JSON.stringify((await gw(stack, 'GET', `/keys/${keyId}`)).body)).not.toContain(key);
    // Every key of the stack, of every type (the audit log and usage included).
    for (const text of await redisText(stack)) expect(text).not.toContain(key);
    // The key works at once, within its scope.
    expect((await gw(stack, 'GET', `/${ids.demo}/me`, { key })).status).toBe(200);
  });

  it('answers 403 FORBIDDEN naming the access a read key lacks, and queues nothing', async () => {
    const { key } = await makeKey({ access: 'read', accounts: [ids.demo] });
    const write = await gw(stack, 'POST', `/${ids.demo}/lists/create`, { key, body: { label: 'nope' } });
    expectError(write, 403, 'FORBIDDEN', 'read access', 'needs write access');
    expect(write.body.error).toBe('Forbidden');
    expectError(await gw(stack, 'GET', '/keys', { key }), 403, 'FORBIDDEN', 'needs admin access');
    expectError(
      await gw(stack, 'POST', '/webhooks', { key, body: { url: 'https://example.com/hook' } }),
      403,
      'FORBIDDEN',
      'needs admin access',
    );
    expect((await gw(stack, 'GET', `/${ids.demo}/me`, { key })).status).toBe(200);
  });

  it('answers an account outside the key as another tenant’s: the same 404, and lists only its own', async () => {
    const { key } = await makeKey({ access: 'admin', accounts: [ids.demo] });
    const outside = await gw(stack, 'GET', `/${ids.extra}/me`, { key });
    const otherTenant = await gw(stack, 'GET', `/${ids.other}/me`, { key });
    const unknown = await gw(stack, 'GET', '/acct_0000000000000000000000/me', { key });
    expectNotFound(outside, ids.extra);
    for (const answer of [outside, otherTenant, unknown]) {
      expect(answer.status).toBe(404);
      expect(answer.body.message.replace(/acct_\w+/, 'ID')).toBe(
        outside.body.message.replace(/acct_\w+/, 'ID'),
      );
    }
    expectNotFound(await gw(stack, 'DELETE', `/accounts/${ids.extra}`, { key }), ids.extra);
    const accounts = (await gw(stack, 'GET', '/accounts', { key })).body.data.accounts;
    expect(accounts.map((a: { accountId: string }) => a.accountId)).toEqual([ids.demo]);
    // A lookup that takes any account uses one of the key's.
    const lookup = await gw(stack, 'GET', '/search/creator_demo', { key });
    expect(lookup.status).toBe(200);
  });

  it('shows a scoped key only its accounts’ jobs and events', async () => {
    const { key } = await makeKey({ access: 'read', accounts: [ids.demo] });
    const started = await gw(stack, 'GET', `/${ids.extra}/me`, { headers: { prefer: 'wait=0' } });
    expect(started.status).toBe(202);
    const { jobId } = started.body.data;
    expectNotFound(await gw(stack, 'GET', `/jobs/${jobId}`, { key }), jobId);
    expect((await gw(stack, 'GET', `/jobs/${jobId}`)).status).not.toBe(404);
    const events = (await gw(stack, 'GET', '/events?limit=100', { key })).body.data.events as {
      accountId: string | null;
    }[];
    const all = (await gw(stack, 'GET', '/events?limit=100')).body.data.events as {
      accountId: string | null;
    }[];
    expect(all.some((event) => event.accountId === ids.extra)).toBe(true);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.accountId === ids.demo)).toBe(true);
  });

  it('tells any key its own scope at GET /keys/self, and no other key’s', async () => {
    const { key, keyId } = await makeKey({ label: 'reader', access: 'read', accounts: [ids.demo], rpm: 30 });
    const self = await gw(stack, 'GET', '/keys/self', { key });
    expect(self.status).toBe(200);
    expect(self.body.data).toEqual({
      keyId,
      label: 'reader',
      access: 'read',
      accounts: [ids.demo],
      rpm: 30,
      createdAt: expect.any(Number),
    });
    expect(JSON.stringify(self.body)).not.toContain(key);
    // Another key's record is still admin-only.
    expect((await gw(stack, 'GET', `/keys/${keyId}`, { key })).status).toBe(403);
    expect((await gw(stack, 'GET', '/keys/self', { key: 'cgk_unknown' })).status).toBe(401);
  });

  it('grants no more than the granting key has', async () => {
    const scoped = await makeKey({ access: 'admin', accounts: [ids.demo], rpm: 100 });
    const refusals = [
      { access: 'admin', accounts: [ids.extra], rpm: 10 },
      { access: 'read', accounts: null, rpm: 10 },
      { access: 'read', rpm: 10 },
      { access: 'read', accounts: [ids.demo], rpm: 0 },
      { access: 'read', accounts: [ids.demo], rpm: 101 },
    ];
    for (const body of refusals)
      expectError(
        await gw(stack, 'POST', '/keys', { key: scoped.key, body }),
        403,
        'FORBIDDEN',
        'cannot grant',
      );
    const reader = await makeKey({ access: 'read', accounts: [ids.demo] }, stack.keys.t1);
    const writer = await makeKey({ access: 'write', accounts: [ids.demo], rpm: 50 }, scoped.key);
    // A scoped admin sees the keys within its accounts only; a key of every account is not one.
    const seen = (await gw(stack, 'GET', '/keys', { key: scoped.key })).body.data.keys.map(
      (k: { keyId: string }) => k.keyId,
    );
    expect(seen).toEqual(expect.arrayContaining([scoped.keyId, reader.keyId, writer.keyId]));
    expect(seen).not.toContain((await gw(stack, 'GET', '/keys')).body.data.keys[0].keyId);
    expectNotFound(await gw(stack, 'GET', '/keys/key_0000', { key: scoped.key }), 'key_0000');
    // Unknown accounts, for a key of every account: 400 naming it.
    expectError(
      await gw(stack, 'POST', '/keys', {
        body: { access: 'read', accounts: ['acct_0000000000000000000000'] },
      }),
      400,
      'BAD_REQUEST',
      'acct_0000000000000000000000',
    );
    expectError(await gw(stack, 'POST', '/keys', { body: { access: 'owner' } }), 400, 'BAD_REQUEST');
    expectError(await gw(stack, 'PATCH', `/keys/${writer.keyId}`, { body: {} }), 400, 'BAD_REQUEST');
  });

  it('keeps the tenant’s last admin key: it cannot be revoked or demoted', async () => {
    const { keyId: bootstrap } = (await gw(stack, 'GET', '/keys', { key: stack.keys.t2 })).body.data.keys[0];
    expectError(
      await gw(stack, 'DELETE', `/keys/${bootstrap}`, { key: stack.keys.t2 }),
      409,
      'CONFLICT',
      'last admin',
    );
    expectError(
      await gw(stack, 'PATCH', `/keys/${bootstrap}`, { key: stack.keys.t2, body: { access: 'write' } }),
      409,
      'CONFLICT',
      'last admin',
    );
    // With a second admin key, the first may be demoted; then the second is the last.
    const made = await gw(stack, 'POST', '/keys', { key: stack.keys.t2, body: { access: 'admin' } });
    expect(made.status).toBe(201);
    expect(
      (await gw(stack, 'PATCH', `/keys/${bootstrap}`, { key: stack.keys.t2, body: { access: 'read' } }))
        .status,
    ).toBe(200);
    expectError(
      await gw(stack, 'DELETE', `/keys/${made.body.data.keyId}`, { key: made.body.data.key }),
      409,
      'CONFLICT',
      'last admin',
    );
    // Another tenant's key is one that does not exist.
    expectNotFound(await gw(stack, 'GET', `/keys/${made.body.data.keyId}`), made.body.data.keyId);
  });

  it('takes a change of scope and a revocation into account on every API process within 1 s', async () => {
    const { key, keyId } = await makeKey({ access: 'write', accounts: [ids.demo] });
    const onSecond = (path: string) =>
      fetch(`${secondUrl}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: '{"label":"x"}',
      });
    const me = () => fetch(`${secondUrl}/${ids.demo}/me`, { headers: { 'x-api-key': key } });
    // The second process looks the key up now, and may trust what it read for API_KEY_CACHE_MS (1 s).
    expect((await me()).status).toBe(200);
    expect((await gw(stack, 'PATCH', `/keys/${keyId}`, { body: { access: 'read' } })).status).toBe(200);
    await sleep(1_000);
    expect((await onSecond(`/${ids.demo}/lists/create`)).status).toBe(403);
    expect((await gw(stack, 'DELETE', `/keys/${keyId}`)).status).toBe(200);
    await sleep(1_000);
    expect((await me()).status).toBe(401);
  });

  it('answers an account outside the key that needs a new login with the same 404, not a 409', async () => {
    const { key } = await makeKey({ access: 'read', accounts: [ids.demo] });
    await injectFault(stack, { kind: 'sessionExpiry', account: 'creator_2fa' });
    try {
      expectError(await gw(stack, 'GET', `/${ids.extra}/me`), 409, 'REAUTH_REQUIRED');
      // On the second API process, which has not seen the account yet (nothing cached).
      const answer = await fetch(`${secondUrl}/${ids.extra}/me`, { headers: { 'x-api-key': key } });
      expectNotFound({ status: answer.status, body: await answer.json() }, ids.extra);
    } finally {
      await clearFaults(stack);
    }
  });
});

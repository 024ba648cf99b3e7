import { ApiKeyStore, randomId, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBadRequest, expectError } from '../support/assert';
import { connectAccount, connectCredentials } from '../support/common';
import { eventually } from '../support/processes';
import { simFixture } from '../support/sim';
import { account, everyKey, gw, redisText, startStack, type TestStack } from '../support/stack';

// The audit log as GET /audit answers it: one entry per write and admin action this file makes,
// their fields, and no secret in any entry nor anywhere else under the stack's prefix.

let stack: TestStack;
let apiKeys: ApiKeyStore;
let accountA: string;
let chatId: string;
let writer: { key: string; id: string };
let reader: { key: string; id: string };
/** The message texts and list names sent: none may be in the audit log. */
const texts = [`hello there ${randomId(10)}`, `second words ${randomId(10)}`, `fans list ${randomId(10)}`];
/** What the audit log is expected to hold, oldest first. */
const made: { operation: string; keyId: string; status: number; [field: string]: unknown }[] = [];
let adminId: string;

const audit = (query = '', key = stack.keys.t1) =>
  gw(stack, 'GET', `/audit${query ? `?${query}` : ''}`, { key });

/** Every entry the key sees with `query`, page by page (`limit` each), newest first. */
async function allEntries(query: string, key = stack.keys.t1, limit = 100): Promise<any[]> {
  const entries: any[] = [];
  let cursor: string | null = null;
  do {
    const page = await audit(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, key);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    entries.push(...page.body.data.entries);
    cursor = page.body.data.nextCursor;
  } while (cursor !== null);
  return entries;
}

beforeAll(async () => {
  stack = await startStack();
  apiKeys = new ApiKeyStore(stack.redis, storeKeys(stack.prefix));
  adminId = (await apiKeys.resolve(stack.keys.t1))?.keyId ?? '';
  const w = await apiKeys.create('t1', { label: 'writer bot', access: 'write' });
  writer = { key: w.key, id: w.info.keyId };
  const r = await apiKeys.create('t1', { label: 'reader', access: 'read' });
  reader = { key: r.key, id: r.info.keyId };
  chatId = (await simFixture(stack, 'creator_demo')).chatIds[0];

  // The writes, each noted as the entry it should leave.
  accountA = await connectAccount(stack, 'creator_demo');
  made.push({ operation: 'connect', keyId: adminId, status: 201, accountId: null });
  // A connection with a second factor: its password and code go to the API, never to the log.
  const credentials = connectCredentials(stack, 'creator_2fa');
  const started = await gw(stack, 'POST', '/connect', { body: credentials });
  expect(started.status).toBe(201);
  made.push({ operation: 'connect', keyId: adminId, status: 201 });
  const verified = await gw(stack, 'POST', '/verify-2fa', {
    body: {
      ...credentials,
      twoFactorToken: started.body.data.twofa_token,
      twoFactorCode: account(stack, 'creator_2fa').twofaCode,
    },
  });
  expect(verified.status).toBe(201);
  made.push({ operation: 'verify-2fa', keyId: adminId, status: 201 });
  const accountB = verified.body.data.account_id as string;

  for (const [i, content] of texts.slice(0, 2).entries()) {
    const sent = await gw(stack, 'POST', `/${accountA}/chats/${chatId}/messages`, {
      key: writer.key,
      body: { content },
      headers: { 'idempotency-key': `send-${i}-${randomId(6)}` },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    made.push({
      operation: 'chat-messages-send',
      keyId: writer.id,
      status: 201,
      accountId: accountA,
      targets: { chatId },
      idempotencyKey: expect.stringMatching(new RegExp(`^send-${i}-`)),
    });
  }
  const list = await gw(stack, 'POST', `/${accountA}/lists/create`, {
    key: writer.key,
    body: { name: texts[2] },
  });
  expect(list.status).toBe(201);
  made.push({ operation: 'lists-create', keyId: writer.id, status: 201, accountId: accountA, targets: {} });
  const listId = String(list.body.data.data.response.id);
  const fan = (account(stack, 'creator_demo') as any).fanIds[0] as string;
  const added = await gw(stack, 'POST', `/${accountA}/lists/users`, {
    key: writer.key,
    body: { userId: fan, listId },
  });
  expect(added.status).toBe(201);
  made.push({
    operation: 'lists-add-user',
    keyId: writer.id,
    status: 201,
    accountId: accountA,
    targets: { userId: fan, listId },
  });
  // A write the key may not make: refused, and audited as such.
  const refused = await gw(stack, 'POST', '/webhooks', {
    key: writer.key,
    body: { url: 'https://hooks.example.com/in' },
  });
  expect(refused.status).toBe(403);
  made.push({ operation: 'webhooks-create', keyId: writer.id, status: 403 });
  const hook = await gw(stack, 'POST', '/webhooks', { body: { url: 'https://hooks.example.com/in' } });
  expect(hook.status).toBe(201);
  made.push({ operation: 'webhooks-create', keyId: adminId, status: 201 });
  const hookId = hook.body.data.id as string;
  expect((await gw(stack, 'DELETE', `/webhooks/${hookId}`)).status).toBe(200);
  made.push({ operation: 'webhooks-delete', keyId: adminId, status: 200, targets: { id: hookId } });
  expect((await gw(stack, 'DELETE', `/accounts/${accountB}`)).status).toBe(200);
  made.push({ operation: 'disconnect-account', keyId: adminId, status: 200, accountId: accountB });
  // Reads leave no entry.
  expect((await gw(stack, 'GET', `/${accountA}/me`, { key: writer.key })).status).toBe(200);
  expect((await gw(stack, 'GET', '/webhooks', { key: reader.key })).status).toBe(200);
  // Entries are written just after the answers: wait for the last.
  await eventually(async () => ((await allEntries('')).length >= made.length ? true : undefined), 10_000);
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

describe('GET /audit', () => {
  it('holds one entry per write and admin action, newest first, with their fields', async () => {
    const entries = await allEntries('');
    expect(entries).toHaveLength(made.length);
    const oldestFirst = [...entries].reverse();
    for (const [i, entry] of oldestFirst.entries())
      expect(entry, `entry ${i}`).toMatchObject(made[i] as object);
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual(
        [
          'accountId',
          'at',
          'id',
          'idempotencyKey',
          'jobId',
          'keyId',
          'keyLabel',
          'method',
          'operation',
          'requestId',
          'route',
          'status',
          'targets',
        ].sort(),
      );
      expect(new Date(entry.at).toISOString()).toBe(entry.at);
      expect(entry.requestId).toMatch(/\S/);
    }
    const [send] = oldestFirst.filter((entry) => entry.operation === 'chat-messages-send');
    expect(send).toMatchObject({
      keyLabel: 'writer bot',
      method: 'POST',
      route: '/api/fansly/:accountId/chats/:chatId/messages',
      jobId: expect.any(String),
    });
    // Newest first, ids strictly decreasing.
    const ids = entries.map((entry) => entry.id);
    expect([...ids].sort(compareIds).reverse()).toEqual(ids);
  });

  it('holds no secret: not in any entry, not anywhere under the stack’s prefix', async () => {
    const password = account(stack, 'creator_2fa').password;
    const code = account(stack, 'creator_2fa').twofaCode as string;
    const logged = JSON.stringify(await allEntries(''));
    const codeAlone = new RegExp(`(^|[^0-9])${code}([^0-9]|$)`);
    expect(logged).not.toContain(password);
    expect(logged).not.toMatch(codeAlone);
    for (const text of texts) expect(logged).not.toContain(text);
    const values = (await redisText(stack)).join('\n');
    expect(values).not.toContain(password);
    expect(values).not.toMatch(codeAlone);
    // A message's text is in its job's input (the queue keeps it, in clear, for the job's retention)
    // and nowhere else: not in the audit log, the usage, the accounts or the idempotency records.
    for (const key of await everyKey(stack.redis, stack.prefix)) {
      if (key.startsWith(`{${stack.prefix}:q}:`)) continue;
      const text = (await redisTextOf(key)).join('\n');
      for (const sent of texts) expect(text, key).not.toContain(sent);
    }
  });

  it('filters by account, key, operation and time, and pages by cursor', async () => {
    const all = await allEntries('');
    const pagedByTwo = await allEntries('', stack.keys.t1, 2);
    expect(pagedByTwo.map((entry) => entry.id)).toEqual(all.map((entry) => entry.id));
    const first = await audit('limit=3');
    expect(first.body.data.entries).toHaveLength(3);
    expect(first.body.data.nextCursor).toBe(first.body.data.entries[2].id);

    const ofA = await allEntries(`accountId=${accountA}`);
    expect(ofA.length).toBe(made.filter((entry) => entry.accountId === accountA).length);
    for (const entry of ofA) expect(entry.accountId).toBe(accountA);
    const lists = await allEntries('operation=lists-create');
    expect(lists.map((entry) => entry.operation)).toEqual(['lists-create']);
    const ofWriter = await allEntries(`keyId=${writer.id}`);
    expect(ofWriter.length).toBe(made.filter((entry) => entry.keyId === writer.id).length);
    // From the list's creation on: it and what came after.
    const created = lists[0];
    const since = await allEntries(`from=${encodeURIComponent(created.at)}`);
    expect(since.map((entry) => entry.id)).toEqual(
      all.filter((entry) => entry.at >= created.at).map((entry) => entry.id),
    );
    expect(since.map((entry) => entry.id)).toContain(created.id);
    const until = await allEntries(`to=${encodeURIComponent(created.at)}`);
    expect(until.map((entry) => entry.id)).toEqual(
      all.filter((entry) => entry.at <= created.at).map((entry) => entry.id),
    );
    expect(until.map((entry) => entry.id)).toContain(created.id);
    expectBadRequest(await audit(`from=${encodeURIComponent(created.at)}&to=2000-01-01T00:00:00Z`), 'from');
    expectBadRequest(await audit('cursor=abc'), 'cursor');
  });

  it('shows a key other than an admin key its own entries only', async () => {
    const own = await allEntries('', writer.key);
    expect(own.length).toBe(made.filter((entry) => entry.keyId === writer.id).length);
    for (const entry of own) expect(entry.keyId).toBe(writer.id);
    expect(await allEntries('', reader.key)).toEqual([]);
    expectError(await audit(`keyId=${adminId}`, writer.key), 403, 'FORBIDDEN');
    // An admin key of some accounts sees theirs.
    const { key } = await apiKeys.create('t1', {
      label: 'admin of A',
      access: 'admin',
      accounts: [accountA],
    });
    const ofA = await allEntries('', key);
    expect(ofA.length).toBeGreaterThan(0);
    for (const entry of ofA) expect(entry.accountId).toBe(accountA);
    // Another tenant sees none of them.
    expect(await allEntries('', stack.keys.t2)).toEqual([]);
  });
});

/** Stream ids compared by time, then sequence. */
function compareIds(a: string, b: string): number {
  const [ta, sa] = a.split('-').map(BigInt);
  const [tb, sb] = b.split('-').map(BigInt);
  return ta === tb ? Number((sa ?? 0n) - (sb ?? 0n)) : ta! < tb! ? -1 : 1;
}

/** One key's value as text (`redisText` does it for every key). */
async function redisTextOf(key: string): Promise<string[]> {
  const { redis } = stack;
  const type = await redis.type(key);
  if (type === 'string') return [(await redis.get(key)) ?? ''];
  if (type === 'hash') return [JSON.stringify(await redis.hgetall(key))];
  if (type === 'list') return [JSON.stringify(await redis.lrange(key, 0, -1))];
  if (type === 'set') return [JSON.stringify(await redis.smembers(key))];
  if (type === 'zset') return [JSON.stringify(await redis.zrange(key, 0, -1))];
  if (type === 'stream') return [JSON.stringify(await redis.xrange(key, '-', '+'))];
  return [];
}

import { LIST_PAGE_SIZE, List, ListMember, ListMemberWithSortId } from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { injectFault, type SimSession, simRequests } from '../support/sim';
import { account, gw, scanKeys, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let accountId: string;
let sim: SimSession;
let demo: { platformAccountId: string; fanIds: string[]; listIds: string[] };

beforeAll(async () => {
  stack = await startStack();
  ({ accountId, sim } = await connectWithSim(stack));
  demo = account(stack, 'creator_demo') as never;
});
afterAll(async () => {
  await stack?.stop();
});

function expectListNotFound(response: { status: number; body: any }) {
  expectNotFound(response, 'list');
  // The platform's own text ("list not found") is never forwarded.
  expect(response.body.message).not.toBe('list not found');
}

/** Every member of a list as the sandbox itself pages it (limit 100, after = last sortId). */
async function simMembers(listId: string): Promise<{ id: string; sortId: string }[]> {
  const all: { id: string; sortId: string }[] = [];
  for (;;) {
    const page = await sim.get<{ id: string; sortId: string }[]>('/lists/itemsnew', {
      listId,
      limit: 100,
      after: all.at(-1)?.sortId ?? '0',
    });
    all.push(...page);
    if (page.length < 100) return all;
  }
}

/** Walks the gateway's cursor to the end, checking every page's shape. */
async function walkList(listId: string): Promise<{ members: any[]; pages: number }> {
  const members: any[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages < 50; pages++) {
    const query = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
    const response = await gw(stack, 'GET', `/${accountId}/lists/${listId}${query}`);
    expectSuccess(response, 200);
    const { response: page, nextCursor } = response.body.data.data;
    expect(typeof nextCursor).toBe('string');
    expect(response.body.data.nextCursor).toBeUndefined();
    expect(Array.isArray(page)).toBe(true);
    for (const member of page) expect(errorsOf(ListMemberWithSortId.schema, member)).toEqual([]);
    members.push(...page);
    if (nextCursor === '') return { members, pages };
    expect(page.length).toBe(LIST_PAGE_SIZE);
    expect(nextCursor).toBe(page.at(-1).sortId);
    cursor = nextCursor;
  }
  throw new Error('the cursor never ended');
}

describe('POST /{accountId}/lists/create', () => {
  it('creates a list and answers the List record', async () => {
    const response = await gw(stack, 'POST', `/${accountId}/lists/create`, { body: { name: 'VIP fans' } });
    expectSuccess(response, 201);
    const list = response.body.data.data.response;
    expect(errorsOf(List.schema, list)).toEqual([]);
    expect(Object.keys(list).sort()).toEqual(Object.keys(List.schema.properties).sort());
    expect(list).toMatchObject({ label: 'VIP fans', accountId: demo.platformAccountId, type: 1 });
    expect(list.id).toMatch(/^\d+$/);
    // The sandbox now holds it, under the same id and label.
    const lists = await sim.get<{ id: string; label: string }[]>('/lists');
    expect(lists.find((l) => l.id === list.id)?.label).toBe('VIP fans');
  });

  it('a created list can receive fans, who then appear when reading it', async () => {
    const created = await gw(stack, 'POST', `/${accountId}/lists/create`, { body: { name: 'New list' } });
    const listId = created.body.data.data.response.id as string;
    const empty = await gw(stack, 'GET', `/${accountId}/lists/${listId}`);
    expectSuccess(empty, 200);
    expect(empty.body.data.data).toEqual({ success: true, response: [], nextCursor: '' });

    const fans = demo.fanIds.slice(0, 3);
    for (const userId of fans) {
      expectSuccess(await gw(stack, 'POST', `/${accountId}/lists/users`, { body: { userId, listId } }), 201);
    }
    const read = await gw(stack, 'GET', `/${accountId}/lists/${listId}`);
    expectSuccess(read, 200);
    expect(read.body.data.data.response.map((m: any) => m.id)).toEqual(fans);
    expect(read.body.data.data.response.every((m: any) => m.listId === listId && m.type === 1)).toBe(true);
    expect(read.body.data.data.nextCursor).toBe('');
  });

  it('rejects a missing, mistyped, blank or too long name with 400 naming it, before anything is sent', async () => {
    const keysBefore = (await scanKeys(stack.redis, stack.prefix)).sort();
    const postsBefore = (await simRequests(stack, 'creator_demo'))['POST /api/v1/lists'] ?? 0;
    const send = (body: unknown) => gw(stack, 'POST', `/${accountId}/lists/create`, { body });
    const missing = await send({});
    expectBadRequest(missing, 'name');
    expect(missing.body.message).toContain('required');
    expectBadRequest(await send({ name: 42 }), 'name');
    expectBadRequest(await send({ name: '' }), 'name');
    const blank = await send({ name: '   ' });
    expectBadRequest(blank, 'name');
    expect(blank.body.message).toContain('blank');
    expectBadRequest(await send({ name: 'x'.repeat(101) }), 'name');
    expect((await scanKeys(stack.redis, stack.prefix)).sort()).toEqual(keysBefore);
    expect((await simRequests(stack, 'creator_demo'))['POST /api/v1/lists'] ?? 0).toBe(postsBefore);
  });

  it('answers the platform’s 409 as a conflict and its 410 as not found, not as the caller’s bad input', async () => {
    const refused = async (status: number) => {
      await injectFault(stack, {
        account: 'creator_demo',
        path: '/api/v1/lists',
        method: 'POST',
        kind: 'error',
        status,
        count: 1,
      });
      return gw(stack, 'POST', `/${accountId}/lists/create`, { body: { name: `refused ${status}` } });
    };
    expectError(await refused(409), 409, 'CONFLICT');
    expectError(await refused(410), 404, 'NOT_FOUND');
    const invalid = await refused(422);
    expectError(invalid, 400, 'BAD_REQUEST');
    expect(invalid.body.message).toContain('HTTP 422');
  });
});

describe('POST /{accountId}/lists/users', () => {
  it('adds a fan to a seeded list; the member comes last when the list is read', async () => {
    const listId = demo.listIds[1]!;
    const before = await simMembers(listId);
    const inList = new Set(before.map((m) => m.id));
    const fan = demo.fanIds.find((id) => !inList.has(id))!;

    const response = await gw(stack, 'POST', `/${accountId}/lists/users`, { body: { userId: fan, listId } });
    expectSuccess(response, 201);
    const added = response.body.data.data.response;
    expect(Array.isArray(added)).toBe(true);
    expect(added).toHaveLength(1);
    expect(errorsOf(ListMember.schema, added[0])).toEqual([]);
    expect(added[0]).not.toHaveProperty('sortId');
    expect(added[0]).toMatchObject({ id: fan, listId, type: 1, metadata: '{}' });

    const { members } = await walkList(listId);
    expect(members.map((m) => m.id)).toEqual([...before.map((m) => m.id), fan]);
  });

  it('adding a member twice keeps one member', async () => {
    const created = await gw(stack, 'POST', `/${accountId}/lists/create`, { body: { name: 'Twice' } });
    const listId = created.body.data.data.response.id as string;
    const body = { userId: demo.fanIds[5], listId };
    expectSuccess(await gw(stack, 'POST', `/${accountId}/lists/users`, { body }), 201);
    expectSuccess(await gw(stack, 'POST', `/${accountId}/lists/users`, { body }), 201);
    const read = await gw(stack, 'GET', `/${accountId}/lists/${listId}`);
    expect(read.body.data.data.response.map((m: any) => m.id)).toEqual([demo.fanIds[5]]);
  });

  it('answers 404 for an unknown list, another creator’s list, or a user that does not exist', async () => {
    const fan = demo.fanIds[0]!;
    const other = account(stack, 'creator_2fa') as unknown as { listIds: string[] };
    expectListNotFound(
      await gw(stack, 'POST', `/${accountId}/lists/users`, { body: { userId: fan, listId: '1234567' } }),
    );
    expectListNotFound(
      await gw(stack, 'POST', `/${accountId}/lists/users`, {
        body: { userId: fan, listId: other.listIds[0] },
      }),
    );
    expectListNotFound(
      await gw(stack, 'POST', `/${accountId}/lists/users`, {
        body: { userId: '999999999999', listId: demo.listIds[0] },
      }),
    );
  });

  it('rejects missing or mistyped fields with 400 naming them', async () => {
    const send = (body: unknown) => gw(stack, 'POST', `/${accountId}/lists/users`, { body });
    expectBadRequest(await send({ listId: demo.listIds[0] }), 'userId');
    expectBadRequest(await send({ userId: demo.fanIds[0] }), 'listId');
    expectBadRequest(await send({ userId: 123, listId: demo.listIds[0] }), 'userId');
    expectBadRequest(await send({ userId: demo.fanIds[0], listId: '' }), 'listId');
    // Blank ids are refused here, not sent for the platform to refuse without naming them.
    const adds = async () => (await simRequests(stack, 'creator_demo'))['POST /api/v1/lists/items/add'] ?? 0;
    const before = await adds();
    expectBadRequest(await send({ userId: ' ', listId: demo.listIds[0] }), 'userId', 'blank');
    expectBadRequest(await send({ userId: demo.fanIds[0], listId: '\t' }), 'listId', 'blank');
    expect(await adds()).toBe(before);
  });
});

describe('GET /{accountId}/lists/{listId}', () => {
  it('walks the biggest seeded list to its end: every member once, in the sandbox’s order', async () => {
    const listId = demo.listIds[0]!;
    const expected = await simMembers(listId);
    expect(expected.length).toBeGreaterThan(LIST_PAGE_SIZE);
    const { members, pages } = await walkList(listId);
    expect(pages).toBe(Math.ceil(expected.length / LIST_PAGE_SIZE));
    expect(members.map((m) => m.sortId)).toEqual(expected.map((m) => m.sortId));
    expect(members.map((m) => m.id)).toEqual(expected.map((m) => m.id));
    expect(new Set(members.map((m) => m.id)).size).toBe(members.length);
    expect(members.every((m) => m.listId === listId && m.metadata === '{}')).toBe(true);
  });

  it('answers 404 for an unknown list and for another creator’s list', async () => {
    const other = account(stack, 'creator_2fa') as unknown as { listIds: string[] };
    expectListNotFound(await gw(stack, 'GET', `/${accountId}/lists/1234567`));
    expectListNotFound(await gw(stack, 'GET', `/${accountId}/lists/${other.listIds[0]}`));
  });

  it('rejects a cursor it did not hand out with 400 naming the cursor', async () => {
    const listId = demo.listIds[0]!;
    for (const cursor of ['abc', '-1', '12.5', '99999999999999999999']) {
      expectBadRequest(await gw(stack, 'GET', `/${accountId}/lists/${listId}?cursor=${cursor}`), 'cursor');
    }
  });
});

runCommonRouteTests(
  () => stack,
  { method: 'POST', path: '/{accountId}/lists/create', body: { name: 'x' } },
  () => accountId,
);
runCommonRouteTests(
  () => stack,
  { method: 'POST', path: '/{accountId}/lists/users', body: { userId: '1', listId: '1' } },
  () => accountId,
);
runCommonRouteTests(
  () => stack,
  { method: 'GET', path: '/{accountId}/lists/1' },
  () => accountId,
);

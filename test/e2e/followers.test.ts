import { type Follower, followers } from '@cg/operations/testing';
import type { FanFacts } from '@cg/platform-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectSuccess } from '../support/assert';
import { connectAccount } from '../support/common';
import { simJson } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
let accountId: string;

beforeAll(async () => {
  stack = await startStack();
  accountId = await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
});

const page = (query = '') => gw(stack, 'GET', `/${accountId}/followers${query}`);

describe('GET /{accountId}/followers', () => {
  it('pages every follower once, newest first, with their profiles; the cursor in response', async () => {
    const first = await page();
    expectSuccess(first);
    expect(errorsOf(followers.schemas.data, first.body.data)).toEqual([]);
    expect(first.body.data.data.response.followers).toHaveLength(20);
    const all: Follower[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const response = await page(`?limit=37${cursor ? `&cursor=${cursor}` : ''}`);
      expectSuccess(response);
      const { followers: rows, aggregationData, nextCursor } = response.body.data.data.response;
      const profiles = new Set(aggregationData.accounts.map((a: { id: string }) => a.id));
      for (const row of rows as Follower[]) expect(profiles.has(row.followerId)).toBe(true);
      all.push(...rows);
      cursor = nextCursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    const ids = all.map((row) => row.followerId);
    expect(new Set(ids).size).toBe(ids.length);
    for (let n = 1; n < all.length; n++) expect(all[n - 1]!.createdAt).toBeGreaterThan(all[n]!.createdAt);
    for (const row of all) expect(row.accountId).toBe(account(stack, 'creator_demo').platformAccountId);
    // The sandbox's own view of who follows the creator.
    const { fans } = (await simJson(stack, '/_sim/broadcasts?account=creator_demo')) as { fans: FanFacts[] };
    expect([...ids].sort()).toEqual(
      fans
        .filter((fan) => fan.follower)
        .map((fan) => fan.fanId)
        .sort(),
    );
  });

  it('answers a limit outside 1 to 100 or a malformed cursor 400', async () => {
    expectBadRequest(await page('?limit=101'), 'limit');
    expectBadRequest(await page('?limit=0'), 'limit');
    expectBadRequest(await page('?cursor=abc'), 'cursor');
  });
});

import type { PlatformProfile } from '@cg/operations';
import { profileByUsername } from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectBadRequest, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectAccount } from '../support/common';
import { simFixture } from '../support/sim';
import { account, gw, startStack, type TestStack } from '../support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
  await connectAccount(stack, 'creator_demo');
});
afterAll(async () => {
  await stack?.stop();
});

const search = (username: string, key?: string) =>
  gw(stack, 'GET', `/search/${encodeURIComponent(username)}`, key ? { key } : {});

describe('GET /search/{username}', () => {
  it('answers the creator’s profile, whatever the case of the name', async () => {
    const found = await search('Creator_Demo');
    expectSuccess(found);
    expect(errorsOf(profileByUsername.schemas.data, found.body.data)).toEqual([]);
    const profile = found.body.data.data.response as PlatformProfile;
    expect(profile).toMatchObject({
      id: account(stack, 'creator_demo').platformAccountId,
      username: 'creator_demo',
    });
  });

  it('finds a fan and another creator’s profile by their usernames', async () => {
    const fan = (await simFixture(stack, 'creator_demo')).chats[0];
    const byFan = await search(fan.fanUsername);
    expectSuccess(byFan);
    expect(byFan.body.data.data.response.id).toBe(fan.fanId);
    const [otherId] = stack.fixtures.profilePlatformAccountIds;
    const other = (await gw(stack, 'GET', `/accounts/by-ids?ids=${otherId}`)).body.data.data.response[0];
    const byOther = await search(other.username);
    expectSuccess(byOther);
    expect(byOther.body.data.data.response.id).toBe(otherId);
  });

  it('answers an unknown username 404, a malformed one 400', async () => {
    expectNotFound(await search('nobody_by_this_name'), 'nobody_by_this_name');
    expectBadRequest(await search('two words'), 'username');
  });

  it('answers 409 to a tenant with no connected account to look it up with', async () => {
    expectError(await search('creator_demo', stack.keys.t2), 409, 'ACCOUNT_REQUIRED');
  });
});

import { ApiKeyStore, storeKeys } from '@cg/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNotFound } from '../support/assert';
import { connectAccount } from '../support/common';
import { account, gw, startStack, type TestStack } from '../support/stack';

let stack: TestStack;
const ids = { demo: '', twofa: '' };

beforeAll(async () => {
  stack = await startStack();
  ids.demo = await connectAccount(stack, 'creator_demo');
  ids.twofa = await connectAccount(stack, 'creator_2fa');
});
afterAll(async () => {
  await stack?.stop();
});

describe('an account named by its platform account id', () => {
  it('answers as for its service account id, in the path and in ?accountId=', async () => {
    const platformId = account(stack, 'creator_demo').platformAccountId;
    const byPlatform = await gw(stack, 'GET', `/${platformId}/me`);
    const byService = await gw(stack, 'GET', `/${ids.demo}/me`);
    expect(byPlatform.status).toBe(200);
    expect(byPlatform.body.data.data.response.id).toBe(platformId);
    expect(byPlatform.body.data.data.response.username).toBe(byService.body.data.data.response.username);
    const status = await gw(stack, 'GET', `/accounts/${platformId}/status`);
    expect(status.body.data.accountId).toBe(ids.demo);
    const media = await gw(stack, 'POST', `/media/download?accountId=${platformId}`, {
      body: { cdnUrl: 'x' },
    });
    expect(media.status).not.toBe(404);
  });

  it('is never another tenant’s, nor outside a scoped key’s accounts', async () => {
    const platformId = account(stack, 'creator_2fa').platformAccountId;
    expectNotFound(await gw(stack, 'GET', `/${platformId}/me`, { key: stack.keys.t2 }), platformId);
    const { key } = await new ApiKeyStore(stack.redis, storeKeys(stack.prefix)).create('t1', {
      access: 'read',
      accounts: [ids.demo],
    });
    expectNotFound(await gw(stack, 'GET', `/${platformId}/me`, { key }), platformId);
    // Its status neither: worded with the id asked for, not the service account id it stands for.
    const status = await gw(stack, 'GET', `/accounts/${platformId}/status`, { key });
    expectNotFound(status, platformId);
    expect(status.body.message).not.toContain(ids.twofa);
    expect(
      (await gw(stack, 'GET', `/${account(stack, 'creator_demo').platformAccountId}/me`, { key })).status,
    ).toBe(200);
    expectNotFound(await gw(stack, 'GET', '/99999999999999/me'), '99999999999999');
  });

  it('disconnects by it', async () => {
    const platformId = account(stack, 'creator_2fa').platformAccountId;
    const removed = await gw(stack, 'DELETE', `/accounts/${platformId}`);
    expect(removed.body.data).toEqual({ account_id: ids.twofa, disconnected: true });
    // Its audit entry names the service account, as every other entry does.
    const audit = await gw(stack, 'GET', '/audit?operation=disconnect-account');
    expect(audit.body.data.entries.map((entry: { accountId: string }) => entry.accountId)).toEqual([
      ids.twofa,
    ]);
    expectNotFound(await gw(stack, 'GET', `/${platformId}/me`), platformId);
    expectNotFound(await gw(stack, 'GET', `/${ids.twofa}/me`), ids.twofa);
  });
});

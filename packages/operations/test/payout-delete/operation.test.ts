import { GatewayError } from '@cg/contract';
import { type AuthEndpointName, PlatformError } from '@cg/platform-client';
import { describe, expect, it } from 'vitest';
import type { OperationContext } from '../../src/define';
import { payoutDelete } from '../../src/payout-delete/operation';

describe('payout-delete with a second factor', () => {
  it('sends no deletion when the platform’s answer to the code cannot be read', async () => {
    const called: AuthEndpointName[] = [];
    const context = {
      call: async (endpoint: AuthEndpointName) => {
        called.push(endpoint);
        throw new PlatformError({ kind: 'bad_response', retry: 'outcome_unknown', endpoint, message: 'x' });
      },
    } as unknown as OperationContext;
    const input = {
      params: { accountId: 'acct_1' },
      body: { payoutMethodId: '7', twofa: { code: '123456', token: 'challenge-token' } },
    };
    const failure = await payoutDelete.run(input as never, context).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: expect.stringContaining('nothing was deleted'),
    });
    expect(called).toEqual(['twofaSessionVerify']);
  });
});

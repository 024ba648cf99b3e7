import { GatewayError } from '@cg/contract';
import { describe, expect, it } from 'vitest';
import { issueGrant, STEP_UP_GRANT_TTL_MS, takeGrant } from '../../src/common/step-up';
import type { OperationContext } from '../../src/define';

/** One account's windows in memory, on a clock the test moves (`claimWindow` without Redis). */
function accountWindows() {
  const clock = { now: 0 };
  const held = new Map<string, number>();
  const claimWindow: OperationContext['claimWindow'] = async (name, ms) => {
    const until = held.get(name);
    if (until !== undefined && until > clock.now) return null;
    const mine = clock.now + ms;
    held.set(name, mine);
    return async () => {
      if (held.get(name) === mine) held.delete(name);
    };
  };
  return { clock, claimWindow };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('step-up grants', () => {
  it('are taken once, for the platform’s token; a grant given back can be taken again', async () => {
    const { claimWindow } = accountWindows();
    const grant = await issueGrant('platform-token', claimWindow);
    expect(grant.token).not.toBe('platform-token');
    const taken = await takeGrant(grant.token, claimWindow);
    expect(taken.platformToken).toBe('platform-token');
    const again = await refusal(takeGrant(grant.token, claimWindow));
    expect(again).toBeInstanceOf(GatewayError);
    expect(again).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('used') });
    await taken.giveBack();
    expect((await takeGrant(grant.token, claimWindow)).platformToken).toBe('platform-token');
  });

  it('are refused after 10 minutes, and by an account that did not verify them', async () => {
    const own = accountWindows();
    const grant = await issueGrant('platform-token', own.claimWindow);
    own.clock.now = STEP_UP_GRANT_TTL_MS;
    expect(await refusal(takeGrant(grant.token, own.claimWindow))).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('expired'),
    });
    const other = accountWindows();
    const fresh = await issueGrant('another-token', own.claimWindow);
    expect(await refusal(takeGrant(fresh.token, other.claimWindow))).toMatchObject({ code: 'CONFLICT' });
  });
});

import {
  OtpChallenge,
  PayoutMethod,
  StepUpGrant,
  TWOFA_SEND_SPACING_MS,
  twofaSession,
  twofaSessionVerify,
} from '@cg/operations/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, expectError, expectNotFound, expectSuccess } from '../support/assert';
import { connectWithSim, runCommonRouteTests } from '../support/common';
import { type SimSession, simConfig, simRequests, simSession } from '../support/sim';
import { account, gw, redisText, startStack, type TestStack } from '../support/stack';

const TEN_MINUTES = 10 * 60_000;

let stack: TestStack;
let twofaId: string;
let demoId: string;
/** The sandbox's own API as creator_2fa: its payout methods, and challenges the gateway did not ask for. */
let twofaSim: SimSession;
let code: string;
/** Every code, token and grant the tests handled: none may be in Redis in plaintext. */
const secrets: string[] = [];

beforeAll(async () => {
  stack = await startStack();
  ({ accountId: twofaId, sim: twofaSim } = await connectWithSim(stack, 'creator_2fa'));
  ({ accountId: demoId } = await connectWithSim(stack, 'creator_demo'));
  code = account(stack, 'creator_2fa').twofaCode!;
  secrets.push(code);
});
afterAll(async () => {
  await stack?.stop();
});

const send = (accountId: string, body: unknown = {}) =>
  gw(stack, 'POST', `/${accountId}/twofa/session`, { body });
const verify = (accountId: string, body: unknown) =>
  gw(stack, 'POST', `/${accountId}/twofa/session/verify`, { body });
const deletePayout = (accountId: string, body: unknown) =>
  gw(stack, 'DELETE', `/${accountId}/payout/delete`, { body });

/** A challenge of creator_2fa asked of the platform directly (the gateway sends one a minute). */
async function platformChallenge(): Promise<string> {
  const { token } = await twofaSim.post('/twofa/session', {});
  secrets.push(token);
  return token;
}

/** A grant of creator_2fa from the gateway's verify, for a challenge asked of the platform. */
async function grant(): Promise<string> {
  const response = await verify(twofaId, { token: await platformChallenge(), code });
  expectSuccess(response, 201);
  const { token } = response.body.data.data.response;
  secrets.push(token);
  return token;
}

/** creator_2fa's payout methods not deleted, as the platform has them. */
const payoutIds = async () =>
  ((await twofaSim.get('/payments/payoutmethods')) as { id: string }[]).map((method) => method.id);

describe('POST /{accountId}/twofa/session and .../verify, then DELETE /{accountId}/payout/delete', () => {
  /** The grant of the first test, kept for the deletion at the end (grants last 10 minutes). */
  let firstGrant: string;
  /** A grant refused once with a wrong code. */
  let refusedGrant: string;

  it('sends a code (an OTP challenge), and verifies it: a step-up grant for 10 minutes', async () => {
    const sent = await send(twofaId, { useEmailTwoFAFallback: false });
    expectSuccess(sent, 201);
    expect(errorsOf(twofaSession.schemas.data, sent.body.data)).toEqual([]);
    const challenge = sent.body.data.data.response;
    expect(errorsOf(OtpChallenge.schema, challenge)).toEqual([]);
    expect(challenge).toEqual({ token: expect.any(String), type: 0, email: null });
    secrets.push(challenge.token);

    const from = Date.now();
    const verified = await verify(twofaId, { token: challenge.token, code, mode: 0 });
    expectSuccess(verified, 201);
    expect(errorsOf(twofaSessionVerify.schemas.data, verified.body.data)).toEqual([]);
    const granted = verified.body.data.data.response;
    expect(errorsOf(StepUpGrant, granted)).toEqual([]);
    expect(granted.verified).toBe(true);
    expect(granted.expiresAt).toBeGreaterThanOrEqual(from + TEN_MINUTES - 1000);
    expect(granted.expiresAt).toBeLessThanOrEqual(Date.now() + TEN_MINUTES);
    secrets.push(granted.token);
    firstGrant = granted.token;
    // The challenge is spent.
    expectNotFound(await verify(twofaId, { token: challenge.token, code }), 'challenge');
  });

  it('answers 429 with Retry-After to a second code asked within 60 s, and asks the platform once', async () => {
    const before = (await simRequests(stack, 'creator_2fa'))['POST /api/v1/twofa/session'] ?? 0;
    const response = await send(twofaId, { useEmailTwoFAFallback: true });
    expectError(response, 429, 'RATE_LIMITED', '60 seconds');
    const wait = Number(response.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(TWOFA_SEND_SPACING_MS / 1000);
    expect((await simRequests(stack, 'creator_2fa'))['POST /api/v1/twofa/session'] ?? 0).toBe(before);
  });

  it('answers a wrong code 400, and deletes nothing', async () => {
    const before = await payoutIds();
    const [payoutMethodId] = before;
    const challenge = await platformChallenge();
    expectError(
      await verify(twofaId, { token: challenge, code: '000000' }),
      400,
      'INVALID_2FA_CODE',
      'wrong',
    );
    // The direct form: a challenge, and a wrong code.
    const direct = await deletePayout(twofaId, {
      payoutMethodId,
      twofa: { token: challenge, code: '000001' },
    });
    expectError(direct, 400, 'INVALID_2FA_CODE');
    // A grant, and another code than the one verified.
    refusedGrant = await grant();
    const wrong = await deletePayout(twofaId, {
      payoutMethodId,
      twofa: { token: refusedGrant, code: '000002' },
    });
    expectError(wrong, 400, 'INVALID_2FA_CODE');
    expect(await payoutIds()).toEqual(before);
  });

  it('answers 409 naming both steps when the account needs a second factor and none came', async () => {
    const before = await payoutIds();
    for (const twofa of [undefined, { token: '', code }]) {
      const response = await deletePayout(twofaId, {
        payoutMethodId: before[0],
        ...(twofa ? { twofa } : {}),
      });
      expectError(response, 409, 'CONFLICT', 'twofa/session', 'twofa/session/verify');
    }
    expect(await payoutIds()).toEqual(before);
  });

  it('refuses a grant once expired, or another account’s (409), and deletes nothing', async () => {
    const before = await payoutIds();
    // The platform's grants last `twofaTokenTtlMs`: shortened, this one expires before it is used.
    await simConfig(stack, { twofaTokenTtlMs: 300 });
    let expiring: string;
    try {
      expiring = await grant();
    } finally {
      await simConfig(stack, { twofaTokenTtlMs: 600_000 });
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    const late = await deletePayout(twofaId, { payoutMethodId: before[0], twofa: { token: expiring, code } });
    expectError(late, 409, 'CONFLICT', 'expired');
    expect(await payoutIds()).toEqual(before);

    // creator_2fa's grant does not serve creator_demo, whose payout methods stay.
    const demoSim = await simSession(stack, 'creator_demo');
    const demoMethods = async () =>
      ((await demoSim.get('/payments/payoutmethods')) as { id: string }[]).map((m) => m.id);
    const demoBefore = await demoMethods();
    const foreign = await deletePayout(demoId, {
      payoutMethodId: demoBefore[0],
      twofa: { token: await grant(), code },
    });
    expectError(foreign, 409, 'CONFLICT', 'this account');
    expect(await demoMethods()).toEqual(demoBefore);
  });

  it('answers 404 for an unknown challenge and 400 for an expired one', async () => {
    expectNotFound(await verify(twofaId, { token: 'not-a-challenge', code }), 'challenge');
    await simConfig(stack, { twofaTokenTtlMs: 100 });
    let late: string;
    try {
      late = await platformChallenge();
    } finally {
      await simConfig(stack, { twofaTokenTtlMs: 600_000 });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expectError(await verify(twofaId, { token: late, code }), 400, 'TWOFA_TOKEN_EXPIRED', 'expired');
  });

  it('answers 409 to an account without a second factor, which may ask again at once', async () => {
    for (let n = 0; n < 2; n++) expectError(await send(demoId, {}), 409, 'CONFLICT', 'second factor');
    expectError(
      await verify(demoId, { token: 'whatever', code: '123456' }),
      409,
      'CONFLICT',
      'second factor',
    );
  });

  it('deletes a payout method with the grant and the same code, once: the grant is spent', async () => {
    const [payoutMethodId, other] = await payoutIds();
    const deleted = await deletePayout(twofaId, { payoutMethodId, twofa: { token: firstGrant, code } });
    expectSuccess(deleted);
    expect(errorsOf(PayoutMethod.schema, deleted.body.data.data.response)).toEqual([]);
    expect(deleted.body.data.data.response).toMatchObject({ id: payoutMethodId, status: 3 });
    expect(await payoutIds()).not.toContain(payoutMethodId);

    const again = await deletePayout(twofaId, { payoutMethodId: other, twofa: { token: firstGrant, code } });
    expectError(again, 409, 'CONFLICT', 'used');
    expect(await payoutIds()).toContain(other);
  });

  it('keeps a grant whose deletion was refused usable: with the right code it deletes', async () => {
    const [payoutMethodId] = await payoutIds();
    const response = await deletePayout(twofaId, { payoutMethodId, twofa: { token: refusedGrant, code } });
    expectSuccess(response);
    expect(await payoutIds()).not.toContain(payoutMethodId);
  });

  it('keeps every code, challenge token and grant out of Redis in plaintext', async () => {
    const haystack = (await redisText(stack)).join('\n');
    expect(haystack.length).toBeGreaterThan(0);
    for (const secret of secrets)
      expect(haystack.includes(secret), 'a secret is stored in plaintext').toBe(false);
  });

  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/twofa/session', body: {} },
    () => twofaId,
  );
  runCommonRouteTests(
    () => stack,
    { method: 'POST', path: '/{accountId}/twofa/session/verify', body: { token: 'x', code: '1' } },
    () => twofaId,
  );
});

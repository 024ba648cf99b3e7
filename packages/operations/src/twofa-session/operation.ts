import { GatewayError, Upstream } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';
import { Type } from 'typebox';
import { isRefusal, refusedAs } from '../common/platform-refusal';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, NonBlank, Text } from '../common/schemas';
import { issueGrant, NO_SECOND_FACTOR, StepUpGrant, verifyCode } from '../common/step-up';
import { accountCreate, defineOperation, upstreamData } from '../define';

/** One code per account per this many ms: each request sends a new code to the account holder. */
export const TWOFA_SEND_SPACING_MS = 60_000;
const SEND_WINDOW = 'twofa-session';

/** The OTP challenge, shaped like the platform's login challenge. */
export const OtpChallenge = record({
  token: f.string('pass it to .../twofa/session/verify, or with the code as twofa.token'),
  type: f.number('0 authenticator app, 2 emailed code'),
  email: f.nullableString('the masked address the code went to; null for the app', { emptyIsNull: true }),
});
export type OtpChallenge = RecordValue<typeof OtpChallenge>;

export const twofaSession = defineOperation({
  name: 'twofa-session',
  method: 'POST',
  path: '/:accountId/twofa/session',
  summary: 'Send a one-time code for a sensitive action (at most once per account per 60 s)',
  tags: ['accounts'],
  ...accountCreate,
  // The challenge token is half of what a payout deletion takes.
  sealResult: true,
  schemas: {
    params: AccountParams,
    body: Type.Object({
      useEmailTwoFAFallback: Type.Optional(
        Type.Boolean({ description: 'true: the code comes by e-mail instead of the app; default false' }),
      ),
    }),
    data: Upstream(OtpChallenge.schema),
  },
  example: { params: accountExample, body: { useEmailTwoFAFallback: false } },
  run: async ({ body }, { call, claimWindow }) => {
    // Shared by every worker (Redis): a second request inside the window sends nothing.
    const release = await claimWindow(SEND_WINDOW, TWOFA_SEND_SPACING_MS);
    if (release === null)
      throw new GatewayError(
        'RATE_LIMITED',
        'a one-time code was asked for this account less than 60 seconds ago: use it, or ask again later',
        TWOFA_SEND_SPACING_MS / 1000,
      );
    let challenge: OtpChallenge;
    try {
      challenge = OtpChallenge.from(
        await call('twofaSession', { body: { useEmailTwoFAFallback: body.useEmailTwoFAFallback ?? false } }),
      );
    } catch (error) {
      // No code went out, so the next request may ask at once; one that may have gone keeps the gap.
      if (!(error instanceof PlatformError && error.retry === 'outcome_unknown')) await release();
      if (isRefusal(error)) throw new GatewayError('CONFLICT', NO_SECOND_FACTOR);
      throw error;
    }
    if (challenge.token === '')
      throw new GatewayError('UPSTREAM_ERROR', 'the platform answered the code request without a token');
    return upstreamData(challenge);
  },
});

export const twofaSessionVerify = defineOperation({
  name: 'twofa-session-verify',
  method: 'POST',
  path: '/:accountId/twofa/session/verify',
  summary: 'Check a one-time code: a step-up grant for payout deletion (10 minutes, one use)',
  tags: ['accounts'],
  ...accountCreate,
  // The input holds the code and the challenge token, the result the grant.
  sealInput: true,
  sealResult: true,
  schemas: {
    params: AccountParams,
    body: Type.Object({
      token: NonBlank('token of the OTP challenge', { maxLength: 200 }),
      code: NonBlank('the one-time code', { maxLength: 32 }),
      mode: Type.Optional(
        Type.Union([Text(undefined, { maxLength: 64 }), Type.Number()], {
          description: 'the channel the code came from, passed to the platform unchanged',
        }),
      ),
    }),
    data: Upstream(StepUpGrant),
  },
  example: {
    params: accountExample,
    body: { token: 'q1XbT7mZ4cW9vR2nL8sK5pH3dF6gJ0aY', code: '424242', mode: 0 },
  },
  run: async ({ body }, { call, claimWindow }) => {
    const platformToken = await refusedAs(NO_SECOND_FACTOR, () => verifyCode(call, body), 'CONFLICT');
    if (platformToken === '')
      throw new GatewayError('UPSTREAM_ERROR', 'the platform confirmed the code without a step-up token');
    return upstreamData(await issueGrant(platformToken, claimWindow));
  },
});

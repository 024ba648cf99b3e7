import { GatewayError, Upstream } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';
import { type Static, Type } from 'typebox';
import { isRefusal } from '../common/platform-refusal';
import { f, type RecordValue, record } from '../common/record';
import { AccountParams, accountExample, NonBlank, Text } from '../common/schemas';
import { grantRefused, isGrantToken, STEP_UP_STEPS, takeGrant, verifyCode } from '../common/step-up';
import { defineOperation, type OperationContext, upstreamData } from '../define';

/** Payout method as the deletion answers it (`status` 3 = deleted). */
export const PayoutMethod = record({
  id: f.id(),
  accountId: f.id(),
  providerId: f.id(),
  type: f.number(),
  flags: f.number(),
  status: f.number('3 means deleted'),
  metadata: f.jsonText('JSON text with the payout details'),
  version: f.number(),
  // Unix ms upstream already (docs/upstream-decisions.md).
  deletedAt: f.timestamp(),
});
export type PayoutMethod = RecordValue<typeof PayoutMethod>;

const Twofa = Type.Object({
  code: NonBlank('the one-time code', { maxLength: 32 }),
  token: Text(
    'the token of POST .../twofa/session (the challenge) or of .../twofa/session/verify (the grant); empty: none',
    { maxLength: 200 },
  ),
});

export const payoutDelete = defineOperation({
  name: 'payout-delete',
  method: 'DELETE',
  path: '/:accountId/payout/delete',
  summary: 'Delete a payout method (irreversible)',
  tags: ['payouts'],
  session: 'path',
  write: true,
  // The input carries a one-time code and token; the result, the method's personal data (holder,
  // bank, email), which the job keeps for its retention and the queue dashboard would show.
  sealInput: true,
  sealResult: true,
  successStatus: 200,
  notFoundMessage:
    'payout method not found: no payout method with this id on the account, or it is already deleted',
  schemas: {
    params: AccountParams,
    body: Type.Object({
      payoutMethodId: NonBlank('id of the payout method', { maxLength: 64 }),
      twofa: Type.Optional(Twofa),
    }),
    data: Upstream(PayoutMethod.schema),
  },
  example: {
    params: accountExample,
    body: {
      payoutMethodId: '533370215568769301',
      twofa: { code: '424242', token: 'sug_q1XbT7mZ4cW9vR2nL8sK5pH3dF6gJ0aY' },
    },
  },
  run: async ({ body }, { call, claimWindow }) => {
    const stepUp = await takeStepUp(body.twofa, call, claimWindow);
    try {
      const method = await call('payoutMethodDelete', {
        body: { payoutMethodId: body.payoutMethodId, ...(stepUp ? { twofa: stepUp.twofa } : {}) },
      });
      return upstreamData(PayoutMethod.from(method));
    } catch (error) {
      throw await deletionFailure(error, stepUp);
    }
  },
});

/** The second factor a deletion carries, and how a refused deletion gives it back. */
interface StepUp {
  twofa: { code: string; token: string };
  /** 'challenge': verified here, so the challenge is spent; 'grant': verified before. */
  from: 'challenge' | 'grant';
  giveBack: () => Promise<void>;
}

/**
 * The platform's step-up token for the deletion, from the caller's `twofa`: a grant (verified
 * before) is taken for its one use; a challenge token is verified here with the code. None without
 * `twofa` or with an empty token, and none for an account without a second factor (the platform
 * refuses it the check): the platform then says whether the deletion needed one.
 */
async function takeStepUp(
  twofa: Static<typeof Twofa> | undefined,
  call: OperationContext['call'],
  claimWindow: OperationContext['claimWindow'],
): Promise<StepUp | undefined> {
  const token = twofa?.token.trim() ?? '';
  if (twofa === undefined || token === '') return undefined;
  const code = twofa.code.trim();
  if (isGrantToken(token)) {
    const grant = await takeGrant(token, claimWindow);
    return { twofa: { code, token: grant.platformToken }, from: 'grant', giveBack: grant.giveBack };
  }
  const unconfirmed = () =>
    new GatewayError('UPSTREAM_ERROR', 'the platform did not confirm the one-time code; nothing was deleted');
  let verified: string;
  try {
    verified = await verifyCode(call, { token, code });
  } catch (error) {
    if (isRefusal(error)) return undefined;
    // An answer that is not the token's object (null, `true`): the deletion was not sent either.
    if (error instanceof PlatformError && error.kind === 'bad_response') throw unconfirmed();
    throw error;
  }
  if (verified === '') throw unconfirmed();
  return { twofa: { code, token: verified }, from: 'challenge', giveBack: async () => {} };
}

/**
 * What a failed deletion answers. One the platform did not apply gives the grant back. The platform's
 * "second factor required" is the contract's 409 naming the two steps; a step-up token it no longer
 * takes, the grant's 409. A retry would verify a challenge again, which the first try spent: so a
 * deletion the platform could not take after a challenge was verified is not retried, and says so.
 */
async function deletionFailure(error: unknown, stepUp: StepUp | undefined): Promise<unknown> {
  const maybeApplied = error instanceof PlatformError && error.retry === 'outcome_unknown';
  if (!maybeApplied) await stepUp?.giveBack();
  if (!(error instanceof PlatformError)) return error;
  if (error.kind === 'twofa_required') return new GatewayError('CONFLICT', STEP_UP_STEPS);
  if (error.kind === 'twofa_token_expired') return grantRefused();
  if (error.retry === 'retryable' && stepUp?.from === 'challenge')
    return new GatewayError(
      'UPSTREAM_UNAVAILABLE',
      'the platform could not take the deletion and nothing was deleted, but the one-time code was spent: ask for a new one',
      error.retryAfterMs === undefined ? undefined : Math.ceil(error.retryAfterMs / 1000),
    );
  return error;
}

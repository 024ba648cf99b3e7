import { createHash } from 'node:crypto';
import { GatewayError } from '@cg/contract';
import { PlatformError } from '@cg/platform-client';
import { type Static, Type } from 'typebox';
import type { OperationContext } from '../define';
import { coerce } from './coerce';

/**
 * The second factor of sensitive actions (payout deletion): the platform sends a one-time code for a
 * challenge (`POST /twofa/session`), checks it (`POST /twofa/session/verify`) and answers a step-up
 * token that the action takes with the same code. The gateway hands that token out as its own grant
 * (`sug_` + the platform's token), valid 10 minutes for one use by the account that verified it. It
 * keeps no token: two account windows (Redis, keyed by the grant's hash) say that the grant was
 * issued for the account and whether it was used.
 */

/** How long a grant may be used (the contract's 10 minutes). */
export const STEP_UP_GRANT_TTL_MS = 600_000;
/** Tells a grant from a challenge token in an action's `twofa.token`. */
const GRANT_PREFIX = 'sug_';

/** What a caller must do when an action needs the second factor and came without it. */
export const STEP_UP_STEPS =
  'this account needs a second factor for this action: POST /{accountId}/twofa/session for a code, ' +
  'then send twofa {token: the challenge token, code}; or POST /{accountId}/twofa/session/verify ' +
  'first and send twofa {token: the grant token, code: the same code}';

export const NO_SECOND_FACTOR =
  'this account has no second factor enabled: its sensitive actions need no one-time code';

const GRANT_EXPIRED =
  'the step-up grant has expired (it lasts 10 minutes) or was not issued for this account: verify a new code';

/** The Step-up grant (contract: OTP challenge and Step-up grant). */
export const StepUpGrant = Type.Object({
  token: Type.String({ description: 'send it with the same code as twofa {token, code}' }),
  verified: Type.Literal(true),
  expiresAt: Type.Number({ description: 'Unix ms; the grant is refused (409) after it' }),
});

export interface StepUpCode {
  token: string;
  code: string;
  mode?: string | number;
}

/**
 * Checks a code against a challenge on the platform: its step-up token ('' when it names none). The
 * refusals a caller can act on are named: an unknown challenge 404, an expired one or a wrong code
 * 400; an account without a second factor stays the platform's refusal (`isRefusal`).
 */
export async function verifyCode(call: OperationContext['call'], input: StepUpCode): Promise<string> {
  const { token, code, mode } = input;
  let verified: unknown;
  try {
    verified = await call('twofaSessionVerify', {
      body: { token, code: code.trim(), ...(mode === undefined ? {} : { mode }) },
    });
  } catch (error) {
    throw namedRefusal(error);
  }
  return coerce.str(coerce.obj(verified).token);
}

function namedRefusal(error: unknown): unknown {
  if (!(error instanceof PlatformError)) return error;
  switch (error.kind) {
    case 'not_found':
      return new GatewayError(
        'NOT_FOUND',
        'no one-time code challenge of this account has this token: ask for a code with POST /{accountId}/twofa/session',
      );
    case 'twofa_token_expired':
      return new GatewayError(
        'TWOFA_TOKEN_EXPIRED',
        'the one-time code has expired: ask for a new one with POST /{accountId}/twofa/session',
      );
    case 'invalid_twofa_code':
      return new GatewayError('INVALID_2FA_CODE', 'the one-time code is wrong: check it and try again');
    default:
      return error;
  }
}

/** Whether an action's `twofa.token` is a grant (else a challenge token). */
export const isGrantToken = (token: string): boolean => token.startsWith(GRANT_PREFIX);

/** Hands out the platform's step-up token as a grant of this account, noted for its 10 minutes. */
export async function issueGrant(
  platformToken: string,
  claimWindow: OperationContext['claimWindow'],
): Promise<Static<typeof StepUpGrant>> {
  const token = GRANT_PREFIX + platformToken;
  const expiresAt = Date.now() + STEP_UP_GRANT_TTL_MS;
  await claimWindow(issuedWindow(token), STEP_UP_GRANT_TTL_MS);
  return { token, verified: true, expiresAt };
}

/**
 * Takes a grant for its one use: the platform's token, and `giveBack` for an action the platform
 * refused (the grant stays usable). 409 when it has expired, is another account's, or was used.
 */
export async function takeGrant(
  token: string,
  claimWindow: OperationContext['claimWindow'],
): Promise<{ platformToken: string; giveBack: () => Promise<void> }> {
  if (!(await held(claimWindow, issuedWindow(token)))) throw new GatewayError('CONFLICT', GRANT_EXPIRED);
  const giveBack = await claimWindow(usedWindow(token), STEP_UP_GRANT_TTL_MS);
  if (giveBack === null)
    throw new GatewayError('CONFLICT', 'the step-up grant was already used: verify a new code');
  return { platformToken: token.slice(GRANT_PREFIX.length), giveBack };
}

/** The refusal of an action whose grant the platform no longer takes: the grant's 409. */
export const grantRefused = (): GatewayError => new GatewayError('CONFLICT', GRANT_EXPIRED);

/**
 * Whether another call holds the window: a claim of it fails. One that succeeds opened it, so it is
 * given back at once.
 */
async function held(claimWindow: OperationContext['claimWindow'], name: string): Promise<boolean> {
  const release = await claimWindow(name, 1);
  if (release === null) return true;
  await release();
  return false;
}

// Windows are named by the grant's hash, so Redis never holds the token itself.
const digest = (token: string) => createHash('sha256').update(token).digest('hex');
const issuedWindow = (token: string) => `stepup-grant:${digest(token)}`;
const usedWindow = (token: string) => `stepup-used:${digest(token)}`;

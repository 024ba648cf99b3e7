import { GatewayError } from '@cg/contract';
import type { OperationDef, OperationSchemas } from '@cg/operations';
import { BODY_DEADLINE_CODE, PlatformError } from '@cg/platform-client';
import { RetryableError } from '@cg/queue';
import type { PlatformFailureNote } from '@cg/store';

/** How long an account waits after a 429 that names no Retry-After. */
const DEFAULT_RATE_LIMIT_PAUSE_MS = 5_000;

/**
 * What an account's status tells of a platform call that failed (`toFailure`'s verdict, and the
 * platform's own when it answered); undefined for what is not the platform's: the account gone, or a
 * failure of the gateway's own (INTERNAL).
 */
export function platformFailureNote(
  error: unknown,
  op: OperationDef<OperationSchemas>,
): PlatformFailureNote | undefined {
  const failure = toFailure(error, op);
  const told =
    failure instanceof RetryableError ? failure.error : failure instanceof GatewayError ? failure : undefined;
  if (told === undefined || told.code === 'INTERNAL') return undefined;
  const platform = error instanceof PlatformError ? error : undefined;
  if (platform === undefined && told.code === 'NOT_FOUND') return undefined;
  return {
    code: told.code,
    message: told.message,
    retryable: failure instanceof RetryableError,
    ...(platform === undefined ? {} : { kind: platform.kind }),
    ...(platform?.status === undefined ? {} : { status: platform.status }),
  };
}

/**
 * The one place where a platform failure becomes what the caller sees. The verdict (retry or not,
 * outcome unknown) comes from the platform client's `classify`; this only names it for the caller.
 */
export function toFailure(error: unknown, op: OperationDef<OperationSchemas>): unknown {
  if (!(error instanceof PlatformError)) return error;
  if (error.retry === 'retryable') {
    const message =
      error.kind === 'rate_limited'
        ? 'the platform is rate limiting this account; try again later'
        : error.kind === 'proxy_failed'
          ? 'the account’s egress proxy failed before the platform saw the request; try again later'
          : 'the platform is unavailable; try again later';
    // A 429 is about the account, not this job: its whole lane waits (honouring Retry-After).
    const pauseAccount = error.kind === 'rate_limited';
    const delayMs = error.retryAfterMs ?? (pauseAccount ? DEFAULT_RATE_LIMIT_PAUSE_MS : undefined);
    // The caller is told the same wait the account keeps (Retry-After), once the retries are spent.
    const wait = delayMs === undefined ? undefined : Math.ceil(delayMs / 1000);
    const why = pauseAccount
      ? `the platform answered 429${error.retryAfterMs === undefined ? '' : ` with Retry-After ${wait} s`}`
      : undefined;
    return new RetryableError(
      new GatewayError('UPSTREAM_UNAVAILABLE', message, wait),
      delayMs,
      pauseAccount,
      why,
    );
  }
  if (error.retry === 'outcome_unknown') {
    const why =
      error.kind === 'bad_response'
        ? 'its answer could not be read'
        : error.networkCode === BODY_DEADLINE_CODE
          ? 'its answer did not come whole in time'
          : error.status === undefined
            ? 'the connection failed after it was sent'
            : `the platform answered ${error.status}, which does not say whether it was`;
    return new GatewayError(
      'UPSTREAM_OUTCOME_UNKNOWN',
      `the platform may or may not have applied this write (${why}); check before repeating it`,
    );
  }
  switch (error.kind) {
    case 'invalid_credentials':
      return new GatewayError('INVALID_CREDENTIALS', 'the platform rejected the username or password');
    case 'invalid_twofa_code':
      return new GatewayError('INVALID_2FA_CODE', 'the two-factor code is not valid');
    case 'twofa_token_expired':
      return new GatewayError('TWOFA_TOKEN_EXPIRED', 'the two-factor token has expired: call /connect again');
    case 'twofa_required':
      return new GatewayError(
        'TWOFA_REQUIRED',
        'this action needs two-factor verification: send twofa {code, token}',
      );
    case 'unauthorized':
    case 'session_missing':
      // A login (connect, verify-2fa) has no session to renew: the platform refused it oddly.
      if (op.session === 'none') return new GatewayError('UPSTREAM_ERROR', 'the platform refused the login');
      return new GatewayError(
        'REAUTH_REQUIRED',
        'the platform session could not be renewed: connect the account again',
      );
    case 'forbidden':
      return new GatewayError('FORBIDDEN_ACTION', 'the platform does not allow this action');
    case 'not_found':
      return new GatewayError('NOT_FOUND', op.notFoundMessage ?? 'the platform has no such object');
    case 'conflict':
      return new GatewayError(
        'CONFLICT',
        'the platform refused the request: it conflicts with the current state',
      );
    case 'bad_request':
      return new GatewayError(
        'BAD_REQUEST',
        `the platform rejected the request as invalid${error.status && error.status !== 400 ? ` (HTTP ${error.status})` : ''}`,
      );
    default:
      return new GatewayError(
        'UPSTREAM_ERROR',
        'the platform answered in a way the gateway does not understand',
      );
  }
}

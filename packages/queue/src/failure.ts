import { GatewayError } from '@cg/contract';

/**
 * What becomes of a request's attempt that failed: `decideFailure`, the one place it is decided, for
 * a job of its own and a request of a batch alike. The errors it tells apart are here too.
 */

/** Thrown by a processor for a failure that may succeed if tried again later. */
export class RetryableError extends Error {
  override readonly name = 'RetryableError';
  constructor(
    readonly error: GatewayError,
    /** The wait the platform asked for (Retry-After), if any. */
    readonly delayMs?: number,
    /** The platform rate-limited the account: the whole lane pauses for `delayMs`. */
    readonly pauseAccount = false,
    /** Why the lane pauses, as the account's status tells it (default: the error's message). */
    readonly pauseWhy?: string,
  ) {
    super(error.toWire());
  }
}

/** The lane did not let the job start now: it waits (delay) or queues again (park). */
export class NotGranted extends Error {
  constructor(
    /** When the job may ask again; absent: it is parked until its lane wakes it. */
    readonly delayMs: number | undefined,
  ) {
    super(delayMs === undefined ? 'not granted: park' : `not granted: delay ${delayMs} ms`);
  }
}

/** How a cancelled request ends, at its status URL and for whoever waits for it. */
export const jobCancelled = () =>
  new GatewayError(
    'JOB_CANCELLED',
    'the request was cancelled (DELETE /jobs/{id}) while it waited: it is not sent to the platform',
  );

/** A write that another attempt may have sent (the write ledger): it is not sent again. */
export function outcomeUnknown(): GatewayError {
  return new GatewayError(
    'UPSTREAM_OUTCOME_UNKNOWN',
    'an earlier attempt of this write was sent and did not finish (the worker stopped); it was not repeated: check before trying again',
  );
}

/** A call a stopping worker did not send: the job is tried again, by another worker. */
export function notSentStopping(): RetryableError {
  return new RetryableError(
    new GatewayError('SERVICE_UNAVAILABLE', 'the worker stopped before sending this call; try again'),
  );
}

/**
 * A write an attempt did not send because it no longer held its job's lock (it lapsed): BullMQ's
 * stalled-job check runs the job again, and this attempt's outcome is not kept.
 */
export function notSentLockLost(): RetryableError {
  return new RetryableError(
    new GatewayError(
      'SERVICE_UNAVAILABLE',
      'the worker lost its lock on the job before sending this write; it runs again',
    ),
  );
}

/** Anything that is not the gateway's own error is INTERNAL to the caller; `report` logs it. */
export function failureOf(error: unknown, report?: (error: Error) => void): GatewayError {
  if (error instanceof GatewayError) return error;
  report?.(error as Error);
  return new GatewayError('INTERNAL', 'the gateway failed to run the operation');
}

/**
 * How long a retry waits after `attemptsMade` attempts: exponential from `backoffMs`, with jitter so
 * that retries of many jobs do not come back together, and never shorter than the wait the platform
 * asked for.
 */
export function retryDelay(backoffMs: number, attemptsMade: number, error: unknown): number {
  const asked = error instanceof RetryableError ? error.delayMs : undefined;
  const exponential = backoffMs * 2 ** Math.max(0, attemptsMade - 1);
  const jittered = Math.round(exponential / 2 + Math.random() * (exponential / 2));
  return Math.max(asked ?? 0, jittered);
}

/** What is known of an attempt that threw `error`. */
export interface FailedAttempt {
  error: unknown;
  /** The lane could not be asked: the claim itself failed (Redis). */
  claimFailed: boolean;
  /** Its caller cancelled it (its claim said so), and it sent nothing to the platform. */
  cancelled: boolean;
  /** The request is a write: it has a write-ahead mark (ledger.ts). */
  write: boolean;
  /** Writes of this request the platform applied (a job may send several, one after the other). */
  writesApplied: number;
  /** Another attempt may follow this one. */
  attemptsLeft: boolean;
}

/** What a retry or a failure does first. */
interface Aftermath {
  /** The platform rate-limited the account (429): the whole lane pauses this long first. */
  pauseLaneMs?: number;
  /** Why, with `pauseLaneMs` (`RetryableError.pauseWhy`). */
  pauseWhy?: string;
  /** The platform applied nothing of the write: its mark goes, so that it may be sent again. */
  clearMark: boolean;
}

export type FailureDecision =
  /** Redis failed on the way (the claim): the attempt fails as it is, and BullMQ runs it (its batch) again. */
  | { kind: 'abort' }
  /**
   * The lane did not let it start: it waits, costing no attempt, until `delayMs` from now, or, with
   * none, parked until its lane wakes it.
   */
  | { kind: 'wait'; delayMs: number | undefined }
  /** Tried again after a backoff (`retryDelay`, or BullMQ's, which is the same). */
  | ({ kind: 'retry'; error: RetryableError } & Aftermath)
  /**
   * Fails for good with `failure`: not retryable (the platform refused it, its outcome is unknown,
   * its caller cancelled it), no attempt left, or retryable but an earlier write of it was applied.
   */
  | ({ kind: 'fail'; failure: GatewayError } & Aftermath);

/** What the failed attempt becomes. `report` logs an error that is not the gateway's own. */
export function decideFailure(attempt: FailedAttempt, report?: (error: Error) => void): FailureDecision {
  const { error } = attempt;
  if (attempt.claimFailed) return { kind: 'abort' };
  // A failure before its first platform call (its account gone, say) does not hide that its caller
  // cancelled it: its status URL and its Idempotency-Key keep saying so.
  if (attempt.cancelled) return { kind: 'fail', failure: jobCancelled(), clearMark: false };
  if (error instanceof NotGranted) return { kind: 'wait', delayMs: error.delayMs };
  if (error instanceof RetryableError) {
    const pause =
      error.pauseAccount && error.delayMs !== undefined
        ? { pauseLaneMs: error.delayMs, pauseWhy: error.pauseWhy ?? error.error.message }
        : {};
    if (attempt.writesApplied > 0) {
      // An earlier write of it is applied: repeating it would send that write again.
      const failure = new GatewayError(
        error.error.code,
        `${error.error.message} (not retried: an earlier step of this request was already applied)`,
        error.error.retryAfterSeconds,
      );
      return { kind: 'fail', failure, ...pause, clearMark: false };
    }
    // The platform did not apply the request: a later attempt may send it again.
    const clearMark = attempt.write;
    if (attempt.attemptsLeft) return { kind: 'retry', error, ...pause, clearMark };
    return { kind: 'fail', failure: error.error, ...pause, clearMark };
  }
  const failure = failureOf(error, report);
  // The platform refused the account's session (a 401, or the re-login was refused): it applied
  // nothing of this request, which a caller's Idempotency-Key may then run again.
  const clearMark = attempt.write && attempt.writesApplied === 0 && failure.code === 'REAUTH_REQUIRED';
  return { kind: 'fail', failure, clearMark };
}

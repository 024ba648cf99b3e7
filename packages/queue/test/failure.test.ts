import { GatewayError } from '@cg/contract';
import { describe, expect, it } from 'vitest';
import { decideFailure, type FailedAttempt, NotGranted, RetryableError, retryDelay } from '../src/failure';

const attempt = (error: unknown, more: Partial<FailedAttempt> = {}): FailedAttempt => ({
  error,
  claimFailed: false,
  cancelled: false,
  write: false,
  writesApplied: 0,
  attemptsLeft: true,
  ...more,
});
const unavailable = new GatewayError('UPSTREAM_UNAVAILABLE', 'the platform is unavailable', 5);

describe('decideFailure', () => {
  it('aborts when the lane could not be asked, whatever the error', () => {
    expect(decideFailure(attempt(new RetryableError(unavailable), { claimFailed: true }))).toEqual({
      kind: 'abort',
    });
  });

  it('ends a cancelled request as cancelled, keeping its write mark', () => {
    const decision = decideFailure(attempt(new Error('account gone'), { cancelled: true, write: true }));
    expect(decision).toMatchObject({ kind: 'fail', clearMark: false });
    expect(decision.kind === 'fail' && decision.failure.code).toBe('JOB_CANCELLED');
  });

  it('waits for the lane: until a time, or parked', () => {
    expect(decideFailure(attempt(new NotGranted(1_500)))).toEqual({ kind: 'wait', delayMs: 1_500 });
    expect(decideFailure(attempt(new NotGranted(undefined)))).toEqual({ kind: 'wait', delayMs: undefined });
  });

  it('retries a retryable failure with attempts left; a write loses its mark, a 429 pauses the lane', () => {
    const read = new RetryableError(unavailable);
    expect(decideFailure(attempt(read))).toEqual({ kind: 'retry', error: read, clearMark: false });
    const limited = new RetryableError(unavailable, 2_000, true);
    expect(decideFailure(attempt(limited, { write: true }))).toEqual({
      kind: 'retry',
      error: limited,
      pauseLaneMs: 2_000,
      pauseWhy: unavailable.message,
      clearMark: true,
    });
    // The pause keeps the reason the error gives, for the account's status.
    const told = new RetryableError(unavailable, 2_000, true, 'the platform answered 429');
    expect(decideFailure(attempt(told))).toMatchObject({ pauseWhy: 'the platform answered 429' });
  });

  it('fails a retryable failure on the last attempt with its own error, the mark cleared', () => {
    const decision = decideFailure(
      attempt(new RetryableError(unavailable), { write: true, attemptsLeft: false }),
    );
    expect(decision).toEqual({ kind: 'fail', failure: unavailable, clearMark: true });
  });

  it('never retries a request an earlier write of which was applied', () => {
    const decision = decideFailure(
      attempt(new RetryableError(unavailable), { write: true, writesApplied: 1 }),
    );
    expect(decision).toMatchObject({ kind: 'fail', clearMark: false });
    expect(decision.kind === 'fail' && decision.failure.message).toContain('not retried');
    expect(decision.kind === 'fail' && decision.failure.code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('fails anything else for good; only a refused session frees the write to run again', () => {
    const unknown = new GatewayError('UPSTREAM_OUTCOME_UNKNOWN', 'may have been applied');
    expect(decideFailure(attempt(unknown, { write: true }))).toEqual({
      kind: 'fail',
      failure: unknown,
      clearMark: false,
    });
    const reauth = new GatewayError('REAUTH_REQUIRED', 'connect again');
    expect(decideFailure(attempt(reauth, { write: true }))).toMatchObject({ kind: 'fail', clearMark: true });
    const reported: Error[] = [];
    const crash = decideFailure(attempt(new TypeError('bug')), (error) => reported.push(error));
    expect(crash.kind === 'fail' && crash.failure.code).toBe('INTERNAL');
    expect(reported.map((error) => error.message)).toEqual(['bug']);
  });
});

describe('retryDelay', () => {
  it('grows exponentially with jitter, and never undercuts the wait the platform asked for', () => {
    for (let n = 0; n < 50; n++) {
      const third = retryDelay(100, 3, new Error('x'));
      expect(third).toBeGreaterThanOrEqual(200);
      expect(third).toBeLessThanOrEqual(400);
    }
    expect(retryDelay(100, 1, new RetryableError(unavailable, 9_000))).toBe(9_000);
  });
});

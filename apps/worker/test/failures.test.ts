import { GatewayError } from '@cg/contract';
import type { OperationDef, OperationSchemas } from '@cg/operations';
import { PlatformError } from '@cg/platform-client';
import { RetryableError } from '@cg/queue';
import { describe, expect, it } from 'vitest';
import { platformFailureNote, toFailure } from '../src/failures';

const read = { session: 'path' } as OperationDef<OperationSchemas>;
const login = { session: 'none' } as OperationDef<OperationSchemas>;

const unknownWrite = (more: Partial<ConstructorParameters<typeof PlatformError>[0]>) =>
  new PlatformError({
    kind: 'outcome_unknown',
    retry: 'outcome_unknown',
    endpoint: 'postCreate',
    message: 'x',
    ...more,
  });

describe('toFailure', () => {
  it('says why a write’s outcome is unknown: an unreadable answer, a lost connection, a status', () => {
    const messages = [
      toFailure(unknownWrite({ kind: 'bad_response' }), read),
      toFailure(unknownWrite({ networkCode: 'UND_ERR_SOCKET' }), read),
      toFailure(unknownWrite({ status: 502 }), read),
      toFailure(unknownWrite({ networkCode: 'UND_ERR_BODY_DEADLINE' }), read),
    ].map((failure) => {
      expect(failure).toBeInstanceOf(GatewayError);
      expect((failure as GatewayError).code).toBe('UPSTREAM_OUTCOME_UNKNOWN');
      return (failure as GatewayError).message;
    });
    expect(messages[0]).toContain('(its answer could not be read)');
    expect(messages[1]).toContain('(the connection failed after it was sent)');
    expect(messages[2]).toContain('(the platform answered 502,');
    expect(messages[3]).toContain('(its answer did not come whole in time)');
  });

  it('tells an account to connect again on a refused session, but not a login', () => {
    const refused = new PlatformError({
      kind: 'unauthorized',
      retry: 'permanent',
      endpoint: 'login',
      message: 'x',
    });
    expect(toFailure(refused, read)).toMatchObject({ code: 'REAUTH_REQUIRED' });
    expect(toFailure(refused, login)).toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: 'the platform refused the login',
    });
  });
});

describe('platformFailureNote', () => {
  it('notes what the caller was told, and what the platform answered when it did', () => {
    const limited = new PlatformError({
      kind: 'rate_limited',
      retry: 'retryable',
      endpoint: 'accountMe',
      message: 'x',
      status: 429,
      retryAfterMs: 30_000,
    });
    expect(platformFailureNote(limited, read)).toEqual({
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'the platform is rate limiting this account; try again later',
      retryable: true,
      kind: 'rate_limited',
      status: 429,
    });
    // The lane's pause says why, as the account's status shows it.
    expect((toFailure(limited, read) as RetryableError).pauseWhy).toBe(
      'the platform answered 429 with Retry-After 30 s',
    );
    const proxiesDown = new RetryableError(new GatewayError('UPSTREAM_UNAVAILABLE', 'every proxy is down'));
    expect(platformFailureNote(proxiesDown, read)).toEqual({
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'every proxy is down',
      retryable: true,
    });
  });

  it('notes nothing of what is not the platform’s: the account gone, the gateway’s own failure', () => {
    expect(platformFailureNote(new GatewayError('NOT_FOUND', 'the account was disconnected'), read)).toBe(
      undefined,
    );
    expect(platformFailureNote(new TypeError('bug'), read)).toBe(undefined);
  });
});

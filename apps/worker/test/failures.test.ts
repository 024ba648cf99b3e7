import { GatewayError } from '@cg/contract';
import type { OperationDef, OperationSchemas } from '@cg/operations';
import { PlatformError } from '@cg/platform-client';
import { describe, expect, it } from 'vitest';
import { toFailure } from '../src/failures';

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

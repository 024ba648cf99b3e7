import { describe, expect, it } from 'vitest';
import { errorBody, GatewayError } from '../src/errors';

describe('GatewayError', () => {
  it('crosses the queue as CODE: message and comes back the same', () => {
    const error = new GatewayError('INVALID_2FA_CODE', 'the two-factor code is wrong: ask for a new one');
    const back = GatewayError.fromWire(error.toWire());
    expect(back.code).toBe('INVALID_2FA_CODE');
    expect(back.statusCode).toBe(400);
    expect(back.message).toBe(error.message);
  });

  it('keeps the wait it names, so the caller still gets Retry-After', () => {
    const error = new GatewayError('UPSTREAM_UNAVAILABLE', 'the platform is rate limiting: later', 7);
    const back = GatewayError.fromWire(error.toWire());
    expect(back).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryAfterSeconds: 7,
      message: error.message,
    });
    // Failures written before the wait crossed the queue still read back.
    expect(GatewayError.fromWire('RATE_LIMITED: busy')).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'busy',
    });
    expect(GatewayError.fromWire('RATE_LIMITED: busy').retryAfterSeconds).toBeUndefined();
  });

  it('turns a foreign failure reason into JOB_FAILED without echoing it', () => {
    const back = GatewayError.fromWire('job stalled more than allowable limit');
    expect(back.code).toBe('JOB_FAILED');
    expect(back.message).not.toContain('stalled');
  });

  it('renders the contract error shape', () => {
    expect(errorBody(new GatewayError('NOT_FOUND', 'account not found'), 'req-1')).toEqual({
      statusCode: 404,
      message: 'account not found',
      error: 'Not Found',
      code: 'NOT_FOUND',
      requestId: 'req-1',
    });
  });
});

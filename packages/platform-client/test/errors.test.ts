import { describe, expect, it } from 'vitest';
import {
  type Classification,
  classify,
  type Failure,
  networkPhase,
  PlatformError,
  parseRetryAfter,
} from '../src/errors';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

function http(status: number, upstreamCode?: number, retryAfter?: string): Failure {
  return { type: 'http', status, upstreamCode, retryAfter };
}

function run(failure: Failure, write: boolean): Classification {
  return classify({ failure, write, nowMs: NOW });
}

type Row = [label: string, failure: Failure, write: boolean, expected: Classification];

const rows: Row[] = [
  // Before the request could be sent: safe to send again, read or write.
  [
    'refused read',
    { type: 'network', code: 'ECONNREFUSED' },
    false,
    { kind: 'network_not_sent', retry: 'retryable' },
  ],
  [
    'refused write',
    { type: 'network', code: 'ECONNREFUSED' },
    true,
    { kind: 'network_not_sent', retry: 'retryable' },
  ],
  [
    'DNS write',
    { type: 'network', code: 'ENOTFOUND' },
    true,
    { kind: 'network_not_sent', retry: 'retryable' },
  ],
  [
    'DNS again',
    { type: 'network', code: 'EAI_AGAIN' },
    true,
    { kind: 'network_not_sent', retry: 'retryable' },
  ],
  [
    'connect timeout write',
    { type: 'network', code: 'UND_ERR_CONNECT_TIMEOUT' },
    true,
    { kind: 'network_not_sent', retry: 'retryable' },
  ],
  [
    'unreachable',
    { type: 'network', code: 'EHOSTUNREACH' },
    true,
    { kind: 'network_not_sent', retry: 'retryable' },
  ],
  [
    'pool closed',
    { type: 'network', code: 'UND_ERR_CLOSED' },
    true,
    { kind: 'network_not_sent', retry: 'retryable' },
  ],
  // After it was sent: a read is asked again, a write may have been applied.
  [
    'socket read',
    { type: 'network', code: 'UND_ERR_SOCKET' },
    false,
    { kind: 'unavailable', retry: 'retryable' },
  ],
  [
    'socket write',
    { type: 'network', code: 'UND_ERR_SOCKET' },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  ['reset read', { type: 'network', code: 'ECONNRESET' }, false, { kind: 'unavailable', retry: 'retryable' }],
  [
    'reset write',
    { type: 'network', code: 'ECONNRESET' },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  [
    'pipe write',
    { type: 'network', code: 'EPIPE' },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  [
    'headers timeout read',
    { type: 'network', code: 'UND_ERR_HEADERS_TIMEOUT' },
    false,
    { kind: 'unavailable', retry: 'retryable' },
  ],
  [
    'headers timeout write',
    { type: 'network', code: 'UND_ERR_HEADERS_TIMEOUT' },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  [
    'body timeout read',
    { type: 'network', code: 'UND_ERR_BODY_TIMEOUT' },
    false,
    { kind: 'unavailable', retry: 'retryable' },
  ],
  [
    'body timeout write',
    { type: 'network', code: 'UND_ERR_BODY_TIMEOUT' },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  [
    'kernel timeout write',
    { type: 'network', code: 'ETIMEDOUT' },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  [
    'unknown code write',
    { type: 'network', code: 'EWHATEVER' },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  [
    'no code write',
    { type: 'network', code: undefined },
    true,
    { kind: 'outcome_unknown', retry: 'outcome_unknown' },
  ],
  ['no code read', { type: 'network', code: undefined }, false, { kind: 'unavailable', retry: 'retryable' }],
  // Throttled or unavailable: the platform did not process it.
  ['429 write', http(429, 429), true, { kind: 'rate_limited', retry: 'retryable' }],
  ['429 with seconds', http(429, 429, '7'), true, { kind: 'rate_limited', retry: 'retryable', waitMs: 7000 }],
  [
    '429 with a date',
    http(429, 429, 'Wed, 15 Jan 2025 12:00:30 GMT'),
    false,
    { kind: 'rate_limited', retry: 'retryable', waitMs: 30_000 },
  ],
  ['418 write', http(418), true, { kind: 'rate_limited', retry: 'retryable' }],
  ['503 write', http(503, 500), true, { kind: 'unavailable', retry: 'retryable' }],
  ['503 with seconds', http(503, 500, '2'), true, { kind: 'unavailable', retry: 'retryable', waitMs: 2000 }],
  ['502 write', http(502), true, { kind: 'outcome_unknown', retry: 'outcome_unknown' }],
  ['408 write', http(408), true, { kind: 'unavailable', retry: 'retryable' }],
  // The handler may have run.
  ['500 read', http(500, 500), false, { kind: 'unavailable', retry: 'retryable' }],
  ['500 write', http(500, 500), true, { kind: 'outcome_unknown', retry: 'outcome_unknown' }],
  ['504 read', http(504), false, { kind: 'unavailable', retry: 'retryable' }],
  ['504 write', http(504), true, { kind: 'outcome_unknown', retry: 'outcome_unknown' }],
  ['501 write', http(501), true, { kind: 'outcome_unknown', retry: 'outcome_unknown' }],
  // Refusals the caller has to act on.
  ['401', http(401, 401), false, { kind: 'unauthorized', retry: 'permanent' }],
  ['401 write', http(401, 401), true, { kind: 'unauthorized', retry: 'permanent' }],
  ['403', http(403, 20), true, { kind: 'forbidden', retry: 'permanent' }],
  ['404', http(404, 404), true, { kind: 'not_found', retry: 'permanent' }],
  ['400 code 99', http(400, 99), false, { kind: 'session_missing', retry: 'permanent' }],
  ['400 code 98', http(400, 98), false, { kind: 'bad_request', retry: 'permanent' }],
  ['400 code 1', http(400, 1), false, { kind: 'invalid_credentials', retry: 'permanent' }],
  ['400 code 2', http(400, 2), true, { kind: 'invalid_twofa_code', retry: 'permanent' }],
  ['400 code 3', http(400, 3), true, { kind: 'twofa_token_expired', retry: 'permanent' }],
  ['400 code 4', http(400, 4), true, { kind: 'twofa_required', retry: 'permanent' }],
  ['400 code 10', http(400, 10), true, { kind: 'bad_request', retry: 'permanent' }],
  ['400 unknown code', http(400, 12345), true, { kind: 'bad_request', retry: 'permanent' }],
  ['400 no code', http(400), true, { kind: 'bad_request', retry: 'permanent' }],
  ['409', http(409), true, { kind: 'conflict', retry: 'permanent' }],
  ['410', http(410), true, { kind: 'not_found', retry: 'permanent' }],
  ['422 code 1 stays bad_request', http(422, 1), true, { kind: 'bad_request', retry: 'permanent' }],
  ['Retry-After ignored on a 400', http(400, 10, '5'), true, { kind: 'bad_request', retry: 'permanent' }],
  // A 2xx that says success false, or one nobody can read.
  ['200 success false code 3', http(200, 3), true, { kind: 'twofa_token_expired', retry: 'permanent' }],
  ['200 success false no code', http(200), false, { kind: 'bad_response', retry: 'permanent' }],
  ['302', http(302), true, { kind: 'bad_response', retry: 'permanent' }],
  ['unreadable 2xx read', { type: 'bad_response' }, false, { kind: 'bad_response', retry: 'permanent' }],
  [
    'unreadable 2xx write',
    { type: 'bad_response' },
    true,
    { kind: 'bad_response', retry: 'outcome_unknown' },
  ],
];

describe('classify', () => {
  it.each(rows)('%s', (_label, failure, write, expected) => {
    expect(run(failure, write)).toEqual(expected);
  });

  it('never calls a write retryable once it may have reached the platform', () => {
    const maybeApplied: Failure[] = [
      { type: 'network', code: 'UND_ERR_SOCKET' },
      { type: 'network', code: 'ECONNRESET' },
      { type: 'network', code: 'UND_ERR_HEADERS_TIMEOUT' },
      { type: 'network', code: 'UND_ERR_BODY_TIMEOUT' },
      http(500),
      http(504),
    ];
    for (const failure of maybeApplied) expect(run(failure, true).retry).toBe('outcome_unknown');
  });
});

describe('networkPhase', () => {
  it('places connect-time codes before sending and everything else after', () => {
    expect(networkPhase('ECONNREFUSED')).toBe('not_sent');
    expect(networkPhase('UND_ERR_CONNECT_TIMEOUT')).toBe('not_sent');
    expect(networkPhase('UND_ERR_SOCKET')).toBe('maybe_sent');
    expect(networkPhase('UND_ERR_HEADERS_TIMEOUT')).toBe('maybe_sent');
    expect(networkPhase(undefined)).toBe('maybe_sent');
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 15 Jan 2025 12:01:00 GMT', NOW)).toBe(60_000);
    expect(parseRetryAfter('Wed, 15 Jan 2025 11:00:00 GMT', NOW)).toBe(0);
  });

  it('leaves unreadable values to the caller', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('1.5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('2025-01-15T12:01:00Z', NOW)).toBeUndefined();
  });
});

describe('PlatformError', () => {
  it('carries its classification and leaves unset fields absent', () => {
    const err = new PlatformError({
      kind: 'rate_limited',
      retry: 'retryable',
      endpoint: 'accountMe',
      message: 'accountMe: HTTP 429',
      status: 429,
      retryAfterMs: undefined,
    });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('PlatformError');
    expect(err.kind).toBe('rate_limited');
    expect(err.status).toBe(429);
    expect('retryAfterMs' in err).toBe(false);
    expect('upstreamCode' in err).toBe(false);
  });
});

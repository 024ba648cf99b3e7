import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths that can carry a secret anywhere we might log an object. Redaction is the second line of
 * defence: secrets are sealed before they reach job data or Redis, and errors never embed them.
 */
export const REDACT_PATHS = [
  ...[
    'password',
    'token',
    'upstreamToken',
    'twoFactorCode',
    'twoFactorToken',
    'twofa',
    'credentials',
    'session',
  ].flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
];

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    level: options.level,
    name: options.name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  });
}

import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

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

export interface LoggerOptions {
  level: string;
  name: string;
  /** Human-readable lines (pino-pretty) instead of JSON, for development (`LOG_PRETTY`). @defaultValue false */
  pretty?: boolean;
  /** Where lines go. @defaultValue standard output */
  destination?: DestinationStream;
}

/**
 * The gateway's logger: JSON lines on standard output, secrets redacted. With `pretty`, the same
 * lines, redacted before they are formatted, are written as text for a person at a terminal.
 */
export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    level: options.level,
    name: options.name,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  if (options.pretty) return pino(settings, prettyStream(options.destination));
  return options.destination === undefined ? pino(settings) : pino(settings, options.destination);
}

/**
 * pino-pretty as a stream in this thread rather than a transport's worker thread: a development
 * setting, where a line written just before the process exits must not be lost, and where the cost of
 * formatting on the main thread does not matter. Colours only on a terminal.
 */
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  return pretty({
    sync: true,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    ...(destination === undefined ? {} : { destination }),
  });
}

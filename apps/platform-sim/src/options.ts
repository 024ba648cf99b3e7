import type { FastifyBaseLogger } from 'fastify';

/** Options of the sandbox. Every field has a default; `buildSim` takes a partial. */
export interface SimOptions {
  /** Seed of the deterministic world. @defaultValue 1 */
  seed: number;
  /** Extra creators `sim_creator_00001`... (password `sandbox-password`, no second factor), for benchmarks. Their worlds are built lazily. @defaultValue 0, at most 12000 */
  extraCreators: number;
  /** A second media-offer call by the same account within this gap returns empty data (the platform's "may return no data at times"). @defaultValue 60000 */
  mediaOfferGapMs: number;
  /** More requests than this in flight for one account are answered 429. @defaultValue 4 */
  maxInFlightPerAccount: number;
  /** More accepted requests than this in a rolling minute for one account are answered 429. @defaultValue 600 */
  maxRequestsPerMinutePerAccount: number;
  /** A write received again with the same method, path and body within this window counts as a duplicate. @defaultValue 10000 */
  duplicateWindowMs: number;
  /** Session tokens expire this long after login; null means never (only a sessionExpiry fault ends them). @defaultValue null */
  sessionTtlMs: number | null;
  /** Lifetime of a login second-factor token. @defaultValue 600000 (10 minutes) */
  twofaTokenTtlMs: number;
  /** The world's "now": seeded records are dated before it, renewals and schedules after it. @defaultValue start of the current UTC day */
  anchorMs: number;
  /**
   * Origin (and path prefix) of the signed CDN links in media records; empty: the sandbox's own port
   * under /cdn, where it serves them. @defaultValue ''
   */
  cdnBaseUrl: string;
  /** How long an upload stays "processing" after its completion before its media exists. @defaultValue 200 */
  uploadProcessingMs: number;
  /** The part size the media host hands out for uploads, in bytes. @defaultValue 20971520 (20 MiB) */
  uploadPartBytes: number;
  /** Fastify log level when no logger is injected ('silent' turns logging off). @defaultValue 'warn' */
  logLevel: string;
  /** Injected pino-compatible logger; overrides logLevel. @defaultValue none */
  logger: FastifyBaseLogger | null;
  /** A realtime connection that sends nothing (not even a ping) for this long is closed. @defaultValue 60000 */
  realtimeIdleTimeoutMs: number;
  /** Random activity generated on every creator with a live realtime connection (creator_demo when none), per minute; 0 = none. @defaultValue 0 */
  activityPerMinute: number;
  /** Serve https with this certificate and key (PEM text); null serves plain http. @defaultValue null */
  tls: SimTls | null;
}

/** The certificate (chain) and private key the sandbox serves https with, as PEM text. */
export interface SimTls {
  cert: string | Buffer;
  key: string | Buffer;
}

/** The options that `POST /_sim/config` may change while running. */
export const RUNTIME_OPTION_KEYS = [
  'mediaOfferGapMs',
  'maxInFlightPerAccount',
  'maxRequestsPerMinutePerAccount',
  'duplicateWindowMs',
  'sessionTtlMs',
  'twofaTokenTtlMs',
  'realtimeIdleTimeoutMs',
  'activityPerMinute',
  'uploadProcessingMs',
  'uploadPartBytes',
] as const;
export type RuntimeOptionKey = (typeof RUNTIME_OPTION_KEYS)[number];
export type RuntimeConfig = Pick<SimOptions, RuntimeOptionKey>;

export const SANDBOX_PASSWORD = 'sandbox-password';
export const SANDBOX_TWOFA_CODE = '424242';

/** The seeded sandbox accounts (documented in the README). */
export const SANDBOX_ACCOUNTS = [
  { username: 'creator_demo', password: SANDBOX_PASSWORD, twofaCode: null },
  { username: 'creator_2fa', password: SANDBOX_PASSWORD, twofaCode: SANDBOX_TWOFA_CODE },
] as const;

export const EXTRA_CREATOR_PREFIX = 'sim_creator_';
/** Each creator owns an id namespace below RUNTIME_NAMESPACE_BASE (12288), so this stays under it. */
export const MAX_EXTRA_CREATORS = 12_000;

export function extraCreatorUsername(n: number): string {
  return `${EXTRA_CREATOR_PREFIX}${String(n).padStart(5, '0')}`;
}

function startOfUtcDay(ms: number): number {
  return ms - (ms % 86_400_000);
}

export function resolveOptions(partial: Partial<SimOptions> = {}): SimOptions {
  const options: SimOptions = {
    seed: 1,
    extraCreators: 0,
    mediaOfferGapMs: 60_000,
    maxInFlightPerAccount: 4,
    maxRequestsPerMinutePerAccount: 600,
    duplicateWindowMs: 10_000,
    sessionTtlMs: null,
    twofaTokenTtlMs: 600_000,
    realtimeIdleTimeoutMs: 60_000,
    activityPerMinute: 0,
    anchorMs: startOfUtcDay(Date.now()),
    cdnBaseUrl: '',
    uploadProcessingMs: 200,
    uploadPartBytes: 20 * 1024 * 1024,
    logLevel: 'warn',
    logger: null,
    tls: null,
  };
  for (const [key, value] of Object.entries(partial)) {
    if (value !== undefined) Object.assign(options, { [key]: value });
  }
  const problems = validateOptions(options);
  if (problems.length > 0) throw new Error(`invalid sandbox options: ${problems.join('; ')}`);
  return options;
}

function isWholeNumber(value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

export function validateOptions(options: SimOptions): string[] {
  const problems: string[] = [];
  if (!isWholeNumber(options.seed, 0, 0xffff_ffff)) problems.push('seed must be an integer 0..4294967295');
  if (!isWholeNumber(options.extraCreators, 0, MAX_EXTRA_CREATORS)) {
    problems.push(`extraCreators must be an integer 0..${MAX_EXTRA_CREATORS}`);
  }
  problems.push(...validateRuntimeConfig(options));
  if (!isWholeNumber(options.anchorMs, 1_700_000_000_000))
    problems.push('anchorMs must be a Unix ms time after 2023');
  if (typeof options.cdnBaseUrl !== 'string' || !/^(https?:\/\/.+)?$/.test(options.cdnBaseUrl)) {
    problems.push('cdnBaseUrl must be empty or an http(s) URL');
  }
  if (options.tls !== null && !(isPem(options.tls?.cert) && isPem(options.tls?.key)))
    problems.push('tls must be null or { cert, key }, both non-empty PEM text');
  return problems;
}

function isPem(value: unknown): boolean {
  return (typeof value === 'string' || Buffer.isBuffer(value)) && value.length > 0;
}

export function validateRuntimeConfig(config: RuntimeConfig): string[] {
  const problems: string[] = [];
  if (!isWholeNumber(config.mediaOfferGapMs, 0)) problems.push('mediaOfferGapMs must be an integer >= 0');
  if (!isWholeNumber(config.maxInFlightPerAccount, 1))
    problems.push('maxInFlightPerAccount must be an integer >= 1');
  if (!isWholeNumber(config.maxRequestsPerMinutePerAccount, 1)) {
    problems.push('maxRequestsPerMinutePerAccount must be an integer >= 1');
  }
  if (!isWholeNumber(config.duplicateWindowMs, 0)) problems.push('duplicateWindowMs must be an integer >= 0');
  if (config.sessionTtlMs !== null && !isWholeNumber(config.sessionTtlMs, 1)) {
    problems.push('sessionTtlMs must be null or an integer >= 1');
  }
  if (!isWholeNumber(config.twofaTokenTtlMs, 1)) problems.push('twofaTokenTtlMs must be an integer >= 1');
  if (!isWholeNumber(config.realtimeIdleTimeoutMs, 1))
    problems.push('realtimeIdleTimeoutMs must be an integer >= 1');
  if (
    typeof config.activityPerMinute !== 'number' ||
    !(config.activityPerMinute >= 0 && config.activityPerMinute <= 60_000)
  )
    problems.push('activityPerMinute must be a number 0..60000');
  if (!isWholeNumber(config.uploadProcessingMs, 0, 600_000))
    problems.push('uploadProcessingMs must be an integer 0..600000');
  if (!isWholeNumber(config.uploadPartBytes, 1024, 1024 ** 3))
    problems.push('uploadPartBytes must be an integer 1024..1073741824');
  return problems;
}

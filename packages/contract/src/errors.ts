/**
 * The closed vocabulary of errors the gateway answers with. Every error body is
 * `{statusCode, message, error, code, requestId}`: the first three are the contract's shape, `code`
 * is stable for programs to match on, `requestId` ties the answer to our logs.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  INVALID_CREDENTIALS: 400,
  INVALID_2FA_CODE: 400,
  TWOFA_TOKEN_EXPIRED: 400,
  TWOFA_REQUIRED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  FORBIDDEN_ACTION: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  REAUTH_REQUIRED: 409,
  ACCOUNT_REQUIRED: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  JOB_CANCELLED: 409,
  JOB_NOT_CANCELLABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_ERROR: 502,
  UPSTREAM_OUTCOME_UNKNOWN: 502,
  JOB_FAILED: 502,
  UPSTREAM_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const STATUS_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}

/** The one error class of the gateway. `message` is safe to show a caller: never a secret. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
  }

  /**
   * How the error crosses the queue: BullMQ keeps only an error's message (`failedReason`), so a
   * job's failure is written as `CODE: message` (`CODE retry-after=N: message` when it names a wait)
   * and read back by `fromWire`.
   */
  toWire(): string {
    const wait = this.retryAfterSeconds === undefined ? '' : ` retry-after=${this.retryAfterSeconds}`;
    return `${this.code}${wait}: ${this.message}`;
  }

  static fromWire(reason: string | undefined): GatewayError {
    const match = /^([A-Z0-9_]+)(?: retry-after=(\d+))?: ([\s\S]*)$/.exec(reason ?? '');
    if (match?.[1] && isErrorCode(match[1]))
      return new GatewayError(
        match[1],
        match[3] ?? '',
        match[2] === undefined ? undefined : Number(match[2]),
      );
    // Not ours: BullMQ's own failures (a job stalled past its limit after a worker died, ...).
    return new GatewayError(
      'JOB_FAILED',
      'the job could not be completed; if it was a write, check before repeating it',
    );
  }
}

export interface ErrorBody {
  statusCode: number;
  message: string;
  error: string;
  code: ErrorCode;
  requestId?: string;
}

export function errorBody(error: GatewayError, requestId?: string): ErrorBody {
  return {
    statusCode: error.statusCode,
    message: error.message,
    error: STATUS_NAMES[error.statusCode] ?? 'Error',
    code: error.code,
    ...(requestId === undefined ? {} : { requestId }),
  };
}

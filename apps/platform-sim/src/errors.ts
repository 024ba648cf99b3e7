/**
 * The platform's error vocabulary (docs/upstream-decisions.md). Every /api/v1 failure is a
 * SimError, turned into `{success:false, error:{code, details}}` by the one error handler.
 */

export const ErrorCode = {
  badCredentials: 1,
  wrongTwofaCode: 2,
  twofaTokenExpired: 3,
  stepUpRequired: 4,
  validation: 10,
  notAllowed: 20,
  missingHeader: 98,
  missingSession: 99,
  invalidSession: 401,
  notFound: 404,
  rateLimited: 429,
  serverFailure: 500,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly details: string,
    /** Seconds for the Retry-After header (429 only). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(details);
    this.name = 'SimError';
  }
}

export function invalidField(field: string): SimError {
  return new SimError(400, ErrorCode.validation, `invalid field "${field}"`);
}

export function notFound(what: string): SimError {
  return new SimError(404, ErrorCode.notFound, `${what} not found`);
}

export function notAllowed(details: string): SimError {
  return new SimError(403, ErrorCode.notAllowed, details);
}

export function rateLimited(retryAfterSeconds: number): SimError {
  return new SimError(
    429,
    ErrorCode.rateLimited,
    'Too many requests',
    Math.max(1, Math.ceil(retryAfterSeconds)),
  );
}

/** Error of the /_sim control surface (plain JSON `{error}`, no platform envelope). */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

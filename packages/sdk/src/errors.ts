import type { ErrorBody, ErrorCode } from './types.js';

/**
 * A failure the gateway answered: its status and the contract's error body
 * `{statusCode, message, error, code, requestId}`. Match on `code` (stable), never on `message`.
 * `retryAfter` is the `Retry-After` header in seconds, where the gateway sent one (429, 503, the 409
 * of an `Idempotency-Key` still being queued).
 */
export class GatewayApiError extends Error {
  override readonly name = 'GatewayApiError';
  readonly statusCode: number;
  /** `INVALID_RESPONSE` when the answer was not the gateway's error body (a proxy's page, say). */
  readonly code: ErrorCode | 'INVALID_RESPONSE';
  /** The status's name, e.g. "Bad Request". */
  readonly error: string;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  /** The operation called (its operationId). */
  readonly operation: string;

  constructor(operation: string, status: number, body: unknown, retryAfter: number | undefined) {
    const parsed = isErrorBody(body) ? body : undefined;
    super(parsed?.message ?? `${operation} answered ${status} without the gateway's error body`);
    this.operation = operation;
    this.statusCode = parsed?.statusCode ?? status;
    this.code = parsed?.code ?? 'INVALID_RESPONSE';
    this.error = parsed?.error ?? '';
    this.requestId = parsed?.requestId;
    this.retryAfter = retryAfter;
  }

  /** The error body as the gateway sent it. */
  toJSON(): ErrorBody | { statusCode: number; message: string; code: 'INVALID_RESPONSE' } {
    if (this.code === 'INVALID_RESPONSE')
      return { statusCode: this.statusCode, message: this.message, code: this.code };
    return {
      statusCode: this.statusCode,
      message: this.message,
      error: this.error,
      code: this.code,
      ...(this.requestId === undefined ? {} : { requestId: this.requestId }),
    };
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const { statusCode, message, code } = body as Record<string, unknown>;
  return typeof statusCode === 'number' && typeof message === 'string' && typeof code === 'string';
}

/**
 * A request answered 202 whose job had not finished when the client stopped polling it
 * (`poll.timeoutMs`). The job goes on: its result stays at `GET /jobs/{jobId}` (`client.jobStatus`)
 * for the job retention.
 */
export class JobTimeoutError extends Error {
  override readonly name = 'JobTimeoutError';
  constructor(
    readonly jobId: string,
    readonly statusUrl: string,
    readonly waitedMs: number,
  ) {
    super(`job ${jobId} had not finished after ${waitedMs} ms; its result stays at ${statusUrl}`);
  }
}

/** Why `verifyWebhook` refused a delivery. */
export type WebhookRejection = 'missing-headers' | 'timestamp' | 'signature' | 'body';

/** A webhook delivery that does not carry a valid signature of one of the given secrets. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookRejection,
    message: string,
  ) {
    super(message);
  }
}

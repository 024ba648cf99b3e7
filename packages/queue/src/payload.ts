/**
 * What a job carries. Never a secret in clear: operations whose input holds a password, a 2FA code
 * or token put it in `sealed` (AES-GCM, opened only by the worker), and their results come back
 * sealed too, so neither Redis nor the queue dashboard ever shows one.
 */
export interface JobPayload {
  op: string;
  tenantId: string;
  /** The account whose lane schedules the job (absent: no platform session, no lane). */
  accountId?: string;
  /** The validated request input, minus anything secret. */
  input: unknown;
  sealed?: string;
  /** Enqueue time (ms), to report queue wait. */
  at: number;
  /** The operation changes state on the platform: never sent twice. */
  write?: boolean;
  /** The operation is held to the per-account gap (chat media stats). */
  gapped?: boolean;
  /** Identical requests share this job while it is unfinished. */
  dedupe?: string;
}

/** What a finished job returns: the envelope's parts, or the same sealed. */
export type StoredOutcome = { statusCode: number; message: string; data: unknown } | { sealed: string };

/**
 * What a job carries. Never a secret in clear: operations whose input holds a password, a 2FA code
 * or token put it in `sealed` (AES-GCM, opened only by the worker), and their results come back
 * sealed too, so neither Redis nor the queue dashboard ever shows one.
 */
/**
 * The lane of a connected account: its platform account's, shared by every service account connected
 * to it (two tenants, or a disconnect and connect again), so the platform account sees one set of
 * limits; the service account's while its platform id is unknown.
 */
export const laneOfAccount = (account: { accountId: string; platformAccountId: string }) =>
  account.platformAccountId === '' ? account.accountId : `platform:${account.platformAccountId}`;

export interface JobPayload {
  op: string;
  tenantId: string;
  /** The service account whose session runs the job (absent: no platform session). */
  accountId?: string;
  /**
   * The lane that schedules the job: its platform account's, which every service account connected
   * to that platform account shares (two tenants, or a disconnect and connect again), so the platform
   * account sees one set of limits; a connection's, its username's (`OperationDef.lane`). Jobs
   * queued without it use `accountId`'s; jobs with neither have no lane.
   */
  lane?: string;
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
  /** Attempts this request already had in a batch before it became a job of its own. */
  priorAttempts?: number;
  /**
   * The API request that queued the job (its `X-Request-Id`), carried so that every log line about
   * the job names it; not a secret. A request answered by another's job (the same read while it is
   * unfinished, or an `Idempotency-Key` replay) shares that job's, the first request's.
   */
  requestId?: string;
  /**
   * The id of the API key that queued the job (never the key), for the usage the job's platform
   * calls count; absent on jobs queued before keys were counted.
   */
  keyId?: string;
}

/** What a finished job returns: the envelope's parts, or the same sealed. */
export type StoredOutcome = { statusCode: number; message: string; data: unknown } | { sealed: string };

/**
 * Reads granted together are carried by one BullMQ job, a batch (batch.ts): request `<batchId>-<n>`
 * is `batch[n]` (null where that number went to a job of its own). One job instead of one per request
 * is what keeps BullMQ's own Redis work per request small (docs/scheduling.md, "Batches").
 */
export interface BatchPayload {
  batch: (JobPayload | null)[];
}

export type QueuedData = JobPayload | BatchPayload;

/** What became of one request of a batch: its outcome, its failure, or its move to a job of its own. */
export type ItemOutcome = StoredOutcome | { failed: string } | { moved: true };

/** A batch's result, and its progress while it runs: `items[n]` for request n, null until it ends. */
export interface BatchOutcome {
  items: (ItemOutcome | null)[];
}

/** The lane of a job's request: the one it names, else its service account's (see `lane`). */
export function laneOf(payload: JobPayload): string | undefined {
  return payload.lane ?? payload.accountId;
}

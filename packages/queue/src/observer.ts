import type { FailureDecision } from './failure';
import type { JobPayload } from './payload';

/**
 * What the worker's metrics learn of requests as they run (`WorkerOptions.observer`). Plain
 * callbacks, so the queue needs no metrics library; each is called synchronously and must be cheap.
 */
export interface RunObserver {
  /** A request's first attempt was let through by its lane, `waitedMs` after it was queued. */
  started?(waitedMs: number): void;
  /** A failed attempt of operation `op` will be tried again. */
  retried?(op: string): void;
  /** A write of operation `op` (the request `payload`) ended outcome unknown: maybe applied, never repeated. */
  outcomeUnknown?(op: string, payload: JobPayload): void;
  /** The platform rate-limited an account (429): its lane pauses. */
  paused?(): void;
}

/** Tells `observer` what a failed attempt became (`decideFailure`). */
export function observeDecision(
  observer: RunObserver | undefined,
  payload: JobPayload,
  decision: FailureDecision,
): void {
  if (observer === undefined || (decision.kind !== 'retry' && decision.kind !== 'fail')) return;
  if (decision.pauseLaneMs !== undefined) observer.paused?.();
  if (decision.kind === 'retry') observer.retried?.(payload.op);
  else if (decision.failure.code === 'UPSTREAM_OUTCOME_UNKNOWN')
    observer.outcomeUnknown?.(payload.op, payload);
}

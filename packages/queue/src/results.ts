import type { JobPayload, StoredOutcome } from './payload';

/** What a caller gets back: a job as `GET /jobs/{id}` shows it, and the end of a wait for one. */

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'unknown';

export interface JobView {
  id: string;
  state: JobState;
  payload: JobPayload;
  outcome?: StoredOutcome;
  failedReason?: string;
}

export type WaitResult =
  | { state: 'completed'; outcome: StoredOutcome }
  | { state: 'failed'; failedReason: string }
  | { state: 'pending'; jobState: JobState };

export function resultOf(view: JobView): WaitResult {
  if (view.state === 'completed' && view.outcome) return { state: 'completed', outcome: view.outcome };
  if (view.state === 'failed') return { state: 'failed', failedReason: view.failedReason ?? '' };
  return { state: 'pending', jobState: view.state };
}

/** The job has finished, one way or the other. */
export const ended = (state: JobState) => state === 'completed' || state === 'failed';

/** A BullMQ job state as callers see it. */
export function normaliseState(state: string): JobState {
  switch (state) {
    case 'waiting':
    case 'delayed':
    case 'active':
    case 'completed':
    case 'failed':
      return state;
    case 'prioritized':
    case 'waiting-children':
      return 'waiting';
    default:
      return 'unknown';
  }
}

/** A wait for a job's result; `dispose` once the wait is over. */
export type Waiter = { promise: Promise<WaitResult>; dispose: () => void };

/**
 * The waits of this process, by job id: one event reader per process settles them all (instead of a
 * Redis subscription per request).
 */
export class Waiters {
  private readonly byJob = new Map<string, Set<(result: WaitResult) => void>>();

  register(jobId: string): Waiter {
    const { promise, resolve: resolver } = resolvable<WaitResult>();
    const set = this.byJob.get(jobId) ?? new Set();
    set.add(resolver);
    this.byJob.set(jobId, set);
    return {
      promise,
      dispose: () => {
        set.delete(resolver);
        if (set.size === 0) this.byJob.delete(jobId);
      },
    };
  }

  /** Someone waits for the job. */
  has(jobId: string): boolean {
    return this.byJob.has(jobId);
  }

  settle(jobId: string, result: WaitResult): void {
    const set = this.byJob.get(jobId);
    if (!set) return;
    this.byJob.delete(jobId);
    for (const resolve of set) resolve(result);
  }
}

/** `promise`'s value, or null if it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(resolve, ms, null);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise and the function that settles it (Node 20 has no `Promise.withResolvers`). */
export function resolvable<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

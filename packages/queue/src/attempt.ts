import { GatewayError } from '@cg/contract';
import type { Job, Queue } from 'bullmq';
import {
  decideFailure,
  type FailureDecision,
  jobCancelled,
  notSentLockLost,
  notSentStopping,
  outcomeUnknown,
} from './failure';
import type { Gate } from './gate';
import type { WriteLedger } from './ledger';
import { observeDecision, type RunObserver } from './observer';
import type { JobPayload, QueuedData, StoredOutcome } from './payload';
import type { WorkerLanes } from './worker-lanes';

export interface ProcessorContext {
  jobId: string;
  /** Call just before each request leaves for the platform (write ledger, media-stats gap). */
  beforeCall(write: boolean): Promise<void>;
  /** Call when a write request was answered with success (it is applied). */
  afterWrite(): void;
  /** Call when the job's account no longer exists: its lane's state is set to expire. */
  accountGone(): Promise<void>;
}

export type Processor = (payload: JobPayload, context: ProcessorContext) => Promise<StoredOutcome>;

/** What running requests needs from the worker (`startWorker` builds it once). */
export interface Runner {
  processor: Processor;
  lanes: WorkerLanes;
  ledger: WriteLedger;
  /** The queue, to add the jobs that requests of a batch move to. */
  queue: Queue<QueuedData>;
  backoffMs: number;
  /** A forced close began: no further platform call leaves. */
  stopping(): boolean;
  onError?: (error: Error) => void;
  /** A request of a batch failed for good (a job of its own shows as a failed BullMQ job instead). */
  onRequestFailed?: (jobId: string, op: string, reason: string, requestId?: string) => void;
  /** Told of starts, retries, outcome-unknown writes and 429 pauses (the worker's metrics). */
  observer?: RunObserver;
}

/** One attempt of one request: a job of its own (worker.ts), or a request of a batch (batch.ts). */
export interface Request {
  jobId: string;
  payload: JobPayload;
  lane: string | undefined;
  /** Names this attempt in the write ledger (its BullMQ lock token). */
  attemptToken: string;
  /** The job's BullMQ lock token, when it holds one: a write is marked only while the lock is this. */
  lockToken?: string;
  /** A request of a batch: only reads travel in batches. */
  batched: boolean;
  /** Another attempt may follow this one. */
  attemptsLeft: boolean;
  /** No attempt of the request ran before this one: its start is its queue wait's end (metrics). */
  firstAttempt?: boolean;
}

/** A failure now fails the job for good: BullMQ will not run it again. */
export const lastAttempt = (job: Job) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

export type Attempted =
  | { ok: true; outcome: StoredOutcome }
  | { ok: false; error: unknown; decision: FailureDecision };

/**
 * One attempt, then what its failure became carried out (`carryOut`). The lane's slot goes back
 * once, final when the request will not run again: it succeeded, failed for good, or this was its
 * last attempt (a retry or a wait keeps its place).
 */
export async function attemptAndCarryOut<T>(
  request: Request,
  gate: Gate,
  runner: Runner,
  last: boolean,
  carryOut: (decision: FailureDecision, error: unknown) => Promise<T>,
): Promise<StoredOutcome | T> {
  let ends = false;
  try {
    const attempted = await attempt(request, gate, runner);
    if (attempted.ok) {
      ends = true;
      return attempted.outcome;
    }
    ends = attempted.decision.kind === 'fail';
    return await carryOut(attempted.decision, attempted.error);
  } finally {
    await gate.giveBack(ends || last);
  }
}

/**
 * Runs the processor for the request, its platform calls inside its lane's gate, keeping the write
 * ledger. A failure comes back with what it becomes (`decideFailure`), for the caller to carry out.
 */
export async function attempt(request: Request, gate: Gate, runner: Runner): Promise<Attempted> {
  const { jobId, payload, attemptToken } = request;
  const write = payload.write === true;
  let writesApplied = 0;
  try {
    if (write && (await runner.ledger.sentByOther(jobId, attemptToken))) throw outcomeUnknown();
    const outcome = await runner.processor(payload, {
      jobId,
      beforeCall: (writes) => beforeCall(request, writes, gate, runner),
      afterWrite: () => {
        writesApplied += 1;
      },
      accountGone: () => runner.lanes.forget(request.lane),
    });
    // Cancelled, and nothing sent: whatever it answered without the platform, it ends cancelled.
    if (gate.calls === 0 && (await gate.cancelled())) throw jobCancelled();
    return { ok: true, outcome };
  } catch (error) {
    const cancelled = !gate.failed && gate.calls === 0 && (await gate.cancelled());
    const decision = decideFailure(
      {
        error,
        claimFailed: gate.failed,
        cancelled,
        write,
        writesApplied,
        attemptsLeft: request.attemptsLeft,
      },
      runner.onError,
    );
    observeDecision(runner.observer, payload, decision);
    return { ok: false, error, decision };
  }
}

/** Just before each platform call of the request. */
async function beforeCall(request: Request, write: boolean, gate: Gate, runner: Runner): Promise<void> {
  const { payload, lane } = request;
  // Only reads are batched (see `canBatch`); a write here would escape the write ledger.
  if (request.batched && write)
    throw new GatewayError('INTERNAL', `operation ${payload.op} wrote from a batch`);
  if (runner.stopping()) throw notSentStopping();
  await gate.pass();
  if (gate.calls === 1 && request.firstAttempt) runner.observer?.started?.(Date.now() - payload.at);
  if (write) await markWrite(request, runner);
  // A repeated call of a gapped job (after a re-login) restarts the gap from itself.
  if (payload.gapped === true && gate.calls > 1 && lane !== undefined) await runner.lanes.touch(lane);
}

/**
 * The write-ahead mark before a write leaves. Another attempt's mark: that attempt may have sent it
 * (outcome unknown). The job's lock lost: another attempt may run it now, so this one sends nothing.
 */
async function markWrite(request: Request, runner: Runner): Promise<void> {
  const marked = await runner.ledger.markSent(request.jobId, request.attemptToken, request.lockToken);
  if (marked === 'other') throw outcomeUnknown();
  if (marked === 'lockLost') throw notSentLockLost();
}

/**
 * What a retry or a failure does before it is carried out, job or batch request alike: a 429 pauses
 * the lane; a write the platform did not apply loses its mark, so that it may be sent again.
 */
export async function pauseAndUnmark(
  decision: FailureDecision & { kind: 'retry' | 'fail' },
  request: Request,
  runner: Runner,
): Promise<void> {
  if (decision.pauseLaneMs !== undefined && request.lane !== undefined) {
    await runner.lanes.pause(request.lane, decision.pauseLaneMs, decision.pauseWhy);
  }
  if (decision.clearMark) await runner.ledger.clear(request.jobId, request.attemptToken);
}

import type { Job } from 'bullmq';
import { attemptAndCarryOut, lastAttempt, pauseAndUnmark, type Request, type Runner } from './attempt';
import { type FailureDecision, retryDelay } from './failure';
import { Gate } from './gate';
import type { Claim } from './lanes';
import {
  type BatchOutcome,
  type BatchPayload,
  type ItemOutcome,
  type JobPayload,
  laneOf,
  type QueuedData,
  type StoredOutcome,
} from './payload';
import { PARK_MS } from './wake';

/**
 * Batches (docs/scheduling.md, "Batches"): the reads of a group that their lanes let start at once
 * travel as one BullMQ job, so that BullMQ's own work is paid once for all of them. Request `n` of
 * batch `<batchId>` has the id `<batchId>-<n>` (lua/bullmq.lua knows that form too). The API forms
 * batches (`canBatch`, `batchOfGroup`) and reads them (`batchItem`, `endedItems`); the worker runs
 * them (`runBatch`): a request that may not start now, or must be retried, moves out to a job of
 * its own under its id.
 */

/** Requests admitted together at most, and so the most reads one batch job carries. */
export const MAX_BATCH = 32;

/** A request of a batch that ended is reported before the batch ends once it waited this long. */
const REPORT_AFTER_MS = 20;

export const isBatch = (data: QueuedData): data is BatchPayload => 'batch' in data;

export const batchItemId = (batchId: string, n: number) => `${batchId}-${n}`;

/** The batch and position of a batched request's id (`<batchId>-<n>`). */
export function parseBatchItemId(id: string): { batchId: string; n: number } | undefined {
  const match = /^(.+)-(\d{1,4})$/.exec(id);
  return match ? { batchId: match[1] as string, n: Number(match[2]) } : undefined;
}

// The API's side.

/** Reads run together in a batch; writes, gapped and sealed operations keep a job each. */
export function canBatch(payload: JobPayload): boolean {
  return (
    payload.accountId !== undefined &&
    payload.write !== true &&
    payload.gapped !== true &&
    payload.dedupe === undefined &&
    payload.sealed === undefined
  );
}

/**
 * The batch of a group: of its requests numbered for one (`n`, `reads` of them), those their lanes
 * let start now (`delayMs` 0), when there are two or more (a lone one is a job of its own like the
 * rest). Its payload keeps each request at its number (null where the number went elsewhere).
 */
export function batchOfGroup<M extends { n: number | undefined; payload: JobPayload }>(
  accepted: { member: M; delayMs: number }[],
  reads: number,
): { members: Set<M>; payload: BatchPayload } | undefined {
  const members = accepted.filter((a) => a.delayMs === 0 && a.member.n !== undefined).map((a) => a.member);
  if (members.length < 2) return undefined;
  const batch: (JobPayload | null)[] = Array.from({ length: reads }, () => null);
  for (const m of members) batch[m.n as number] = m.payload;
  return { members: new Set(members), payload: { batch } };
}

/**
 * Request `n` of a batch job: its payload, and its outcome once it ended (from the batch's result,
 * or its latest progress report). Undefined when the batch has no request `n`.
 */
export function batchItem(
  batch: Job<QueuedData>,
  n: number,
): { payload: JobPayload; outcome: ItemOutcome | undefined } | undefined {
  const payload = isBatch(batch.data) ? batch.data.batch[n] : undefined;
  if (!payload) return undefined;
  const outcome =
    (batch.returnvalue as BatchOutcome | null)?.items?.[n] ??
    (batch.progress as BatchOutcome | undefined)?.items?.[n];
  return { payload, outcome: outcome ?? undefined };
}

/** The requests of a batch that ended, by id; a moved one is answered by its own job instead. */
export function endedItems(
  batchId: string,
  outcome: BatchOutcome,
): { jobId: string; item: StoredOutcome | { failed: string } }[] {
  const ended: { jobId: string; item: StoredOutcome | { failed: string } }[] = [];
  outcome.items.forEach((item, n) => {
    if (item && !('moved' in item)) ended.push({ jobId: batchItemId(batchId, n), item });
  });
  return ended;
}

// The worker's side.

/** A request of a batch being run. */
interface Item {
  n: number;
  id: string;
  lane: string;
  payload: JobPayload;
}

/**
 * Runs a batch job: its requests concurrently, each reporting as it ends. Only reads travel in
 * batches (see `canBatch`), so running one again repeats no write.
 */
export async function runBatch(job: Job<BatchPayload>, runner: Runner): Promise<BatchOutcome> {
  const outcomes: (ItemOutcome | null)[] = job.data.batch.map(() => null);
  const todo = await itemsToRun(job, outcomes, runner);
  const claims = runner.lanes.claim(todo.map((item) => ({ lane: item.lane, jobId: item.id, gapped: false })));
  const progress = reporter(job, outcomes, runner);
  const ran = await Promise.allSettled(
    todo.map(async (item, k) => {
      outcomes[item.n] = await runItem(
        job,
        item,
        claims.then((answers) => answers[k]),
        runner,
      );
      progress.ended();
    }),
  );
  progress.stop();
  // Redis failed (the claim, a move, a pause): the batch is tried again as a whole, and what ended
  // is recorded first, so that it is neither sent again nor left unanswered.
  const failed = ran.find((result) => result.status === 'rejected');
  if (failed) {
    // Best effort: Redis may be what failed. Unrecorded, they run again (reads), or, on the last
    // attempt, are answered with the batch's failure.
    await job
      .updateProgress({ items: outcomes })
      .catch(() => job.updateProgress({ items: outcomes }))
      .catch(() => undefined);
    throw failed.reason;
  }
  return { items: outcomes };
}

/**
 * The batch's requests to run. Run again (its worker died, or the lane could not be asked),
 * requests already reported keep their outcome (set in `outcomes`), and those that had moved to
 * jobs of their own stay there.
 */
async function itemsToRun(
  job: Job<BatchPayload>,
  outcomes: (ItemOutcome | null)[],
  runner: Runner,
): Promise<Item[]> {
  const batchId = job.id ?? '';
  const items: Item[] = [];
  job.data.batch.forEach((payload, n) => {
    const lane = payload ? laneOf(payload) : undefined;
    if (payload && lane !== undefined) items.push({ n, id: batchItemId(batchId, n), lane, payload });
  });
  if (job.attemptsStarted <= 1) return items;
  const reported = (job.progress as BatchOutcome | undefined)?.items ?? [];
  const moved = await Promise.all(items.map((item) => runner.queue.getJob(item.id)));
  for (const [k, item] of items.entries()) {
    const earlier = reported[item.n];
    if (earlier) outcomes[item.n] = earlier;
    else if (moved[k]) outcomes[item.n] = { moved: true };
  }
  return items.filter((item) => outcomes[item.n] === null);
}

async function runItem(
  batch: Job<BatchPayload>,
  item: Item,
  claim: Promise<Claim | undefined>,
  runner: Runner,
): Promise<ItemOutcome> {
  const gate = new Gate(claim, (final) => runner.lanes.release({ lane: item.lane, jobId: item.id, final }));
  const request: Request = {
    jobId: item.id,
    payload: item.payload,
    lane: item.lane,
    attemptToken: `${item.id}:${batch.attemptsStarted}`,
    batched: true,
    // Its first attempt: moved out, it has the batch's others.
    attemptsLeft: (batch.opts.attempts ?? 1) > 1,
    firstAttempt: batch.attemptsStarted <= 1,
  };
  return attemptAndCarryOut(request, gate, runner, lastAttempt(batch), (decision, error) =>
    carryOutItem(decision, error, { batch, item, request, gate }, runner),
  );
}

/** Carries out what a request of a batch that failed becomes. */
async function carryOutItem(
  decision: FailureDecision,
  error: unknown,
  { batch, item, request, gate }: { batch: Job<BatchPayload>; item: Item; request: Request; gate: Gate },
  runner: Runner,
): Promise<ItemOutcome> {
  switch (decision.kind) {
    case 'abort':
      throw error;
    case 'wait':
      return moveOut(batch, item, decision.delayMs, 0, runner);
    case 'retry':
      await pauseAndUnmark(decision, request, runner);
      // Its slot is given back before its own job exists, so that job never meets a late release.
      await gate.giveBack(false);
      return moveOut(batch, item, retryDelay(runner.backoffMs, 1, decision.error), 1, runner);
    case 'fail': {
      await pauseAndUnmark(decision, request, runner);
      const failed = decision.failure.toWire();
      runner.onRequestFailed?.(item.id, item.payload.op, failed, item.payload.requestId);
      return { failed };
    }
  }
}

/**
 * A job of its own for the request, under its id, delayed (parked when `delayMs` is absent), with
 * the attempts the batch has left after the request's `attempts`.
 */
async function moveOut(
  batch: Job<BatchPayload>,
  item: Item,
  delayMs: number | undefined,
  attempts: number,
  runner: Runner,
): Promise<ItemOutcome> {
  const { opts } = batch;
  await runner.queue.add(
    item.payload.op,
    { ...item.payload, ...(attempts > 0 ? { priorAttempts: attempts } : {}) },
    {
      jobId: item.id,
      delay: delayMs ?? PARK_MS,
      attempts: Math.max(1, (opts.attempts ?? 1) - attempts),
      ...(opts.backoff === undefined ? {} : { backoff: opts.backoff }),
      ...(opts.removeOnComplete === undefined ? {} : { removeOnComplete: opts.removeOnComplete }),
      ...(opts.removeOnFail === undefined ? {} : { removeOnFail: opts.removeOnFail }),
    },
  );
  // Only now, parked, may it be queued again: a wake-up before this would be lost.
  if (delayMs === undefined) await runner.lanes.requeue(item.lane, item.id, false);
  return { moved: true };
}

/**
 * Reports requests of a batch that ended while others still run, so a quick one is not held by a
 * slow one. Requests of a batch mostly end together, and the batch's result carries them; only
 * when some are still unreported `REPORT_AFTER_MS` after they ended does a progress update go
 * out, carrying every outcome so far (so `GET /jobs/{id}` and a re-run of the batch see them all).
 */
function reporter(
  job: Job<BatchPayload>,
  outcomes: (ItemOutcome | null)[],
  runner: Runner,
): { ended(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const send = () => {
    timer = undefined;
    job.updateProgress({ items: outcomes }).catch((error: unknown) => runner.onError?.(error as Error));
  };
  return {
    ended: () => {
      timer ??= setTimeout(send, REPORT_AFTER_MS);
    },
    stop: () => clearTimeout(timer),
  };
}

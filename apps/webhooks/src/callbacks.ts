import { type GatewayConfig, type Logger, queueSettings } from '@cg/config';
import { envelope, errorBody, GatewayError, type Outcome } from '@cg/contract';
import { eventId, type PublishEvent } from '@cg/events';
import { type JobView, OperationsQueue, resultOf, type WaitResult } from '@cg/queue';
import type { Keyring } from '@cg/secrets';
import { newId, type Redis } from '@cg/store';

/** How long a request answered 202 may have ended unseen before the sweep looks at it. */
const SWEEP_AFTER_MS = 5_000;
const SWEEP_EVERY_MS = 2_500;
const SWEEP_BATCH = 200;

/**
 * `jobs.completed` / `jobs.failed`: the end of each request answered 202 (the API notes them), told
 * as an event of its tenant. The queue's events say when a request ends; a sweep finds the ones whose
 * end came unseen (this process down, the note written after the end). Any number of processes may
 * run it: one takes each callback (`claimCallback`), and the event id is the job's.
 */
export function startJobCallbacks(
  redis: Redis,
  config: GatewayConfig,
  keyring: Keyring,
  publish: PublishEvent,
  log: Logger,
): { close(): Promise<void> } {
  /** Claims the callback first (one cheap write per ended job), then reads the job, unless known. */
  const tell = async (jobId: string, result: WaitResult, known?: JobView) => {
    if (result.state === 'pending' || !(await queue.claimCallback(jobId))) return;
    const view = known ?? (await queue.get(jobId));
    if (!view) return;
    const completed = result.state === 'completed';
    await publish(view.payload.tenantId, {
      id: eventId(['job', jobId, result.state]),
      event: completed ? 'jobs.completed' : 'jobs.failed',
      accountId: view.payload.accountId ?? null,
      data: { jobId, ...jobAnswer(result, jobId, keyring) },
      requestId: view.payload.requestId,
      keyId: view.payload.keyId,
    });
    log.debug({ requestId: view.payload.requestId, jobId, state: result.state }, 'job callback told');
  };
  const told = (jobId: string, result: WaitResult, known?: JobView) =>
    tell(jobId, result, known).catch((error: unknown) =>
      log.warn({ err: error, requestId: known?.payload.requestId, jobId }, 'job callback not told'),
    );
  const queue = new OperationsQueue({
    redis,
    ...queueSettings(config),
    newJobId: () => newId('job'),
    onEnded: (jobId, result) => void told(jobId, result),
  });
  const sweep = async () => {
    for (const jobId of await queue.callbacksOlderThan(SWEEP_AFTER_MS, SWEEP_BATCH)) {
      const view = await queue.get(jobId);
      // Gone past its retention: nothing left to tell.
      if (!view) await queue.claimCallback(jobId);
      else await told(jobId, resultOf(view), view);
    }
  };
  const timer = setInterval(() => {
    sweep().catch((error: unknown) => log.warn({ err: error }, 'job callbacks sweep failed'));
  }, SWEEP_EVERY_MS);
  return {
    close: async () => {
      clearInterval(timer);
      await queue.close();
    },
  };
}

/**
 * What `GET /jobs/{jobId}` answers for the ended request: its status and body. A sealed result (a
 * connection's session) stays out of the event: `GET /jobs/{jobId}` gives it to the key's holder.
 */
function jobAnswer(
  result: Exclude<WaitResult, { state: 'pending' }>,
  jobId: string,
  keyring: Keyring,
): { status: number; body: unknown } {
  if (result.state === 'failed') {
    const error = GatewayError.fromWire(result.failedReason);
    return { status: error.statusCode, body: errorBody(error) };
  }
  const outcome = result.outcome;
  if ('sealed' in outcome) {
    const { statusCode, message } = keyring.openJson<Outcome>(outcome.sealed, jobId);
    return { status: statusCode, body: { statusCode, message, sealed: true } };
  }
  const body = envelope(outcome);
  return { status: body.statusCode, body };
}

import { type Job, Worker } from 'bullmq';

/**
 * BullMQ's worker, able to run an action once it is done with a run of a job (`afterRun`): after the
 * processor returned and BullMQ's own end of the run (moving the job on, fetching the next one,
 * forgetting the run's lock) is over too.
 *
 * A job that parks itself (`moveToDelayed`, then `DelayedError`) may be queued in its lane, where any
 * process's release can wake it, only then. Woken sooner, it could be taken again by this very worker
 * while its first run is still ending, and BullMQ would stop renewing the second run's lock: in
 * BullMQ 5 (dist/esm/classes/worker.js, `processJob`), the first run's `finally` calls
 * `lockManager.untrackJob(job.id)` after `handleFailed` has fetched the next job (a round trip), and
 * `untrackJob` (lock-manager.js) forgets the id whichever run it now tracks. The second run's lock
 * would lapse during a slow attempt, and the stalled-job check would start a third run beside it.
 */
export class SettlingWorker<Data = unknown, Result = unknown> extends Worker<Data, Result> {
  private readonly afterRuns = new Map<Job<Data, Result>, () => Promise<void>>();
  private readonly settling = new Set<Promise<void>>();

  /** Runs `action` once this worker is done with its current run of `job`; a failure is an `error` event. */
  afterRun(job: Job<Data, Result>, action: () => Promise<void>): void {
    this.afterRuns.set(job, action);
  }

  override async processJob(job: Job<Data, Result>, token: string, fetchNextCallback?: () => boolean) {
    try {
      return await super.processJob(job, token, fetchNextCallback);
    } finally {
      const action = this.afterRuns.get(job);
      if (action) {
        this.afterRuns.delete(job);
        const run = action()
          .catch((error: unknown) => void this.emit('error', error as Error))
          .finally(() => this.settling.delete(run));
        this.settling.add(run);
      }
    }
  }

  /** BullMQ's close, then the actions of the runs it waited for. */
  override async close(force = false): Promise<void> {
    await super.close(force);
    await Promise.all(this.settling);
  }
}

import type { Queue } from 'bullmq';
import { Coalescer } from './coalesce';
import type { Claim, ClaimRequest, Lanes, ReleaseRequest, Wake } from './lanes';
import type { PausedLanes } from './stats';
import { wakeJobs } from './wake';

/** Lanes a sweep looks at per round. */
const SWEEP_LANES = 100;
/** Rounds a sweep goes at most. */
const SWEEP_ROUNDS = 10;

/**
 * The worker's side of the lanes: the scripts it calls, each followed by the wake-ups it answered
 * (a waiting job's BullMQ delay set to when it may start), and releases gathered in groups.
 */
/** What `WorkerLanes.running` runs: a BullMQ worker, or a process's own worker around one. */
export interface LanesWorker {
  run(): Promise<void>;
  close(force?: boolean): Promise<void>;
}

export class WorkerLanes {
  /** Slots are given back in groups: one release script for what ended together. */
  private readonly releases: Coalescer<ReleaseRequest>;

  constructor(
    private readonly lanes: Lanes,
    /** The queue whose jobs are woken. */
    private readonly queue: Queue,
    private readonly onError?: (error: Error) => void,
    /** Where pauses are noted for the metrics (stats.ts). */
    private readonly paused?: PausedLanes,
  ) {
    this.releases = new Coalescer(async (done) => this.wake(await lanes.release(done)));
  }

  /** The lane's answers for jobs about to run; their wake-ups are applied as soon as they come. */
  claim(requests: ClaimRequest[]): Promise<Claim[]> {
    const claims = this.lanes.claim(requests);
    claims
      .then((answers) => this.wake(answers.flatMap((answer) => answer.wakes)))
      .catch((error: unknown) => this.onError?.(error as Error));
    return claims;
  }

  /**
   * Gives a slot back. A final release is not awaited: the answer does not wait for it. A job that
   * will run again awaits its release: a late one would free the slot its next attempt already holds.
   */
  release(request: ReleaseRequest): Promise<void> {
    const sent = this.releases.add(request);
    if (request.final) {
      sent.catch((error: unknown) => this.onError?.(error as Error));
      return Promise.resolve();
    }
    return sent;
  }

  /** After a `park` claim, once the job sits in BullMQ's delayed set: it queues again. */
  async requeue(lane: string, jobId: string, gapped: boolean): Promise<void> {
    await this.wake(await this.lanes.requeue(lane, jobId, gapped));
  }

  /** The platform rate-limited the account: nothing of its lane starts for `forMs`; `why`, as told. */
  pause(lane: string, forMs: number, why?: string): Promise<void> {
    // Best effort, beside the pause: only the metrics read it.
    this.paused?.note(lane, forMs).catch((error: unknown) => this.onError?.(error as Error));
    return this.lanes.pause(lane, forMs, why);
  }

  /** A gapped job sends another request (after a re-login): the gap counts from now. */
  touch(lane: string): Promise<void> {
    return this.lanes.touch(lane);
  }

  /** The job's account no longer exists: its lane's empty keys go. */
  async forget(lane: string | undefined): Promise<void> {
    if (lane !== undefined) await this.lanes.forget(lane);
  }

  /**
   * Crash recovery, not scheduling: lanes whose leases are due are looked at, so slots held by a
   * dead worker return and their waiting jobs are woken. Every worker sweeps; the scripts make
   * concurrent sweeps harmless.
   */
  async sweep(): Promise<void> {
    for (let round = 0; round < SWEEP_ROUNDS; round++) {
      const due = await this.lanes.dueLanes(SWEEP_LANES);
      if (due.length > 0) await this.wake(await this.lanes.kick(due));
      if (due.length < SWEEP_LANES) return;
    }
  }

  /**
   * `worker` run with these lanes swept every `everyMs` beside it (a timer that keeps no process
   * alive; a failed sweep is reported to `onError` and the next one runs on time). Closing stops the
   * sweeps, closes the worker, then resolves once every release asked for is sent.
   */
  running(worker: LanesWorker, everyMs: number): LanesWorker {
    let timer: NodeJS.Timeout | undefined;
    return {
      run: async () => {
        timer = setInterval(() => {
          this.sweep().catch((error: unknown) => this.onError?.(error as Error));
        }, everyMs);
        timer.unref();
        await worker.run();
      },
      close: async (force = false) => {
        clearInterval(timer);
        await worker.close(force);
        await this.releases.drain();
      },
    };
  }

  private wake(wakes: Wake[]): Promise<void> {
    return wakes.length === 0 ? Promise.resolve() : wakeJobs(this.queue, wakes);
  }
}

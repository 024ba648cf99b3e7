import { LISTEN_QUEUE, type ListenJob, listenPrefix } from '@cg/queue';
import { DelayedError, type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * Who holds each account's realtime connection: one long-running BullMQ job per connected account,
 * in a queue of its own. The process running the job holds the connection; BullMQ's lock, renewed
 * while it runs, is the lease. A process that dies stops renewing it, and BullMQ's stalled-job check
 * puts the job back for another process within `failoverMs`. A hold also ends every `rotateMs` (the
 * job goes back to the queue, where any process may take it), so processes that join get a share.
 */
export interface HoldOptions {
  redis: Redis;
  prefix: string;
  /** Connections one process holds at most. */
  capacity: number;
  /** How long an account may go unheld after its holder died. */
  failoverMs: number;
  /** How long a hold lasts before its job goes back to the queue (rebalancing). */
  rotateMs: number;
  /** Holds the account until `signal` aborts; resolves when there is nothing left to hold. */
  hold(job: ListenJob, signal: AbortSignal, stillOwned: () => Promise<boolean>): Promise<void>;
  onError(error: unknown): void;
}

export interface Holder {
  /** Ends every hold and gives the jobs back to the queue at once, for other processes. */
  close(): Promise<void>;
}

export function startHolding(options: HoldOptions): Holder {
  const { failoverMs } = options;
  // The lock is renewed every lockDuration / 2; a dead holder's lock expires after lockDuration, and
  // the stalled check, every stalledInterval, gives its job back: within failoverMs in all.
  const lockDuration = Math.max(1_000, Math.floor((failoverMs * 2) / 3));
  const stalledInterval = Math.max(500, failoverMs - lockDuration);
  const running = new Map<string, AbortController>();
  let closing = false;

  const process = async (job: Job<ListenJob>, token?: string): Promise<void> => {
    const abort = new AbortController();
    running.set(String(job.id), abort);
    const rotation = setTimeout(() => abort.abort('rotate'), jitter(options.rotateMs));
    // Before each connection: a hold whose lock went to another process must not open one.
    const stillOwned = async () => {
      if (token === undefined) return false;
      try {
        await job.extendLock(token, lockDuration);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await options.hold(job.data, abort.signal, stillOwned);
    } finally {
      clearTimeout(rotation);
      running.delete(String(job.id));
    }
    // Rotated or closing: back to the queue for whichever process takes it next. Otherwise the
    // account is gone and the job ends.
    if (abort.signal.aborted && (await stillOwned())) {
      await job.moveToDelayed(Date.now() + (closing ? 0 : 250), token);
      throw new DelayedError();
    }
  };

  const worker = new Worker<ListenJob>(LISTEN_QUEUE, process, {
    connection: options.redis,
    prefix: listenPrefix(options.prefix),
    concurrency: options.capacity,
    lockDuration,
    stalledInterval,
    // A stall is a holder that died: its account is held again, however often that happens.
    maxStalledCount: Number.MAX_SAFE_INTEGER,
  });
  worker.on('lockRenewalFailed', (jobIds) => {
    for (const id of jobIds) running.get(id)?.abort('lost');
  });
  worker.on('error', options.onError);
  return {
    close: async () => {
      closing = true;
      for (const abort of running.values()) abort.abort('closing');
      await worker.close();
    },
  };
}

/** `ms` ± 20 %, so holds started together do not all rotate together. */
const jitter = (ms: number) => Math.round(ms * (0.8 + Math.random() * 0.4));

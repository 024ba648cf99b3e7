import type { FileTransfers } from '@cg/operations';
import type { JobPayload, ProcessorContext } from '@cg/queue';
import type { UsageRecorder } from '@cg/store';

type Job = Pick<ProcessorContext, 'beforeCall' | 'afterWrite'>;

/**
 * A job's platform calls as its usage counts them (packages/store `UsageCounter`), under the key that
 * queued it and its account: each call that passed its lane and left (`beforeCall`), and of those,
 * each whose operation call then failed (an error status, a timeout, a lost connection).
 */
export class CallMeter {
  private sent = 0;

  constructor(
    private readonly usage: UsageRecorder,
    private readonly payload: JobPayload,
  ) {}

  /** The job, its `beforeCall` counting each call that leaves. */
  counting<J extends Job>(job: J): J {
    return {
      ...job,
      beforeCall: async (write: boolean) => {
        await job.beforeCall(write);
        this.sent += 1;
        this.add('platformCalls');
      },
    };
  }

  /** Runs one call of the operation: a failure after it left counts as a platform error. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    const before = this.sent;
    try {
      return await call();
    } catch (error) {
      if (this.sent > before) this.add('platformErrors');
      throw error;
    }
  }

  /** The file transfers, each run as a call (`run`). */
  files(files: FileTransfers): FileTransfers {
    return {
      ...files,
      putPart: (...args) => this.run(() => files.putPart(...args)),
      download: (...args) => this.run(() => files.download(...args)),
    };
  }

  private add(counter: 'platformCalls' | 'platformErrors'): void {
    const { tenantId, keyId, accountId } = this.payload;
    this.usage.add(tenantId, keyId, accountId, counter);
  }
}

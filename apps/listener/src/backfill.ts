import { type GatewayConfig, queueSettings } from '@cg/config';
import { GatewayError } from '@cg/contract';
import { laneOfAccount, OperationsQueue, type WaitResult } from '@cg/queue';
import { type AccountRecord, newId, type Redis } from '@cg/store';
import { BACKFILL_NOTIFICATION_TYPES } from './catalog';
import type { Backfill } from './connection';

/** How long a backfill may wait on its account's lane and run before it is given up for now. */
const BACKFILL_WAIT_MS = 120_000;

/**
 * Backfills through the operations queue: each one a `realtime-backfill` job on the account's lane,
 * so its platform calls share the account's limits with every other call (never an extra burst).
 */
export class QueuedBackfill {
  private readonly queue: OperationsQueue;
  /** Items one page asks the platform for (`LISTENER_BACKFILL_PAGE`). */
  private readonly limit: number;

  constructor(redis: Redis, config: GatewayConfig) {
    this.limit = config.LISTENER_BACKFILL_PAGE;
    this.queue = new OperationsQueue({ redis, ...queueSettings(config), newJobId: () => newId('job') });
  }

  /** What happened on the account from `since` (Unix ms) on. */
  async read(account: AccountRecord, since: number): Promise<Backfill> {
    const { tenantId, accountId } = account;
    const submitted = await this.queue.submit(
      {
        op: 'realtime-backfill',
        tenantId,
        accountId,
        lane: laneOfAccount(account),
        input: {
          params: { accountId },
          query: { since, types: BACKFILL_NOTIFICATION_TYPES, limit: this.limit },
        },
        at: Date.now(),
      },
      BACKFILL_WAIT_MS,
    );
    const result: WaitResult =
      submitted.result.state === 'pending'
        ? await this.queue.follow(submitted.jobId, BACKFILL_WAIT_MS)
        : submitted.result;
    if (result.state === 'failed') throw GatewayError.fromWire(result.failedReason);
    if (result.state === 'pending') throw new Error('the backfill did not finish in time');
    if ('sealed' in result.outcome) throw new Error('a backfill result is never sealed');
    return result.outcome.data as Backfill;
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

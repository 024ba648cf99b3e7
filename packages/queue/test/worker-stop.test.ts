import { setTimeout as sleep } from 'node:timers/promises';
import { connectRedis } from '@cg/store';
import { describe, expect, inject, it } from 'vitest';
import { eventually } from '../../../test/support/processes';
import { fileRedis, testQueue } from '../../../test/support/redis';
import { queueKeys } from '../src/keys';
import type { JobPayload } from '../src/payload';
import { type ProcessorContext, startWorker } from '../src/worker';

// A worker's close, forced after its grace: the calls its running jobs have not sent yet stay unsent.
const { redis, prefix } = fileRedis();
const lanes = { concurrency: 2, intervalMs: 0, gapMs: 0, maxBacklog: 100 };

describe('a worker whose close is forced', () => {
  it('sends no further platform call for a running job, which is retried instead of failing', async () => {
    const queue = testQueue(redis, prefix, { lanes, attempts: 3 });
    const connection = connectRedis(inject('redisUrl'));
    let sent = 0;
    let firstSent: () => void = () => undefined;
    const first = new Promise<void>((resolve) => {
      firstSent = resolve;
    });
    const processor = async (_payload: JobPayload, context: ProcessorContext) => {
      await context.beforeCall(false);
      sent += 1;
      firstSent();
      await sleep(500);
      await context.beforeCall(false);
      sent += 1;
      return { statusCode: 200, message: 'Success', data: {} };
    };
    const worker = startWorker(processor, {
      redis: connection,
      prefix,
      concurrency: 1,
      backoffMs: 60_000,
      lanes,
      retentionSeconds: 60,
      lockMs: 30_000,
    });
    try {
      await queue.ready();
      void worker.run();
      const payload: JobPayload = {
        op: 'me',
        tenantId: 't1',
        accountId: 'acct',
        write: true,
        input: {},
        at: Date.now(),
      };
      const { jobId } = await queue.submit(payload, 0);
      await first;
      const graceful = worker.close();
      await worker.close(true);
      await graceful;
      expect(sent).toBe(1);
      const state = await eventually(
        async () => {
          const job = await queue.get(jobId);
          return job?.state === 'delayed' ? job : undefined;
        },
        5_000,
        'the job waiting for its retry',
      );
      // Its attempt's reason (BullMQ keeps it beside the retry); the job itself has not failed.
      expect(state.failedReason).toContain('the worker stopped before sending this call');
      // BullMQ's count of attempts made: the one cut short, the retry still to come.
      expect(await redis.hget(queueKeys(prefix).job(jobId), 'atm')).toBe('1');
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });
});

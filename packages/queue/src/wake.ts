import { Job, type Queue } from 'bullmq';
import type { Wake } from './lanes';

/**
 * A job waiting for a slot of its account sits in BullMQ's delayed set with this delay; it is woken
 * (its delay set to when it may start) by the lane, never by polling. Should a wake-up be lost to a
 * crash, the job wakes by itself after this long and asks its lane again.
 */
export const PARK_MS = 60 * 60_000;

/** Sets the delay of lane-woken jobs; a job already running or gone needs nothing. */
export async function wakeJobs(queue: Queue, wakes: Wake[]): Promise<void> {
  await Promise.all(
    wakes.map((wake) =>
      new Job(queue, 'wake', null, {}, wake.jobId).changeDelay(wake.delayMs).catch(() => undefined),
    ),
  );
}

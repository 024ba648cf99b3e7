import type { Logger } from '@cg/config';
import type { Spool } from '@cg/media-spool';
import { ended, type JobStates } from '@cg/queue';

/**
 * A spool file no job needs any more may still be there: its job's worker died, or the API's
 * process died while it spooled or streamed. A download's file is kept this long after its job
 * ended, for the API to stream it; a file whose job never existed, this long after its last write.
 */
const GRACE_MS = 60_000;

/** Removes the spool files whose job has ended (an upload's at once), every `everyMs`. */
export function sweepSpool(spool: Spool, states: JobStates, everyMs: number, log: Logger): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      for (const file of await spool.files()) {
        const state = await states.of(file.jobId);
        const done =
          (ended(state) && (file.use === 'upload' || file.ageMs > GRACE_MS)) ||
          (state === 'unknown' && file.ageMs > GRACE_MS);
        if (done) spool.remove(file.name);
      }
    } catch (error) {
      log.warn({ err: error }, 'spool sweep failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), everyMs);
  timer.unref();
  void sweep();
  return () => clearInterval(timer);
}

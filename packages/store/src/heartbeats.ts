import type { StoreKeys } from './keys';
import { defineScripts, type Scripted } from './lua';
import type { Redis } from './redis';

/** How often an operations worker reports that it is alive. */
export const HEARTBEAT_EVERY_MS = 5_000;
/** A worker not heard from this long is taken for gone (three beats missed: one late beat is not). */
export const HEARTBEAT_STALE_MS = 15_000;

/**
 * Which operations workers are alive, for the API's readiness (`/readyz`): each worker beats every
 * `HEARTBEAT_EVERY_MS` into one ZSET (worker id → last beat), and removes itself when it stops.
 */
export class WorkerHeartbeats {
  private readonly scripts: Scripted<'heartbeat' | 'recent_beats'>;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StoreKeys,
  ) {
    this.scripts = defineScripts(redis, new URL('./lua/', import.meta.url), {
      heartbeat: 1,
      'recent-beats': 1,
    });
  }

  async beat(workerId: string): Promise<void> {
    // Kept 4 × the staleness: long enough to tell "stale" from "never", short enough to stay small.
    await this.scripts.heartbeat(this.keys.workerBeats(), workerId, 4 * HEARTBEAT_STALE_MS);
  }

  async remove(workerId: string): Promise<void> {
    await this.redis.zrem(this.keys.workerBeats(), workerId);
  }

  /** Workers that beat within `HEARTBEAT_STALE_MS`. */
  async recent(): Promise<number> {
    return Number(await this.scripts.recent_beats(this.keys.workerBeats(), HEARTBEAT_STALE_MS));
  }

  /**
   * Beats now and every `HEARTBEAT_EVERY_MS` until `stop`, which also removes the worker so that
   * readiness sees a stopped worker at once rather than after the staleness. A failed beat (Redis
   * away) is retried at the next tick: readiness then fails on Redis itself.
   */
  start(workerId: string): { stop(): Promise<void> } {
    const beat = () => this.beat(workerId).catch(() => undefined);
    void beat();
    const timer = setInterval(beat, HEARTBEAT_EVERY_MS).unref();
    return {
      stop: async () => {
        clearInterval(timer);
        // Not waited for past a second: with Redis away the entry goes stale on its own.
        const removed = this.remove(workerId).catch(() => undefined);
        await Promise.race([removed, new Promise((done) => setTimeout(done, 1_000).unref())]);
      },
    };
  }
}

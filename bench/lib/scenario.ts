import type { BenchRedis, RedisProbe } from './redis';
import type { ScenarioOutcome } from './report';

export type Scale = 'full' | 'quick' | 'smoke';

/** A scenario's size for the run's scale: `size(full, quick, smoke)`. */
export const sizer =
  (scale: Scale) =>
  <T>(full: T, quick: T, smoke: T): T =>
    scale === 'full' ? full : scale === 'quick' ? quick : smoke;

export interface ScenarioContext {
  redis: BenchRedis;
  probe: RedisProbe;
  /** Set with `--profile`: every gateway and baseline process writes a CPU profile here. */
  cpuProfDir: string | undefined;
  /**
   * `quick` (`--quick`): shorter runs and fewer accounts, to try the harness; `smoke` (`--smoke`):
   * each scenario at a tiny scale, to check that it runs and produces its figures. Neither is for
   * reported figures.
   */
  scale: Scale;
  log(message: string): void;
}

export interface Scenario {
  name: string;
  title: string;
  run(context: ScenarioContext): Promise<ScenarioOutcome>;
}

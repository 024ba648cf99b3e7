import type { BenchRedis, RedisProbe } from './redis';
import type { ScenarioOutcome } from './report';

export interface ScenarioContext {
  redis: BenchRedis;
  probe: RedisProbe;
  /** Set with `--profile`: every gateway and baseline process writes a CPU profile here. */
  cpuProfDir: string | undefined;
  /** `--quick`: shorter runs and fewer accounts, to try the harness; never for reported figures. */
  quick: boolean;
  log(message: string): void;
}

export interface Scenario {
  name: string;
  title: string;
  run(context: ScenarioContext): Promise<ScenarioOutcome>;
}

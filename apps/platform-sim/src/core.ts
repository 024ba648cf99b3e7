import { type FaultScope, Faults } from './faults';
import { RUNTIME_OPTION_KEYS, type RuntimeConfig, type SimOptions } from './options';
import { Sessions } from './sessions';
import { type AccountObservation, AccountTraffic, Observations } from './traffic';
import { World } from './world/world';

/** Everything one sandbox instance holds; routes and the control surface share it. */
export class SimCore {
  readonly world: World;
  readonly sessions: Sessions;
  readonly faults = new Faults();
  readonly observations = new Observations();
  config: RuntimeConfig;
  private traffic = new Map<number, AccountTraffic>();

  constructor(readonly options: SimOptions) {
    this.world = new World({
      seed: options.seed,
      extraCreators: options.extraCreators,
      anchorMs: options.anchorMs,
      cdnBaseUrl: options.cdnBaseUrl,
    });
    this.sessions = new Sessions(this.world, this.world.ids);
    this.config = this.initialConfig();
  }

  private initialConfig(): RuntimeConfig {
    const config = {} as Record<string, unknown>;
    for (const key of RUNTIME_OPTION_KEYS) config[key] = this.options[key];
    return config as RuntimeConfig;
  }

  trafficOf(creator: number): AccountTraffic {
    let traffic = this.traffic.get(creator);
    if (!traffic) {
      traffic = new AccountTraffic();
      this.traffic.set(creator, traffic);
    }
    return traffic;
  }

  observationOf(creator: number): AccountObservation {
    const identity = this.world.identity(creator);
    return this.observations.account(identity.accountId, identity.username);
  }

  /** A sandbox creator named by username, e-mail or platform account id. */
  resolveCreator(account: string): FaultScope | null {
    let creator = this.world.directory.indexOf(account);
    if (creator < 0) {
      const ref = this.world.resolveAccount(account.trim());
      creator = ref?.type === 'creator' ? ref.creator : -1;
    }
    if (creator < 0) return null;
    const identity = this.world.identity(creator);
    return { creator, accountId: identity.accountId, username: identity.username };
  }

  /** POST /_sim/reset: seeded world, default config, no faults, observations or sessions. */
  reset(): void {
    this.world.reset();
    this.sessions.clear();
    this.faults.reset();
    this.observations.reset();
    // In-flight counters of requests still running keep pointing at the old objects.
    this.traffic = new Map();
    this.config = this.initialConfig();
  }
}

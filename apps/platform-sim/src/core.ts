import { type FaultScope, Faults } from './faults';
import { RUNTIME_OPTION_KEYS, type RuntimeConfig, type SimOptions } from './options';
import { Realtime } from './realtime';
import { Sessions } from './sessions';
import { StepUps } from './step-ups';
import { ActivityStreams } from './streams';
import { type AccountObservation, AccountTraffic, Observations } from './traffic';
import { UploadStore } from './uploads';
import { World } from './world/world';

/** Everything one sandbox instance holds; routes and the control surface share it. */
export class SimCore {
  readonly world: World;
  readonly sessions: Sessions;
  /** Sensitive-action second factor: challenges and grants. */
  readonly stepUps = new StepUps();
  readonly faults = new Faults();
  readonly observations = new Observations();
  readonly realtime: Realtime;
  readonly streams: ActivityStreams;
  readonly uploads: UploadStore;
  /** The sandbox's own origin once it listens (part upload URLs point at it). */
  origin = '';
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
    this.realtime = new Realtime(this);
    this.streams = new ActivityStreams(this);
    this.uploads = new UploadStore(this.world, this.world.ids, options.seed);
  }

  /** The sandbox listens at `origin`: its upload URLs, and its CDN links unless set elsewhere. */
  listening(origin: string): void {
    this.origin = origin;
    if (this.options.cdnBaseUrl === '') this.world.cdn.useOwnOrigin(origin);
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

  /**
   * Clears observations; an account with live realtime connections starts again from them (its
   * `maxAtOnce` is what is open now).
   */
  resetObservations(): void {
    this.observations.reset();
    for (const creator of this.realtime.liveCreators())
      this.observationOf(creator).realtime.maxAtOnce = this.realtime.live(creator);
  }

  /**
   * POST /_sim/reset: seeded world, default config, no faults, observations, sessions (realtime
   * connections are closed with their sessions) or activity streams.
   */
  reset(): void {
    this.streams.stopAll();
    this.world.reset();
    this.sessions.clear();
    this.stepUps.clear();
    this.faults.reset();
    this.resetObservations();
    // In-flight counters of requests still running keep pointing at the old objects.
    this.traffic = new Map();
    this.config = this.initialConfig();
    this.streams.sync();
  }

  /** The sandbox closing: no timer nor connection may outlive it. */
  close(): void {
    this.streams.stopAll();
    this.realtime.close();
    this.uploads.close();
  }
}

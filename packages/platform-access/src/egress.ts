import { setTimeout as sleep } from 'node:timers/promises';
import type { EgressPlan, EgressProxy, Logger } from '@cg/config';
import { GatewayError } from '@cg/contract';
import { type PlatformClient, PlatformError } from '@cg/platform-client';
import { RetryableError } from '@cg/queue';
import { type AccountRecord, type EgressChoice, type Redis, type Store, storeKeys } from '@cg/store';
import { ProxyHealth } from './proxy-health';

/** The pause before sending again through a proxy that failed but is not (yet) down. */
const RESEND_PAUSE_MS = 200;

/**
 * Which proxy each account's platform calls leave through. An account keeps the proxy its login
 * went through (sticky, in its record, for every process); it moves only when that proxy is down,
 * and only to another proxy of its country (or direct, with `EGRESS_FALLBACK=direct`).
 */
export class Egress {
  constructor(
    readonly client: PlatformClient,
    readonly plan: EgressPlan | null,
    private readonly store: Store,
    /** Which proxies are down, and how many accounts each carries. */
    readonly health: ProxyHealth,
    /** Where the routes' platform calls and the accounts' moves are logged. */
    readonly log: Logger,
  ) {}

  /** The same egress logging through `log`: a job's, so that its lines name the job's request. */
  withLog(log: Logger): Egress {
    return new Egress(this.client, this.plan, this.store, this.health, log);
  }

  /** The route of a connected account; one connected before its country had proxies gets one now. */
  async ofAccount(tenantId: string, account: AccountRecord): Promise<Route> {
    const move = (from: string, to: EgressProxy | null) => this.moveAccount(tenantId, account, from, to);
    if (this.plan === null) return new Route(this, account.countryCode, null, move);
    const kept = this.plan.byId.get(account.egressId);
    if (kept?.country === account.countryCode) return new Route(this, account.countryCode, kept, move);
    const chosen = await this.choose(account.countryCode, []);
    return new Route(this, account.countryCode, await move(account.egressId, chosen), move);
  }

  /**
   * The route of a login (`/connect`, `/verify-2fa`): the proxy named (the one the login's first
   * step went through), else the one this tenant's account of that username already uses, if it is
   * up and of the country; else the least loaded proxy of the country.
   */
  async forLogin(tenantId: string, username: string, country: string, proxyId?: string): Promise<Route> {
    const moved = async (_from: string, to: EgressProxy | null) => to;
    if (this.plan === null) return new Route(this, country, null, moved);
    const plan = this.plan;
    const named = (id: string | undefined) => {
      const proxy = id === undefined ? undefined : plan.byId.get(id);
      return proxy?.country === country ? proxy : undefined;
    };
    let sticky = named(proxyId);
    if (sticky === undefined) {
      const lower = username.toLowerCase();
      const accounts = await this.store.accounts.list(tenantId);
      sticky = named(accounts.find((account) => account.username.toLowerCase() === lower)?.egressId);
    }
    if (sticky !== undefined && (await this.health.downFor([sticky.id]))[0] === 0)
      return new Route(this, country, sticky, moved);
    return new Route(this, country, await this.choose(country, []), moved);
  }

  /** The URL of the proxy a route leaves through (a websocket's CONNECT tunnel); undefined: direct. */
  proxyUrlOf(route: Route): string | undefined {
    return route.choice === null ? undefined : this.plan?.byId.get(route.choice.id)?.url;
  }

  /** Counts a proxy-layer failure of `proxy` (of this plan); says whether it is down now. */
  failed(proxy: EgressProxy, plan: EgressPlan): Promise<boolean> {
    return this.health.recordFailure(proxy.id, {
      failures: plan.failures,
      windowMs: plan.failureWindowMs,
      cooldownMs: plan.cooldownMs,
    });
  }

  /**
   * The least loaded proxy of `country` that is up, `except` left out; direct when all are down and
   * the fallback is direct. Otherwise the job waits for the first to come back (503 once spent).
   */
  async choose(country: string, except: readonly string[]): Promise<EgressProxy | null> {
    const all = this.plan?.byCountry.get(country) ?? [];
    if (all.length === 0)
      throw new GatewayError('SERVICE_UNAVAILABLE', `no egress proxy is configured for country ${country}`);
    const candidates = all.filter((proxy) => !except.includes(proxy.id));
    const down = await this.health.downFor(candidates.map((proxy) => proxy.id));
    const up = candidates.filter((_proxy, n) => down[n] === 0);
    if (up.length === 0) {
      if (this.plan?.fallback === 'direct') return null;
      const waitMs = Math.max(1_000, Math.min(...down.filter((ms) => ms > 0), this.plan?.cooldownMs ?? 0));
      throw new RetryableError(
        new GatewayError(
          'UPSTREAM_UNAVAILABLE',
          `every egress proxy of country ${country} is down; try again later`,
          Math.ceil(waitMs / 1000),
        ),
        waitMs,
      );
    }
    const load = await this.health.load();
    return up.reduce((best, proxy) => ((load.get(proxy.id) ?? 0) < (load.get(best.id) ?? 0) ? proxy : best));
  }

  /** Stores a connected account's move; if another process moved it first, its choice is taken. */
  private async moveAccount(
    tenantId: string,
    account: AccountRecord,
    from: string,
    to: EgressProxy | null,
  ): Promise<EgressProxy | null> {
    const now = await this.store.accounts.moveEgress(tenantId, account.accountId, from, choiceOf(to));
    if (now === null) throw new GatewayError('NOT_FOUND', 'the account was disconnected');
    if (now !== from && now === (to?.id ?? ''))
      this.log.warn(
        { tenantId, accountId: account.accountId, from: this.describe(from), to: this.describe(now) },
        'account moved to another egress',
      );
    return now === '' ? null : (this.plan?.byId.get(now) ?? null);
  }

  private describe(proxyId: string): string {
    if (proxyId === '') return 'direct';
    return this.plan?.byId.get(proxyId)?.label ?? 'a proxy no longer configured';
  }
}

/** One account's (or one login's) way out: its proxy, changed when that proxy is down. */
export class Route {
  constructor(
    private readonly egress: Egress,
    private readonly country: string,
    private current: EgressProxy | null,
    /** Stores a move; answers the proxy the account leaves through now. */
    private readonly move: (from: string, to: EgressProxy | null) => Promise<EgressProxy | null>,
  ) {}

  /** What an account record keeps of the route. */
  get choice(): EgressChoice {
    return choiceOf(this.current);
  }

  /**
   * Sends a call through the route, logged (debug) as `endpoint` with its duration and outcome,
   * never its arguments (a login's carry the password).
   */
  async send<T>(endpoint: string, call: (client: PlatformClient) => Promise<T>): Promise<T> {
    const started = performance.now();
    let outcome: Record<string, unknown> = { outcome: 'ok' };
    try {
      return await this.sendThrough(call);
    } catch (error) {
      outcome = outcomeOf(error);
      throw error;
    } finally {
      const ms = Math.round(performance.now() - started);
      this.egress.log.debug({ endpoint, ms, ...outcome }, 'platform call');
    }
  }

  /**
   * A call the proxy failed never reached the platform, so it is sent again, a write too: through
   * the same proxy after a pause while it is not down, through another of the country once it is.
   * A proxy that keeps failing without being marked down fails the call as retryable (the job tries
   * again later).
   */
  private async sendThrough<T>(call: (client: PlatformClient) => Promise<T>): Promise<T> {
    const { client, plan } = this.egress;
    for (let failures = 0; ; ) {
      const proxy = this.current;
      try {
        return await call(client.through(proxy?.url ?? null));
      } catch (error) {
        const proxyFailed = error instanceof PlatformError && error.kind === 'proxy_failed';
        if (proxy === null || plan === null || !proxyFailed) throw error;
        if (await this.egress.failed(proxy, plan)) {
          failures = 0;
          this.current = await this.move(proxy.id, await this.egress.choose(this.country, [proxy.id]));
          continue;
        }
        failures += 1;
        if (failures >= plan.failures) throw error;
        await sleep(RESEND_PAUSE_MS);
      }
    }
  }
}

/** What a failed call's log line says of it: the platform client's verdict, never a message. */
function outcomeOf(error: unknown): Record<string, unknown> {
  if (!(error instanceof PlatformError)) return { outcome: 'error' };
  return {
    outcome: error.kind,
    retry: error.retry,
    ...(error.status === undefined ? {} : { status: error.status }),
  };
}

function choiceOf(proxy: EgressProxy | null): EgressChoice {
  return proxy === null ? null : { id: proxy.id, label: proxy.label };
}

/** The egress of a process: its plan, with the proxies' health in the store's Redis under `prefix`. */
export function accountEgress(parts: {
  client: PlatformClient;
  plan: EgressPlan | null;
  store: Store;
  redis: Redis;
  prefix: string;
  log: Logger;
}): Egress {
  const health = new ProxyHealth(parts.redis, storeKeys(parts.prefix));
  return new Egress(parts.client, parts.plan, parts.store, health, parts.log);
}

/**
 * A login's country, checked before it is queued: with egress proxies configured, a country that has
 * none is refused (400), and one whose proxies are all down waits for the first to come back (503),
 * unless the fallback is direct.
 */
export async function checkLoginCountry(
  plan: EgressPlan | null,
  health: ProxyHealth,
  country: string,
): Promise<void> {
  if (plan === null) return;
  const proxies = plan.byCountry.get(country);
  if (proxies === undefined) {
    const configured = [...plan.byCountry.keys()].join(', ');
    throw new GatewayError(
      'BAD_REQUEST',
      `countryCode ${country} has no egress proxy; configured countries: ${configured}`,
    );
  }
  if (plan.fallback === 'direct') return;
  const down = await health.downFor(proxies.map((proxy) => proxy.id));
  if (down.every((ms) => ms > 0)) {
    const seconds = Math.ceil(Math.min(...down) / 1000);
    throw new GatewayError(
      'UPSTREAM_UNAVAILABLE',
      `every egress proxy of country ${country} is down; try again in ${seconds} s`,
      seconds,
    );
  }
}

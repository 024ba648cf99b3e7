import { ApiKeyStore, connectRedis, storeKeys } from '@cg/store';
import { cpuLine } from '../lib/cpu';
import { rateOf, runLoad } from '../lib/load';
import { median, ms, num, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import { benchUsernames, connectAccounts, startGateway, type Target } from '../lib/stack';
import { jobStages, type Stages, stagesLine } from '../lib/stages';
import {
  brief,
  loadSpec,
  type Measured,
  measuredLoad,
  mePath,
  startScenarioBaseline,
  startScenarioStack,
  statusLine,
} from './common';

const detail = (m: Measured) => ({ ...brief(m.result), cpu: m.cpu, waiting: m.waiting });

/** The limiter's threshold out of the way: the per-account limiter and the per-key limit still run. */
const OVERHEAD_ENV = { ACCOUNT_RATE_PER_MINUTE: '1000000', API_KEY_RPM_DEFAULT: '1000000000' };
/** The same gateway with its metrics and per-key limits off: what those two cost. */
const PLAIN_ENV = { ...OVERHEAD_ENV, METRICS_ENABLED: 'false', API_KEY_RPM_DEFAULT: '0' };
/** The same gateway with usage and the audit log off, called with its admin key: what those and scopes cost. */
const BARE_ENV = { ...OVERHEAD_ENV, USAGE_ENABLED: 'false', AUDIT_ENABLED: 'false' };

type Side = 'gateway' | 'baseline' | 'plain' | 'bare';

/**
 * A read key of `gateway`'s tenant limited to `accountIds`: the gateway side's requests check a scope
 * (access and account list) as a scoped caller's do.
 */
async function scopedKey(redisUrl: string, gateway: Target & { prefix: string }, accountIds: string[]) {
  const redis = connectRedis(redisUrl);
  try {
    const keys = new ApiKeyStore(redis, storeKeys(gateway.prefix));
    return (await keys.create('default', { label: 'bench-scoped', access: 'read', accounts: accountIds }))
      .key;
  } finally {
    redis.disconnect();
  }
}

/** `<command> <n>, …` for the first `top` of a list made by `perRequestOf`. */
const commandList = (list: ReadonlyArray<readonly [string, number]>, top = Number.POSITIVE_INFINITY) =>
  list
    .slice(0, top)
    .map(([command, n]) => `${command} ${num(n, 2)}`)
    .join(', ');

/** Calls per request by command, most first. */
const perRequestOf = (counts: Record<string, number>, requests: number) =>
  Object.entries(counts)
    .map(([command, calls]) => [command, calls / requests] as const)
    .sort((a, b) => b[1] - a[1]);

/**
 * S1 overhead, and the Redis cost per synchronous request. The sandbox answers at once, so what is
 * left is the price of each path: the gateway's queue round trip against the proxy's direct call.
 */
export const s1: Scenario = {
  name: 'S1',
  title: 'overhead: gateway vs plain proxy, zero platform latency',
  async run(context) {
    const { redis, probe, scale, log } = context;
    const size = sizer(scale);
    const accounts = size(1000, 200, 20);
    const connections = 50;
    const warmupMs = size(3_000, 2_000, 300);
    const durationMs = size(15_000, 5_000, 1_000);
    const scope = new Scope();
    try {
      const { sandbox, gateway } = await startScenarioStack(scope, context, {
        scenario: 'S1',
        accounts,
        env: OVERHEAD_ENV,
      });
      // S1 measures overhead, not limits: 50 callers at several thousand requests a second over 1,000
      // accounts would otherwise brush the sandbox's 600 requests/minute per account.
      await sandbox.configure({ maxRequestsPerMinutePerAccount: 1_000_000 });
      const baseline = await startScenarioBaseline(scope, context, 'S1', sandbox);
      const plain = await startGateway({
        scenario: 'S1-plain',
        redisUrl: context.redis.url,
        platformUrl: sandbox.url,
        env: PLAIN_ENV,
        cpuProfDir: context.cpuProfDir,
      });
      scope.defer(() => probe.clear(plain.prefix));
      scope.defer(() => plain.stop());
      const bare = await startGateway({
        scenario: 'S1-bare',
        redisUrl: context.redis.url,
        platformUrl: sandbox.url,
        env: BARE_ENV,
        cpuProfDir: context.cpuProfDir,
      });
      scope.defer(() => probe.clear(bare.prefix));
      scope.defer(() => bare.stop());

      const usernames = benchUsernames(accounts);
      log(`connecting ${accounts} accounts to the gateway, the plain and bare gateways and the baseline`);
      // The gateway and the plain gateway are called with a read key of their accounts only (a scope
      // to check on every request), the bare gateway with its admin key.
      const scopedOf = async (target: Target & { prefix: string }) => {
        const ids = await connectAccounts(target, usernames);
        return { target: { ...target, apiKey: await scopedKey(redis.url, target, ids) }, ids };
      };
      const [scopedGateway, scopedPlain] = [await scopedOf(gateway), await scopedOf(plain)];
      const scoped = scopedGateway.target;
      const plainSide = scopedPlain.target;
      const paths = new Map<Target, string[]>([
        [scoped, scopedGateway.ids.map(mePath)],
        [plainSide, scopedPlain.ids.map(mePath)],
        [bare, (await connectAccounts(bare, usernames)).map(mePath)],
        [baseline, (await connectAccounts(baseline, usernames)).map(mePath)],
      ]);

      // Max throughput, closed loop. Two rounds in opposite order (B P U G, G U P B) so a drift in the
      // machine's load over the run weighs on every side alike; each side's figure is the median.
      // P is the same gateway with metrics and per-key limits off; U with usage and the audit log off,
      // called with its admin key (G and P: usage and audit on, a scoped read key).
      const max: Record<Side, Measured[]> = { gateway: [], baseline: [], plain: [], bare: [] };
      const sideOf = (target: Target): Side =>
        target === plainSide ? 'plain' : target === bare ? 'bare' : target.kind;
      // A smoke run does one round: the figures are the same, from one measurement each.
      const rounds = [
        [baseline, plainSide, bare, scoped],
        [scoped, bare, plainSide, baseline],
      ].slice(0, size(2, 2, 1));
      for (const order of rounds) {
        for (const target of order) {
          log(`max throughput, ${sideOf(target)}, ${connections} connections, ${durationMs / 1000} s`);
          const measured = await measuredLoad(
            loadSpec(target, paths.get(target) ?? [], {
              mode: { kind: 'closed', callers: connections },
              warmupMs,
              durationMs,
            }),
            target,
            sandbox,
            probe,
          );
          max[sideOf(target)].push(measured);
        }
      }
      const gatewayMax = median(max.gateway.map((m) => rateOf(m.result, ['200'])));
      const baselineMax = median(max.baseline.map((m) => rateOf(m.result, ['200'])));
      const plainMax = median(max.plain.map((m) => rateOf(m.result, ['200'])));
      const bareMax = median(max.bare.map((m) => rateOf(m.result, ['200'])));

      // Added latency at half the gateway's max load: the same fixed arrival rate on both sides. A
      // sixteenth and a quarter of the max go first, to show how the added latency grows with the
      // load; at a sixteenth requests arrive alone and the cores have room, so that pair gives the
      // path's own price and what a lone request costs.
      const rate = Math.max(1, Math.round(gatewayMax / 2));
      const fixed = new Map<number, Record<'gateway' | 'baseline', Measured>>();
      let stages: Stages | undefined;
      // A smoke run measures the reported rate only (the lower ones are notes, not rows).
      const lower = size([16, 4], [16, 4], []).map((share) => Math.max(1, Math.round(gatewayMax / share)));
      for (const at of new Set([...lower, rate])) {
        const pair: Partial<Record<'gateway' | 'baseline', Measured>> = {};
        for (const target of [baseline, scoped]) {
          log(`fixed rate ${at} req/s, ${target.kind}, ${durationMs / 1000} s`);
          const measuredFrom = Date.now() + warmupMs;
          pair[target.kind] = await measuredLoad(
            loadSpec(target, paths.get(target) ?? [], {
              mode: { kind: 'open', ratePerSecond: at, maxInFlight: 1_000 },
              warmupMs,
              durationMs,
            }),
            target,
            sandbox,
            probe,
          );
          // Where the gateway's time goes at the reported load: its jobs' own timestamps.
          if (target === scoped && at === rate)
            stages = await jobStages(redis.url, gateway.prefix, measuredFrom, Date.now());
        }
        fixed.set(at, pair as Record<'gateway' | 'baseline', Measured>);
      }
      const half = fixed.get(rate) as Record<'gateway' | 'baseline', Measured>;
      // Round trips: a short counted run with MONITOR on, to split the command count into what the
      // gateway's processes send and what the lane and BullMQ scripts run inside Redis.
      const countCommands = async (callers: number, maxRequests: number) => {
        const run = await probe.monitor(redis.url, () =>
          runLoad(
            loadSpec(scoped, paths.get(scoped) ?? [], {
              mode: { kind: 'closed', callers },
              warmupMs: 0,
              durationMs: 120_000,
              maxRequests,
            }),
          ),
        );
        const requests = run.result.totalRequests;
        return {
          requests,
          sent: perRequestOf(run.sent, requests),
          inScripts: perRequestOf(run.inScripts, requests),
        };
      };
      const counted = size(1_000, 200, 40);
      log(`${counted} requests with Redis MONITOR on, to count round trips`);
      const monitored = await countCommands(10, counted);
      // The same one request at a time: each arrives alone and is a job of its own, which is what
      // requests pay at low rates (BullMQ's worker loop included).
      const loneCount = size(200, 50, 10);
      log(`${loneCount} requests one at a time with Redis MONITOR on`);
      const lone = await countCommands(1, loneCount);
      const sum = (list: ReadonlyArray<readonly [string, number]>) =>
        list.reduce((total, [, n]) => total + n, 0);
      /** `<sent per request> (<command> <n>, …); run inside scripts: <n>`, at most `top` commands. */
      const countLine = (count: typeof lone, top = Number.POSITIVE_INFINITY) =>
        `${num(sum(count.sent), 1)} (${commandList(count.sent, top)}); run inside scripts: ${num(sum(count.inScripts), 1)}`;
      const asDetail = (count: typeof lone) => ({
        requests: count.requests,
        sentPerRequest: Object.fromEntries(count.sent),
        inScriptsPerRequest: Object.fromEntries(count.inScripts),
      });

      const gatewayP50 = half.gateway.result.latencyMs.p50;
      const baselineP50 = half.baseline.result.latencyMs.p50;
      const added = gatewayP50 - baselineP50;

      // The Redis row: both gateway max runs together.
      const commands = max.gateway.reduce((sum, m) => sum + m.commands.total, 0);
      const requests = max.gateway.reduce((sum, m) => sum + m.result.totalRequests, 0);
      const perRequest = commands / requests;
      const byCommand: Record<string, number> = {};
      for (const m of max.gateway)
        for (const [command, calls] of Object.entries(m.commands.byCommand))
          byCommand[command] = (byCommand[command] ?? 0) + calls;
      const perCommand = perRequestOf(byCommand, requests);

      const ratio = gatewayMax / baselineMax;
      const cost = 1 - gatewayMax / plainMax;
      const recordCost = 1 - gatewayMax / bareMax;
      /** Redis commands per request of a side's max runs together. */
      const commandsPerRequestOf = (runs: Measured[]) =>
        runs.reduce((sum, m) => sum + m.commands.total, 0) /
        runs.reduce((sum, m) => sum + m.result.totalRequests, 0);
      const bareCommands = commandsPerRequestOf(max.bare);
      const addedCommands = commandsPerRequestOf(max.gateway) - bareCommands;
      const rows: Row[] = [
        {
          scenario: 'S1',
          metric: `throughput, req/s (${connections} conn, ${num(accounts)} accounts)`,
          gateway: num(gatewayMax),
          baseline: num(baselineMax),
          ratio: num(ratio, 2),
          target: '≥ 0.25',
          verdict: verdict(ratio >= 0.25),
          values: { gateway: gatewayMax, baseline: baselineMax, ratio },
        },
        {
          scenario: 'S1',
          metric: `p50 latency at ${num(rate)} req/s (half of gw max); added = gw − base`,
          gateway: ms(gatewayP50),
          baseline: ms(baselineP50),
          ratio: `+${ms(added)}`,
          target: '≤ +3 ms',
          verdict: verdict(added <= 3),
          values: { gateway: gatewayP50, baseline: baselineP50, ratio: added },
        },
        {
          scenario: 'S1',
          metric: 'throughput lost to metrics + per-key limits: 1 − gw / gw with both off',
          gateway: num(gatewayMax),
          baseline: `${num(plainMax)} (both off)`,
          ratio: `${num(cost * 100, 1)} %`,
          target: '< 10 %',
          verdict: verdict(cost < 0.1),
          values: { gateway: gatewayMax, baseline: plainMax, ratio: cost },
        },
        {
          scenario: 'S1',
          metric: 'throughput lost to scopes + usage + audit: 1 − gw / gw with usage, audit off, admin key',
          gateway: num(gatewayMax),
          baseline: `${num(bareMax)} (off)`,
          ratio: `${num(recordCost * 100, 1)} %`,
          target: '≤ 5 %',
          verdict: verdict(recordCost <= 0.05),
          values: { gateway: gatewayMax, baseline: bareMax, ratio: recordCost },
        },
        {
          scenario: 'S1',
          metric: 'Redis commands per sync request added by usage + audit: gw − gw with them off',
          gateway: num(commandsPerRequestOf(max.gateway), 2),
          baseline: `${num(bareCommands, 2)} (off)`,
          ratio: `+${num(addedCommands, 2)}`,
          target: '≤ +1',
          verdict: verdict(addedCommands <= 1),
          values: {
            gateway: commandsPerRequestOf(max.gateway),
            baseline: bareCommands,
            ratio: addedCommands,
          },
        },
        {
          scenario: 'Redis',
          metric: 'Redis commands per sync request (commandstats Δ / requests)',
          gateway: num(perRequest, 1),
          baseline: '0 (no Redis)',
          ratio: '—',
          target: '≤ 20',
          verdict: verdict(perRequest <= 20),
          values: { gateway: perRequest },
        },
      ];
      // Redis commands per request at a fixed rate: requests that arrive alone pay a job's whole fixed
      // cost, so this is larger than the max-load figure of the Redis row.
      const commandsPerRequest = (m: Measured) => m.commands.total / m.result.totalRequests;
      // CPU time per request of the side's own processes (the sandbox and the load generator are the
      // same work on both sides): % of one core × 10 ms / the rate (the fixed rate, or a max run's own
      // rate in its window). The CPU is read over the whole load, warm-up included.
      const cpuPerRequest = (m: Measured, at: number) =>
        (sum(Object.entries(m.cpu).filter(([name]) => name !== 'sandbox' && name !== 'load')) * 10) / at;
      const usage = (m: Measured) =>
        `CPU (% of one core): ${cpuLine(m.cpu)}; waiting for a core (% of the time): ${cpuLine(m.waiting)}`;
      const notes = [
        ...(['gateway', 'plain', 'bare', 'baseline'] as const).flatMap((kind) =>
          max[kind].map(
            (m, i) =>
              `S1 ${kind} max run ${i + 1}: ${statusLine(m.result)}; p50 ${ms(m.result.latencyMs.p50)}, p99 ${ms(
                m.result.latencyMs.p99,
              )}; CPU per request ${num(cpuPerRequest(m, rateOf(m.result, ['200'])), 2)} ms; ${usage(m)}`,
          ),
        ),
        ...[...fixed].flatMap(([at, pair]) => [
          `S1 fixed rate ${num(at)} req/s: p50 gateway ${ms(pair.gateway.result.latencyMs.p50)}, baseline ${ms(
            pair.baseline.result.latencyMs.p50,
          )}, added +${ms(pair.gateway.result.latencyMs.p50 - pair.baseline.result.latencyMs.p50)}; gateway ${statusLine(
            pair.gateway.result,
          )}, Redis ${num(commandsPerRequest(pair.gateway), 1)} commands per request, CPU per request ${num(cpuPerRequest(pair.gateway, at), 2)} ms (api, worker, Redis), ${usage(pair.gateway)}`,
          `S1 fixed rate ${num(at)} req/s, baseline: ${statusLine(pair.baseline.result)}, CPU per request ${num(cpuPerRequest(pair.baseline, at), 2)} ms, ${usage(pair.baseline)}`,
        ]),
        ...(stages
          ? [`S1 fixed rate, inside the gateway (its jobs' timestamps): ${stagesLine(stages)}`]
          : []),
        `Redis per sync request by command: ${commandList(perCommand, 12)}`,
      ];
      notes.push(
        `Redis commands sent by the gateway per sync request (MONITOR, ${counted} requests): ${countLine(monitored, 10)}`,
        `Redis commands sent per request arriving alone (MONITOR, 1 caller, ${lone.requests} requests): ${countLine(lone)}`,
      );
      return {
        rows,
        notes,
        details: {
          accounts,
          connections,
          warmupMs,
          durationMs,
          max: {
            gateway: max.gateway.map(detail),
            baseline: max.baseline.map(detail),
            plain: max.plain.map(detail),
            bare: max.bare.map(detail),
          },
          fixedRate: [...fixed].map(([at, pair]) => ({
            rate: at,
            gateway: detail(pair.gateway),
            baseline: detail(pair.baseline),
            redisCommandsPerRequest: commandsPerRequest(pair.gateway),
            cpuMsPerRequest: {
              gateway: cpuPerRequest(pair.gateway, at),
              baseline: cpuPerRequest(pair.baseline, at),
            },
            ...(at === rate ? { stages } : {}),
          })),
          redis: {
            commands,
            requests,
            perRequest,
            perCommand: Object.fromEntries(perCommand),
            monitored: asDetail(monitored),
            alone: asDetail(lone),
          },
        },
      };
    } finally {
      await scope.close();
    }
  },
};

import { cpuLine } from '../lib/cpu';
import { rateOf } from '../lib/load';
import { ms, num, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import { benchUsernames, connectAccounts, type Target } from '../lib/stack';
import { jobStages, stagesLine } from '../lib/stages';
import {
  brief,
  loadSpec,
  measuredLoad,
  mePath,
  startScenarioBaseline,
  startScenarioStack,
  statusLine,
} from './common';

const PLATFORM_LATENCY_MS = 200;

/**
 * S2 fan-out: every platform call takes 200 ms and 500 callers, one per account, each wait for their
 * answer and ask again. Nothing but the number of calls in flight limits throughput, so the ideal
 * is accounts / latency = 2,500 req/s.
 *
 * The gateway runs two worker processes (this machine has two cores, and the platform calls are the
 * workers' work: scale-out is more worker processes on one Redis); a second gateway run with one
 * worker process is in the notes.
 */
export const s2: Scenario = {
  name: 'S2',
  title: 'fan-out: 500 accounts, one caller each, 200 ms platform latency',
  async run(context) {
    const { redis, probe, scale, log } = context;
    const size = sizer(scale);
    const accounts = size(500, 100, 20);
    const ideal = (accounts * 1000) / PLATFORM_LATENCY_MS;
    const warmupMs = size(5_000, 2_000, 500);
    const durationMs = size(20_000, 5_000, 1_500);
    const workers = 2;
    // Both sides get a socket pool as large as the callers, so the comparison stays about the queue.
    const platformConnections = accounts + 64;
    const scope = new Scope();
    try {
      const { sandbox, gateway } = await startScenarioStack(scope, context, {
        scenario: 'S2',
        accounts,
        workers,
        env: {
          // The scenario is 500 jobs in flight at once: the default of 64 per worker process would
          // make it a measurement of that setting (64 / 0.2 s = 320 req/s).
          WORKER_CONCURRENCY: String(accounts + 64),
          // The ideal is 5 calls/s per account = 300/min, the default per-account rate itself; the
          // sandbox's own limit (600/min) is used instead so that the ideal is reachable.
          ACCOUNT_RATE_PER_MINUTE: '600',
          PLATFORM_CONNECTIONS: String(platformConnections),
        },
      });
      const baseline = await startScenarioBaseline(scope, context, 'S2', sandbox, platformConnections);

      const usernames = benchUsernames(accounts);
      log(`connecting ${accounts} accounts to the gateway and the baseline`);
      const paths = new Map<Target, string[]>([
        [gateway, (await connectAccounts(gateway, usernames)).map(mePath)],
        [baseline, (await connectAccounts(baseline, usernames)).map(mePath)],
      ]);
      // After connecting: logins are not part of the scenario.
      await sandbox.addFault({ kind: 'latency', ms: PLATFORM_LATENCY_MS });

      const run = async (target: Target, label: string) => {
        log(`${accounts} callers, ${label}, ${durationMs / 1000} s`);
        return measuredLoad(
          loadSpec(target, paths.get(target) ?? [], {
            mode: { kind: 'closed', callers: accounts },
            assign: 'per-caller',
            warmupMs,
            durationMs,
          }),
          target,
          sandbox,
          probe,
        );
      };
      const base = await run(baseline, 'baseline');
      const measuredFrom = Date.now() + warmupMs;
      const gw = await run(gateway, `gateway with ${workers} worker processes`);
      const stages = await jobStages(redis.url, gateway.prefix, measuredFrom, Date.now());
      await gateway.stopWorkers(1);
      const oneWorker = await run(gateway, 'gateway with 1 worker process');

      const gwRate = rateOf(gw.result, ['200']);
      const baseRate = rateOf(base.result, ['200']);
      const oneRate = rateOf(oneWorker.result, ['200']);
      const share = gwRate / ideal;
      const p99Ratio = gw.result.latencyMs.p99 / PLATFORM_LATENCY_MS;
      const rows: Row[] = [
        {
          scenario: 'S2',
          metric: `throughput, req/s; ratio = gw / ideal ${num(ideal)}`,
          gateway: num(gwRate),
          baseline: `${num(baseRate)} (${num((baseRate / ideal) * 100)}%)`,
          ratio: num(share, 2),
          target: '≥ 0.80',
          verdict: verdict(share >= 0.8),
          values: { gateway: gwRate, baseline: baseRate, ratio: share },
        },
        {
          scenario: 'S2',
          metric: `p99 latency; ratio = gw / platform ${PLATFORM_LATENCY_MS} ms`,
          gateway: ms(gw.result.latencyMs.p99),
          baseline: ms(base.result.latencyMs.p99),
          ratio: num(p99Ratio, 2),
          target: '≤ 2.0',
          verdict: verdict(p99Ratio <= 2),
          values: { gateway: gw.result.latencyMs.p99, baseline: base.result.latencyMs.p99, ratio: p99Ratio },
        },
      ];
      const notes = [
        `S2 gateway (API + ${workers} worker processes): ${statusLine(gw.result)}; p50 ${ms(gw.result.latencyMs.p50)}; CPU: ${cpuLine(gw.cpu)}`,
        `S2 inside the gateway (its jobs' timestamps): ${stagesLine(stages)}`,
        `S2 gateway with 1 worker process: ${num(oneRate)} req/s (${num(oneRate / ideal, 2)} of ideal), p50 ${ms(
          oneWorker.result.latencyMs.p50,
        )}, p99 ${ms(oneWorker.result.latencyMs.p99)}; CPU: ${cpuLine(oneWorker.cpu)}`,
        `S2 baseline: ${statusLine(base.result)}; p50 ${ms(base.result.latencyMs.p50)}; CPU: ${cpuLine(base.cpu)}`,
        `S2 platform sockets per side: ${platformConnections}`,
      ];
      return {
        rows,
        notes,
        details: {
          accounts,
          ideal,
          warmupMs,
          durationMs,
          platformConnections,
          workers,
          gateway: brief(gw.result),
          stages,
          gatewayOneWorker: brief(oneWorker.result),
          baseline: brief(base.result),
          cpu: { gateway: gw.cpu, gatewayOneWorker: oneWorker.cpu, baseline: base.cpu },
        },
      };
    } finally {
      await scope.close();
    }
  },
};

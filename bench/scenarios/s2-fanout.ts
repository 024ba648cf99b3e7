import { cpuLine } from '../lib/cpu';
import { type LoadResult, rateOf } from '../lib/load';
import { ms, num, type Row, verdict } from '../lib/report';
import type { Scenario } from '../lib/scenario';
import { Scope } from '../lib/scope';
import {
  benchUsernames,
  connectAccounts,
  gatewayHas,
  startBaseline,
  startGateway,
  startSandbox,
  type Target,
} from '../lib/stack';
import { brief, loadSpec, measuredLoad, mePath, statusLine } from './common';

const PLATFORM_LATENCY_MS = 200;

/**
 * S2 fan-out: every platform call takes 200 ms and 500 callers, one per account, each wait for their
 * answer and ask again. Nothing but the number of calls in flight limits throughput, so the ideal
 * is accounts / latency = 2,500 req/s.
 */
export const s2: Scenario = {
  name: 'S2',
  title: 'fan-out: 500 accounts, one caller each, 200 ms platform latency',
  async run({ redis, probe, cpuProfDir, quick, log }) {
    const accounts = quick ? 100 : 500;
    const ideal = (accounts * 1000) / PLATFORM_LATENCY_MS;
    const warmupMs = quick ? 2_000 : 5_000;
    const durationMs = quick ? 5_000 : 20_000;
    // The platform client's socket pool is 256 by default; once the gateway can be given more, both
    // sides get the same number so the comparison stays about the queue.
    const platformConnections = gatewayHas('PLATFORM_CONNECTIONS') ? accounts + 64 : undefined;
    const scope = new Scope();
    try {
      const sandbox = await startSandbox(accounts, cpuProfDir);
      scope.defer(() => sandbox.stop());
      const gateway = await startGateway({
        scenario: 'S2',
        redisUrl: redis.url,
        platformUrl: sandbox.url,
        env: {
          // The scenario is 500 jobs in flight at once: the default of 64 per worker process would
          // make it a measurement of that setting (64 / 0.2 s = 320 req/s).
          WORKER_CONCURRENCY: String(accounts + 64),
          // The ideal is 5 calls/s per account = 300/min, the default per-account rate itself; the
          // sandbox's own limit (600/min) is used instead so that the ideal is reachable.
          ACCOUNT_RATE_PER_MINUTE: '600',
          ...(platformConnections === undefined ? {} : { PLATFORM_CONNECTIONS: String(platformConnections) }),
        },
        cpuProfDir,
      });
      scope.defer(() => probe.clear(gateway.prefix));
      scope.defer(() => gateway.stop());
      const baseline = await startBaseline({
        scenario: 'S2',
        platformUrl: sandbox.url,
        platformConnections,
        cpuProfDir,
      });
      scope.defer(() => baseline.stop());

      const usernames = benchUsernames(accounts);
      log(`connecting ${accounts} accounts to the gateway and the baseline`);
      const paths = new Map<Target, string[]>([
        [gateway, (await connectAccounts(gateway, usernames)).map(mePath)],
        [baseline, (await connectAccounts(baseline, usernames)).map(mePath)],
      ]);
      // After connecting: logins are not part of the scenario.
      await sandbox.addFault({ kind: 'latency', ms: PLATFORM_LATENCY_MS });

      const results: Partial<Record<'gateway' | 'baseline', LoadResult>> = {};
      const cpu: Record<string, Record<string, number>> = {};
      for (const target of [baseline, gateway]) {
        log(`${accounts} callers, ${target.kind}, ${durationMs / 1000} s`);
        const run = await measuredLoad(
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
        results[target.kind] = run.result;
        cpu[target.kind] = run.cpu;
      }
      // Until the gateway's socket pool can be sized, one more baseline run with a pool as large as the
      // callers shows what that pool costs (the same client, only `connections` differs).
      let wide: LoadResult | undefined;
      if (platformConnections === undefined) {
        const wideBaseline = await startBaseline({
          scenario: 'S2-wide',
          platformUrl: sandbox.url,
          platformConnections: accounts + 64,
          cpuProfDir,
        });
        scope.defer(() => wideBaseline.stop());
        await sandbox.clearFaults();
        const widePaths = (await connectAccounts(wideBaseline, usernames)).map(mePath);
        await sandbox.addFault({ kind: 'latency', ms: PLATFORM_LATENCY_MS });
        log(`${accounts} callers, baseline with ${accounts + 64} platform sockets, ${durationMs / 1000} s`);
        const run = await measuredLoad(
          loadSpec(wideBaseline, widePaths, {
            mode: { kind: 'closed', callers: accounts },
            assign: 'per-caller',
            warmupMs,
            durationMs,
          }),
          wideBaseline,
          sandbox,
          probe,
        );
        wide = run.result;
        cpu.wideBaseline = run.cpu;
      }
      const gw = results.gateway as LoadResult;
      const base = results.baseline as LoadResult;
      const gwRate = rateOf(gw, ['200']);
      const baseRate = rateOf(base, ['200']);
      const share = gwRate / ideal;
      const p99Ratio = gw.latencyMs.p99 / PLATFORM_LATENCY_MS;
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
          gateway: ms(gw.latencyMs.p99),
          baseline: ms(base.latencyMs.p99),
          ratio: num(p99Ratio, 2),
          target: '≤ 2.0',
          verdict: verdict(p99Ratio <= 2),
          values: { gateway: gw.latencyMs.p99, baseline: base.latencyMs.p99, ratio: p99Ratio },
        },
      ];
      const notes = [
        `S2 gateway: ${statusLine(gw)}; p50 ${ms(gw.latencyMs.p50)}; CPU: ${cpuLine(cpu.gateway ?? {})}`,
        `S2 baseline: ${statusLine(base)}; p50 ${ms(base.latencyMs.p50)}; CPU: ${cpuLine(cpu.baseline ?? {})}`,
        `S2 platform sockets per side: ${platformConnections ?? '256 (platform client default; PLATFORM_CONNECTIONS not in the gateway yet)'}`,
      ];
      if (wide)
        notes.push(
          `S2 baseline with ${accounts + 64} platform sockets: ${num(rateOf(wide, ['200']))} req/s (${num(
            (rateOf(wide, ['200']) / ideal) * 100,
          )}% of ideal), p99 ${ms(wide.latencyMs.p99)}; CPU: ${cpuLine(cpu.wideBaseline ?? {})}`,
        );
      return {
        rows,
        notes,
        details: {
          accounts,
          ideal,
          warmupMs,
          durationMs,
          platformConnections: platformConnections ?? 256,
          gateway: brief(gw),
          baseline: brief(base),
          cpu,
          ...(wide ? { baselineWithWidePool: brief(wide) } : {}),
        },
      };
    } finally {
      await scope.close();
    }
  },
};

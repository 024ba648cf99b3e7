import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { startProxy } from '../../scripts/lib/tinyproxy';
import { CpuMeter, cpuLine, processCpuMs } from '../lib/cpu';
import { rateOf, runLoad, unexpected } from '../lib/load';
import { median, ms, num, type Row, verdict } from '../lib/report';
import type { Scenario } from '../lib/scenario';
import { Scope } from '../lib/scope';
import { benchUsernames, connectAccounts, type Gateway, type Observations, startGateway } from '../lib/stack';
import {
  brief,
  loadSpec,
  type Measured,
  measuredLoad,
  mePath,
  startScenarioStack,
  statusLine,
} from './common';

type Side = 'direct' | 'proxied';

/** An observations entry with the requests by the address they came from (the sandbox has them). */
type Observed = Observations['accounts'][string] & { remoteAddresses?: Record<string, number> };

/** Ids of this process's children named `comm` (the tinyproxy it spawned), from /proc. */
function childPids(comm: string): number[] {
  const pids: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (name === comm && parent === process.pid) pids.push(Number(entry));
      } catch {
        // The process ended between the listing and the read.
      }
    }
  } catch {
    // No /proc: no CPU reading for the proxy.
  }
  return pids;
}

/** True while the process runs (not gone, not a zombie). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * EGRESS: what one egress proxy hop costs the gateway's throughput. S1's max-throughput load (closed
 * loop, 50 connections, `GET /me` round-robin) against two gateways on the same sandbox and Redis at
 * once: one calling the platform directly, one whose accounts (all US) leave through one local
 * tinyproxy. Each gateway has accounts of its own, so the sandbox tells whose requests came from
 * the proxy's outgoing address.
 */
export const egress: Scenario = {
  name: 'EGRESS',
  title: 'proxy hop: S1 throughput through one local proxy vs direct',
  async run(context) {
    const { quick, log } = context;
    const accounts = quick ? 50 : 200;
    const connections = 50;
    const warmupMs = quick ? 2_000 : 3_000;
    const durationMs = quick ? 5_000 : 15_000;
    // As S1: the per-account limiter runs, its threshold out of the way.
    const env = { ACCOUNT_RATE_PER_MINUTE: '1000000' };
    const scope = new Scope();
    try {
      const { sandbox, gateway: direct } = await startScenarioStack(scope, context, {
        scenario: 'EGRESS',
        accounts: 2 * accounts,
        env,
      });
      await sandbox.configure({ maxRequestsPerMinutePerAccount: 1_000_000 });
      const proxy = await startProxy({ bind: '127.0.0.2' });
      const proxyPids = childPids('tinyproxy');
      // Its folder, from its command line (`-d -c <dir>/tinyproxy.conf`).
      const proxyDirs = proxyPids.flatMap((pid) => {
        try {
          const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          const config = args[args.indexOf('-c') + 1];
          return config ? [dirname(config)] : [];
        } catch {
          return [];
        }
      });
      scope.defer(async () => {
        // `remove` waits for the process to exit, which never comes for one already killed by a
        // signal: then only its folder is left to remove.
        if (proxyPids.length === 0 || proxyPids.some(running)) return proxy.remove();
        for (const dir of proxyDirs) rmSync(dir, { recursive: true, force: true });
      });
      const proxied: Gateway = await startGateway({
        scenario: 'EGRESS-proxied',
        redisUrl: context.redis.url,
        platformUrl: sandbox.url,
        env: { ...env, EGRESS_PROXIES: JSON.stringify({ US: [proxy.url] }) },
        cpuProfDir: context.cpuProfDir,
      });
      scope.defer(() => context.probe.clear(proxied.prefix));
      scope.defer(() => proxied.stop());
      const gateways: Record<Side, Gateway> = { direct, proxied };

      // Accounts of their own on each side (connected as US, the proxy's country).
      const usernames: Record<Side, string[]> = {
        direct: benchUsernames(accounts, 1),
        proxied: benchUsernames(accounts, accounts + 1),
      };
      log(`connecting ${accounts} accounts to each gateway (proxied: through tinyproxy ${proxy.label})`);
      const paths: Record<Side, string[]> = {
        direct: (await connectAccounts(direct, usernames.direct)).map(mePath),
        proxied: (await connectAccounts(proxied, usernames.proxied)).map(mePath),
      };
      /** A proxy that died mid-run would pass for a slow one: stop the scenario instead. */
      const checkProxy = (when: string) => {
        const gone = proxyPids.filter((pid) => !running(pid));
        if (gone.length > 0)
          throw new Error(
            `tinyproxy (pid ${gone.join(', ')}) is no longer running ${when}; its log: ${proxy.log().trim().split('\n').slice(-5).join(' | ')}`,
          );
      };
      // Each gateway's processes are fresh: an unmeasured load first, so neither side's first run
      // also pays for the JIT.
      for (const side of ['direct', 'proxied'] as const) {
        log(`priming the ${side} gateway, ${warmupMs / 1000} s`);
        await runLoad(
          loadSpec(gateways[side], paths[side], {
            mode: { kind: 'closed', callers: connections },
            warmupMs: 0,
            durationMs: warmupMs,
          }),
        );
      }
      checkProxy('after priming');
      await sandbox.resetObservations();

      // Two rounds in opposite order (D P, P D); each side's figure is the median, as in S1.
      const max: Record<Side, Measured[]> = { direct: [], proxied: [] };
      const proxyCpu: Record<Side, Array<number | undefined>> = { direct: [], proxied: [] };
      for (const order of [
        ['direct', 'proxied'],
        ['proxied', 'direct'],
      ] as const) {
        for (const side of order) {
          const gateway = gateways[side];
          log(`max throughput, ${side}, ${connections} connections, ${durationMs / 1000} s`);
          const meter = new CpuMeter(
            Object.fromEntries(proxyPids.map((pid) => [String(pid), () => processCpuMs(pid)])),
          );
          await meter.begin();
          const measured = await measuredLoad(
            loadSpec(gateway, paths[side], {
              mode: { kind: 'closed', callers: connections },
              warmupMs,
              durationMs,
            }),
            gateway,
            sandbox,
            context.probe,
          );
          const busy = Object.values(await meter.end());
          proxyCpu[side].push(busy.length > 0 ? busy.reduce((a, b) => a + b, 0) : undefined);
          max[side].push(measured);
          checkProxy(`after the ${side} run`);
        }
      }

      // Where each side's platform calls came from, as the sandbox saw them.
      const observed = Object.values((await sandbox.observations()).accounts) as Observed[];
      const addresses = (side: Side) => {
        const names = new Set(usernames[side].map((name) => name.toLowerCase()));
        const byAddress: Record<string, number> = {};
        for (const account of observed) {
          if (!names.has(account.username.toLowerCase())) continue;
          for (const [address, count] of Object.entries(account.remoteAddresses ?? {}))
            byAddress[address] = (byAddress[address] ?? 0) + count;
        }
        const total = Object.values(byAddress).reduce((a, b) => a + b, 0);
        return { byAddress, total, fromProxy: byAddress[proxy.bind] ?? 0 };
      };
      const seen: Record<Side, ReturnType<typeof addresses>> = {
        direct: addresses('direct'),
        proxied: addresses('proxied'),
      };
      const addressLine = (side: Side) =>
        Object.entries(seen[side].byAddress)
          .map(([address, count]) => `${address} ${num(count)}`)
          .join(', ') || 'none';
      if (seen.proxied.total === 0 || seen.proxied.fromProxy !== seen.proxied.total)
        throw new Error(
          `the proxied gateway's platform calls did not all come from the proxy's address ${proxy.bind}: ${addressLine('proxied')}`,
        );
      if (seen.direct.fromProxy > 0)
        throw new Error(
          `the direct gateway's platform calls came through the proxy: ${addressLine('direct')}`,
        );
      // Its warnings and errors, but the two every start writes: no `User` in the config, and the
      // readiness probe's connection closed unread.
      const proxyLog = proxy
        .log()
        .split('\n')
        .filter((line) => /^(WARNING|ERROR)/.test(line) && !/UserName|closed socket before read/.test(line));

      const directMax = median(max.direct.map((m) => rateOf(m.result, ['200'])));
      const proxiedMax = median(max.proxied.map((m) => rateOf(m.result, ['200'])));
      const ratio = proxiedMax / directMax;
      const rows: Row[] = [
        {
          scenario: 'EGRESS',
          metric: `throughput through one proxy, req/s (${connections} conn, ${num(accounts)} accounts)`,
          gateway: num(proxiedMax),
          baseline: num(directMax),
          ratio: num(ratio, 2),
          target: '≥ 0.80',
          verdict: verdict(ratio >= 0.8),
          values: { gateway: proxiedMax, baseline: directMax, ratio },
        },
      ];
      const notes = (['direct', 'proxied'] as const).flatMap((side) =>
        max[side].map((m, i) => {
          const tinyproxy = proxyCpu[side][i];
          return `EGRESS ${side} run ${i + 1}: ${num(rateOf(m.result, ['200']))} req/s; ${statusLine(m.result)}; p50 ${ms(
            m.result.latencyMs.p50,
          )}, p99 ${ms(m.result.latencyMs.p99)}; CPU (% of one core): ${cpuLine(m.cpu)}${
            tinyproxy === undefined ? '' : `, tinyproxy ${tinyproxy}%`
          }`;
        }),
      );
      notes.push(
        `EGRESS platform calls by remote address at the sandbox: proxied gateway's accounts ${addressLine(
          'proxied',
        )} (${num((100 * seen.proxied.fromProxy) / seen.proxied.total, 1)} % from the proxy's ${proxy.bind}); direct gateway's accounts ${addressLine('direct')}`,
      );
      const errors = [...max.direct, ...max.proxied].reduce(
        (sum, m) => sum + unexpected(m.result, ['200']),
        0,
      );
      if (errors > 0)
        notes.push(`EGRESS: ${errors} answers were not 200 during the runs (see statuses above)`);
      if (proxyLog.length > 0)
        notes.push(
          `EGRESS tinyproxy logged ${proxyLog.length} warnings or errors, the last: ${proxyLog.slice(-3).join(' | ')}`,
        );
      const detail = (m: Measured, tinyproxy: number | undefined) => ({
        ...brief(m.result),
        cpu: { ...m.cpu, ...(tinyproxy === undefined ? {} : { tinyproxy }) },
        waiting: m.waiting,
      });
      return {
        rows,
        notes,
        details: {
          accounts,
          connections,
          warmupMs,
          durationMs,
          proxy: { label: proxy.label, bind: proxy.bind },
          max: {
            direct: max.direct.map((m, i) => detail(m, proxyCpu.direct[i])),
            proxied: max.proxied.map((m, i) => detail(m, proxyCpu.proxied[i])),
          },
          remoteAddresses: { direct: seen.direct.byAddress, proxied: seen.proxied.byAddress },
        },
      };
    } finally {
      await scope.close();
    }
  },
};

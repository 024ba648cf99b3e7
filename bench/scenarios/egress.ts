import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { type LocalProxy, startProxy } from '../../scripts/lib/tinyproxy';
import { CpuMeter, cpuLine, processCpuMs } from '../lib/cpu';
import { rateOf, runLoad, unexpected } from '../lib/load';
import { median, ms, num, type Row, verdict } from '../lib/report';
import type { Scenario, ScenarioContext } from '../lib/scenario';
import { Scope } from '../lib/scope';
import {
  benchUsernames,
  connectAccounts,
  type Gateway,
  type Observations,
  startGateway,
  startSandbox,
} from '../lib/stack';
import { type LocalCert, makeLocalCert } from '../lib/tls';
import { brief, loadSpec, type Measured, measuredLoad, mePath, statusLine } from './common';

type Side = 'direct' | 'proxied';
/** The platform's scheme: https goes through a CONNECT tunnel, http is forwarded request by request. */
type Platform = 'https' | 'http';

/** An observations entry with the requests by the address they came from (the sandbox has them). */
type Observed = Observations['accounts'][string] & { remoteAddresses?: Record<string, number> };

/** The requests of one side's accounts by the address the sandbox saw them come from. */
interface Seen {
  byAddress: Record<string, number>;
  total: number;
  fromProxy: number;
}

/** One pair's measurements: a direct and a proxied gateway against one sandbox. */
interface Pair {
  platform: Platform;
  platformUrl: string;
  max: Record<Side, Measured[]>;
  /** tinyproxy's CPU (% of one core) during each run, when /proc has it. */
  proxyCpu: Record<Side, Array<number | undefined>>;
  seen: Record<Side, Seen>;
}

/** The shared pieces every pair runs with. */
interface Shape {
  accounts: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  env: Record<string, string>;
}

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

const addressLine = (seen: Seen) =>
  Object.entries(seen.byAddress)
    .map(([address, count]) => `${address} ${num(count)}`)
    .join(', ') || 'none';

const rate = (m: Measured) => rateOf(m.result, ['200']);

/**
 * One pair: a sandbox (https with `cert`, else http), a gateway calling it directly and one whose
 * accounts (all US) leave through `proxy`, each with accounts of its own so that the sandbox tells
 * whose requests came from the proxy's outgoing address. Everything it starts is stopped before it
 * returns, so the next pair runs on a quiet machine.
 */
async function measurePair(
  context: ScenarioContext,
  platform: Platform,
  shape: Shape,
  proxy: LocalProxy,
  proxyPids: number[],
  checkProxy: (when: string) => void,
  cert: LocalCert,
): Promise<Pair> {
  const { log } = context;
  const { accounts, connections, warmupMs, durationMs } = shape;
  const scope = new Scope();
  try {
    const sandbox = await startSandbox(2 * accounts, context.cpuProfDir, {
      name: `sandbox-${platform}`,
      ...(platform === 'https' ? { tls: cert } : {}),
    });
    scope.defer(() => sandbox.stop());
    await sandbox.configure({ maxRequestsPerMinutePerAccount: 1_000_000 });
    // The gateway's processes trust the self-signed certificate as a CA of their own; nothing in the
    // gateway changes (undici's TLS is Node's, which reads NODE_EXTRA_CA_CERTS at start).
    const env = { ...shape.env, ...(platform === 'https' ? { NODE_EXTRA_CA_CERTS: cert.certPath } : {}) };
    const start = async (side: Side): Promise<Gateway> => {
      const gateway = await startGateway({
        scenario: `EGRESS-${platform}-${side}`,
        redisUrl: context.redis.url,
        platformUrl: sandbox.url,
        env: side === 'proxied' ? { ...env, EGRESS_PROXIES: JSON.stringify({ US: [proxy.url] }) } : env,
        cpuProfDir: context.cpuProfDir,
      });
      scope.defer(() => context.probe.clear(gateway.prefix));
      scope.defer(() => gateway.stop());
      return gateway;
    };
    const gateways: Record<Side, Gateway> = {
      direct: await start('direct'),
      proxied: await start('proxied'),
    };

    // Accounts of their own on each side (connected as US, the proxy's country).
    const usernames: Record<Side, string[]> = {
      direct: benchUsernames(accounts, 1),
      proxied: benchUsernames(accounts, accounts + 1),
    };
    log(`${platform} platform ${sandbox.url}: connecting ${accounts} accounts to each gateway`);
    const paths: Record<Side, string[]> = {
      direct: (await connectAccounts(gateways.direct, usernames.direct)).map(mePath),
      proxied: (await connectAccounts(gateways.proxied, usernames.proxied)).map(mePath),
    };
    // Each gateway's processes are fresh: an unmeasured load first, so neither side's first run
    // also pays for the JIT.
    for (const side of ['direct', 'proxied'] as const) {
      log(`${platform}: priming the ${side} gateway, ${warmupMs / 1000} s`);
      await runLoad(
        loadSpec(gateways[side], paths[side], {
          mode: { kind: 'closed', callers: connections },
          warmupMs: 0,
          durationMs: warmupMs,
        }),
      );
    }
    checkProxy(`after priming (${platform})`);
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
        log(`${platform}: max throughput, ${side}, ${connections} connections, ${durationMs / 1000} s`);
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
        checkProxy(`after the ${platform} ${side} run`);
      }
    }

    // Where each side's platform calls came from, as the sandbox saw them.
    const observed = Object.values((await sandbox.observations()).accounts) as Observed[];
    const addresses = (side: Side): Seen => {
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
    const seen: Record<Side, Seen> = { direct: addresses('direct'), proxied: addresses('proxied') };
    if (seen.proxied.total === 0 || seen.proxied.fromProxy !== seen.proxied.total)
      throw new Error(
        `${platform} platform: the proxied gateway's platform calls did not all come from the proxy's address ${proxy.bind}: ${addressLine(seen.proxied)}`,
      );
    if (seen.direct.fromProxy > 0)
      throw new Error(
        `${platform} platform: the direct gateway's platform calls came through the proxy: ${addressLine(seen.direct)}`,
      );
    return { platform, platformUrl: sandbox.url, max, proxyCpu, seen };
  } finally {
    await scope.close();
  }
}

const PATH_NAMES: Record<Platform, string> = {
  https: 'https platform (CONNECT tunnel)',
  http: 'http platform (forwarding)',
};

/**
 * EGRESS: what one egress proxy hop costs the gateway's throughput, on both of the proxy's paths.
 * S1's max-throughput load (closed loop, 50 connections, `GET /me` round-robin) against two gateways
 * on the same sandbox and Redis: one calling the platform directly, one whose accounts leave through
 * one local tinyproxy. Twice: with the sandbox on https, as the real platform is (the gateway opens
 * a CONNECT tunnel per pooled connection and keeps it: the production path, and the target), then on
 * plain http, where the proxy forwards each request (reported: tinyproxy closes every client
 * connection after one response, so each call pays two new connections and a proxy thread).
 */
export const egress: Scenario = {
  name: 'EGRESS',
  title: 'proxy hop: S1 throughput through one local proxy vs direct (https tunnel, http forwarding)',
  async run(context) {
    const { quick } = context;
    const shape: Shape = {
      accounts: quick ? 50 : 200,
      connections: 50,
      warmupMs: quick ? 2_000 : 3_000,
      durationMs: quick ? 4_000 : 15_000,
      // As S1: the per-account limiter runs, its threshold out of the way.
      env: { ACCOUNT_RATE_PER_MINUTE: '1000000' },
    };
    const { accounts, connections } = shape;
    const scope = new Scope();
    try {
      const cert = makeLocalCert();
      scope.defer(async () => cert.remove());
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
      /** A proxy that died mid-run would pass for a slow one: stop the scenario instead. */
      const checkProxy = (when: string) => {
        const gone = proxyPids.filter((pid) => !running(pid));
        if (gone.length > 0)
          throw new Error(
            `tinyproxy (pid ${gone.join(', ')}) is no longer running ${when}; its log: ${proxy.log().trim().split('\n').slice(-5).join(' | ')}`,
          );
      };
      context.log(
        `tinyproxy ${proxy.label}, leaving from ${proxy.bind}; the https pair first, then the http one`,
      );

      const pairs: Pair[] = [];
      for (const platform of ['https', 'http'] as const)
        pairs.push(await measurePair(context, platform, shape, proxy, proxyPids, checkProxy, cert));

      // Its warnings and errors, but the two every start writes: no `User` in the config, and the
      // readiness probe's connection closed unread.
      const proxyLog = proxy
        .log()
        .split('\n')
        .filter((line) => /^(WARNING|ERROR)/.test(line) && !/UserName|closed socket before read/.test(line));

      const figures = (pair: Pair) => {
        const direct = median(pair.max.direct.map(rate));
        const proxied = median(pair.max.proxied.map(rate));
        const p50 = (side: Side) => median(pair.max[side].map((m) => m.result.latencyMs.p50));
        const cpu = (side: Side) => {
          const readings = pair.proxyCpu[side].filter((value) => value !== undefined);
          return readings.length > 0 ? median(readings) : undefined;
        };
        return {
          direct,
          proxied,
          ratio: proxied / direct,
          p50: { direct: p50('direct'), proxied: p50('proxied') },
          cpu,
        };
      };
      const rows: Row[] = pairs.map((pair) => {
        const { direct, proxied, ratio } = figures(pair);
        const target = pair.platform === 'https';
        return {
          scenario: 'EGRESS',
          metric: `throughput through one proxy, ${PATH_NAMES[pair.platform]}, req/s (${connections} conn, ${num(accounts)} accounts)`,
          gateway: num(proxied),
          baseline: num(direct),
          ratio: num(ratio, 2),
          target: target ? '≥ 0.80' : 'reported',
          verdict: target ? verdict(ratio >= 0.8) : 'n/a',
          values: { gateway: proxied, baseline: direct, ratio },
        };
      });

      const notes: string[] = [];
      for (const pair of pairs) {
        const { direct, proxied, ratio, p50, cpu } = figures(pair);
        const cpuText = (side: Side) => {
          const value = cpu(side);
          return value === undefined ? 'not read' : `${value}%`;
        };
        notes.push(
          `EGRESS ${PATH_NAMES[pair.platform]}: proxied ${num(proxied)} req/s, direct ${num(direct)} (ratio ${num(ratio, 2)}); p50 proxied ${ms(p50.proxied)}, direct ${ms(p50.direct)} (medians); tinyproxy ${cpuText('proxied')} of one core during the proxied runs, ${cpuText('direct')} during the direct ones`,
        );
        for (const side of ['direct', 'proxied'] as const)
          pair.max[side].forEach((m, i) => {
            const tinyproxy = pair.proxyCpu[side][i];
            notes.push(
              `EGRESS ${pair.platform} ${side} run ${i + 1}: ${num(rate(m))} req/s; ${statusLine(m.result)}; p50 ${ms(
                m.result.latencyMs.p50,
              )}, p99 ${ms(m.result.latencyMs.p99)}; CPU (% of one core): ${cpuLine(m.cpu)}${
                tinyproxy === undefined ? '' : `, tinyproxy ${tinyproxy}%`
              }`,
            );
          });
        notes.push(
          `EGRESS ${pair.platform} platform calls by remote address at the sandbox: proxied gateway's accounts ${addressLine(
            pair.seen.proxied,
          )} (${num((100 * pair.seen.proxied.fromProxy) / pair.seen.proxied.total, 1)} % from the proxy's ${proxy.bind}); direct gateway's accounts ${addressLine(pair.seen.direct)}`,
        );
      }
      notes.push(
        'EGRESS http platform (forwarding) is reported, not judged: tinyproxy closes each client connection after one forwarded response, so every call through it pays a new connection to the proxy, a new one from the proxy to the sandbox and a proxy thread. The real platform is https: the gateway opens one CONNECT tunnel per pooled connection and keeps it (the ≥ 0.80 row).',
      );
      const errors = pairs
        .flatMap((pair) => [...pair.max.direct, ...pair.max.proxied])
        .reduce((sum, m) => sum + unexpected(m.result, ['200']), 0);
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
          warmupMs: shape.warmupMs,
          durationMs: shape.durationMs,
          proxy: { label: proxy.label, bind: proxy.bind },
          ...Object.fromEntries(
            pairs.map((pair) => [
              pair.platform,
              {
                path: PATH_NAMES[pair.platform],
                platformUrl: pair.platformUrl,
                max: {
                  direct: pair.max.direct.map((m, i) => detail(m, pair.proxyCpu.direct[i])),
                  proxied: pair.max.proxied.map((m, i) => detail(m, pair.proxyCpu.proxied[i])),
                },
                remoteAddresses: { direct: pair.seen.direct.byAddress, proxied: pair.seen.proxied.byAddress },
              },
            ]),
          ),
        },
      };
    } finally {
      await scope.close();
    }
  },
};

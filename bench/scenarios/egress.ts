import { readFileSync } from 'node:fs';
import { type LocalProxy, type ProxyKind, startProxy } from '../../scripts/lib/proxy';
import { CpuMeter, cpuLine, processCpuMs } from '../lib/cpu';
import { rateOf, runLoad } from '../lib/load';
import { median, ms, num, type Row, verdict } from '../lib/report';
import { type Scenario, type ScenarioContext, sizer } from '../lib/scenario';
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
  proxy: ProxyKind;
  platform: Platform;
  platformUrl: string;
  max: Record<Side, Measured[]>;
  /** The proxy's CPU (% of one core) during each run, when /proc has it. */
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
  cert: LocalCert,
): Promise<Pair> {
  const { log } = context;
  const { accounts, connections, warmupMs, durationMs } = shape;
  const pid = proxy.pid();
  /** A proxy that died mid-run would pass for a slow one: stop the scenario instead. */
  const checkProxy = (when: string) => {
    if (pid === undefined || !running(pid))
      throw new Error(
        `${proxy.kind} is no longer running ${when}; its log: ${proxy.log().trim().split('\n').slice(-5).join(' | ')}`,
      );
  };
  const scope = new Scope();
  try {
    const sandbox = await startSandbox(2 * accounts, context.cpuProfDir, {
      name: `sandbox-${proxy.kind}-${platform}`,
      ...(platform === 'https' ? { tls: cert } : {}),
    });
    scope.defer(() => sandbox.stop());
    await sandbox.configure({ maxRequestsPerMinutePerAccount: 1_000_000 });
    // The gateway's processes trust the self-signed certificate as a CA of their own; nothing in the
    // gateway changes (undici's TLS is Node's, which reads NODE_EXTRA_CA_CERTS at start).
    const env = { ...shape.env, ...(platform === 'https' ? { NODE_EXTRA_CA_CERTS: cert.certPath } : {}) };
    const start = async (side: Side): Promise<Gateway> => {
      const gateway = await startGateway({
        scenario: `EGRESS-${proxy.kind}-${platform}-${side}`,
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
        const meter = new CpuMeter(pid === undefined ? {} : { [String(pid)]: () => processCpuMs(pid) });
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
    return { proxy: proxy.kind, platform, platformUrl: sandbox.url, max, proxyCpu, seen };
  } finally {
    await scope.close();
  }
}

const PATH_NAMES: Record<Platform, string> = {
  https: 'https platform (CONNECT tunnel)',
  http: 'http platform (forwarding)',
};

/** The pairs, in order: the judged one (squid, https, as the real platform) first. */
const PAIRS: readonly { proxy: ProxyKind; platform: Platform; judged: boolean }[] = [
  { proxy: 'squid', platform: 'https', judged: true },
  { proxy: 'squid', platform: 'http', judged: false },
  { proxy: 'tinyproxy', platform: 'https', judged: false },
];

/** Its warnings and errors, but those every start writes (tinyproxy: no `User`, the probe's close). */
function proxyWarnings(proxy: LocalProxy): string[] {
  return proxy
    .log()
    .split('\n')
    .filter((line) => /^(WARNING|ERROR)|\| (WARNING|ERROR)/.test(line))
    .filter((line) => !/UserName|closed socket before read/.test(line));
}

/** One pair's figures: each side's median throughput and p50, their ratio, the proxy's CPU. */
function figures(pair: Pair) {
  const direct = median(pair.max.direct.map(rate));
  const proxied = median(pair.max.proxied.map(rate));
  const p50 = (side: Side) => median(pair.max[side].map((m) => m.result.latencyMs.p50));
  const cpu = (side: Side) => {
    const readings = pair.proxyCpu[side].filter((value) => value !== undefined);
    return readings.length > 0 ? `${median(readings)}%` : 'not read';
  };
  return { direct, proxied, ratio: proxied / direct, p50, cpu };
}

function pairNotes(pair: Pair, bind: string): string[] {
  const { direct, proxied, ratio, p50, cpu } = figures(pair);
  const name = `EGRESS ${pair.proxy} ${pair.platform}`;
  const notes = [
    `${name} (${PATH_NAMES[pair.platform]}): proxied ${num(proxied)} req/s, direct ${num(direct)} (ratio ${num(ratio, 2)}); p50 proxied ${ms(p50('proxied'))}, direct ${ms(p50('direct'))} (medians); ${pair.proxy} ${cpu('proxied')} of one core during the proxied runs, ${cpu('direct')} during the direct ones`,
  ];
  for (const side of ['direct', 'proxied'] as const)
    pair.max[side].forEach((m, i) => {
      const proxyCpu = pair.proxyCpu[side][i];
      notes.push(
        `${name} ${side} run ${i + 1}: ${num(rate(m))} req/s; ${statusLine(m.result)}; p50 ${ms(m.result.latencyMs.p50)}, p99 ${ms(
          m.result.latencyMs.p99,
        )}; CPU (% of one core): ${cpuLine(m.cpu)}${proxyCpu === undefined ? '' : `, ${pair.proxy} ${proxyCpu}%`}`,
      );
    });
  notes.push(
    `${name} platform calls by remote address at the sandbox: proxied gateway's accounts ${addressLine(pair.seen.proxied)} (${num(
      (100 * pair.seen.proxied.fromProxy) / pair.seen.proxied.total,
      1,
    )} % from the proxy's ${bind}); direct gateway's accounts ${addressLine(pair.seen.direct)}`,
  );
  return notes;
}

const detail = (m: Measured, proxyCpu: number | undefined) => ({
  ...brief(m.result),
  cpu: { ...m.cpu, ...(proxyCpu === undefined ? {} : { proxy: proxyCpu }) },
  waiting: m.waiting,
});

/**
 * EGRESS: what one egress proxy hop costs the gateway's throughput. S1's max-throughput load (closed
 * loop, 50 connections, `GET /me` round-robin) against two gateways on the same sandbox and Redis:
 * one calling the platform directly, one whose accounts leave through one local proxy. Judged: squid
 * with the sandbox on https, as the real platform is (the gateway opens a CONNECT tunnel per pooled
 * connection and keeps it). Reported: squid forwarding plain http, and tinyproxy on https, which
 * sets no TCP_NODELAY, so a response the platform writes in two pieces stalls for the client's
 * delayed ACK (about 40 ms) in between.
 */
export const egress: Scenario = {
  name: 'EGRESS',
  title:
    'proxy hop: S1 throughput through one local proxy vs direct (squid https tunnel; reported: http forwarding, tinyproxy)',
  async run(context) {
    const { scale } = context;
    const size = sizer(scale);
    const shape: Shape = {
      accounts: size(200, 50, 10),
      connections: 50,
      warmupMs: size(3_000, 2_000, 300),
      durationMs: size(15_000, 4_000, 1_000),
      // As S1: the per-account limiter runs, its threshold out of the way.
      env: { ACCOUNT_RATE_PER_MINUTE: '1000000' },
    };
    const { accounts, connections } = shape;
    const scope = new Scope();
    try {
      const cert = makeLocalCert();
      scope.defer(async () => cert.remove());
      const pairs: Pair[] = [];
      const notes: string[] = [];
      const binds = new Map<ProxyKind, string>();
      // A smoke run measures the judged pair only; a full or quick run all three.
      const selected = scale === 'smoke' ? PAIRS.filter((pair) => pair.judged) : PAIRS;
      for (const { proxy: kind, platform } of selected) {
        const proxy = await startProxy({ kind, bind: '127.0.0.2' });
        binds.set(kind, proxy.bind);
        try {
          context.log(`${kind} ${proxy.label}, leaving from ${proxy.bind}: the ${platform} pair`);
          pairs.push(await measurePair(context, platform, shape, proxy, cert));
          const warnings = proxyWarnings(proxy);
          if (warnings.length > 0)
            notes.push(
              `EGRESS ${kind} logged ${warnings.length} warnings or errors, the last: ${warnings.slice(-3).join(' | ')}`,
            );
        } finally {
          await proxy.remove();
        }
      }

      const rows: Row[] = pairs.map((pair, n) => {
        const { direct, proxied, ratio } = figures(pair);
        const judged = selected[n]?.judged === true;
        return {
          scenario: 'EGRESS',
          metric: `throughput through one ${pair.proxy}, ${PATH_NAMES[pair.platform]}, req/s (${connections} conn, ${num(accounts)} accounts)`,
          gateway: num(proxied),
          baseline: num(direct),
          ratio: num(ratio, 2),
          target: judged ? '≥ 0.80' : 'reported',
          verdict: judged ? verdict(ratio >= 0.8) : 'n/a',
          values: { gateway: proxied, baseline: direct, ratio },
        };
      });
      for (const pair of pairs) notes.push(...pairNotes(pair, binds.get(pair.proxy) ?? ''));
      return {
        rows,
        notes,
        details: {
          accounts,
          connections,
          warmupMs: shape.warmupMs,
          durationMs: shape.durationMs,
          pairs: pairs.map((pair) => ({
            proxy: pair.proxy,
            platform: pair.platform,
            path: PATH_NAMES[pair.platform],
            platformUrl: pair.platformUrl,
            max: {
              direct: pair.max.direct.map((m, i) => detail(m, pair.proxyCpu.direct[i])),
              proxied: pair.max.proxied.map((m, i) => detail(m, pair.proxyCpu.proxied[i])),
            },
            remoteAddresses: { direct: pair.seen.direct.byAddress, proxied: pair.seen.proxied.byAddress },
          })),
        },
      };
    } finally {
      await scope.close();
    }
  },
};

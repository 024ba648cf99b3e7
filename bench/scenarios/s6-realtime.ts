import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createLogger, loadGatewayConfig } from '@cg/config';
import { createListener } from '@cg/listener';
import { CpuMeter, cpuLine, processCpuMs } from '../lib/cpu';
import {
  eachLimited,
  FORWARD_IN_FLIGHT,
  Forwarder,
  Receiver,
  SandboxApi,
  type SandboxSession,
} from '../lib/forwarder';
import { type Managed, sleep, startNode } from '../lib/processes';
import { ms, num, percentile, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import {
  benchUsernames,
  connectAccounts,
  type Gateway,
  registerWebhook,
  type Sandbox,
  sandboxWsUrl,
  startGateway,
  startSandbox,
} from '../lib/stack';

/** A step's messages must all have arrived this long after its stream ended. */
const GRACE_MS = 5_000;
const KB = 1024;

interface Step {
  perSecond: number;
  seconds: number;
  /** Messages the sandbox created (its unread totals' rise). */
  created: number;
  /** Of them, arrived at the receiver within the grace period. */
  received: number;
  /** ms after the stream's end the last one arrived (or the grace ran out). */
  drainMs: number;
  p50: number;
  p99: number;
}

/** The process's resident memory (VmRSS) in bytes. */
function rssBytes(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return Number(kb) * 1024;
}

interface Realtime {
  accounts: Record<string, { username: string; realtime?: { current: number } }>;
}

/** Waits until every one of `usernames` has exactly `count` live realtime connections at the sandbox. */
/** A full garbage collection of this process (`--expose-gc` set at run time). */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * What a listener keeps per held connection: the gateway's listener process hands its accounts back
 * (a stop does at once), a listener in this process takes them over, and the heap is read after a
 * full GC before and once all are held and backfilled (RSS, read from outside, also counts garbage
 * not yet collected). Then it hands them back to a new listener process.
 */
async function heldHeapPerConnection(
  gateway: Gateway,
  sandbox: Sandbox,
  usernames: string[],
): Promise<{ perConnection: number; listener: Managed }> {
  const gc = fullGc();
  await gateway.listener?.stop();
  gc();
  const before = process.memoryUsage().heapUsed;
  const listener = await createListener(
    loadGatewayConfig(gateway.env),
    createLogger({ level: 'warn', name: 'S6' }),
  );
  listener.start();
  await waitHeld(sandbox, usernames, 1, 120_000);
  await sleep(5_000);
  gc();
  const after = process.memoryUsage().heapUsed;
  await listener.close();
  const again = startNode('S6-listener-2', 'apps/listener/src/main.ts', gateway.env);
  await waitHeld(sandbox, usernames, 1, 120_000);
  return { perConnection: (after - before) / usernames.length, listener: again };
}

async function waitHeld(
  sandbox: Sandbox,
  usernames: string[],
  count: number,
  timeoutMs: number,
): Promise<number> {
  const wanted = new Set(usernames);
  const deadline = Date.now() + timeoutMs;
  let held = 0;
  while (Date.now() < deadline) {
    const observed = (await sandbox.observations()) as unknown as Realtime;
    held = Object.values(observed.accounts).filter(
      (account) => wanted.has(account.username) && (account.realtime?.current ?? 0) === count,
    ).length;
    if (held === usernames.length) return held;
    await sleep(1_000);
  }
  throw new Error(
    `only ${held} of ${usernames.length} accounts had ${count} realtime connection(s) after ${timeoutMs} ms`,
  );
}

/**
 * A stream over the creators with a live realtime connection (its `creators` takes at most 100
 * names): they must be exactly the `accounts` held by the path under test.
 */
async function stream(sandbox: Sandbox, perSecond: number, seconds: number, accounts: number) {
  const response = await fetch(`${sandbox.url}/_sim/activity/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ perSecond, seconds }),
  });
  const body = (await response.json()) as { expected?: number; endsAt?: number; creators?: string[] };
  if (response.status !== 202) throw new Error(`stream: ${response.status} ${JSON.stringify(body)}`);
  if (body.creators?.length !== accounts)
    throw new Error(`stream over ${body.creators?.length} live creators, not the ${accounts} accounts`);
  return { expected: body.expected ?? 0, endsAt: body.endsAt ?? Date.now() + seconds * 1000 };
}

/**
 * One step: `perSecond` random activities for `seconds` over the accounts; then waits until every
 * message the sandbox created has arrived at `receiver`, or the grace period ran out.
 */
async function step(
  sandbox: Sandbox,
  api: SandboxApi,
  sessions: SandboxSession[],
  receiver: Receiver,
  perSecond: number,
  seconds: number,
): Promise<Step & { activities: number }> {
  const before = await api.unreadTotal(sessions);
  const from = Date.now();
  const { expected, endsAt } = await stream(sandbox, perSecond, seconds, sessions.length);
  await sleep(Math.max(0, endsAt - Date.now()) + 300);
  const created = (await api.unreadTotal(sessions)) - before;
  const to = endsAt + 1_000;
  let arrived = receiver.between(from, to);
  while (arrived.length < created && Date.now() < endsAt + GRACE_MS) {
    await sleep(100);
    arrived = receiver.between(from, to);
  }
  const latencies = arrived.map((a) => a.at - a.createdAt).sort((a, b) => a - b);
  const last = arrived.reduce((max, a) => Math.max(max, a.at), endsAt);
  return {
    perSecond,
    seconds,
    activities: expected,
    created,
    received: arrived.length,
    drainMs: last - endsAt,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

const sustained = (s: Step) => s.created > 0 && s.received >= s.created;

/** Rising rates until one loses a message; the steps run. */
async function ramp(
  rates: number[],
  seconds: number,
  run: (perSecond: number, seconds: number) => Promise<Step>,
  log: (message: string) => void,
  label: string,
): Promise<Step[]> {
  const steps: Step[] = [];
  for (const perSecond of rates) {
    const s = await run(perSecond, seconds);
    steps.push(s);
    log(`${label} ${stepLine(s)}`);
    if (!sustained(s)) break;
  }
  return steps;
}

const stepLine = (s: Step) =>
  `${s.perSecond}/s × ${s.seconds} s: ${s.received} of ${s.created} messages within ${GRACE_MS / 1000} s (last ${num(s.drainMs)} ms after the end), p50 ${ms(s.p50)}, p99 ${ms(s.p99)}`;

const highest = (steps: Step[]) => steps.filter(sustained).reduce((max, s) => Math.max(max, s.perSecond), 0);

/** Waits until `receiver` has had no POST for `quietMs` (the listener's backfill delivered), at most `timeoutMs`. */
async function quiet(receiver: Receiver, quietMs: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && Date.now() - Math.max(receiver.lastPostAt, deadline - timeoutMs) < quietMs)
    await sleep(250);
}

/** Waits until the process uses under 10 % of a core over 2 s (the listener's backfill published), at most `timeoutMs`. */
async function idle(pid: number | undefined, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const before = processCpuMs(pid) ?? 0;
    await sleep(2_000);
    if ((processCpuMs(pid) ?? 0) - before < 200) break;
  }
  return Date.now() - start;
}

/**
 * S6 realtime: the sandbox streams activity over N accounts at rising rates; the gateway's path
 * (listener, event log, delivery queue, signed POST) against the bench's forwarder (one websocket
 * per account, each message frame POSTed at once). Both on the same sandbox, one after the other.
 */
export const s6: Scenario = {
  name: 'S6',
  title: 'realtime: activity to webhook, gateway vs direct forwarder',
  async run(context) {
    const { scale, log, redis, probe, cpuProfDir } = context;
    const size = sizer(scale);
    const accounts = size(1_000, 100, 20);
    const rates = size([25, 50, 100, 200, 400, 800, 1000], [50, 200, 800], [50]);
    const seconds = size(10, 4, 1);
    const halfSeconds = size(15, 5, 1);
    const usernames = benchUsernames(accounts);
    const scope = new Scope();
    try {
      const sandbox = await startSandbox(accounts, cpuProfDir);
      scope.defer(() => sandbox.stop());
      const wsUrl = sandboxWsUrl(sandbox);
      const api = new SandboxApi(sandbox.url);
      scope.defer(() => api.close());

      // Sessions of the bench's own: the forwarder's sockets, and the unread totals that count what
      // the sandbox created (a received message stays unread: nothing here reads it).
      log(`logging in ${accounts} accounts for the forwarder`);
      const sessions = await eachLimited(usernames, 32, (username) => api.login(username));

      const baselineReceiver = new Receiver();
      const baselineUrl = await baselineReceiver.start();
      scope.defer(() => baselineReceiver.close());
      const openForwarder = async () => {
        const forwarder = new Forwarder(wsUrl, baselineUrl);
        scope.defer(() => forwarder.close());
        await forwarder.open(sessions);
        await waitHeld(sandbox, usernames, 1, 60_000);
        return forwarder;
      };
      const baselineStep = (perSecond: number, s: number) =>
        step(sandbox, api, sessions, baselineReceiver, perSecond, s);

      log('baseline: forwarder ramp');
      let forwarder = await openForwarder();
      const baselineSteps = await ramp(rates, seconds, baselineStep, log, 'baseline');
      await forwarder.close();
      await waitHeld(sandbox, usernames, 0, 30_000);

      log('gateway: API, worker, listener, webhooks');
      const gateway = await startGateway({
        scenario: 'S6',
        redisUrl: redis.url,
        platformUrl: sandbox.url,
        realtime: { wsUrl },
        // One receiver takes the whole load: its endpoint gets as many deliveries in flight as the
        // forwarder's (the default, 2, sizes an endpoint among many, not one alone).
        env: {
          WEBHOOK_ENDPOINT_CONCURRENCY: String(FORWARD_IN_FLIGHT),
          WEBHOOK_CONCURRENCY: String(FORWARD_IN_FLIGHT),
        },
        cpuProfDir,
      });
      scope.defer(() => probe.clear(gateway.prefix));
      scope.defer(() => gateway.stop());
      const listenerPid = gateway.listener?.child.pid;
      await sleep(3_000);
      const rssBefore = rssBytes(listenerPid);
      log(`connecting ${accounts} accounts`);
      await connectAccounts(gateway, usernames);
      const holdStart = Date.now();
      await waitHeld(sandbox, usernames, 1, 120_000);
      const holdSeconds = (Date.now() - holdStart) / 1000;
      // On connecting, the listener backfills each account's unread messages (the forwarder's steps'
      // too) into the log; the endpoint is registered after that, so its queue starts empty.
      const backfillMs = await idle(listenerPid, 180_000);
      const rssAfter = rssBytes(listenerPid);
      const perConnection = (rssAfter - rssBefore) / accounts;
      log(
        `listener RSS ${num(rssBefore / 2 ** 20, 1)} → ${num(rssAfter / 2 ** 20, 1)} MiB: ${num(perConnection / KB, 1)} KB per connection`,
      );
      const held = await heldHeapPerConnection(gateway, sandbox, usernames);
      scope.defer(() => held.listener.stop());
      const heapPerConnection = held.perConnection;
      log(`listener heap after GC: ${num(heapPerConnection / KB, 1)} KB per connection`);

      const gatewayReceiver = new Receiver();
      const gatewayUrl = await gatewayReceiver.start();
      scope.defer(() => gatewayReceiver.close());
      await registerWebhook(gateway, gatewayUrl, 'messages.received');
      // The listener's backfill (unread messages of the forwarder's steps) is delivered first.
      // Events published before the endpoint existed are delivered to it too: wait them out.
      await quiet(gatewayReceiver, 3_000, 240_000);
      const backfilled = gatewayReceiver.posts;
      const gatewayStep = (perSecond: number, s: number) =>
        step(sandbox, api, sessions, gatewayReceiver, perSecond, s);

      log('gateway ramp');
      const gatewaySteps = await ramp(rates, seconds, gatewayStep, log, 'gateway');
      const gatewayMax = highest(gatewaySteps);
      const baselineMax = highest(baselineSteps);
      const half = gatewayMax / 2;

      let gatewayHalf: Step | undefined;
      let baselineHalf: Step | undefined;
      let cpu: Record<string, number> = {};
      if (half > 0) {
        await quiet(gatewayReceiver, 2_000, 30_000);
        log(`gateway at half its highest rate, ${half}/s`);
        const meter = new CpuMeter(
          Object.fromEntries(
            Object.entries({ ...gateway.processes(), sandbox: sandbox.process }).map(([name, managed]) => [
              name,
              () => processCpuMs(managed.child.pid),
            ]),
          ),
        );
        await meter.begin();
        gatewayHalf = await gatewayStep(half, halfSeconds);
        cpu = await meter.end();
        log(`gateway ${stepLine(gatewayHalf)}`);
        await Promise.all([gateway.stop(), held.listener.stop()]);
        await waitHeld(sandbox, usernames, 0, 30_000);
        log(`baseline at ${half}/s`);
        forwarder = await openForwarder();
        baselineHalf = await baselineStep(half, halfSeconds);
        log(`baseline ${stepLine(baselineHalf)}`);
        await forwarder.close();
      }

      const topRate = rates[rates.length - 1] ?? 0;
      const rateText = (max: number) =>
        max === 0 ? 'none' : `${num(max)}/s${max === topRate ? ' (top step)' : ''}`;
      const ratio = baselineMax > 0 ? gatewayMax / baselineMax : Number.NaN;
      const added = gatewayHalf && baselineHalf ? gatewayHalf.p99 - baselineHalf.p99 : Number.NaN;
      const rows: Row[] = [
        {
          scenario: 'S6',
          metric: `highest rate with nothing lost, activities/s (${num(accounts)} accounts)`,
          gateway: rateText(gatewayMax),
          baseline: rateText(baselineMax),
          ratio: Number.isFinite(ratio) ? num(ratio, 2) : '—',
          target: '≥ 0.50',
          verdict: Number.isFinite(ratio) ? verdict(ratio >= 0.5) : 'missed',
          values: { gateway: gatewayMax, baseline: baselineMax, ratio },
        },
        {
          scenario: 'S6',
          metric: `p99 activity → receipt at half the gateway's rate (${num(half)}/s)`,
          gateway: gatewayHalf ? ms(gatewayHalf.p99) : '—',
          baseline: baselineHalf ? ms(baselineHalf.p99) : '—',
          ratio: Number.isFinite(added) ? `${added >= 0 ? '+' : ''}${ms(added)}` : '—',
          target: '≤ +100 ms',
          verdict: Number.isFinite(added) ? verdict(added <= 100) : 'missed',
          values: { gateway: gatewayHalf?.p99 ?? Number.NaN, baseline: baselineHalf?.p99 ?? Number.NaN },
        },
        {
          scenario: 'S6',
          metric: 'listener memory per held connection (heap after a full GC)',
          gateway: `${num(heapPerConnection / KB, 1)} KB`,
          baseline: '—',
          ratio: '—',
          target: '≤ 64 KB',
          verdict: verdict(heapPerConnection <= 64 * KB),
          values: { gateway: heapPerConnection },
        },
        {
          scenario: 'S6',
          metric: 'listener process RSS per held connection (garbage included)',
          gateway: `${num(perConnection / KB, 1)} KB`,
          baseline: '—',
          ratio: '—',
          target: 'reported',
          verdict: 'n/a',
          values: { gateway: perConnection },
        },
      ];
      const notes = [
        `S6 rates are random sandbox activity over the creators with a live connection (POST /_sim/activity/stream has no type filter: about 45 % messages, and takes at most 100 creators by name); only messages.received / (5,1) frames count; "nothing lost" = every message the sandbox created in the step (its unread totals' rise) at the receiver within ${GRACE_MS / 1000} s of the step's end`,
        `S6 baseline steps: ${baselineSteps.map(stepLine).join('; ')}`,
        `S6 gateway steps: ${gatewaySteps.map(stepLine).join('; ')}`,
        ...(gatewayHalf && baselineHalf
          ? [
              `S6 at half (${num(half)}/s × ${halfSeconds} s): gateway ${stepLine(gatewayHalf)}; baseline ${stepLine(baselineHalf)}; CPU of the gateway's step (% of one core): ${cpuLine(cpu)}`,
            ]
          : []),
        `S6 listener VmRSS ${num(rssBefore / 2 ** 20, 1)} MiB before connecting, ${num(rssAfter / 2 ** 20, 1)} MiB with ${num(accounts)} held (all held ${num(holdSeconds, 1)} s after the last connect); the listener busy with the backfill for ${num(backfillMs / 1000)} s before the endpoint was registered, backfill POSTs received before the ramp: ${backfilled}; WEBHOOK_ENDPOINT_CONCURRENCY and WEBHOOK_CONCURRENCY ${FORWARD_IN_FLIGHT}, the forwarder up to ${FORWARD_IN_FLIGHT} POSTs in flight`,
      ];
      return {
        rows,
        notes,
        details: {
          accounts,
          graceMs: GRACE_MS,
          baselineSteps,
          gatewaySteps,
          half: { perSecond: half, seconds: halfSeconds, gateway: gatewayHalf, baseline: baselineHalf, cpu },
          listener: {
            rssBefore,
            rssAfter,
            perConnection,
            heapPerConnection,
            holdSeconds,
            backfillMs,
            backfilled,
          },
        },
      };
    } finally {
      await scope.close();
    }
  },
};

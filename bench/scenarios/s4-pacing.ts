import { type OperationDef, type OperationSchemas, operations } from '@cg/operations';
import { type LoadResult, runLoad } from '../lib/load';
import { type CommandCounts, commandDelta } from '../lib/redis';
import { notApplicable, num, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import {
  benchUsernames,
  connectAccounts,
  type FixtureAccount,
  gatewayHas,
  type Sandbox,
  SLUG,
} from '../lib/stack';
import { brief, loadSpec, startScenarioBaseline, startScenarioStack, statusLine } from './common';

const GAP_MS = 10_000;
/** Distinct chat requests per account before the rotation repeats (accounts have 32-44 chats). */
const CHAT_ROUNDS = 30;
const GAP_TARGET = '0 accounts';
const GROWTH_TARGET = '≤ 1.2 (flat)';

/**
 * S4 pacing: 100 accounts each ask for a chat's media stats every second for 3 minutes while the
 * platform wants 10 s between media-offer calls of an account. The gateway must hold the jobs and
 * space the calls (no gap under 10 s at the sandbox), and holding them must not cost Redis more
 * the longer they wait: commands per minute stay flat while the backlog grows.
 */
export const s4: Scenario = {
  name: 'S4',
  title: 'pacing: chat media stats every second per account, 10 s gap',
  async run(context) {
    const { probe, scale, log } = context;
    const size = sizer(scale);
    const op = (operations as unknown as OperationDef<OperationSchemas>[]).find((o) =>
      o.path.endsWith('/media-stats'),
    );
    const missing = [
      ...(op ? [] : ['the chat media stats operation']),
      ...(gatewayHas('MEDIA_STATS_GAP_MS') ? [] : ['MEDIA_STATS_GAP_MS']),
    ];
    if (op === undefined || missing.length > 0) {
      const why = `n/a (needs ${missing.join(' and ')}: per-account scheduling)`;
      return {
        rows: [
          notApplicable('S4', 'gap violations seen by the sandbox', GAP_TARGET, why),
          notApplicable('S4', 'Redis commands/min while jobs wait, 3rd min / 1st min', GROWTH_TARGET, why),
        ],
        notes: [`S4 skipped: ${why}`],
        details: { skipped: why },
      };
    }
    const accounts = size(100, 20, 5);
    const loadMs = size(180_000, 60_000, 4_000);
    const tailMs = size(30_000, 10_000, 1_000);
    const baselineMs = size(20_000, 10_000, 1_000);
    const sampleMs = size(10_000, 10_000, 1_000);
    /** The span the first and last windows of the load compare (a minute, but in a smoke run). */
    const windowMs = size(60_000, 60_000, 2_000);
    const scope = new Scope();
    try {
      // Accounts 1..N for the gateway, N+1..2N for the baseline: each side's gaps are its own.
      const { sandbox, gateway } = await startScenarioStack(scope, context, {
        scenario: 'S4',
        accounts: accounts * 2,
        env: { MEDIA_STATS_GAP_MS: String(GAP_MS) },
      });
      await sandbox.configure({ mediaOfferGapMs: GAP_MS });
      const baseline = await startScenarioBaseline(scope, context, 'S4', sandbox);

      const gwUsers = benchUsernames(accounts);
      const baseUsers = benchUsernames(accounts, accounts + 1);
      log(`connecting ${accounts} accounts to each side`);
      const gwIds = await connectAccounts(gateway, gwUsers);
      const baseIds = await connectAccounts(baseline, baseUsers);
      const fixtures = await fixturesOf(sandbox, [...gwUsers, ...baseUsers]);
      const routeOf = (accountId: string, chatId: string) =>
        `/api/${SLUG}${op.path.replace(/:(\w+)/g, (_match, name: string) => (name === 'accountId' ? accountId : chatId))}`;
      // Second r of the load asks every account for its chat number r (in turn): identical requests
      // would share one job, and the premise is jobs that pile up and wait.
      const schedule = (ids: string[], users: string[]) =>
        Array.from({ length: CHAT_ROUNDS }, (_unused, round) =>
          ids.map((id, i) => {
            const chats = fixtures.get(users[i] ?? '')?.chatIds ?? [];
            return routeOf(id, chats[round % Math.max(1, chats.length)] ?? 'missing-chat');
          }),
        ).flat();
      const gwRoutes = schedule(gwIds, gwUsers);
      const baseRoutes = schedule(baseIds, baseUsers);

      // The baseline first, briefly: without a queue every call goes straight to the platform.
      log(`baseline: ${accounts} req/s for ${baselineMs / 1000} s`);
      await sandbox.resetObservations();
      const base = await runLoad(
        loadSpec(baseline, baseRoutes, {
          mode: { kind: 'open', ratePerSecond: accounts, maxInFlight: accounts * 10 },
          warmupMs: 0,
          durationMs: baselineMs,
        }),
      );
      const baseGaps = gapViolations(await sandbox.observations(), baseUsers);

      log(
        `gateway: ${accounts} req/s (respond-async) for ${loadMs / 1000} s, then ${tailMs / 1000} s without requests`,
      );
      await sandbox.resetObservations();
      // INFO commandstats every 10 s; each reading is kept whole so any window can be broken down.
      const samples: Array<{ atMs: number; counts: CommandCounts }> = [];
      const startedAt = Date.now();
      samples.push({ atMs: 0, counts: await probe.commandCounts() });
      const sampler = setInterval(() => {
        void probe.commandCounts().then((counts) => samples.push({ atMs: Date.now() - startedAt, counts }));
      }, sampleMs);
      let gw: LoadResult;
      try {
        gw = await runLoad(
          loadSpec(gateway, gwRoutes, {
            mode: { kind: 'open', ratePerSecond: accounts, maxInFlight: accounts * 10 },
            headers: { prefer: 'respond-async' },
            warmupMs: 0,
            durationMs: loadMs,
            expect: ['202'],
          }),
        );
        await new Promise((done) => setTimeout(done, tailMs));
      } finally {
        clearInterval(sampler);
      }
      const gwObservations = await sandbox.observations();
      const gwGaps = gapViolations(gwObservations, gwUsers);

      // Commands per minute in the first and the last minute of the load (same arrival rate in both),
      // and in the tail, when nothing arrives and the jobs only wait and get served.
      const window = (fromMs: number, toMs: number) => {
        const nearest = (atMs: number) =>
          samples.reduce((best, s) => (Math.abs(s.atMs - atMs) < Math.abs(best.atMs - atMs) ? s : best));
        const from = nearest(fromMs);
        const to = nearest(toMs);
        const delta = commandDelta(from.counts, to.counts);
        const minutes = (to.atMs - from.atMs) / 60_000;
        const top = Object.entries(delta.byCommand)
          .sort((x, y) => y[1] - x[1])
          .slice(0, 6)
          .map(([command, calls]) => `${command} ${num(calls / minutes)}`)
          .join(', ');
        return { perMinute: minutes > 0 ? delta.total / minutes : Number.NaN, top };
      };
      const first = window(0, windowMs);
      const last = window(loadMs - windowMs, loadMs);
      const tail = window(loadMs, loadMs + tailMs);
      const firstMinute = first.perMinute;
      const lastMinute = last.perMinute;
      const growth = lastMinute / firstMinute;
      const series = samples.map((s, i) => {
        const previous = samples[i - 1];
        return previous ? commandDelta(previous.counts, s.counts).total : 0;
      });
      const served = gwGaps.calls;
      const rows: Row[] = [
        {
          scenario: 'S4',
          metric: `accounts with a media-offer gap < ${GAP_MS / 1000} s (calls served)`,
          gateway: `${gwGaps.violating} (${num(served)} calls)`,
          baseline: `${baseGaps.violating} (${num(baseGaps.calls)} calls)`,
          ratio: '—',
          target: GAP_TARGET,
          verdict: served === 0 ? 'missed' : verdict(gwGaps.violating === 0),
          values: { gateway: gwGaps.violating, baseline: baseGaps.violating },
        },
        {
          scenario: 'S4',
          metric: 'Redis commands/min while jobs wait: last min vs first min',
          gateway: `${num(firstMinute)} → ${num(lastMinute)}`,
          baseline: '—',
          ratio: num(growth, 2),
          target: GROWTH_TARGET,
          verdict: verdict(growth <= 1.2),
          values: { gateway: lastMinute, baseline: firstMinute, ratio: growth },
        },
      ];
      const notes = [
        `S4 gateway enqueue: ${statusLine(gw)}; ${num(served)} media-offer calls made, so about ${num(
          (gw.totalStatuses['202'] ?? 0) - served,
        )} jobs were still waiting at the end; smallest gap seen ${gwGaps.smallestMs ?? '—'} ms`,
        `S4 baseline: ${statusLine(base)}; smallest gap seen ${baseGaps.smallestMs ?? '—'} ms`,
        `S4 Redis commands per ${sampleMs / 1000} s: ${series
          .slice(1)
          .map((n) => num(n))
          .join(', ')}`,
        `S4 Redis commands/min, first minute: ${num(firstMinute)} (${first.top}); last minute: ${num(lastMinute)} (${last.top}); tail without requests: ${num(tail.perMinute)} (${tail.top})`,
      ];
      return {
        rows,
        notes,
        details: {
          accounts,
          gapMs: GAP_MS,
          loadMs,
          tailMs,
          gateway: {
            load: brief(gw),
            gaps: gwGaps,
            commandsPerSample: series,
            perMinute: { first, last, tail },
          },
          baseline: { load: brief(base), gaps: baseGaps },
        },
      };
    } finally {
      await scope.close();
    }
  },
};

async function fixturesOf(sandbox: Sandbox, usernames: string[]): Promise<Map<string, FixtureAccount>> {
  const byName = new Map<string, FixtureAccount>();
  for (let i = 0; i < usernames.length; i += 100) {
    for (const account of await sandbox.fixtures(usernames.slice(i, i + 100)))
      byName.set(account.username, account);
  }
  return byName;
}

function gapViolations(
  observations: Awaited<ReturnType<Sandbox['observations']>>,
  usernames: string[],
): { violating: number; calls: number; smallestMs: number | null } {
  const wanted = new Set(usernames);
  let violating = 0;
  let calls = 0;
  let smallestMs: number | null = null;
  for (const account of Object.values(observations.accounts)) {
    if (!wanted.has(account.username)) continue;
    calls += account.mediaOfferCalls;
    const gap = account.minMediaOfferGapMs;
    if (gap === null) continue;
    smallestMs = smallestMs === null ? gap : Math.min(smallestMs, gap);
    if (gap < GAP_MS) violating++;
  }
  return { violating, calls, smallestMs };
}

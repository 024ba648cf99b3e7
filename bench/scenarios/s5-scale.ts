import { cpuLine } from '../lib/cpu';
import { commandDelta } from '../lib/redis';
import { num, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import { benchUsernames, connectAccounts } from '../lib/stack';
import { brief, loadSpec, measuredLoad, mePath, startScenarioStack, statusLine } from './common';

/**
 * S5 scale: 100,000 asynchronous jobs spread over 10,000 connected accounts, with no worker running
 * so that every job stays queued. Measures how fast the API enqueues and what a queued job costs in
 * Redis memory (used_memory after minus before, over the jobs accepted).
 */
export const s5: Scenario = {
  name: 'S5',
  title: 'scale: 100,000 queued jobs across 10,000 accounts, no worker',
  async run(context) {
    const { probe, scale, log } = context;
    const size = sizer(scale);
    const accounts = size(10_000, 1_000, 100);
    const jobs = size(100_000, 10_000, 1_000);
    const callers = 50;
    const scope = new Scope();
    try {
      const { sandbox, gateway } = await startScenarioStack(scope, context, {
        scenario: 'S5',
        accounts,
        // Connecting 10,000 accounts goes through the worker; the jobs measured after it do not.
        env: { ACCOUNT_MAX_BACKLOG: '10000' },
      });

      log(`connecting ${accounts} accounts`);
      const connectStart = Date.now();
      const ids = await connectAccounts(gateway, benchUsernames(accounts), 64);
      const connectSeconds = (Date.now() - connectStart) / 1000;
      await gateway.stopWorkers();
      // Let AOF buffers and the finished connect jobs' bookkeeping settle before the first reading.
      await new Promise((done) => setTimeout(done, 2_000));
      const memoryBefore = await probe.usedMemory();
      const commandsBefore = await probe.commandCounts();

      log(`enqueueing ${jobs} jobs (Prefer: respond-async), ${callers} connections`);
      const { result, cpu } = await measuredLoad(
        loadSpec(gateway, ids.map(mePath), {
          mode: { kind: 'closed', callers },
          headers: { prefer: 'respond-async' },
          warmupMs: 0,
          durationMs: 300_000,
          maxRequests: jobs,
          expect: ['202'],
        }),
        gateway,
        sandbox,
        probe,
      );
      await new Promise((done) => setTimeout(done, 2_000));
      const memoryAfter = await probe.usedMemory();
      const commands = commandDelta(commandsBefore, await probe.commandCounts());

      const accepted = result.totalStatuses['202'] ?? 0;
      if (accepted === 0) throw new Error(`no job was accepted: ${statusLine(result)}`);
      const rate = (accepted * 1000) / result.elapsedMs;
      const bytesPerJob = (memoryAfter - memoryBefore) / accepted;
      const rows: Row[] = [
        {
          scenario: 'S5',
          metric: `enqueue rate, jobs/s (${num(jobs)} jobs, ${num(accounts)} accounts)`,
          gateway: num(rate),
          baseline: '— (no queue)',
          ratio: '—',
          target: '≥ 5,000',
          verdict: verdict(rate >= 5_000),
          values: { gateway: rate },
        },
        {
          scenario: 'S5',
          metric: 'Redis used_memory per queued job',
          gateway: `${num(bytesPerJob)} B`,
          baseline: '—',
          ratio: '—',
          target: '≤ 2,048 B',
          verdict: verdict(bytesPerJob <= 2048),
          values: { gateway: bytesPerJob },
        },
      ];
      const notes = [
        `S5 enqueue: ${statusLine(result)}; p50 ${num(result.latencyMs.p50, 1)} ms, p99 ${num(result.latencyMs.p99, 1)} ms; ${num(
          commands.total / Math.max(1, accepted),
          1,
        )} Redis commands per enqueue; CPU (% of one core): ${cpuLine(cpu)}; connecting ${num(accounts)} accounts took ${num(connectSeconds, 1)} s`,
      ];
      notes.push(
        `S5 Redis per enqueue by command: ${Object.entries(commands.byCommand)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([command, calls]) => `${command} ${num(calls / accepted, 2)}`)
          .join(', ')}`,
      );
      if (accepted < jobs) notes.push(`S5: only ${accepted} of ${jobs} jobs were accepted`);
      return {
        rows,
        notes,
        details: {
          accounts,
          jobs,
          callers,
          connectSeconds,
          memoryBefore,
          memoryAfter,
          load: brief(result),
          cpu,
          redisPerEnqueue: Object.fromEntries(
            Object.entries(commands.byCommand).map(([command, calls]) => [
              command,
              calls / Math.max(1, accepted),
            ]),
          ),
        },
      };
    } finally {
      await scope.close();
    }
  },
};

import { runLoad } from '../lib/load';
import { ms, num, type Row, verdict } from '../lib/report';
import { type Scenario, sizer } from '../lib/scenario';
import { Scope } from '../lib/scope';
import { benchUsernames, connectAccounts, gatewayHas } from '../lib/stack';
import { brief, loadSpec, mePath, startScenarioStack, statusLine } from './common';

/**
 * S3 fairness: 100 "cold" accounts each make about one synchronous call a second. Their p99 is
 * measured alone, then again right after one "hot" account has queued 5,000 jobs. A queue that
 * serves accounts in turn keeps the second figure near the first; one FIFO line does not.
 */
export const s3: Scenario = {
  name: 'S3',
  title: 'fairness: 100 light accounts beside one with 5,000 queued jobs',
  async run(context) {
    const { scale, log } = context;
    const size = sizer(scale);
    const cold = size(100, 20, 5);
    const hotJobs = size(5_000, 1_000, 100);
    const warmupMs = size(5_000, 2_000, 500);
    const durationMs = size(30_000, 10_000, 2_000);
    const scope = new Scope();
    try {
      const { sandbox, gateway } = await startScenarioStack(scope, context, {
        scenario: 'S3',
        accounts: cold + 1,
        // The hot account's 5,000 jobs must all be accepted for the scenario to mean anything.
        env: { ACCOUNT_MAX_BACKLOG: '10000' },
      });

      log(`connecting ${cold + 1} accounts`);
      const [hotId, ...coldIds] = await connectAccounts(gateway, benchUsernames(cold + 1));
      // About one call per cold account per second, on a fixed schedule; the timeout is above the
      // gateway's 25 s wait budget so that a slow answer is measured, not cut off.
      const coldSpec = loadSpec(gateway, coldIds.map(mePath), {
        mode: { kind: 'open', ratePerSecond: cold, maxInFlight: cold * 40 },
        warmupMs,
        durationMs,
        timeoutMs: 40_000,
        // 202: still queued after the wait budget, a slow answer the p99 counts.
        expect: ['200', '202'],
      });

      log(`cold accounts alone, ${cold} req/s, ${durationMs / 1000} s`);
      const alone = await runLoad(coldSpec);

      log(`hot account queues ${hotJobs} jobs (Prefer: respond-async)`);
      const hot = await runLoad(
        loadSpec(gateway, [mePath(hotId ?? '')], {
          mode: { kind: 'closed', callers: 50 },
          headers: { prefer: 'respond-async' },
          warmupMs: 0,
          durationMs: 120_000,
          maxRequests: hotJobs,
          expect: ['202'],
        }),
      );
      const queued = hot.totalStatuses['202'] ?? 0;
      if (queued === 0) throw new Error(`the hot account could not queue any job: ${statusLine(hot)}`);
      log(`cold accounts beside the hot backlog (${queued} accepted), ${durationMs / 1000} s`);
      const beside = await runLoad(coldSpec);
      const hotSeen = (await sandbox.observations()).accounts;
      const hotAccount = Object.values(hotSeen).find((a) => a.username === benchUsernames(1)[0]);

      const ratio = beside.latencyMs.p99 / alone.latencyMs.p99;
      const scheduling = gatewayHas('ACCOUNT_CONCURRENCY');
      const rows: Row[] = [
        {
          scenario: 'S3',
          metric: 'cold accounts p99 with hot backlog (ref: without)',
          gateway: ms(beside.latencyMs.p99),
          baseline: ms(alone.latencyMs.p99),
          ratio: num(ratio, 2),
          target: '≤ 1.5',
          verdict: queued < hotJobs ? 'n/a' : verdict(ratio <= 1.5),
          values: { gateway: beside.latencyMs.p99, baseline: alone.latencyMs.p99, ratio },
        },
      ];
      const notes = [
        `S3 cold alone: ${statusLine(alone)}; p50 ${ms(alone.latencyMs.p50)}`,
        `S3 cold beside hot: ${statusLine(beside)}; p50 ${ms(beside.latencyMs.p50)} (202 = still queued after the 25 s wait budget)`,
        `S3 hot enqueue: ${Object.entries(hot.totalStatuses)
          .map(([status, count]) => `${status}: ${count}`)
          .join(
            ', ',
          )}; hot account at the sandbox: ${hotAccount?.totalRequests ?? 0} requests, ${hotAccount?.served429 ?? 0} answered 429`,
        ...(scheduling
          ? []
          : ['S3: this gateway build has no per-account scheduling yet (ACCOUNT_* settings unknown to it)']),
      ];
      if (queued < hotJobs)
        notes.push(`S3: only ${queued} of ${hotJobs} hot jobs were accepted: premise not met`);
      return {
        rows,
        notes,
        details: {
          cold,
          hotJobs,
          warmupMs,
          durationMs,
          perAccountScheduling: scheduling,
          alone: brief(alone),
          hotEnqueue: brief(hot),
          beside: brief(beside),
          hotAtSandbox: hotAccount ?? null,
        },
      };
    } finally {
      await scope.close();
    }
  },
};

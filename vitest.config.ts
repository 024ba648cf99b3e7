import { defineConfig } from 'vitest/config';

export const testInclude = ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'];

// One config for the whole workspace. Every test file is `*.test.ts`; where it lives says what it tests:
// `<package>/test/` that package, `test/e2e/` the whole stack over HTTP, `test/` the repository.
// Each test file gets its own queue/key prefix (see test/support), so files run in parallel safely.
// Two projects, so that `pnpm test` runs both: every file against one Redis (`redis`), and the
// end-to-end files whose subject is what a Redis Cluster changes again against a real six-node
// Cluster (`e2e-cluster`, started by test/support/global-setup.ts). A file is on the cluster when what
// it tests is multi-key scripts or transactions across processes (lanes, idempotency, the write
// ledger, batches, the event log and its deliveries, key and rate-limit records, usage and the audit
// log) or failover between processes; every other file's keys go through the same scripts and stay
// on the one Redis. None of them stops or pauses the run's Redis (the ones that do bring a Redis of
// their own).
const clusterFiles = [
  'admin',
  'audit',
  'batches',
  'cancel',
  'connect',
  'events',
  'events-stream',
  'idempotency',
  'lane-recovery',
  'listener-backfill',
  'listener-failover',
  'listener-outage',
  'mass-messaging',
  'rate-limits',
  'readiness',
  'scheduling',
  'send-crash',
  'sessions',
  'usage',
  'webhooks',
  'webhooks-crash',
  'webhooks-at-least-once',
  'webhooks-fairness',
].map((name) => `test/e2e/${name}.test.ts`);

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Passing tests print nothing: the gateway's logs are kept and shown under a failed test.
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on sockets, timers and child processes, not on a core: three at a time on two
    // cores halves the run (vitest's default here is one), and timing drills keep their margins.
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'redis', include: testInclude } },
      { extends: true, test: { name: 'e2e-cluster', include: clusterFiles } },
    ],
  },
});

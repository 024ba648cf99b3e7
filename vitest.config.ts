import { defineConfig } from 'vitest/config';

export const testInclude = ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'];

// One config for the whole workspace. Every test file is `*.test.ts`; where it lives says what it tests:
// `<package>/test/` that package, `test/e2e/` the whole stack over HTTP, `test/` the repository.
// Each test file gets its own queue/key prefix (see test/support), so files run in parallel safely.
// Two projects, so that `pnpm test` runs both: every file against one Redis (`redis`), and the
// end-to-end files again against a real six-node Redis Cluster (`e2e-cluster`, started by
// test/support/global-setup.ts). Every end-to-end file runs on the cluster: none stops or pauses the
// run's Redis (the ones that do that bring a Redis of their own).
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on sockets, timers and child processes, not on a core: three at a time on two
    // cores halves the run (vitest's default here is one), and timing drills keep their margins.
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'redis', include: testInclude } },
      { extends: true, test: { name: 'e2e-cluster', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});

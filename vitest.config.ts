import { defineConfig } from 'vitest/config';

export const testInclude = ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'];

// One config for the whole workspace. Every test file is `*.test.ts`; where it lives says what it tests:
// `<package>/test/` that package, `test/e2e/` the whole stack over HTTP, `test/` the repository.
// Each test file gets its own queue/key prefix (see test/support), so files run in parallel safely.
export default defineConfig({
  test: {
    include: testInclude,
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

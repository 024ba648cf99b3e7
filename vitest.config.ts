import { defineConfig } from 'vitest/config';

export const testInclude = ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'test/**/*.test.ts'];

// One config for the whole workspace: unit tests sit beside the code, end-to-end tests in test/.
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

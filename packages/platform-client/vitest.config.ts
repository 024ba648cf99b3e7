import { defineConfig } from 'vitest/config';

// The package's own config: the root one needs a global setup (Redis, the sandbox) that these tests,
// which start their own HTTP server, do not use.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    testTimeout: 10_000,
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Stand-alone config for the sandbox's tests (they need no Redis and no global setup):
// pnpm vitest run --config apps/platform-sim/vitest.config.ts
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});

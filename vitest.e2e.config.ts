import { defineConfig } from 'vitest/config';

/**
 * End-to-end tests in real Chromium (Debian's /usr/bin/chromium, driven by playwright-core):
 * the demo page and the extension, built by the global setup and served on 127.0.0.1.
 *
 *   npx vitest run -c vitest.e2e.config.ts
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    environment: 'node',
    // One browser at a time: the machine has two cores and WASM inference is CPU-bound.
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

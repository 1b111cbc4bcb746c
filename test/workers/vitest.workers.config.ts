/**
 * The worker suite inside workerd (miniflare), with a real KV binding:
 *
 *   npx vitest run -c test/workers/vitest.workers.config.ts
 *
 * The scripted model runs in Node (global setup); workerd reaches it over loopback.
 */
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

import { COMPATIBILITY_DATE, COMPATIBILITY_FLAGS, TEST_API_KEY, TEST_ORIGIN, TEST_TOKEN } from './constants.js';

export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: './worker/workers.ts',
      miniflare: {
        compatibilityDate: COMPATIBILITY_DATE,
        compatibilityFlags: [...COMPATIBILITY_FLAGS],
        kvNamespaces: ['VECTORS'],
        durableObjects: {
          TOOL_SET_BUDGET: 'ToolSetBudgetObject',
          LEARNED_TRAFFIC: 'LearnedTrafficObject',
          MCP_SESSIONS: 'McpSessionsObject',
        },
        // A real assets binding over a small folder (global setup): the shipped vectors file.
        assets: { directory: inject('assetsDir'), binding: 'ASSETS' },
        bindings: {
          LOOPCTL_TOKEN: TEST_TOKEN,
          MODEL_BASE_URL: inject('modelBaseURL'),
          MODEL_NAME: 'scripted',
          MODEL_API_KEY: TEST_API_KEY,
          PROXY_ANTHROPIC_API_KEY: TEST_API_KEY,
          CORS_ORIGINS: TEST_ORIGIN,
          MODEL_CONTROL_URL: inject('modelControlURL'),
          DEAD_BASE_URL: inject('deadBaseURL'),
          PROXY_OPENAI_BASE_URL: inject('proxyOpenAIBaseURL'),
          PROXY_ANTHROPIC_BASE_URL: inject('proxyAnthropicBaseURL'),
          PROXY_CONTROL_URL: inject('proxyControlURL'),
          PROXY_DEAD_URL: inject('proxyDeadURL'),
          MCP_NOTES_URL: inject('mcpNotesURL'),
          MCP_GARBAGE_URL: inject('mcpGarbageURL'),
        },
      },
    })),
  ],
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/workers/**/*.test.ts'],
    globalSetup: ['test/workers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

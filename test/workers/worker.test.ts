/**
 * The worker suite inside workerd: the real module worker (`worker/workers.ts`) through
 * `SELF`, with its miniflare bindings; the unconfigured and no-model variants are the same
 * worker given edited bindings.
 */
import { env, SELF } from 'cloudflare:test';
import { describe, it } from 'vitest';
import type { WorkerEnv } from '../../src/hono/index.js';
import { demoWorker } from '../../worker/workers.js';
import type { Endpoint, SuiteTarget } from '../worker/suite.js';
import { CHECKS } from '../worker/suite.js';
import { TEST_API_KEY, TEST_ORIGIN, TEST_TOKEN } from './constants.js';

type TestEnv = WorkerEnv & { MODEL_CONTROL_URL: string; DEAD_BASE_URL: string };
const bindings = env as unknown as TestEnv;

function direct(changes: Partial<TestEnv>): Endpoint {
  const worker = demoWorker();
  const edited = { ...bindings, ...changes };
  return { baseURL: 'http://loopctl.test', fetch: (input, init) => worker.fetch(new Request(input, init), edited) };
}

const target: SuiteTarget = {
  api: { baseURL: 'http://loopctl.test', fetch: (input, init) => SELF.fetch(input, init) },
  token: TEST_TOKEN,
  modelApiKey: TEST_API_KEY,
  corsOrigin: TEST_ORIGIN,
  unconfigured: direct({ LOOPCTL_TOKEN: undefined }),
  noModel: direct({ MODEL_BASE_URL: bindings.DEAD_BASE_URL, CORS_ORIGINS: undefined }),
  modelControlURL: bindings.MODEL_CONTROL_URL,
  // Workers AI is not bound here, so `embedding` must answer 503 (kv-cache.test.ts covers it).
  embedding: false,
};

describe('worker API in workerd (miniflare)', () => {
  for (const check of CHECKS) it(check.name, () => check.run(target));
});

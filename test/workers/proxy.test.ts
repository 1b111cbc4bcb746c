/**
 * The selecting proxy inside workerd (miniflare): the real module worker (`worker/workers.ts`)
 * through `SELF`, driven by the real client libraries running in the test worker, with the
 * scripted upstream in Node (global setup) reached over loopback. No embedder is bound, so
 * the default selector is `keyword`. The pass-through and dead-upstream variants are the same
 * worker given edited bindings.
 */
import { env, SELF } from 'cloudflare:test';
import { describe, it } from 'vitest';
import type { WorkerEnv } from '../../src/hono/index.js';
import { demoWorker as createWorker } from '../../worker/workers.js';
import { GATEWAY_CHECKS } from '../proxy/gateway-suite.js';
import type { ProxyEndpoint, ProxyTarget } from '../proxy/proxy-suite.js';
import { PROXY_CHECKS } from '../proxy/proxy-suite.js';
import { TEST_API_KEY, TEST_TOKEN } from './constants.js';

type TestEnv = WorkerEnv & { PROXY_CONTROL_URL: string; PROXY_DEAD_URL: string };
const bindings = env as unknown as TestEnv;

function direct(changes: Partial<TestEnv>): ProxyEndpoint {
  const worker = createWorker();
  const edited = { ...bindings, ...changes };
  return { baseURL: 'http://loopctl.test', fetch: (input, init) => worker.fetch(new Request(input, init), edited) };
}

const target: ProxyTarget = {
  api: { baseURL: 'http://loopctl.test', fetch: (input, init) => SELF.fetch(input, init) },
  token: TEST_TOKEN,
  upstreamKey: TEST_API_KEY,
  passthrough: direct({ LOOPCTL_TOKEN: undefined, PROXY_AUTH: 'passthrough' }),
  deadUpstream: direct({
    PROXY_OPENAI_BASE_URL: `${bindings.PROXY_DEAD_URL}/v1`,
    PROXY_ANTHROPIC_BASE_URL: bindings.PROXY_DEAD_URL,
  }),
  slow: direct({ PROXY_FIRST_BYTE_TIMEOUT_MS: '1500', PROXY_KEEPALIVE_MS: '300' }),
  controlURL: bindings.PROXY_CONTROL_URL,
  defaultSelector: 'keyword',
  k: 8,
};

describe('selecting proxy in workerd, real clients', () => {
  for (const check of PROXY_CHECKS) it(check.name, () => check.run(target));
});

describe('tool-search gateway in workerd, real clients', () => {
  for (const check of GATEWAY_CHECKS) it(check.name, () => check.run(target));
});

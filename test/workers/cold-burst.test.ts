/**
 * Issue 13 item 4 in workerd: 32 concurrent first `hybrid` selects on a fresh worker (real KV,
 * empty for this registry) share one model load and one corpus embedding and all answer 200.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { DEMO_TOOLS, registerDemoTools } from '../../demo/demo-tools.js';
import type { WorkerEnv } from '../../src/hono/index.js';
import { createWorker } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';
import { KIND_DEFAULTS } from '../../src/select/kind-links.js';
import { coldBurst, PROMPTS, slowModel } from '../worker/cold-burst.js';
import { TEST_TOKEN } from './constants.js';

it('32 concurrent first hybrid selects: one model load, one corpus embedding, 32 × 200', async () => {
  const model = slowModel(300);
  // A distinct embedder id: the KV corpus of other tests must not warm this one.
  Object.assign(model.embedder, { id: 'test/cold-burst' });
  const worker = createWorker({ registry: () => registerDemoTools(new ToolRegistry()), embedder: () => model.factory });
  const bindings = { ...(env as unknown as WorkerEnv) };
  const burst = await coldBurst(
    (init) => worker.fetch(new Request('http://loopctl.test/v1/select', init), bindings),
    TEST_TOKEN,
    32,
  );
  expect(burst.statuses).toEqual(Array(32).fill(200));
  expect(burst.fellOpen).toBe(0);
  expect(model.loads()).toBe(1);
  // One query per request; every other text once: the corpus and the inputs the whole-task
  // links read by meaning (kind-links.ts), embedded once per registry list.
  const texts = model.embedder.texts;
  const others = texts.filter((text) => !PROMPTS.includes(text));
  expect(texts.length - others.length).toBe(32);
  expect(new Set(others).size).toBe(others.length);
  expect(others.length - DEMO_TOOLS.length).toBeGreaterThanOrEqual(0);
  expect(others.length - DEMO_TOOLS.length).toBeLessThanOrEqual(KIND_DEFAULTS.maxInputs);
});

/**
 * Corpus vectors persist in Workers KV per registry generation: a fresh worker instance
 * (new module state, new embedder, new bindings object: what a new isolate has) reads them
 * back and embeds only the query, never the corpus. Uses the real KV binding (miniflare) and
 * a counting embedder, so the count is exact.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { DEMO_TOOLS, registerDemoTools } from '../../demo/demo-tools.js';
import type { WorkerEnv } from '../../src/hono/index.js';
import { createWorker } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { TEST_TOKEN } from './constants.js';

const bindings = env as unknown as WorkerEnv & {
  VECTORS: { list(options?: { prefix?: string }): Promise<{ keys: { name: string }[] }> };
};
const PROMPT = 'Will it rain in Bergen tomorrow? Check the weather forecast.';

async function select(
  worker: ReturnType<typeof createWorker>,
  k = 5,
): Promise<{ advertised: string[]; fellOpen: boolean }> {
  const response = await worker.fetch(
    new Request('http://loopctl.test/v1/select', {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: PROMPT, selector: 'embedding', k }),
    }),
    { ...bindings },
  );
  expect(response.status).toBe(200);
  return response.json();
}

it('a fresh worker instance reads corpus vectors from KV: zero corpus embeds', async () => {
  const first = countingEmbedder();
  const cold = await select(
    createWorker({ registry: () => registerDemoTools(new ToolRegistry()), embedder: () => first }),
  );
  expect(cold.fellOpen).toBe(false);
  expect(cold.advertised).toContain('get_weather_forecast');
  // Cold: every tool's text once, plus the query.
  expect(first.texts.length).toBe(DEMO_TOOLS.length + 1);
  const { keys } = await bindings.VECTORS.list({ prefix: 'loopctl:' });
  expect(keys.length).toBeGreaterThan(0);

  const second = countingEmbedder();
  const warm = await select(
    createWorker({ registry: () => registerDemoTools(new ToolRegistry()), embedder: () => second }),
  );
  expect(second.texts).toEqual([PROMPT]);
  expect(warm.advertised).toEqual(cold.advertised);

  // A third instance asking for another k reads the same KV entry.
  await select(createWorker({ registry: () => registerDemoTools(new ToolRegistry()), embedder: () => second }), 3);
  expect(second.texts).toEqual([PROMPT, PROMPT]);
});

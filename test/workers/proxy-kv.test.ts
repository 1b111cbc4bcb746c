/**
 * The proxy caches corpus vectors per tool set in Workers KV: a fresh worker instance (new
 * module state, new embedder, new bindings object: what a new isolate has) receiving the same
 * 150 tools embeds only the query, never the corpus. A different tool set is a different KV
 * entry. Real KV binding (miniflare); a counting embedder makes the counts exact.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { WorkerEnv } from '../../src/hono/index.js';
import { demoWorker as createWorker } from '../../worker/workers.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';
import { TEST_TOKEN } from './constants.js';

const bindings = env as unknown as WorkerEnv & {
  VECTORS: { list(options?: { prefix?: string }): Promise<{ keys: { name: string }[] }> };
};
const PROMPT = 'Will it rain in Bergen tomorrow? Check the weather forecast.';
// What the hybrid embeds for the prompt: the prompt, then each of its clauses.
const QUERY_TEXTS = [PROMPT, 'Will it rain in Bergen tomorrow', 'Check the weather forecast'];

async function proxied(
  worker: ReturnType<typeof createWorker>,
  tools: ReturnType<typeof openAITools>,
): Promise<Response> {
  const response = await worker.fetch(
    new Request('http://loopctl.test/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: PROMPT }], tools }),
    }),
    { ...bindings },
  );
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return response;
}

it("a fresh worker instance reads the tool set's corpus from KV: zero corpus embeds", async () => {
  const tools = openAITools(wideToolSet());
  const before = (await bindings.VECTORS.list({ prefix: 'loopctl:' })).keys.length;
  const first = countingEmbedder();
  const cold = await proxied(createWorker({ embedder: () => first }), tools);
  expect(cold.headers.get('x-loopctl-fell-open')).toBeNull();
  expect(Number(cold.headers.get('x-loopctl-advertised'))).toBeLessThanOrEqual(8);
  // Every tool text once, plus the query and (multi-intent ranking) its clauses.
  expect(first.texts.length).toBe(150 + QUERY_TEXTS.length);
  const after = (await bindings.VECTORS.list({ prefix: 'loopctl:' })).keys.length;
  expect(after).toBeGreaterThan(before);

  const second = countingEmbedder();
  const warm = await proxied(createWorker({ embedder: () => second }), tools);
  expect(second.texts).toEqual(QUERY_TEXTS);
  expect(warm.headers.get('x-loopctl-advertised')).toBe(cold.headers.get('x-loopctl-advertised'));

  // The same instance, the same tools again: nothing but the query.
  const worker = createWorker({ embedder: () => second });
  await proxied(worker, tools);
  await proxied(worker, tools);
  expect(second.texts).toEqual([...QUERY_TEXTS, ...QUERY_TEXTS, ...QUERY_TEXTS]);

  // Another tool set is another corpus (and another KV entry).
  await proxied(worker, tools.slice(0, 100));
  expect((await bindings.VECTORS.list({ prefix: 'loopctl:' })).keys.length).toBeGreaterThan(after);
});

/**
 * The proxy's budget of new tool lists is the fleet's, not one isolate's: every isolate takes
 * from one Durable Object (the real `TOOL_SET_BUDGET` binding in workerd). Each request below
 * goes to a fresh worker instance (new module state, new bindings object: what a new isolate
 * has), so a per-isolate count would never refuse.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { WorkerEnv } from '../../src/hono/index.js';
import { demoWorker as createWorker } from '../../worker/workers.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { TEST_TOKEN } from './constants.js';

const bindings = env as unknown as WorkerEnv;

function toolList(variant: string): unknown[] {
  return ['weather', 'email', 'calendar', 'files', 'payments', 'search', 'maps', 'notes', 'music', 'photos'].map(
    (topic, i) => ({
      type: 'function',
      function: { name: `${topic}_${variant}_${i}`, description: `Work with ${topic} (${variant}).`, parameters: {} },
    }),
  );
}

async function send(variant: string, environment: WorkerEnv): Promise<Response> {
  const worker = createWorker({ embedder: () => countingEmbedder() });
  const response = await worker.fetch(
    new Request('http://loopctl.test/v1/chat/completions', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_TOKEN}`,
        'content-type': 'application/json',
        'x-loopctl-selector': 'hybrid',
        'x-loopctl-policy': 'narrow',
        'x-loopctl-k': '3',
      },
      body: JSON.stringify({
        model: 'scripted',
        messages: [{ role: 'user', content: 'What is the weather?' }],
        tools: toolList(variant),
      }),
    }),
    environment,
  );
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return response;
}

it('isolates spend from one Durable Object: the third new list, in a third isolate, is ranked lexically', async () => {
  const environment = (): WorkerEnv => ({ ...bindings, PROXY_NEW_TOOL_SETS_PER_CLIENT: '2' });
  const headers = [];
  for (const variant of ['a', 'b', 'c']) headers.push((await send(variant, environment())).headers);
  expect(headers[0]?.get('x-loopctl-degraded')).toBeNull();
  expect(headers[1]?.get('x-loopctl-degraded')).toBeNull();
  expect(headers[2]?.get('x-loopctl-degraded')).toMatch(/ranked with bm25: this client's budget of 2 new tool lists/);
  expect(headers[2]?.get('x-loopctl-fell-open')).toBeNull();
});

it('without the binding each isolate counts its own (the documented fallback)', async () => {
  const environment = (): WorkerEnv => ({
    ...bindings,
    PROXY_NEW_TOOL_SETS_PER_CLIENT: '2',
    TOOL_SET_BUDGET: undefined,
  });
  for (const variant of ['d', 'e', 'f']) {
    expect((await send(variant, environment())).headers.get('x-loopctl-degraded')).toBeNull();
  }
});

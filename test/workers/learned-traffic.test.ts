/**
 * What the proxy learns is the fleet's: with `PROXY_LEARN=on` and the real `LEARNED_TRAFFIC`
 * Durable Object binding in workerd, a conversation taught through one worker instance (new
 * module state, new bindings object: what a new isolate has) shapes the selection of another.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { WorkerEnv } from '../../src/hono/index.js';
import { demoWorker as createWorker } from '../../worker/workers.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { TEST_TOKEN } from './constants.js';

const bindings = env as unknown as WorkerEnv;

const TOPICS = ['weather', 'email', 'calendar', 'files', 'payments', 'search', 'maps', 'notes', 'music', 'photos'];
const TOOLS = TOPICS.map((topic, i) => ({
  type: 'function',
  function: { name: `${topic}_tool_${i}`, description: `Work with ${topic}.`, parameters: {} },
}));
const TAUGHT = 'music_tool_8';
const PROMPT = 'Sort out the usual thing for the Oslo office before Friday';
const LIKE_IT = 'Sort out the usual thing for the Oslo office before Monday';

const environment = (): WorkerEnv => ({ ...bindings, PROXY_LEARN: 'on' }) as WorkerEnv;

/** One request to `worker` under `bindings` (an app is made per bindings object: one per isolate). */
async function send(
  worker: ReturnType<typeof createWorker>,
  environment: WorkerEnv,
  messages: unknown[],
): Promise<Response> {
  // A real execution context: what the proxy stores and builds after the answer runs in waitUntil.
  const ctx = createExecutionContext();
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
      body: JSON.stringify({ model: 'scripted', messages, tools: TOOLS }),
    }),
    environment,
    ctx,
  );
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return response;
}

it('a conversation taught through one instance shapes the selection of another', async () => {
  const teacher = createWorker({ embedder: () => countingEmbedder() });
  const taught = await send(teacher, environment(), [
    { role: 'user', content: PROMPT },
    { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: TAUGHT, arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: '{"ok": true}' },
  ]);
  expect(taught.headers.get('x-loopctl-learned')).toBe('0');

  // A fresh instance: nothing of the teacher's memory, only the Durable Object.
  const learner = createWorker({ embedder: () => countingEmbedder() });
  const learnerEnv = environment();
  let learned = 0;
  for (let attempt = 0; attempt < 100 && learned === 0; attempt++) {
    const response = await send(learner, learnerEnv, [{ role: 'user', content: LIKE_IT }]);
    learned = Number(response.headers.get('x-loopctl-learned'));
    if (learned === 0) await new Promise((done) => setTimeout(done, 20));
  }
  expect(learned).toBe(1);
});

it('without PROXY_LEARN the same bindings learn nothing and add no header', async () => {
  const worker = createWorker({ embedder: () => countingEmbedder() });
  const response = await send(worker, { ...bindings } as WorkerEnv, [{ role: 'user', content: LIKE_IT }]);
  expect(response.headers.get('x-loopctl-learned')).toBeNull();
});

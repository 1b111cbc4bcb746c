/**
 * What the proxy learns is the fleet's: with `PROXY_LEARN=on` and the real `LEARNED_TRAFFIC`
 * Durable Object binding in workerd, a conversation taught through one worker instance (new
 * module state, new bindings object: what a new isolate has) shapes the selection of another,
 * and forgetting it through one is seen by the other. The bounds set by variables
 * (`PROXY_LEARN_MAX_EXAMPLES`, `PROXY_LEARN_WRITES_PER_MINUTE`) travel with each call and hold in
 * the object. Each test is its own tenant (its own `LOOPCTL_TOKEN`).
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

const environment = (vars: Record<string, string> = {}): WorkerEnv =>
  ({ ...bindings, PROXY_LEARN: 'on', ...vars }) as WorkerEnv;

/** The token a request presents: `LOOPCTL_TOKEN` of its bindings (a tenant per token). */
const tokenOf = (environment: WorkerEnv): string =>
  (environment as { LOOPCTL_TOKEN?: string }).LOOPCTL_TOKEN ?? TEST_TOKEN;

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
        authorization: `Bearer ${tokenOf(environment)}`,
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

/** The prompt, the model's call of `tool`, its result: what a client sends on the next turn. */
const answered = (prompt: string, tool = TAUGHT) => [
  { role: 'user', content: prompt },
  { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: tool, arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: '{"ok": true}' },
];

/** `GET` or `DELETE /v1/learned` through `worker`, as the tenant of `environment`'s token. */
async function learnedCall(worker: ReturnType<typeof createWorker>, environment: WorkerEnv, method = 'GET') {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request('http://loopctl.test/v1/learned', {
      method,
      headers: { authorization: `Bearer ${tokenOf(environment)}` },
    }),
    environment,
    ctx,
  );
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { count?: number; examples?: { query: string }[]; forgotten?: number };
  await waitOnExecutionContext(ctx);
  return answer;
}

it('forgetting through one instance is seen by another', async () => {
  const vars = { LOOPCTL_TOKEN: 'learned-traffic-forget-token-0123456789' };
  const one = createWorker({ embedder: () => countingEmbedder() });
  const other = createWorker({ embedder: () => countingEmbedder() });
  await send(one, environment(vars), answered(PROMPT));
  expect((await learnedCall(other, environment(vars))).count).toBe(1);
  expect((await learnedCall(other, environment(vars), 'DELETE')).forgotten).toBe(1);
  expect((await learnedCall(one, environment(vars))).count).toBe(0);
});

it('the bound variables reach the Durable Object: examples per tool list, writes per minute', async () => {
  const worker = createWorker({ embedder: () => countingEmbedder() });
  const capped = environment({ LOOPCTL_TOKEN: 'learned-traffic-cap-token-0123456789', PROXY_LEARN_MAX_EXAMPLES: '2' });
  for (let n = 1; n <= 4; n++) await send(worker, capped, answered(`${PROMPT} (${n})`));
  const kept = await learnedCall(createWorker({ embedder: () => countingEmbedder() }), capped);
  expect(kept.examples?.map((example) => example.query)).toEqual([`${PROMPT} (3)`, `${PROMPT} (4)`]);

  const paced = environment({
    LOOPCTL_TOKEN: 'learned-traffic-rate-token-0123456789',
    PROXY_LEARN_WRITES_PER_MINUTE: '2',
  });
  for (let n = 1; n <= 4; n++) await send(worker, paced, answered(`${PROMPT} (${n})`));
  const written = await learnedCall(worker, paced);
  expect(written.examples?.map((example) => example.query)).toEqual([`${PROMPT} (1)`, `${PROMPT} (2)`]);
});

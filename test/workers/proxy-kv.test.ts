/**
 * The proxy caches corpus vectors per tool set in Workers KV: a fresh worker instance (new
 * module state, new embedder, new bindings object: what a new isolate has) receiving the same
 * 150 tools embeds only the query, never the corpus. A different tool set is a different KV
 * entry. Real KV binding (miniflare); a counting embedder makes the counts exact.
 */

import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import type { WorkerEnv } from '../../src/hono/index.js';
import { KIND_DEFAULTS } from '../../src/select/kind-links.js';
import { LINK_DEFAULTS } from '../../src/select/link-defaults.js';
import { partBudget } from '../../src/select/part-anchors.js';
import { demoWorker as createWorker } from '../../worker/workers.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { attackerTools, VICTIM_PROMPT, victimTools } from '../embed/poisoning-fixture.js';
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
  // k = 8 client tools and the proxy's find_tools on top, plus what the links budget of a
  // two-sentence prompt may add (prerequisites, then near picks: src/select/near-picks.ts).
  const room = partBudget(LINK_DEFAULTS.budget, QUERY_TEXTS.length - 1);
  expect(Number(cold.headers.get('x-loopctl-advertised'))).toBeLessThanOrEqual(8 + 1 + room);
  // Every tool text once, plus the query and (multi-intent ranking) its clauses, then the inputs
  // the whole-task links read by meaning (kind-links.ts: once per registry list and isolate).
  const kindTexts = first.texts.length - 150 - QUERY_TEXTS.length;
  expect(kindTexts).toBeGreaterThanOrEqual(0);
  expect(kindTexts).toBeLessThanOrEqual(KIND_DEFAULTS.maxInputs);
  const after = (await bindings.VECTORS.list({ prefix: 'loopctl:' })).keys.length;
  expect(after).toBeGreaterThan(before);

  const second = countingEmbedder();
  const warm = await proxied(createWorker({ embedder: () => second }), tools);
  // No corpus text: the query, then the kind-link inputs this fresh isolate reads again.
  expect(second.texts.slice(0, QUERY_TEXTS.length)).toEqual(QUERY_TEXTS);
  expect(second.texts.slice(QUERY_TEXTS.length)).toEqual(first.texts.slice(150 + QUERY_TEXTS.length));
  second.texts.length = 0;
  expect(warm.headers.get('x-loopctl-advertised')).toBe(cold.headers.get('x-loopctl-advertised'));

  // The same instance, the same tools again: nothing but the query.
  const worker = createWorker({ embedder: () => second });
  await proxied(worker, tools);
  await proxied(worker, tools);
  // Three requests: query texts (recent ones may be remembered) and no corpus text (kind-link
  // inputs at most).
  const kindInputs = first.texts.slice(150 + QUERY_TEXTS.length);
  expect(second.texts.slice(0, QUERY_TEXTS.length)).toEqual(QUERY_TEXTS);
  expect(second.texts.every((text) => QUERY_TEXTS.includes(text) || kindInputs.includes(text))).toBe(true);

  // Another tool set is another corpus (and another KV entry).
  await proxied(worker, tools.slice(0, 100));
  expect((await bindings.VECTORS.list({ prefix: 'loopctl:' })).keys.length).toBeGreaterThan(after);
});

const list = (bindings: unknown) =>
  (bindings as { VECTORS: { list(o?: object): Promise<{ keys: { name: string; expiration?: number }[] }> } }).VECTORS;

it('corpus entries written to KV expire (VECTORS_TTL_SECONDS, default a week; 0 keeps them)', async () => {
  const tools = openAITools(wideToolSet()).slice(0, 40);
  const before = new Set((await list(bindings).list({ prefix: 'loopctl:' })).keys.map((key) => key.name));
  await proxied(createWorker({ embedder: () => countingEmbedder() }), tools);
  const written = (await list(bindings).list({ prefix: 'loopctl:' })).keys.filter((key) => !before.has(key.name));
  expect(written.length).toBeGreaterThan(0);
  const week = Date.now() / 1000 + 604_800;
  for (const key of written) expect(Math.abs((key.expiration ?? 0) - week)).toBeLessThan(120);

  const kept = new Set((await list(bindings).list({ prefix: 'loopctl:' })).keys.map((key) => key.name));
  const forever = createWorker({ embedder: () => countingEmbedder() });
  const response = await forever.fetch(
    new Request('http://loopctl.test/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted',
        messages: [{ role: 'user', content: PROMPT }],
        tools: tools.slice(0, 30),
      }),
    }),
    { ...bindings, VECTORS_TTL_SECONDS: '0' },
  );
  await response.arrayBuffer();
  const added = (await list(bindings).list({ prefix: 'loopctl:' })).keys.filter((key) => !kept.has(key.name));
  expect(added.length).toBeGreaterThan(0);
  for (const key of added) expect(key.expiration).toBeUndefined();
});

it("one client's chosen tool list cannot poison another's corpus through shared KV", async () => {
  const openAI = (tools: ReturnType<typeof victimTools>) => tools.map((tool) => ({ type: 'function', function: tool }));
  const send = async (worker: ReturnType<typeof createWorker>, tools: unknown[], id: string) => {
    const response = await worker.fetch(
      new Request('http://loopctl.test/v1/chat/completions', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_TOKEN}`,
          'content-type': 'application/json',
          'x-loopctl-selector': 'embedding',
          'x-loopctl-k': '1',
          'x-loopctl-policy': 'narrow',
        },
        body: JSON.stringify({
          model: 'scripted',
          messages: [{ role: 'user', content: `${VICTIM_PROMPT} [[id:${id}]]` }],
          tools,
        }),
      }),
      { ...bindings },
    );
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const seen = await fetch(
      `${(bindings as unknown as { PROXY_CONTROL_URL: string }).PROXY_CONTROL_URL}/requests?id=${id}`,
    );
    return ((await seen.json()) as { tools: string[] }[])[0]?.tools;
  };
  // The attacker's isolate goes first and writes its vectors; the victim's is a fresh one.
  const run = Math.random().toString(36).slice(2);
  await send(createWorker({ embedder: () => countingEmbedder() }), openAI(attackerTools()), `attack-${run}`);
  const forwarded = await send(
    createWorker({ embedder: () => countingEmbedder() }),
    openAI(victimTools()),
    `victim-${run}`,
  );
  expect(forwarded).toEqual(['get_weather']);
});

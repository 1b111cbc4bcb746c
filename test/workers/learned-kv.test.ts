/**
 * Learned examples persist in Workers KV beside the corpus vectors: a new selector over a new
 * cache object on the same namespace (what a new isolate has) reads them back, and a corrupt
 * entry is discarded with a warning, never a crash. Real KV binding (miniflare), inside workerd.
 */
import { env } from 'cloudflare:test';
import { expect, it, vi } from 'vitest';
import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import { kvVectorCache } from '../../src/adapters/kv.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

const kv = (
  env as unknown as {
    VECTORS: Parameters<typeof kvVectorCache>[0] & {
      list(o?: { prefix?: string }): Promise<{ keys: { name: string }[] }>;
    };
  }
).VECTORS;
const target = DEMO_TOOLS[DEMO_TOOLS.length - 1]!.name;
const EXAMPLE = { query: 'do the usual friday routine for the Oslo crew', tools: [target] };
const PROMPT = 'do the usual friday routine for the Bergen crew';
const ctx = { turn: 1, latestUserMessage: PROMPT, conversation: [] };
const written: string[] = [];
function make(): HybridSelector {
  const cache = kvVectorCache(kv, { prefix: 'learned-test:' });
  const spied = {
    ...cache,
    set: (key: string, value: Uint8Array) => {
      written.push(key);
      return cache.set(key, value);
    },
  };
  return new HybridSelector(countingEmbedder(), { topK: 1, cache: spied, learned: { weight: 2, agreement: 1 } });
}

it('learned examples survive a new isolate through KV, and a corrupt entry is rebuilt with a warning', async () => {
  const first = make();
  const before = await first.select(ctx, DEMO_TOOLS, { signal: new AbortController().signal });
  expect(before.tools.map((t) => t.name)).not.toContain(target);
  expect((await first.learn([EXAMPLE])).learned).toBe(1);

  const second = make();
  const after = await second.select(ctx, DEMO_TOOLS, { signal: new AbortController().signal });
  expect(after.tools.map((t) => t.name)).toEqual([target]);
  expect(second.learnedCount).toBe(1);

  const entry = written.find((key) => key.startsWith('learned:v1:') && !key.endsWith(':latest'));
  expect(entry).toBeDefined();
  // A well-formed KV value holding bytes that are not an examples entry.
  await kvVectorCache(kv, { prefix: 'learned-test:' }).set(entry!, new Uint8Array([1, 2, 3, 4]));
  const third = make();
  const output = await third.select(ctx, DEMO_TOOLS, { signal: new AbortController().signal });
  expect(output.fellOpen).toBeUndefined();
  expect(output.warnings?.join('\n')).toMatch(/learned examples entry discarded/);
  expect(third.learnedCount).toBe(0);
});

it('a background refit runs inside workerd: learn resolves with the map fitted before, and the refit lands on a later task', async () => {
  const selector = make();
  const names = DEMO_TOOLS.map((tool) => tool.name);
  const examples = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      query: `routine number ${from + i} for the crew`,
      tools: [names[(from + i) % names.length] as string],
    }));
  const first = await selector.learn(examples(0, 10), { tools: DEMO_TOOLS });
  expect(first.projection?.examples).toBe(10);
  const later = await selector.learn(examples(10, 5), { tools: DEMO_TOOLS, fit: 'background' });
  expect(later).toMatchObject({ learned: 5, total: 15 });
  expect(later.projection?.examples).toBe(10);
  await vi.waitFor(() => expect(selector.learnedProjection?.examples).toBe(15));
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type UseLiteEmbedder, useLiteEmbedder } from '../../src/adapters/use-lite.js';
import { memoryVectorCache, type VectorCache } from '../../src/embed/vector-cache.js';
import type { LearnExample } from '../../src/learn/example-memory.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import {
  ctx,
  haveModel,
  heldOut,
  LEARNED_PER_TOOL,
  modelDir,
  PROMPTS,
  REGISTRY,
  signal,
  training,
} from './real-model-registry.js';

// The learned query projection with the real offline model (USE lite, ONNX). Skipped when the
// model has not been built (`models/` is git-ignored; `npm run build` builds it).

/** Share of cases whose tool is among the selector's picks. */
async function recall(
  selector: EmbeddingSelector | HybridSelector,
  cases: ReadonlyArray<[string, string]>,
  all = REGISTRY,
): Promise<number> {
  let hits = 0;
  for (const [query, expected] of cases) {
    const output = await selector.select(ctx(query), all, { signal: signal() });
    if (output.tools.some((t) => t.name === expected)) hits++;
  }
  return hits / cases.length;
}

describe.skipIf(!haveModel)('learned query projection (real USE-lite model)', () => {
  let embedder: UseLiteEmbedder;
  beforeAll(async () => {
    embedder = useLiteEmbedder({ modelPath: modelDir });
    await embedder.load();
  }, 120_000);
  afterAll(async () => {
    await embedder?.dispose?.();
  });

  // Votes off: only the projection can move a held-out prompt.
  const projectionOnly = (cache: VectorCache = memoryVectorCache(), options: { lambda?: number } = {}) =>
    new EmbeddingSelector(embedder, { topK: 1, cache, learned: { weight: 0, projection: options } });

  it('a map fitted on a few examples per tool lifts held-out prompts of the same registry', async () => {
    const selector = projectionOnly();
    const before = await recall(selector, heldOut());
    const summary = await selector.learn(training(), { tools: REGISTRY });
    expect(summary.projection).toMatchObject({ applied: true, examples: training().length });
    expect(summary.projection?.heldOut?.after).toBeGreaterThan(summary.projection?.heldOut?.before ?? 1);
    const after = await recall(selector, heldOut());
    expect(after).toBeGreaterThan(before + 0.05);
    // With the projection off, the same examples change nothing (the vote is off too).
    const off = new EmbeddingSelector(embedder, { topK: 1, learned: { weight: 0, projection: false } });
    await off.learn(training(), { tools: REGISTRY });
    expect(await recall(off, heldOut())).toBe(before);
  }, 120_000);

  it('20 examples spread over the registry do not lower held-out recall by more than 0.01 (hybrid, default settings)', async () => {
    // The first prompt of every tool, then the second of the first eight: 20 in all.
    const examples = [0, 1]
      .flatMap((n) =>
        Object.entries(PROMPTS).map(([name, prompts]) => ({ query: prompts[n] as string, tools: [name] })),
      )
      .slice(0, 20);
    const unseen = Object.entries(PROMPTS).flatMap(([name, prompts]) =>
      prompts.slice(2).map((query): [string, string] => [query, name]),
    );
    for (const topK of [1, 3]) {
      const selector = new HybridSelector(embedder, { topK, cache: memoryVectorCache() });
      const before = await recall(selector, unseen);
      await selector.learn(examples, { tools: REGISTRY });
      expect(await recall(selector, unseen)).toBeGreaterThanOrEqual(before - 0.01);
    }
  }, 120_000);

  it('20 examples on half of the tools do not cost the other half more than 0.01 through the map', async () => {
    // A shifted case: learned prompts for six tools, scored prompts for the six others only.
    // The leave-a-tool-out check stands for those: the map must not pull them away.
    const seen = REGISTRY.slice(0, 6).map((t) => t.name);
    const examples = seen
      .flatMap((name) => (PROMPTS[name] as string[]).slice(0, 4).map((query) => ({ query, tools: [name] })))
      .slice(0, 20);
    const unseen = Object.entries(PROMPTS)
      .filter(([name]) => !seen.includes(name))
      .flatMap(([name, prompts]) => prompts.map((query): [string, string] => [query, name]));
    for (const topK of [1, 3]) {
      const selector = new HybridSelector(embedder, { topK, cache: memoryVectorCache(), learned: { weight: 0 } });
      const before = await recall(selector, unseen);
      await selector.learn(examples, { tools: REGISTRY });
      expect(await recall(selector, unseen)).toBeGreaterThanOrEqual(before - 0.01);
    }
  }, 120_000);

  it('20 examples with unrelated labels: the held-out check declines the map, so ranking is unchanged', async () => {
    const names = REGISTRY.map((t) => t.name);
    // Labels scattered over the registry with no relation to the prompts (a fixed scramble).
    const wrong = training()
      .slice(0, 20)
      .map(({ query }, i) => ({ query, tools: [names[(i * 7 + 3) % names.length] as string] }));
    const selector = projectionOnly();
    const before = await recall(selector, heldOut());
    const summary = await selector.learn(wrong, { tools: REGISTRY });
    expect(summary.projection?.applied).toBe(false);
    expect(summary.projection?.reason).toMatch(/held-out check/);
    expect(await recall(selector, heldOut())).toBe(before);
  }, 120_000);

  it('a corrupt stored entry is discarded and the map is rebuilt from the next examples', async () => {
    const cache = recordingCache();
    const first = projectionOnly(cache);
    const plain = await recall(first, heldOut());
    await first.learn(training(), { tools: REGISTRY });
    const learned = await recall(first, heldOut());
    expect(learned).toBeGreaterThan(plain);
    // Bit-flip every learned entry in the cache.
    for (const key of cache.written) {
      if (!key.startsWith('learned:') || key.endsWith(':latest')) continue;
      const bytes = (await cache.get(key)) as Uint8Array;
      const broken = bytes.slice();
      broken[broken.length - 5] = (broken[broken.length - 5] as number) ^ 0xff;
      await cache.set(key, broken);
    }
    const reloaded = projectionOnly(cache);
    const output = await reloaded.select(ctx('hello there'), REGISTRY, { signal: signal() });
    expect(output.warnings?.join(' ')).toMatch(/learned examples entry discarded/);
    expect(reloaded.learnedCount).toBe(0);
    expect(await recall(reloaded, heldOut())).toBe(plain);
    const summary = await reloaded.learn(training(), { tools: REGISTRY });
    expect(summary.projection?.applied).toBe(true);
    expect(await recall(reloaded, heldOut())).toBe(learned);
    // And the rebuilt entry loads cleanly.
    const again = projectionOnly(cache);
    const warm = await again.select(ctx('hello there'), REGISTRY, { signal: signal() });
    expect(warm.warnings ?? []).toEqual([]);
    expect(await recall(again, heldOut())).toBe(learned);
  }, 180_000);

  it("a removed tool's examples leave the map: it is refitted on the rest", async () => {
    const selector = projectionOnly();
    await selector.learn(training(), { tools: REGISTRY });
    const total = training().length;
    expect(selector.learnedProjection).toMatchObject({ applied: true, examples: total });
    const without = REGISTRY.filter((t) => t.name !== 'pager_escalate');
    const output = await selector.select(ctx('wake up whoever is on call'), without, { signal: signal() });
    expect(output.tools.map((t) => t.name)).not.toContain('pager_escalate');
    expect(selector.learnedCount).toBe(total - LEARNED_PER_TOOL);
    expect(selector.learnedProjection?.examples).toBe(total - LEARNED_PER_TOOL);
    // Held-out prompts of the remaining tools still gain from the refitted map.
    const rest = heldOut().filter(([, name]) => name !== 'pager_escalate');
    const plain = projectionOnly();
    expect(await recall(selector, rest, without)).toBeGreaterThan(await recall(plain, rest, without));
  }, 120_000);

  it('learns 2,016 examples (more than the vector has dimensions: the primal solve) and the map applies', async () => {
    const cities = ['Oslo', 'Lima', 'Pune', 'Kyiv', 'Cork', 'Graz', 'Nice', 'Bonn', 'Perth', 'Quito'];
    const examples: LearnExample[] = [];
    for (const [name, prompts] of Object.entries(PROMPTS)) {
      for (const prompt of prompts.slice(0, LEARNED_PER_TOOL)) {
        for (let i = 0; i < 56; i++)
          examples.push({ query: `${prompt} for the ${cities[i % 10]} office, item ${i}`, tools: [name] });
      }
    }
    expect(examples.length).toBe(2016);
    const selector = projectionOnly();
    const before = await recall(selector, heldOut());
    const summary = await selector.learn(examples, { tools: REGISTRY });
    expect(summary.learned).toBe(examples.length);
    expect(summary.projection?.examples).toBe(examples.length);
    expect(summary.projection?.applied).toBe(true);
    expect(await recall(selector, heldOut())).toBeGreaterThan(before);
  }, 300_000);

  it("learn with fit 'background' resolves with the map in force; a ranking meanwhile does not wait for the refit, which lands on a later task", async () => {
    const selector = projectionOnly();
    const first = await selector.learn(training(), { tools: REGISTRY });
    expect(first.projection).toMatchObject({ applied: true, examples: training().length });
    const { corpus } = await selector['index'].load(REGISTRY);
    const store = selector['learning'].store;
    if (!store) throw new Error('the learned store loads with the first learn');
    const query = (
      await selector['queries'].embed(['text my mom that I will be home late'], undefined)
    )[0] as Float32Array;
    const firstMap = store.project(query, corpus.key);
    const more = heldOut().map(([prompt, name]) => ({ query: prompt, tools: [name] }));
    const later = await selector.learn(more, { tools: REGISTRY, fit: 'background' });
    expect(later).toMatchObject({ learned: more.length, total: training().length + more.length });
    // Resolved before the refit: the first map is still the one in force, and a ranking's
    // reconcile returns without fitting.
    expect(later.projection).toMatchObject({ applied: true, examples: training().length });
    expect(await store.reconcile(corpus, REGISTRY)).toEqual([]);
    expect(selector.learnedProjection?.examples).toBe(training().length);
    const inForce = store.project(query, corpus.key);
    expect(inForce).toBeDefined();
    expect(inForce).toEqual(firstMap);
    await vi.waitFor(() => expect(selector.learnedProjection?.examples).toBe(training().length + more.length));
    const refitted = store.project(query, corpus.key);
    expect(refitted).toBeDefined();
    expect(Array.from(refitted as Float32Array)).not.toEqual(Array.from(inForce as Float32Array));
    // Forgetting the examples takes the map with them.
    await selector.clearLearned();
    expect(store.project(query, corpus.key)).toBeUndefined();
    expect(selector.learnedProjection).toBeUndefined();
  }, 120_000);

  it('a learn that lands during selections: every selection is whole (before or after), later ones use the map', async () => {
    const selector = projectionOnly();
    const cases = heldOut();
    const plain = await Promise.all(
      cases.map(async ([q]) => (await selector.select(ctx(q), REGISTRY, { signal: signal() })).tools[0]?.name),
    );
    const reference = projectionOnly();
    await reference.learn(training(), { tools: REGISTRY });
    const mapped = await Promise.all(
      cases.map(async ([q]) => (await reference.select(ctx(q), REGISTRY, { signal: signal() })).tools[0]?.name),
    );
    const [picked] = await Promise.all([
      Promise.all(
        cases.map(async ([q]) => (await selector.select(ctx(q), REGISTRY, { signal: signal() })).tools[0]?.name),
      ),
      selector.learn(training(), { tools: REGISTRY }),
    ]);
    picked.forEach((name, i) => {
      expect([plain[i], mapped[i]]).toContain(name);
    });
    const after = await Promise.all(
      cases.map(async ([q]) => (await selector.select(ctx(q), REGISTRY, { signal: signal() })).tools[0]?.name),
    );
    expect(after).toEqual(mapped);
  }, 120_000);
});

/** A memory cache that remembers which keys were written (to corrupt them). */
function recordingCache(): VectorCache & { readonly written: Set<string> } {
  const inner = memoryVectorCache();
  const written = new Set<string>();
  return {
    written,
    get: (key) => inner.get(key),
    async set(key, value) {
      written.add(key);
      await inner.set(key, value);
    },
    delete: (key) => inner.delete?.(key) ?? Promise.resolve(),
  };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type UseLiteEmbedder, useLiteEmbedder } from '../../src/adapters/use-lite.js';
import { LEARN_DEFAULTS } from '../../src/learn/example-memory.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { ctx, haveModel, modelDir, PROMPTS, REGISTRY, signal, training } from './real-model-registry.js';

// Usage prototypes and the "unlike every example" guard with the real offline model (USE lite,
// ONNX). Skipped when the model has not been built (`npm run build` builds it).

// Prompts from nowhere near this registry's traffic. USE lite puts even these at cosine 0.2–0.4
// from the nearest of 33 examples; the test keeps those below the near floor (and needs two).
const UNLIKE = [
  'write a haiku about autumn leaves in Kyoto',
  'what year did the Byzantine empire fall',
  'explain how photosynthesis works to a child',
  'how many legs does a spider have',
  'why is the sky blue during the day',
  'list three famous baroque composers',
];

describe.skipIf(!haveModel)('usage prototypes (real USE-lite model)', () => {
  let embedder: UseLiteEmbedder;
  beforeAll(async () => {
    embedder = useLiteEmbedder({ modelPath: modelDir });
    await embedder.load();
  }, 120_000);
  afterAll(async () => {
    await embedder?.dispose?.();
  });

  const rankOf = async (selector: HybridSelector, prompt: string, name: string) => {
    const output = await selector.select(ctx(prompt), REGISTRY, { signal: signal() });
    const order = Object.entries(output.reasons ?? {}).sort((a, b) => (b[1].score ?? 0) - (a[1].score ?? 0));
    const at = order.findIndex(([tool]) => tool === name);
    return { rank: at, score: order[at]?.[1].score ?? 0, usage: order[at]?.[1].parts?.usage };
  };

  it('a prompt unlike every example ranks exactly as without learning', async () => {
    const plain = new HybridSelector(embedder, { topK: 4 });
    const learned = new HybridSelector(embedder, { topK: 4 });
    const summary = await learned.learn(training(), { tools: REGISTRY });
    expect(summary.total).toBe(training().length);
    const examples = await embedder.embed(training().map((example) => example.query));
    const prompts = await embedder.embed(UNLIKE);
    const nearest = prompts.map((vector) =>
      Math.max(...examples.map((example) => example.reduce((sum, value, j) => sum + value * (vector[j] as number), 0))),
    );
    const unlike = UNLIKE.filter((_, i) => (nearest[i] as number) < LEARN_DEFAULTS.nearSimilarity);
    expect(unlike.length).toBeGreaterThanOrEqual(2);
    for (const prompt of unlike) {
      const before = await plain.select(ctx(prompt), REGISTRY, { signal: signal() });
      const after = await learned.select(ctx(prompt), REGISTRY, { signal: signal() });
      expect(after).toEqual(before);
    }
  }, 120_000);

  it('a learned tool is lifted for a paraphrase of its examples, by its usage prototype alone', async () => {
    // Votes, pairs and the projection off: only usage prototypes can move the ranking.
    const usageOnly = { weight: 0, pairs: false as const, projection: false as const };
    const plain = new HybridSelector(embedder, { topK: REGISTRY.length, learned: usageOnly });
    const learned = new HybridSelector(embedder, { topK: REGISTRY.length, learned: usageOnly });
    await learned.learn(training(), { tools: REGISTRY });
    let lifted = 0;
    const held = Object.entries(PROMPTS).flatMap(([name, prompts]) => prompts.slice(3).map((query) => [query, name]));
    for (const [query, name] of held as [string, string][]) {
      const before = await rankOf(plain, query, name);
      const after = await rankOf(learned, query, name);
      expect(after.rank).toBeLessThanOrEqual(before.rank === -1 ? REGISTRY.length : before.rank + 1);
      if ((after.usage ?? 0) > 0 && after.score > before.score) lifted++;
    }
    // Most held-out paraphrases sit near their tool's prototype.
    expect(lifted).toBeGreaterThan(held.length / 2);
  }, 120_000);

  it('usage: false leaves the same examples without a usage part', async () => {
    const off = new HybridSelector(embedder, { topK: REGISTRY.length, learned: { usage: false } });
    await off.learn(training(), { tools: REGISTRY });
    const output = await off.select(ctx(PROMPTS.payroll_run?.[4] as string), REGISTRY, { signal: signal() });
    for (const reason of Object.values(output.reasons ?? {})) expect(reason.parts?.usage).toBeUndefined();
  }, 120_000);
});

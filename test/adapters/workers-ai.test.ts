import { describe, expect, it } from 'vitest';
import { DEMO_TOOLS } from '../../demo/demo-tools.js';
import type { WorkersAiLike } from '../../src/adapters/workers-ai.js';
import { workersAIEmbedder } from '../../src/adapters/workers-ai.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';

/** A stand-in for the `AI` binding: answers `{ shape, data }` like the BGE models. */
function fakeAi(
  dimensions = 384,
  answer?: (texts: string[]) => unknown,
): WorkersAiLike & { calls: { model: string; texts: string[] }[] } {
  const calls: { model: string; texts: string[] }[] = [];
  return {
    calls,
    async run(model, inputs) {
      calls.push({ model, texts: inputs.text });
      if (answer) return answer(inputs.text);
      const data = inputs.text.map((text) =>
        Array.from({ length: dimensions }, (_, i) => ((text.length * (i + 1)) % 17) - 8),
      );
      return { shape: [inputs.text.length, dimensions], data };
    },
  };
}

describe('workersAIEmbedder', () => {
  it('embeds in batches of at most 100 with the model it was given', async () => {
    const ai = fakeAi();
    const embedder = workersAIEmbedder(ai);
    expect(embedder.id).toBe('workers-ai/@cf/baai/bge-small-en-v1.5');
    expect(embedder.dimensions).toBe(384);
    const vectors = await embedder.embed(Array.from({ length: 250 }, (_, i) => `text ${i}`));
    expect(vectors).toHaveLength(250);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(ai.calls.map((call) => call.texts.length)).toEqual([100, 100, 50]);
    expect(new Set(ai.calls.map((call) => call.model))).toEqual(new Set(['@cf/baai/bge-small-en-v1.5']));
  });

  it('knows other models, and needs dimensions for unknown ones', () => {
    expect(workersAIEmbedder(fakeAi(), '@cf/baai/bge-base-en-v1.5').dimensions).toBe(768);
    expect(() => workersAIEmbedder(fakeAi(), '@cf/someone/new-model')).toThrow(/dimensions/);
    expect(workersAIEmbedder(fakeAi(), '@cf/someone/new-model', { dimensions: 64 }).dimensions).toBe(64);
  });

  it('rejects a short or ragged answer, so the selector falls open', async () => {
    const short = workersAIEmbedder(
      fakeAi(384, (texts) => ({ shape: [1, 384], data: [new Array(384).fill(0.1)].slice(0, texts.length - 1) })),
    );
    await expect(short.embed(['a', 'b'])).rejects.toThrow(/expected 2 vectors/);
    const ragged = workersAIEmbedder(fakeAi(384, (texts) => ({ data: texts.map(() => [1, 2, 3]) })));
    await expect(ragged.embed(['a'])).rejects.toThrow(/384-dimensional/);
    const selector = new EmbeddingSelector(ragged, { topK: 3 });
    const output = await selector.select({ turn: 1, latestUserMessage: 'weather', conversation: [] }, DEMO_TOOLS);
    expect(output.fellOpen).toMatch(/embedding failed/);
    expect(output.tools).toHaveLength(DEMO_TOOLS.length);
  });

  it('stops between batches when aborted', async () => {
    const controller = new AbortController();
    const ai = fakeAi(384);
    const embedder = workersAIEmbedder(ai, undefined, { batchSize: 1 });
    const run = embedder.embed(['a', 'b', 'c'], { signal: controller.signal });
    controller.abort();
    await expect(run).rejects.toThrow();
    expect(ai.calls.length).toBeLessThan(3);
  });
});

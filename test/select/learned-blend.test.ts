import { describe, expect, it } from 'vitest';
import { BLEND_MIN_EXAMPLES, blendCandidates, chooseDenseWeight, pickBlend } from '../../src/select/learned-blend.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import type { Embedder } from '../../src/embed/embedder.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';

describe('blendCandidates', () => {
  it('the configured weight first, then steps of 0.1 and 0.2 either side within 0.1..1', () => {
    expect(blendCandidates(0.7)).toEqual([0.7, 0.5, 0.6, 0.8, 0.9]);
    expect(blendCandidates(1)).toEqual([1, 0.8, 0.9]);
    expect(blendCandidates(0.2)).toEqual([0.2, 0.1, 0.3, 0.4]);
  });
});

describe('pickBlend', () => {
  it('keeps the configured blend unless another gains more than its paired noise', () => {
    // +1 over 3 changed examples: within the noise (√3).
    expect(pickBlend([Uint8Array.of(1, 0, 1, 0), Uint8Array.of(0, 1, 1, 1)])).toBe(0);
    // +3 over 3 changed: beyond it.
    expect(pickBlend([Uint8Array.of(0, 0, 0, 0), Uint8Array.of(1, 1, 1, 0)])).toBe(1);
  });

  it('of the candidates that pass, the largest gain wins', () => {
    const base = new Uint8Array(12);
    const some = Uint8Array.from({ length: 12 }, (_, i) => (i < 4 ? 1 : 0));
    const more = Uint8Array.from({ length: 12 }, (_, i) => (i < 9 ? 1 : 0));
    expect(pickBlend([base, some, more, some])).toBe(2);
    expect(pickBlend([])).toBe(0);
  });
});

describe('chooseDenseWeight', () => {
  const all: ToolSchema[] = ['a', 'b', 'c'].map((name) => ({ name, description: name, parameters: { type: 'object' } }));
  const example = (i: number) => ({ query: `q${i}`, tools: ['b'], scores: new Float32Array(3) });
  // Ranks tool b (index 1) first only at dense weight 0.5.
  const rank = (_query: string, _scores: Float32Array, weight: number) => (weight === 0.5 ? [1] : [0]);

  it("moves to the weight that puts more of the examples' tools in the top k", () => {
    const examples = Array.from({ length: BLEND_MIN_EXAMPLES }, (_, i) => example(i));
    expect(chooseDenseWeight(examples, all, 0.7, rank)).toBe(0.5);
  });

  it('stays with fewer examples than the minimum', () => {
    const examples = Array.from({ length: BLEND_MIN_EXAMPLES - 1 }, (_, i) => example(i));
    expect(chooseDenseWeight(examples, all, 0.7, rank)).toBe(0.7);
  });
});

describe('HybridSelector re-weighs its blend on learned examples', () => {
  // Every tool and prompt gets a vector from a hash of its whole text: the dense half is noise
  // here, so only the lexical half can place the learned examples' tools.
  const noiseEmbedder: Embedder = {
    id: 'test/noise-32',
    dimensions: 32,
    async embed(texts) {
      return texts.map((text) => {
        let h = 2166136261;
        for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
        return Float32Array.from({ length: 32 }, (_, j) => Math.sin(h + j * 7919));
      });
    },
  };
  const WORDS = [
    'alpha',
    'bravo',
    'charlie',
    'delta',
    'echo',
    'foxtrot',
    'golf',
    'hotel',
    'india',
    'juliet',
    'kilo',
    'lima',
    'mike',
    'november',
    'oscar',
    'papa',
  ];
  const tools: ToolSchema[] = WORDS.map((word) => ({ name: `${word}_tool`, description: `Handles ${word} records.`, parameters: { type: 'object' } }));
  const examples = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      query: `please sort the ${WORDS[i % WORDS.length]} records, batch ${i}`,
      tools: [`${WORDS[i % WORDS.length]}_tool`],
    }));

  it('moves the dense weight toward the lexical half when that ranks the examples better', async () => {
    const selector = new HybridSelector(noiseEmbedder, { topK: 1, denseWeight: 0.9, cache: memoryVectorCache(), learnedCache: memoryVectorCache() });
    const summary = await selector.learn(examples(64), { tools });
    expect(summary.denseWeight).toBe(0.7);
  });

  it('keeps the configured weight with few examples, or with learnBlend off', async () => {
    const few = new HybridSelector(noiseEmbedder, { topK: 1, denseWeight: 0.9, cache: memoryVectorCache(), learnedCache: memoryVectorCache() });
    expect((await few.learn(examples(BLEND_MIN_EXAMPLES - 1), { tools })).denseWeight).toBe(0.9);
    const off = new HybridSelector(noiseEmbedder, {
      topK: 1,
      denseWeight: 0.9,
      learnBlend: false,
      cache: memoryVectorCache(),
      learnedCache: memoryVectorCache(),
    });
    expect((await off.learn(examples(64), { tools })).denseWeight).toBe(0.9);
  });
});

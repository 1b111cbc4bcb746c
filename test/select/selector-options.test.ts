/**
 * One set of option names and meanings on every selector: `topK` (a positive integer, the same
 * refusal of 0 everywhere), and `withCoreTools` appending to the core set, never replacing it.
 */
import { describe, expect, it } from 'vitest';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import { countingEmbedder, ctx, registry } from '../embed/counting-embedder.js';

const signal = new AbortController().signal;

const RANKED = {
  keyword: (k: number) => new KeywordSelector({ topK: k }),
  bm25: (k: number) => new Bm25Selector({ topK: k }),
  embedding: (k: number) => new EmbeddingSelector(countingEmbedder(), { topK: k }),
  hybrid: (k: number) => new HybridSelector(countingEmbedder(), { topK: k }),
};

describe('topK means the same on every ranked selector', () => {
  for (const [name, make] of Object.entries(RANKED)) {
    it(`${name}: 0, negatives and fractions are refused with the same message`, () => {
      for (const k of [0, -1, 1.5, Number.NaN]) expect(() => make(k)).toThrow(/^topK must be a positive integer/);
    });
  }

  it('keyword: topK and withTopK rank the same', () => {
    const all = registry();
    const byOption = new KeywordSelector({ topK: 1 }).select(ctx('read the weather file'), all);
    expect(byOption.tools).toHaveLength(1);
    expect(new KeywordSelector().withTopK(1).select(ctx('read the weather file'), all)).toEqual(byOption);
    expect(new KeywordSelector({ topK: 1 }).name).toBe('keyword-ranked');
  });
});

describe('withCoreTools appends on every selector', () => {
  const all = registry();
  // Tools a 'weather' prompt would never rank first, so only the core rule can bring them in.
  const [first, second] = ['run_shell_command', 'list_directory'];
  const cases = {
    keyword: () => new KeywordSelector().withCoreTools([first]).withCoreTools([second]),
    bm25: () => new Bm25Selector({ topK: 1 }).withCoreTools([first]).withCoreTools([second]),
    embedding: () =>
      new EmbeddingSelector(countingEmbedder(), { topK: 1 }).withCoreTools([first]).withCoreTools([second]),
    hybrid: () => new HybridSelector(countingEmbedder(), { topK: 1 }).withCoreTools([first]).withCoreTools([second]),
  };
  for (const [name, make] of Object.entries(cases)) {
    it(`${name}: both core sets ride a non-empty selection`, async () => {
      const names = (await make().select(ctx('weather'), all, { signal })).tools.map((tool) => tool.name);
      expect(names).toContain(first);
      expect(names).toContain(second);
      expect(names).toHaveLength(3);
    });
  }
});

describe('an option set to undefined means its default on every selector', () => {
  const all = registry();
  const prompt = ctx('read the weather file, then list the directory');

  it('embedding: topK, coreTools and batchSize', async () => {
    const selector = new EmbeddingSelector(countingEmbedder(), {
      topK: undefined,
      coreTools: undefined,
      batchSize: undefined,
    });
    expect(selector.topK).toBe(8);
    expect(selector.coreTools).toEqual([]);
    expect((await selector.select(prompt, all, { signal })).tools).toHaveLength(Math.min(8, all.length));
  });

  it('hybrid: undefined fields inside adaptive and multiIntent keep the fitted defaults', async () => {
    const unset = new HybridSelector(countingEmbedder(), {
      topK: undefined,
      denseWeight: undefined,
      adaptive: { floor: undefined, ceiling: undefined, span: undefined },
      multiIntent: { share: undefined, clauseSlots: undefined },
    });
    const defaults = new HybridSelector(countingEmbedder(), { adaptive: true });
    const got = await unset.select(prompt, all, { signal });
    const want = await defaults.select(prompt, all, { signal });
    expect(got.fellOpen).toBeUndefined();
    expect(got.tools.map((tool) => tool.name)).toEqual(want.tools.map((tool) => tool.name));
    expect(got.reasons).toEqual(want.reasons);
  });

  it('bm25 and keyword: topK undefined is the default, not a refusal', () => {
    expect(new Bm25Selector({ topK: undefined }).select(prompt, all).tools.length).toBeLessThanOrEqual(8);
    expect(new KeywordSelector({ topK: undefined }).select(prompt, all).fellOpen).toBeUndefined();
    expect(new KeywordSelector({ topK: undefined }).name).toBe('keyword');
  });
});

describe('extend: one way to derive a configured selector', () => {
  const all = registry();
  const prompt = ctx('read the weather file, then list the directory');
  const names = (output: { tools: readonly { name: string }[] }) => output.tools.map((tool) => tool.name);

  it('keyword and bm25: options over the selector’s, a key left undefined keeps its value', () => {
    const ranked = new KeywordSelector({ topK: 1, coreTools: ['list_directory'] });
    const wider = ranked.extend({ topK: 3, coreTools: undefined });
    expect(wider.name).toBe('keyword-ranked');
    expect(names(wider.select(prompt, all))).toContain('list_directory');
    expect(wider.select(prompt, all)).toEqual(ranked.withTopK(3).select(prompt, all));
    const bm25 = new Bm25Selector({ topK: 1 });
    expect(bm25.extend({ topK: 2 }).select(prompt, all)).toEqual(new Bm25Selector({ topK: 2 }).select(prompt, all));
    expect(bm25.extend({ topK: undefined }).select(prompt, all)).toEqual(bm25.select(prompt, all));
  });

  it('embedding: merges over its options and keeps sharing its warm corpus', async () => {
    const embedder = countingEmbedder();
    const selector = new EmbeddingSelector(embedder, { topK: 1, timeoutMs: 5_000 });
    await selector.select(prompt, all, { signal });
    const corpusEmbeds = selector.stats.corpusEmbeds;
    const copy = selector.extend({ topK: 2, coreTools: ['run_shell_command'], timeoutMs: undefined });
    expect(copy.topK).toBe(2);
    expect(copy.timeoutMs).toBe(5_000);
    expect(copy.coreTools).toEqual(['run_shell_command']);
    expect(names(await copy.select(prompt, all, { signal }))).toContain('run_shell_command');
    expect(copy.stats.corpusEmbeds).toBe(corpusEmbeds);
    // withTimeout(undefined) still clears, which a merge cannot.
    expect(copy.withTimeout(undefined).timeoutMs).toBeUndefined();
  });

  it('hybrid: merges over its options; the with* methods are extend', async () => {
    const selector = new HybridSelector(countingEmbedder(), { topK: 1, multiIntent: false });
    const viaExtend = await selector.extend({ topK: 2 }).select(prompt, all, { signal });
    const viaWith = await selector.withTopK(2).select(prompt, all, { signal });
    const fresh = await new HybridSelector(countingEmbedder(), { topK: 2, multiIntent: false }).select(prompt, all, {
      signal,
    });
    expect(viaExtend.tools).toHaveLength(2);
    expect(viaExtend).toEqual(viaWith);
    expect(viaExtend.reasons).toEqual(fresh.reasons);
    expect(selector.extend({ timeoutMs: 1_000 }).timeoutMs).toBe(1_000);
    // A copy shares the embedding half's warm corpus: nothing is embedded again.
    const embeds = selector.dense.stats.corpusEmbeds;
    await selector.extend({ topK: 3 }).select(prompt, all, { signal });
    expect(selector.dense.stats.corpusEmbeds).toBe(embeds);
  });
});

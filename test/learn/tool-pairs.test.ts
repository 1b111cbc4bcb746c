import { describe, expect, it } from 'vitest';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import { ExampleMemory } from '../../src/learn/example-memory.js';
import { pairTable, partnerLifts } from '../../src/learn/tool-pairs.js';
import { neighbourFloor } from '../../src/learn/vote-floor.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { countingEmbedder } from '../embed/counting-embedder.js';

const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((value) => value / norm));
};

describe('pairTable and partnerLifts', () => {
  it('counts tools used together, shrunk by a prior, and ignores pairs seen too rarely', () => {
    const table = pairTable([new Set(['a', 'b']), new Set(['a', 'b']), new Set(['a']), new Set(['a', 'c'])], {
      minCount: 2,
      prior: 2,
    });
    expect(table.get('a')?.get('b')).toBeCloseTo(2 / (4 + 2));
    expect(table.get('b')?.get('a')).toBeCloseTo(2 / (2 + 2));
    expect(table.get('a')?.has('c')).toBe(false);
    expect(pairTable([new Set(['a', 'b'])]).size).toBe(0); // one example invents no habit
    const lifts = partnerLifts(table, ['a'], 0.3);
    expect(lifts.get('b')).toBeCloseTo(0.3 * (2 / 6));
    expect(partnerLifts(table, ['a', 'b'], 0.3).size).toBe(0); // both already selected
    expect(partnerLifts(table, ['a'], 0).size).toBe(0);
  });

  it('bounded: one example with many tools pairs at most 16 of them', () => {
    const many = new Set(Array.from({ length: 200 }, (_, i) => `t${i}`));
    const table = pairTable([many, many], { minCount: 2 });
    expect(table.size).toBe(16);
  });
});

describe('the calibrated vote floor', () => {
  it('is the quantile of how close examples of other tools sit to each other', () => {
    // Two clusters of near-identical prompts, each cluster its own tool; the clusters are 0.8 apart.
    const rows = [
      unit(1, 0, 0),
      unit(1, 0.02, 0),
      unit(1, 0, 0.02),
      unit(0.8, 0.6, 0),
      unit(0.8, 0.62, 0),
      unit(0.8, 0.6, 0.02),
    ];
    const tools = [...Array(3).fill(new Set(['a'])), ...Array(3).fill(new Set(['b']))] as ReadonlySet<string>[];
    const matrix = new Float32Array(rows.length * 3);
    rows.forEach((row, i) => {
      matrix.set(row, i * 3);
    });
    const floor = neighbourFloor(matrix, tools, 3, 0.5) as number;
    expect(floor).toBeGreaterThan(0.75);
    expect(floor).toBeLessThan(0.85);
    expect(neighbourFloor(matrix.subarray(0, 9), tools.slice(0, 3), 3, 0.5)).toBeUndefined(); // nobody of another tool
  });

  it('a prompt no nearer to an example than other tools’ examples are is unlike every example', () => {
    const make = (protectUnseen: number | boolean) => {
      const memory = new ExampleMemory(3, { protectUnseen });
      const rows: [Float32Array, string][] = [
        [unit(1, 0, 0), 'a'],
        [unit(1, 0.02, 0), 'a'],
        [unit(1, 0, 0.02), 'a'],
        [unit(0.8, 0.6, 0), 'b'],
        [unit(0.8, 0.62, 0), 'b'],
        [unit(0.8, 0.6, 0.02), 'b'],
      ];
      rows.forEach(([vector, tool], i) => {
        memory.add({ query: `q${i}`, tools: [tool], vector });
      });
      return memory;
    };
    // Near neither cluster: cosine ≈ 0.70 and ≈ 0.74, below the clusters' 0.8 to each other.
    const far = unit(0.7, 0.3, 0.65);
    const near = unit(1, 0.01, 0.01);
    expect(make(0.5).unlike(far)).toBe(true);
    expect(make(0.5).unlike(near)).toBe(false);
    expect(make(true).unlike(near)).toBe(true);
    expect(make(false).unlike(far)).toBe(false);
    expect(make(0.5).usedTools).toEqual(new Set(['a', 'b']));
  });
});

describe('learning cannot evict a tool it has not seen', () => {
  const tool = (name: string, description: string): ToolSchema => ({
    name,
    description,
    parameters: { type: 'object', properties: {} },
  });
  const TOOLS = [
    tool('book_flight', 'Book a flight ticket.'),
    tool('book_train', 'Book a train ticket to a city.'),
    tool('get_weather', 'Weather.'),
  ];
  const EXAMPLES = [
    { query: 'book me a flight ticket to Rome', tools: ['book_flight'] },
    { query: 'reserve a flight ticket for Friday', tools: ['book_flight'] },
  ];
  const prompt = 'book a train ticket to Rome';
  // `agreement: 1`: one near example votes (the default asks two; see the test after this one).
  const top = async (protectUnseen: boolean, agreement = 1) => {
    const selector = new HybridSelector(countingEmbedder(), {
      topK: 1,
      cache: memoryVectorCache(),
      learned: { weight: 3, protectUnseen, projection: false, agreement },
    });
    await selector.learn(EXAMPLES, { tools: TOOLS });
    return (
      await selector.select({ turn: 1, latestUserMessage: prompt, conversation: [] }, TOOLS, {
        signal: new AbortController().signal,
      })
    ).tools.map((t) => t.name);
  };

  it('votes lift an example tool over the ranking’s own unseen pick, unless guarded', async () => {
    const plain = new HybridSelector(countingEmbedder(), { topK: 1, cache: memoryVectorCache() });
    expect(
      (
        await plain.select({ turn: 1, latestUserMessage: prompt, conversation: [] }, TOOLS, {
          signal: new AbortController().signal,
        })
      ).tools.map((t) => t.name),
    ).toEqual(['book_train']);
    expect(await top(false)).toEqual(['book_flight']);
    expect(await top(true)).toEqual(['book_train']);
  });

  it('a lone near example does not vote by default: two must agree', async () => {
    expect(await top(false, 2)).toEqual(['book_train']);
  });
});

describe('learned pairs in the hybrid', () => {
  const tool = (name: string, description: string): ToolSchema => ({
    name,
    description,
    parameters: { type: 'object', properties: {} },
  });
  const TOOLS = [
    tool('login_portal', 'Sign in to the customer portal.'),
    tool('download_report', 'Download the monthly report file.'),
    tool('reset_portal_password', 'Reset the password to sign in to the customer portal.'),
    tool('portal_status', 'Whether the customer portal is up.'),
    tool('get_weather', 'Weather for a city.'),
    tool('translate_text', 'Translate text.'),
    tool('run_sql_query', 'Run SQL.'),
  ];
  const EXAMPLES = [
    { query: 'sign in to the portal and grab last month report', tools: ['login_portal', 'download_report'] },
    { query: 'log into the customer portal then fetch the report', tools: ['login_portal', 'download_report'] },
    { query: 'portal sign in and report download please', tools: ['login_portal', 'download_report'] },
  ];
  const ctx = (prompt: string) => ({ turn: 1, latestUserMessage: prompt, conversation: [] });

  it('a selected tool lifts the partner the examples used with it, and says so', async () => {
    const selector = new HybridSelector(countingEmbedder(), {
      topK: 1,
      cache: memoryVectorCache(),
      learned: { pairs: { weight: 2 }, weight: 0 },
    });
    await selector.learn(EXAMPLES, { tools: TOOLS });
    const output = await selector.select(ctx('sign in to the portal'), TOOLS, { signal: new AbortController().signal });
    expect(output.tools.map((t) => t.name)).toEqual(['login_portal']);
    const wide = new HybridSelector(countingEmbedder(), {
      topK: 2,
      cache: memoryVectorCache(),
      learned: { pairs: { weight: 2 }, weight: 0 },
    });
    await wide.learn(EXAMPLES, { tools: TOOLS });
    const both = await wide.select(ctx('sign in to the portal'), TOOLS, { signal: new AbortController().signal });
    expect(both.tools.map((t) => t.name)).toEqual(['login_portal', 'download_report']);
    expect(both.reasons?.download_report?.parts?.paired).toBeCloseTo((2 * 3) / 5);
    const off = new HybridSelector(countingEmbedder(), {
      topK: 2,
      cache: memoryVectorCache(),
      learned: { weight: 0, pairs: false },
    });
    await off.learn(EXAMPLES, { tools: TOOLS });
    const without = await off.select(ctx('sign in to the portal'), TOOLS, { signal: new AbortController().signal });
    expect(without.tools.map((t) => t.name)).not.toContain('download_report');
  });

  it('the unseen-tool guard takes back only what the votes brought in: a lifted partner keeps its slot', async () => {
    // On every prompt the guard gives an unseen tool (no example used reset_portal_password or
    // portal_status) back its slot, but not over download_report, which comes with login_portal.
    const guarded = (weight: number) =>
      new HybridSelector(countingEmbedder(), {
        topK: 2,
        cache: memoryVectorCache(),
        learned: { pairs: weight > 0 ? { weight } : false, weight: 0, protectUnseen: true, projection: false },
      });
    const plain = guarded(0);
    await plain.learn(EXAMPLES, { tools: TOOLS });
    const before = await plain.select(ctx('sign in to the portal'), TOOLS, { signal: new AbortController().signal });
    const unseen = before.tools.map((t) => t.name).filter((name) => name !== 'login_portal');
    expect(unseen).toHaveLength(1);
    expect(['reset_portal_password', 'portal_status']).toContain(unseen[0]);
    const selector = guarded(2);
    await selector.learn(EXAMPLES, { tools: TOOLS });
    const output = await selector.select(ctx('sign in to the portal'), TOOLS, { signal: new AbortController().signal });
    expect(output.tools.map((t) => t.name)).toEqual(['login_portal', 'download_report']);
    expect(output.reasons?.download_report?.parts?.paired).toBeGreaterThan(0);
  });
});

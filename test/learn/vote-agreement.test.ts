/**
 * The votes' agreement rule (`learned.agreement`, default 2): a tool gets a vote only when at
 * least that many of the near prompts used it, so a lone neighbour's tools cannot push another
 * tool out of a prompt's picks (issue 49, "learning that cannot hurt").
 */
import { describe, expect, it } from 'vitest';
import { ExampleMemory, LEARN_DEFAULTS } from '../../src/learn/example-memory.js';

const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((value) => value / norm));
};
const NAMES = ['refund', 'escalate', 'book_room'];
const QUERY = unit(1, 0.1, 0, 0);

function memory(examples: { vector: Float32Array; tools: string[] }[], agreement?: number): ExampleMemory {
  const store = new ExampleMemory(4, agreement === undefined ? {} : { agreement });
  examples.forEach(({ vector, tools }, i) => {
    store.add({ query: `prompt ${i}`, vector, tools });
  });
  return store;
}

describe('vote agreement', () => {
  it('defaults to two agreeing neighbours', () => {
    expect(LEARN_DEFAULTS.agreement).toBe(2);
  });

  it('a lone near example votes for nothing by default, and for its tools at agreement 1', () => {
    const lone = [{ vector: unit(1, 0.12, 0.01, 0), tools: ['refund'] }];
    expect(memory(lone).votes(QUERY, NAMES)).toBeUndefined();
    const votes = memory(lone, 1).votes(QUERY, NAMES) as Float64Array;
    expect(votes[0]).toBeGreaterThan(0);
    expect(votes[1]).toBe(0);
  });

  it('two near examples that agree vote; a tool only one of the neighbours used does not', () => {
    const examples = [
      { vector: unit(1, 0.12, 0.01, 0), tools: ['refund'] },
      { vector: unit(1, 0.08, 0, 0.02), tools: ['refund', 'escalate'] },
      { vector: unit(1, 0.1, 0.03, 0), tools: ['book_room'] },
    ];
    const votes = memory(examples).votes(QUERY, NAMES) as Float64Array;
    expect(votes[0]).toBeGreaterThan(0);
    expect(votes[1]).toBe(0);
    expect(votes[2]).toBe(0);
    // At agreement 1 the same neighbours vote for all three.
    const any = memory(examples, 1).votes(QUERY, NAMES) as Float64Array;
    for (const vote of any) expect(vote).toBeGreaterThan(0);
    // The agreeing tool's vote is the same either way: dissenters still count in the total.
    expect(any[0]).toBeCloseTo(votes[0] as number);
  });

  it('a far example never counts toward agreement', () => {
    const examples = [
      { vector: unit(1, 0.12, 0.01, 0), tools: ['refund'] },
      { vector: unit(0, 0, 1, 0), tools: ['refund'] }, // below minSimilarity
    ];
    expect(memory(examples).votes(QUERY, NAMES)).toBeUndefined();
  });
});

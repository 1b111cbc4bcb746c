import { describe, expect, it } from 'vitest';
import { ExampleMemory } from '../../src/learn/example-memory.js';
import { usageLifts, usagePrototypes } from '../../src/learn/usage-prototypes.js';

const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values.map((value) => value / norm));
};

// Prompts to one assistant share a strong common direction (the first axis); what tells their
// tools apart is the rest.
const EXAMPLES = [
  { vector: unit(1, 0.4, 0, 0), tools: new Set(['escalate']) },
  { vector: unit(1, 0.35, 0.05, 0), tools: new Set(['escalate', 'page']) },
  { vector: unit(1, 0, 0.4, 0), tools: new Set(['refund']) },
  { vector: unit(1, 0, 0, 0.4), tools: new Set(['book_room']) },
];
const NAMES = ['escalate', 'page', 'refund', 'book_room', 'never_used'];

describe('usagePrototypes and usageLifts', () => {
  it('lifts the tools whose prompts a paraphrase is like, and only those', () => {
    const prototypes = usagePrototypes(EXAMPLES, 4);
    // A paraphrase of the escalation prompts: its raw cosine to every example is above 0.9,
    // so only the centred prototypes can tell which tool's prompts it is like.
    const lifts = usageLifts(prototypes, unit(1, 0.38, 0.02, 0), NAMES) as Float64Array;
    expect(lifts).toBeDefined();
    expect(lifts[0]).toBeGreaterThan(0.15); // of at most the default weight, 0.5
    expect(lifts[1]).toBeGreaterThan(0);
    expect(lifts[2]).toBe(0);
    expect(lifts[3]).toBe(0);
    expect(lifts[4]).toBe(0); // a tool no example used is never lifted
  });

  it('scales by the weight, stays within it, and turns off at weight 0', () => {
    const prototypes = usagePrototypes(EXAMPLES, 4);
    const query = unit(1, 0.38, 0.02, 0);
    const half = usageLifts(prototypes, query, NAMES, { weight: 0.25 }) as Float64Array;
    const full = usageLifts(prototypes, query, NAMES, { weight: 0.5 }) as Float64Array;
    expect(full[0]).toBeCloseTo(2 * (half[0] as number));
    for (const lift of full) expect(lift).toBeLessThanOrEqual(0.5);
    expect(usageLifts(prototypes, query, NAMES, { weight: 0 })).toBeUndefined();
  });

  it('lifts nothing for a prompt below the floor of every prototype', () => {
    const prototypes = usagePrototypes(EXAMPLES, 4);
    // Opposite to every tool's own direction: centred, it points away from all prototypes.
    expect(usageLifts(prototypes, unit(1, -0.3, -0.3, -0.3), NAMES)).toBeUndefined();
    expect(usageLifts(prototypes, unit(1, 0.38, 0.02), NAMES)).toBeUndefined(); // wrong dimensions
  });

  it('keeps one vector per used tool, however many examples there are', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({
      vector: unit(1, (i % 7) / 10, (i % 3) / 10, 0.1),
      tools: new Set([`tool_${i % 5}`]),
    }));
    const prototypes = usagePrototypes(many, 4);
    expect(prototypes.tools.size).toBe(5);
    for (const vector of prototypes.tools.values()) expect(vector.length).toBe(4);
  });
});

describe('ExampleMemory.near and usage', () => {
  const memory = () => {
    const store = new ExampleMemory(4);
    for (const [i, example] of EXAMPLES.entries())
      store.add({ query: `example ${i}`, vector: example.vector, tools: [...example.tools] });
    return store;
  };

  it('a prompt unlike every example is not near, and gets no usage lift', () => {
    const store = memory();
    const unlike = unit(0, 0, 0, -1); // cosine ≤ 0.3 to every example
    expect(store.near(unlike)).toBe(false);
    expect(store.usage(unlike, NAMES)).toBeUndefined();
    expect(store.votes(unlike, NAMES)).toBeUndefined();
  });

  it('a paraphrase is near, and its tool is lifted', () => {
    const store = memory();
    const paraphrase = unit(1, 0.38, 0.02, 0);
    expect(store.near(paraphrase)).toBe(true);
    expect(store.usage(paraphrase, NAMES)?.[0]).toBeGreaterThan(0);
  });

  it('usage: false turns the lift off; the near floor is an option', () => {
    const off = new ExampleMemory(4, { usage: false });
    const strict = new ExampleMemory(4, { nearSimilarity: 0.999 });
    for (const store of [off, strict])
      for (const [i, example] of EXAMPLES.entries())
        store.add({ query: `example ${i}`, vector: example.vector, tools: [...example.tools] });
    expect(off.usage(unit(1, 0.38, 0.02, 0), NAMES)).toBeUndefined();
    expect(strict.near(unit(1, 0.2, 0.2, 0))).toBe(false);
    expect(strict.near(EXAMPLES[0]?.vector as Float32Array)).toBe(true);
  });
});

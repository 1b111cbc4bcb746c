import { describe, expect, it } from 'vitest';
import { intentClauses, itemBests, mixClauses, sharePicks } from '../../src/select/multi-intent.js';

describe('sharePicks', () => {
  const score = Float64Array.of(0, 0, 0.8, 0, 0.9, 0, 0, 0.5, 0, 0.1);

  it('a required tool replaces the lowest-scored pick; the count stays the same', () => {
    expect(sharePicks([4, 2, 7], [9], score)).toEqual([4, 2, 9]);
    expect(sharePicks([4, 2, 7], [9, 0], score)).toEqual([4, 0, 9]);
  });

  it('required tools already picked, repeated or beyond k change nothing more', () => {
    expect(sharePicks([4, 2, 7], [2, 2, 4], score)).toEqual([4, 2, 7]);
    expect(sharePicks([4, 2], [9, 0, 1], score)).toEqual([0, 9]);
    expect(sharePicks([], [9], score)).toEqual([]);
  });
});

describe('itemBests and mixClauses', () => {
  it("each ranking's best tool, skipping rankings with nothing positive", () => {
    expect(
      itemBests([
        { fused: Float64Array.of(0.1, 0.7, 0.2) },
        { fused: Float64Array.of(0, 0, 0) },
        { fused: Float64Array.of(0.3, 0, 0) },
      ]),
    ).toEqual([1, 0]);
  });

  it('mixes the best clause score into the whole prompt score', () => {
    const whole = Float64Array.of(1, 0, 0.5);
    const best = mixClauses(
      whole,
      [{ fused: Float64Array.of(0, 1, 0.25) }, { fused: Float64Array.of(0.5, 0, 0) }],
      0.2,
    );
    expect([...best]).toEqual([0.5, 1, 0.25]);
    expect([...whole].map((v) => +v.toFixed(6))).toEqual([0.9, 0.2, 0.45]);
  });
});

describe('intentClauses', () => {
  it('an enumerated prompt gives its items when sharing is on, its clauses otherwise', () => {
    const prompt = 'First, book a hotel in Rome for two nights. Then convert 5 USD to EUR.';
    expect(intentClauses(prompt, { share: true })).toEqual({
      clauses: ['book a hotel in Rome for two nights', 'convert 5 USD to EUR.'],
      enumerated: true,
    });
    expect(intentClauses(prompt, { share: false }).enumerated).toBe(false);
    expect(intentClauses('weather in Oslo', { share: true })).toEqual({
      clauses: ['weather in Oslo'],
      enumerated: false,
    });
  });
});

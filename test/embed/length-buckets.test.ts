import { describe, expect, it } from 'vitest';
import { lengthBuckets } from '../../src/embed/length-buckets.js';

/** A deterministic spread of lengths like tool texts (5..100 tokens). */
function lengths(n: number, seed = 7): number[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return 5 + (x % 96);
  });
}

describe('lengthBuckets', () => {
  it('puts every index in exactly one batch', () => {
    const input = lengths(1000);
    const batches = lengthBuckets(input);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(input.map((_, i) => i));
  });

  it('keeps padding within the allowance and rows and tokens under their caps', () => {
    const input = lengths(1000);
    const cost = (batch: number[]) => batch.length * Math.max(...batch.map((i) => input[i] as number));
    for (const batch of lengthBuckets(input, { maxRows: 16, maxTokens: 1024, maxPadding: 0.1 })) {
      const real = batch.reduce((sum, i) => sum + (input[i] as number), 0);
      expect(batch.length).toBeLessThanOrEqual(16);
      if (batch.length > 1) expect(cost(batch)).toBeLessThanOrEqual(1024);
      expect(cost(batch)).toBeLessThanOrEqual(real * 1.1 + 1e-9);
    }
    // Registry-order batches of 16 (what corpus embedding did before) pad far more.
    const naive = Array.from({ length: Math.ceil(input.length / 16) }, (_, b) =>
      input.map((_, i) => i).slice(b * 16, b * 16 + 16),
    );
    const total = (batches: number[][]) => batches.reduce((sum, batch) => sum + cost(batch), 0);
    const real = input.reduce((a, b) => a + b, 0);
    expect(total(naive) / real).toBeGreaterThan(1.5);
    expect(total(lengthBuckets(input, { maxRows: 16 })) / real).toBeLessThan(1.1);
  });

  it('fills batches with equal lengths, shortest first, and keeps input order within a length', () => {
    expect(lengthBuckets([12, 40, 12, 13])).toEqual([[0, 2, 3], [1]]);
    expect(lengthBuckets([3, 3, 3, 3, 3], { maxRows: 2 })).toEqual([[0, 1], [2, 3], [4]]);
    expect(lengthBuckets([])).toEqual([]);
    // Empty texts count as one (masked) position.
    expect(lengthBuckets([0, 1, 0])).toEqual([[0, 2, 1]]);
  });
});

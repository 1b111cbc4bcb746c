import { describe, expect, it } from 'vitest';
import { adaptiveCut } from '../../src/rank/adaptive-k.js';
import { topK } from '../../src/rank/top-k.js';

describe('topK', () => {
  it('returns indices of the highest scores, best first', () => {
    expect(topK([0.1, 0.9, 0.5, 0.7], 2)).toEqual([1, 3]);
    expect(topK(new Float32Array([0.1, 0.9, 0.5, 0.7]), 3)).toEqual([1, 3, 2]);
  });

  it('breaks ties by registry order (lower index first)', () => {
    expect(topK([0.5, 0.9, 0.5, 0.9, 0.5], 3)).toEqual([1, 3, 0]);
    expect(topK([1, 1, 1, 1], 2)).toEqual([0, 1]);
  });

  it('clamps k to the list and treats k <= 0 as empty', () => {
    expect(topK([0.3, 0.2], 8)).toEqual([0, 1]);
    expect(topK([0.3, 0.2], 0)).toEqual([]);
    expect(topK([0.3, 0.2], -2)).toEqual([]);
    expect(topK([], 3)).toEqual([]);
  });

  it('never ranks NaN and handles negative scores', () => {
    expect(topK([Number.NaN, -0.2, -0.1, Number.NaN], 4)).toEqual([2, 1]);
  });

  it('matches a full sort on random data', () => {
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const scores = Array.from({ length: 500 }, () => Math.round(random() * 50) / 50);
    const expected = scores
      .map((score, index) => ({ score, index }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, 17)
      .map((entry) => entry.index);
    expect(topK(scores, 17)).toEqual(expected);
  });
});

describe('adaptiveCut', () => {
  it('cuts at a relative threshold to the top score', () => {
    expect(adaptiveCut([0.9, 0.88, 0.4, 0.35], { floor: 1, ceiling: 4, relative: 0.8 })).toBe(2);
    expect(adaptiveCut([0.9, 0.85, 0.8, 0.75], { floor: 1, ceiling: 4, relative: 0.5 })).toBe(4);
  });

  it('cuts at the largest gap when it is big enough', () => {
    expect(adaptiveCut([0.9, 0.7, 0.68, 0.2], { floor: 1, ceiling: 4, gap: 0.1 })).toBe(3);
    expect(adaptiveCut([0.9, 0.85, 0.8, 0.75], { floor: 1, ceiling: 4, gap: 0.1 })).toBe(4);
  });

  it('uses the largest drop when neither relative nor gap is given', () => {
    expect(adaptiveCut([0.9, 0.3, 0.25, 0.2], { floor: 1, ceiling: 4 })).toBe(1);
    expect(adaptiveCut([0.9, 0.85, 0.3, 0.2], { floor: 1, ceiling: 4 })).toBe(2);
  });

  it('takes whichever fall-off comes first when both are set', () => {
    const scores = [0.9, 0.6, 0.58, 0.1];
    expect(adaptiveCut(scores, { floor: 1, ceiling: 4, relative: 0.7, gap: 0.45 })).toBe(1);
    expect(adaptiveCut(scores, { floor: 1, ceiling: 4, relative: 0.9, gap: 0.5 })).toBe(1);
    expect(adaptiveCut(scores, { floor: 1, ceiling: 4, relative: 0.1, gap: 0.45 })).toBe(3);
  });

  it('respects floor and ceiling', () => {
    expect(adaptiveCut([0.9, 0.1, 0.1, 0.1], { floor: 3, ceiling: 4, relative: 0.9 })).toBe(3);
    expect(adaptiveCut([0.9, 0.9, 0.9, 0.9, 0.9], { floor: 1, ceiling: 3, relative: 0.5 })).toBe(3);
    // floor wins over a smaller ceiling
    expect(adaptiveCut([0.9, 0.1, 0.1], { floor: 2, ceiling: 1, relative: 0.9 })).toBe(2);
  });

  it('clamps to the list length and stops at NaN', () => {
    expect(adaptiveCut([0.9, 0.8], { floor: 5, ceiling: 8 })).toBe(2);
    expect(adaptiveCut([], { floor: 1, ceiling: 3 })).toBe(0);
    expect(adaptiveCut([0.9, 0.8, Number.NaN, 0.7], { floor: 1, ceiling: 4, relative: 0.1 })).toBe(2);
  });

  it('ignores relative when the top score is not positive', () => {
    expect(adaptiveCut([-0.1, -0.5, -0.9], { floor: 1, ceiling: 3, relative: 0.9 })).toBe(3);
  });
});

describe('adaptiveCut span', () => {
  it('keeps scores within a share of the query’s own spread from the top', () => {
    // threshold = 1 − 0.5 × (1 − 0) = 0.5: 1, .95, .9 and .5 stay; .2 is cut.
    expect(adaptiveCut([1, 0.95, 0.9, 0.5, 0.2, 0], { floor: 1, ceiling: 6, span: 0.5 })).toBe(4);
  });

  it('is scale-free: the same shape cuts at the same place at any score scale', () => {
    const shape = [0.9, 0.85, 0.84, 0.3, 0.25, 0.2, 0.1];
    const scaled = shape.map((x) => x * 40 + 7);
    const options = { floor: 1, ceiling: 7, span: 0.6 };
    expect(adaptiveCut(scaled, options)).toBe(adaptiveCut(shape, options));
    expect(adaptiveCut(shape, options)).toBe(3);
  });

  it('never goes below the floor', () => {
    expect(adaptiveCut([1, 0, 0, 0], { floor: 2, ceiling: 4, span: 0.1 })).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { nearPicks } from '../../src/select/near-picks.js';

// Scores of six tools; the picks (k = 3) are 0, 1, 2 with the k-th at 0.5 and the top at 1.
const fused = Float64Array.of(1, 0.8, 0.5, 0.49, 0.48, 0.2);
const picks = [0, 1, 2];
const taken = new Set(picks);

describe('near picks', () => {
  it('adds the tools just below the k-th pick of a several-part prompt, best first', () => {
    expect(nearPicks(fused, picks, taken, 2, 4)).toEqual([3]);
    expect(nearPicks(fused, picks, taken, 3, 4)).toEqual([3, 4]);
  });

  it('adds none to a one-part prompt, and never more than the budget left', () => {
    expect(nearPicks(fused, picks, taken, 1, 4)).toEqual([]);
    expect(nearPicks(fused, picks, taken, 0, 4)).toEqual([]);
    expect(nearPicks(fused, picks, taken, 9, 1)).toEqual([3]);
    expect(nearPicks(fused, picks, taken, 9, 0)).toEqual([]);
    expect(nearPicks(fused, picks, taken, 9, -1)).toEqual([]);
  });

  it('leaves out a tool outside the margin, one already advertised, and a zero score', () => {
    expect(nearPicks(fused, picks, taken, 3, 4, { margin: 0.015 })).toEqual([3]);
    expect(nearPicks(fused, picks, new Set([...picks, 3]), 3, 4)).toEqual([4]);
    expect(nearPicks(Float64Array.of(1, 0.01, 0, 0), [0, 1], new Set([0, 1]), 3, 4, { margin: 0.5 })).toEqual([]);
  });

  it('adds none when nothing ranked', () => {
    expect(nearPicks(Float64Array.of(0, 0, 0), [0, 1], new Set([0, 1]), 3, 4)).toEqual([]);
    expect(nearPicks(fused, [], new Set(), 3, 4)).toEqual([]);
  });
});

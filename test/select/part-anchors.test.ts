import { describe, expect, it } from 'vitest';
import { partAnchorOrder, partBudget } from '../../src/select/part-anchors.js';

describe('part anchors', () => {
  it('anchors every pick of a multi-part prompt, the whole prompt anchors first', () => {
    expect(partAnchorOrder([4], [4, 2, 7], 2)).toEqual([4, 2, 7]);
    expect(partAnchorOrder([2, 4], [4, 2, 7], 3)).toEqual([2, 4, 7]);
  });

  it('leaves a one-part prompt with its own anchors', () => {
    expect(partAnchorOrder([4], [4, 2, 7], 1)).toEqual([4]);
    expect(partAnchorOrder([4], [4, 2, 7], 0)).toEqual([4]);
  });

  it('widens the budget by one per further part, to a cap, and never turns links back on', () => {
    expect(partBudget(2, 1)).toBe(2);
    expect(partBudget(2, 2)).toBe(3);
    expect(partBudget(2, 5)).toBe(4);
    expect(partBudget(0, 3)).toBe(0);
  });
});

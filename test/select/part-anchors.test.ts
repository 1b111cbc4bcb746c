import { describe, expect, it } from 'vitest';
import { partAnchors, partBudget } from '../../src/select/part-anchors.js';

describe('part anchors', () => {
  it("follows each part's best picks, within the margin of that part's own top", () => {
    const parts = [{ fused: Float64Array.of(0.9, 0.1, 0.85, 0.5) }, { fused: Float64Array.of(0, 0.7, 0, 0.1) }];
    expect(partAnchors(parts, [0, 1, 2, 3])).toEqual([0, 2, 1]);
  });

  it('has no anchors of its own for a one-part prompt, and only picked tools', () => {
    expect(partAnchors([{ fused: Float64Array.of(1, 0) }], [0, 1])).toEqual([]);
    const parts = [{ fused: Float64Array.of(0.9, 0.95) }, { fused: Float64Array.of(0.2, 0.9) }];
    expect(partAnchors(parts, [0])).toEqual([0]);
  });

  it('widens the budget by one per further part, to a cap, and never turns links back on', () => {
    expect(partBudget(2, 1)).toBe(2);
    expect(partBudget(2, 2)).toBe(3);
    expect(partBudget(2, 5)).toBe(4);
    expect(partBudget(0, 3)).toBe(0);
  });
});

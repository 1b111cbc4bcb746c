/**
 * The multi-query cosine kernel gives exactly the scores of `scoreRows`, one query at a time:
 * it runs four rows' sums side by side, two queries per load and rows in cache-sized blocks, but
 * adds each row's products in the same order, so a selection ranked through it cannot change. Odd
 * row counts, dimensions and query counts cover the tails of rows, blocks and query pairs.
 */
import { describe, expect, it } from 'vitest';
import { normalise, scoreRows } from '../../src/embed/embedder.js';
import { scoreRowsMany } from '../../src/embed/score-rows-many.js';

// A deterministic pseudo-random stream (no Math.random: a failure must reproduce).
function values(seed: number, length: number): Float32Array {
  const out = new Float32Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state / 2 ** 32 - 0.5;
  }
  return out;
}

describe('scoreRowsMany', () => {
  it.each([
    [1, 7],
    [3, 512],
    [4, 5],
    [9, 512],
    [1031, 33],
    [130, 512],
    [4099, 8],
    [3, 40_000],
  ])('%i rows of %i dimensions: the same bits as scoreRows for each query', (count, dimensions) => {
    const matrix = values(count * 31 + dimensions, count * dimensions);
    const queries = [1, 2, 3].map((seed) => normalise(values(seed, dimensions)) as Float32Array);
    const outs = queries.map(() => new Float32Array(count));
    scoreRowsMany(matrix, count, dimensions, queries, outs);
    queries.forEach((query, q) => {
      const alone = new Float32Array(count);
      scoreRows(matrix, count, dimensions, query, alone);
      expect(Buffer.from(outs[q]?.buffer as ArrayBuffer).equals(Buffer.from(alone.buffer))).toBe(true);
    });
  });

  // Queries go by in pairs with a lone last one: one to five covers both paths, alone and mixed.
  it.each([1, 2, 4, 5])('%i queries over 517 rows of 24 dimensions (blocks and their tails)', (n) => {
    const matrix = values(n, 517 * 24);
    const queries = Array.from({ length: n }, (_, q) => normalise(values(q + 10, 24)) as Float32Array);
    const outs = queries.map(() => new Float32Array(517));
    scoreRowsMany(matrix, 517, 24, queries, outs);
    queries.forEach((query, q) => {
      const alone = new Float32Array(517);
      scoreRows(matrix, 517, 24, query, alone);
      expect(Buffer.from(outs[q]?.buffer as ArrayBuffer).equals(Buffer.from(alone.buffer))).toBe(true);
    });
  });

  it('no queries: nothing written', () => {
    expect(() => scoreRowsMany(new Float32Array(8), 2, 4, [], [])).not.toThrow();
  });
});

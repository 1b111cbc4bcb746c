/**
 * Cosines of a turn's queries against the tool matrix (the hybrid's prompt and clauses, kind-link
 * inputs), loaded with the first such scoring so the core bundle does not carry it.
 */
import { scoreRows } from './embedder.js';

/** Floats of the matrix one block of rows spans (128 KB), so a block stays in cache for every query. */
const BLOCK_FLOATS = 32_768;

/**
 * `scoreRows` for several queries. Each row's cosine is one sum added in the same order as a
 * plain loop (so the scores are identical), but the work is arranged for the machine: the rows
 * go by in blocks that stay in cache while every query scores them (at 10,000 tools the matrix is
 * 20 MB, read from memory once a turn instead of once a query), two queries share each load of a
 * row, and four rows' sums run side by side (a single sum waits on each add's latency).
 *
 * @example
 * const outs = queries.map(() => new Float32Array(corpus.count))
 * scoreRowsMany(corpus.matrix, corpus.count, corpus.dimensions, queries, outs)
 */
export function scoreRowsMany(
  matrix: Float32Array,
  count: number,
  dimensions: number,
  queries: readonly Float32Array[],
  outs: readonly Float32Array[],
): void {
  const block = Math.max(4, Math.floor(BLOCK_FLOATS / Math.max(1, dimensions)) & ~3);
  for (let from = 0; from < count; from += block) {
    const to = Math.min(count, from + block);
    let q = 0;
    for (; q + 1 < queries.length; q += 2) {
      const a = queries[q] as Float32Array;
      const b = queries[q + 1] as Float32Array;
      scorePair(matrix, from, to, dimensions, a, b, outs[q] as Float32Array, outs[q + 1] as Float32Array);
    }
    if (q < queries.length)
      scoreFour(matrix, from, to, dimensions, queries[q] as Float32Array, outs[q] as Float32Array);
  }
}

// Rows [from, to) for two queries: each row's four floats are loaded once for both.
function scorePair(
  matrix: Float32Array,
  from: number,
  to: number,
  dimensions: number,
  a: Float32Array,
  b: Float32Array,
  outA: Float32Array,
  outB: Float32Array,
): void {
  let row = from;
  for (; row + 3 < to; row += 4) {
    const at0 = row * dimensions;
    const at1 = at0 + dimensions;
    const at2 = at1 + dimensions;
    const at3 = at2 + dimensions;
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let b0 = 0;
    let b1 = 0;
    let b2 = 0;
    let b3 = 0;
    for (let j = 0; j < dimensions; j++) {
      const va = a[j] as number;
      const vb = b[j] as number;
      const m0 = matrix[at0 + j] as number;
      const m1 = matrix[at1 + j] as number;
      const m2 = matrix[at2 + j] as number;
      const m3 = matrix[at3 + j] as number;
      a0 += m0 * va;
      a1 += m1 * va;
      a2 += m2 * va;
      a3 += m3 * va;
      b0 += m0 * vb;
      b1 += m1 * vb;
      b2 += m2 * vb;
      b3 += m3 * vb;
    }
    outA[row] = a0;
    outA[row + 1] = a1;
    outA[row + 2] = a2;
    outA[row + 3] = a3;
    outB[row] = b0;
    outB[row + 1] = b1;
    outB[row + 2] = b2;
    outB[row + 3] = b3;
  }
  if (row < to) {
    scoreFour(matrix, row, to, dimensions, a, outA);
    scoreFour(matrix, row, to, dimensions, b, outB);
  }
}

// Rows [from, to) for one query, four at a time.
function scoreFour(
  matrix: Float32Array,
  from: number,
  to: number,
  dimensions: number,
  query: Float32Array,
  out: Float32Array,
): void {
  let row = from;
  for (; row + 3 < to; row += 4) {
    const at = row * dimensions;
    let sum0 = 0;
    let sum1 = 0;
    let sum2 = 0;
    let sum3 = 0;
    for (let j = 0; j < dimensions; j++) {
      const value = query[j] as number;
      const k = at + j;
      sum0 += (matrix[k] as number) * value;
      sum1 += (matrix[k + dimensions] as number) * value;
      sum2 += (matrix[k + 2 * dimensions] as number) * value;
      sum3 += (matrix[k + 3 * dimensions] as number) * value;
    }
    out[row] = sum0;
    out[row + 1] = sum1;
    out[row + 2] = sum2;
    out[row + 3] = sum3;
  }
  // The last rows, fewer than four: the plain loop.
  if (row < to) {
    scoreRows(matrix.subarray(row * dimensions), to - row, dimensions, query, out.subarray(row, to));
  }
}

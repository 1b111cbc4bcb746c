/**
 * Cosines of several queries against one matrix in one pass, loaded with the first multi-query
 * scoring (the hybrid's prompt and clauses, kind-link inputs), so the core bundle does not carry it.
 */
/**
 * `scoreRows` for several queries in one pass over the matrix: each row is read once for
 * two queries at a time (at 10,000 tools the matrix is 20 MB, so reading it is most of the
 * cost). Every cosine is summed in the same order as one query alone, so the scores are
 * identical to scoring each query on its own.
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
  let q = 0;
  for (; q + 1 < queries.length; q += 2) {
    const a = queries[q] as Float32Array;
    const b = queries[q + 1] as Float32Array;
    const outA = outs[q] as Float32Array;
    const outB = outs[q + 1] as Float32Array;
    for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
      let sumA = 0;
      let sumB = 0;
      for (let j = 0; j < dimensions; j++) {
        const value = matrix[offset + j] as number;
        sumA += value * (a[j] as number);
        sumB += value * (b[j] as number);
      }
      outA[row] = sumA;
      outB[row] = sumB;
    }
  }
  if (q < queries.length) scoreOne(matrix, count, dimensions, queries[q] as Float32Array, outs[q] as Float32Array);
}

// One query: four products per step into the one sum, in order (the same cosine as a plain
// loop, with a quarter of its overhead).
function scoreOne(
  matrix: Float32Array,
  count: number,
  dimensions: number,
  query: Float32Array,
  out: Float32Array,
): void {
  const tail = dimensions - (dimensions % 4);
  for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
    let sum = 0;
    let j = 0;
    for (; j < tail; j += 4) {
      const at = offset + j;
      sum += (matrix[at] as number) * (query[j] as number);
      sum += (matrix[at + 1] as number) * (query[j + 1] as number);
      sum += (matrix[at + 2] as number) * (query[j + 2] as number);
      sum += (matrix[at + 3] as number) * (query[j + 3] as number);
    }
    for (; j < dimensions; j++) sum += (matrix[offset + j] as number) * (query[j] as number);
    out[row] = sum;
  }
}

/**
 * The k every selector keeps when told none: the selectors' `topK`, the named table's and the
 * proxy's `k`, the CLI's `--k`. Written here once; fitted with the hybrid (docs/benchmarks.md).
 *
 * @example
 * new Bm25Selector({ topK: DEFAULT_K })
 */
export const DEFAULT_K = 8;

/**
 * Indices of the `k` highest scores, best first. Ties keep registry order (the lower index
 * wins), so equal scores select deterministically. NaN scores never rank. Runs in one pass
 * with a small sorted buffer: O(n) for the usual small k, no sort of the whole corpus.
 *
 * @example
 * topK([0.1, 0.9, 0.5, 0.9], 2) // [1, 3]
 * topK(new Float32Array([0.3, 0.2]), 8) // [0, 1]
 */
export function topK(scores: ArrayLike<number>, k: number): number[] {
  const want = Math.min(Math.max(0, Math.floor(k)), scores.length);
  if (want === 0) return [];
  const best: number[] = []; // indices, best first
  const bestScores: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const score = scores[i] as number;
    if (Number.isNaN(score)) continue;
    // Strictly greater: an equal score arriving later (higher index) loses the tie.
    if (best.length === want && !(score > (bestScores[want - 1] as number))) continue;
    let at = best.length === want ? want - 1 : best.length;
    while (at > 0 && score > (bestScores[at - 1] as number)) {
      best[at] = best[at - 1] as number;
      bestScores[at] = bestScores[at - 1] as number;
      at--;
    }
    best[at] = i;
    bestScores[at] = score;
  }
  return best;
}

/**
 * The one rule for `topK` on every ranked selector: a positive integer. A k of 0 is refused at
 * configuration time rather than read as "advertise nothing" (return `[]` for that).
 *
 * @example
 * assertTopK(8) // ok
 * assertTopK(0) // RangeError: topK must be a positive integer, got 0
 */
export function assertTopK(k: number): void {
  if (!(Number.isInteger(k) && k > 0)) throw new RangeError(`topK must be a positive integer, got ${k}`);
}

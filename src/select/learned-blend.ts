import type { ToolSchema } from '../registry/schema.js';

/**
 * Re-weighing the hybrid's dense/lexical blend on the registry's own learned examples: some
 * registries are named the way their users talk (lexical evidence is strong), others are
 * not. Loaded with the first selection that has enough examples to judge.
 */

/** Fewest learned examples before the blend is re-weighed (fewer cannot tell blends apart). */
export const BLEND_MIN_EXAMPLES = 50;

/** Examples scored at most (evenly spaced): each one ranks the whole registry once. */
export const BLEND_CHECK_EXAMPLES = 256;

/**
 * The dense weights tried: the configured one and steps of 0.1 and 0.2 either side, within
 * 0.1..1 (the configured one first).
 *
 * @example
 * blendCandidates(0.7) // [0.7, 0.5, 0.6, 0.8, 0.9]
 */
export function blendCandidates(base: number): number[] {
  const steps = [-0.2, -0.1, 0.1, 0.2].map((step) => Math.round((base + step) * 100) / 100).filter((weight) => weight >= 0.1 && weight <= 1);
  return [base, ...steps];
}

/**
 * Which candidate to use, given `hits[c][e]` (1 when example e's tools all made the top k with
 * candidate c). Candidate 0 (the configured blend) stays unless another beats it by more than
 * its paired noise (the square root of the examples that changed either way); of those, the
 * largest gain wins.
 *
 * @example
 * pickBlend([Uint8Array.of(1, 0, 0, 1), Uint8Array.of(1, 1, 1, 1)]) // 1
 */
export function pickBlend(hits: readonly Uint8Array[]): number {
  const base = hits[0];
  if (!base) return 0;
  let best = 0;
  let bestGain = 0;
  for (let c = 1; c < hits.length; c++) {
    const row = hits[c] as Uint8Array;
    let gain = 0;
    let changed = 0;
    for (let e = 0; e < base.length; e++) {
      const change = (row[e] as number) - (base[e] as number);
      gain += change;
      changed += Math.abs(change);
    }
    if (gain > Math.sqrt(changed) && gain > bestGain) {
      best = c;
      bestGain = gain;
    }
  }
  return best;
}

/**
 * The dense weight for a registry, judged on its learned examples: each example is ranked at
 * every candidate weight (`rank` returns the picked tool indices) and {@link pickBlend} decides.
 * `base` when there are fewer than {@link BLEND_MIN_EXAMPLES} examples.
 *
 * @example
 * const weight = chooseDenseWeight(await dense.learnedRankings(all, 256), all, 0.7, rank)
 */
export function chooseDenseWeight(
  examples: readonly { query: string; tools: readonly string[]; scores: Float32Array }[],
  all: readonly ToolSchema[],
  base: number,
  rank: (query: string, scores: Float32Array, denseWeight: number) => readonly number[],
): number {
  if (examples.length < BLEND_MIN_EXAMPLES) return base;
  const position = new Map(all.map((tool, i) => [tool.name, i]));
  const candidates = blendCandidates(base);
  const hits = candidates.map(() => new Uint8Array(examples.length));
  examples.forEach(({ query, tools, scores }, e) => {
    const expected = tools.map((name) => position.get(name) ?? -1);
    candidates.forEach((candidate, c) => {
      const picked = new Set(rank(query, scores, candidate));
      (hits[c] as Uint8Array)[e] = expected.every((i) => picked.has(i)) ? 1 : 0;
    });
  });
  return candidates[pickBlend(hits)] as number;
}

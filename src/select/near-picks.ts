/**
 * Near picks: in a request of several parts ("find the Lisbon flights and book the cheapest",
 * "close ticket 4415 and tell #support-leads") the tool for one part often ranks just past k,
 * a hair below the k-th pick, because the whole prompt's wording leans to another part. A
 * one-part prompt rarely needs more than its best k, but a several-part one needs a tool per
 * part, so the links budget the prerequisites left unspent is spent on the tools the ranking
 * cannot tell from its k-th: those whose score is within a small share of the top score below
 * the k-th's. The most a turn advertises stays k + the links budget, as before; only the
 * budget's unspent share goes. No word table and no clause rule: only the ranking's own scores
 * and the count of parts the clause splitter already read.
 */

/** How far below the k-th pick a near pick may score (docs/tuning-whole-task.md). */
export const NEAR_DEFAULTS = {
  /** A near pick scores at least the k-th pick's score less this share of the top score. */
  margin: 0.03,
} as const;

/**
 * The near picks of a selection: tools not yet advertised (`taken`) whose fused score is within
 * `margin` × the top score below the k-th pick's, best first, at most one per part after the
 * first and at most `room` (the links budget left). A prompt of fewer than two parts, or with
 * no positive top score, has none. One pass over the scores, so the work is linear in the registry.
 *
 * @example
 * // picks 0 and 1 (k = 2) of a two-part prompt; tool 2 is within 0.03 × 0.9 of the k-th
 * nearPicks(Float64Array.of(0.9, 0.6, 0.58, 0.3), [0, 1], new Set([0, 1]), 2, 1) // [2]
 * nearPicks(Float64Array.of(0.9, 0.6, 0.58, 0.3), [0, 1], new Set([0, 1]), 1, 1) // [] (one part)
 * nearPicks(Float64Array.of(0.9, 0.6, 0.58, 0.3), [0, 1], new Set([0, 1]), 2, 0) // [] (no budget left)
 */
export function nearPicks(
  fused: ArrayLike<number>,
  order: readonly number[],
  taken: ReadonlySet<number>,
  parts: number,
  room: number,
  options: { margin?: number } = {},
): number[] {
  const margin = options.margin ?? NEAR_DEFAULTS.margin;
  const most = Math.min(room, parts - 1);
  if (most < 1 || order.length === 0) return [];
  const top = fused[order[0] as number] as number;
  const kth = fused[order[order.length - 1] as number] as number;
  if (!(top > 0)) return [];
  const floor = kth - margin * top;
  const near: number[] = [];
  for (let i = 0; i < fused.length; i++)
    if (!taken.has(i) && (fused[i] as number) >= floor && (fused[i] as number) > 0) near.push(i);
  return near.sort((a, b) => (fused[b] as number) - (fused[a] as number) || a - b).slice(0, most);
}

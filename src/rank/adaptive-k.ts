/**
 * Adaptive k: keep as many ranked tools as the scores justify. A fixed k advertises eight
 * tools whether the query clearly wants one or plausibly wants twelve; cutting where the
 * scores fall off spends fewer schema tokens on clear queries and keeps recall on vague ones.
 */

/** Options for {@link adaptiveCut}. */
export interface AdaptiveCutOptions {
  /** Never keep fewer than this (bias toward recall). */
  readonly floor: number;
  /** Never keep more than this. */
  readonly ceiling: number;
  /**
   * Keep scores at least `relative × top` (e.g. 0.8). Only applies when the top score is
   * positive: a ratio of negative cosines means nothing.
   */
  readonly relative?: number;
  /**
   * Cut after the largest drop between neighbours, when that drop is at least this big (an
   * absolute score difference). With neither `relative` nor `gap`, the largest drop is used
   * whatever its size.
   */
  readonly gap?: number;
  /**
   * Keep scores at least `top − span × (top − score at the ceiling)`: a threshold set by the
   * query's own spread among its candidates, so it behaves alike whatever the score scale or
   * registry size (e.g. 0.8). Whichever of `relative`, `gap` and `span` cuts first wins.
   */
  readonly span?: number;
}

/**
 * How many of `sortedScores` (best first) to keep: the earliest fall-off between `floor` and
 * `ceiling`. With both `relative` and `gap` set, whichever cuts first wins. NaN ends the list.
 * The result is clamped to the list length, and `floor` wins over a smaller `ceiling`.
 *
 * @example
 * adaptiveCut([0.9, 0.88, 0.4, 0.35], { floor: 1, ceiling: 4, relative: 0.8 }) // 2
 * adaptiveCut([0.9, 0.7, 0.68, 0.2], { floor: 1, ceiling: 4, gap: 0.1 }) // 3
 * adaptiveCut([0.9, 0.89, 0.88], { floor: 2, ceiling: 3, relative: 0.99 }) // 2
 */
export function adaptiveCut(sortedScores: ArrayLike<number>, options: AdaptiveCutOptions): number {
  let length = 0;
  while (length < sortedScores.length && !Number.isNaN(sortedScores[length] as number)) length++;
  const floor = Math.min(length, Math.max(0, Math.floor(options.floor)));
  const ceiling = Math.min(length, Math.max(floor, Math.floor(options.ceiling)));
  if (ceiling <= floor) return floor;

  const top = sortedScores[0] as number;
  let cut = ceiling;

  if (options.relative !== undefined && top > 0) {
    const threshold = top * options.relative;
    for (let i = floor; i < ceiling; i++) {
      if ((sortedScores[i] as number) < threshold) {
        cut = Math.min(cut, i);
        break;
      }
    }
  }

  if (options.span !== undefined) {
    const threshold = top - options.span * (top - (sortedScores[ceiling - 1] as number));
    for (let i = floor; i < ceiling; i++) {
      if ((sortedScores[i] as number) < threshold) {
        cut = Math.min(cut, i);
        break;
      }
    }
  }

  const useGap = options.gap !== undefined || (options.relative === undefined && options.span === undefined);
  if (useGap) {
    // A cut at i keeps items 0..i-1; the drop it cuts at is score[i-1] - score[i].
    let bestAt = -1;
    let bestDrop = -Infinity;
    for (let i = Math.max(floor, 1); i < ceiling; i++) {
      const drop = (sortedScores[i - 1] as number) - (sortedScores[i] as number);
      if (drop > bestDrop) {
        bestDrop = drop;
        bestAt = i;
      }
    }
    if (bestAt >= 0 && bestDrop > 0 && bestDrop >= (options.gap ?? 0)) cut = Math.min(cut, bestAt);
  }

  return Math.max(floor, cut);
}

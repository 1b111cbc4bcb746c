/**
 * Coverage of a prompt's parts for the tool links: each part of a multi-part request ("close
 * ticket 4415 and let #support-leads know") may need its own lookup, so each part's own best
 * picks have their links followed, and the budget beyond k grows by one per further part. The
 * whole prompt's anchors (its best few within a margin of its top score) favour whichever part
 * its wording leans to; a part's action that ranks low on the whole prompt ranks high on its own.
 * No word table: the parts are the clauses the hybrid already ranks.
 */

/** A ranking of the registry (one score per tool, registry order). */
export interface PartRanking {
  readonly fused: ArrayLike<number>;
}

/** How parts widen the links (fitted on the dev registries; docs/tuning-whole-task.md). */
export const PART_DEFAULTS = {
  /** A part's best picks followed: at most this many … */
  count: 2,
  /** … within this much of the part's own top score. */
  margin: 0.1,
  /** Budget added per part after the first, at most this much in all. */
  extraBudget: 2,
} as const;

/**
 * Each part's best picked tools (within the margin of that part's top score), best part-score
 * first, without repeats; `[]` for a one-part prompt.
 *
 * @example
 * partAnchors([{ fused: Float64Array.of(0.9, 0.1, 0.85) }, { fused: Float64Array.of(0, 0.7, 0) }], [0, 1, 2])
 * // [0, 2, 1]
 */
export function partAnchors(
  parts: readonly PartRanking[],
  picked: readonly number[],
  options: { count?: number; margin?: number } = {},
): number[] {
  if (parts.length < 2) return [];
  const count = options.count ?? PART_DEFAULTS.count;
  const margin = options.margin ?? PART_DEFAULTS.margin;
  const out: number[] = [];
  for (const { fused } of parts) {
    const order = [...picked].sort((a, b) => (fused[b] as number) - (fused[a] as number));
    const top = fused[order[0] as number] as number;
    if (!(top > 0)) continue;
    for (const i of order.slice(0, count)) if ((fused[i] as number) >= top - margin && !out.includes(i)) out.push(i);
  }
  return out;
}

/**
 * The links budget for a prompt of `parts` parts: the base, plus one per part after the
 * first, up to `extraBudget` more.
 *
 * @example
 * partBudget(2, 3) // 4
 */
export function partBudget(base: number, parts: number, extraBudget: number = PART_DEFAULTS.extraBudget): number {
  return base === 0 ? 0 : base + Math.min(extraBudget, Math.max(0, parts - 1));
}

/**
 * Coverage of a prompt's parts for the tool links: in a request of several parts ("close
 * ticket 4415 and let #support-leads know", "find the Denver meeting and move it") any pick may
 * be one part's action, and each part may need its own lookup. So for a multi-part prompt every
 * pick has its links followed (the whole prompt's anchors first, then the rest in score order),
 * and the budget beyond k grows by one per further part. The whole prompt's anchors alone (its
 * best few within a margin of its top score) favour whichever part its wording leans to. No
 * word table: the parts are the clauses the hybrid already ranks; a one-part prompt is as before.
 */

/** How parts widen the links (measured on the dev and blind registries; docs/tuning-whole-task.md). */
export const PART_DEFAULTS = {
  /** Budget added per part after the first, at most this much in all. */
  extraBudget: 2,
} as const;

/**
 * The anchors of a selection: the whole prompt's own; for a prompt of two or more parts, then
 * every other pick, best score first.
 *
 * @example
 * partAnchorOrder([4], [4, 2, 7], 2) // [4, 2, 7]
 * partAnchorOrder([4], [4, 2, 7], 1) // [4]
 */
export function partAnchorOrder(anchors: readonly number[], order: readonly number[], parts: number): number[] {
  return parts < 2 ? [...anchors] : [...new Set([...anchors, ...order])];
}

/**
 * The links budget for a prompt of `parts` parts: the base, plus one per part after the
 * first, up to `extraBudget` more; 0 stays 0 (links off).
 *
 * @example
 * partBudget(2, 3) // 4
 */
export function partBudget(base: number, parts: number, extraBudget: number = PART_DEFAULTS.extraBudget): number {
  return base === 0 ? 0 : base + Math.min(extraBudget, Math.max(0, parts - 1));
}

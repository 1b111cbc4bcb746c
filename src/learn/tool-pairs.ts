/**
 * Tools used together, learned from examples: when prompts that called `search_inbox` also
 * called `reply_to_email`, a selection that holds one lifts the other. Each pair's confidence
 * is `count(a and b) / (count(a) + prior)`, and a pair seen fewer than `minCount` times counts
 * for nothing, so a handful of examples cannot invent a habit.
 */

/** How learned pairs lift partners. */
export interface PairOptions {
  /** Lift of a partner at confidence 1, on the ranking's 0..1 scale. 0 turns pairs off. */
  weight?: number;
  /** Examples a pair must appear in before it counts. */
  minCount?: number;
  /** Shrinks confidence with little data: `count(a and b) / (count(a) + prior)`. */
  prior?: number;
}

/** The defaults (dev splits; docs/tuning-whole-task.md). */
export const PAIR_DEFAULTS = { weight: 0.3, minCount: 2, prior: 2 } as const;

/** Each tool's partners with their confidence. */
export type PairTable = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Examples' tools per example: at most this many tools of one example are paired. */
const MAX_TOOLS = 16;

/**
 * The pair table of a set of examples (each a set of tool names).
 *
 * @example
 * pairTable([new Set(['a', 'b']), new Set(['a', 'b']), new Set(['a'])], { minCount: 2, prior: 2 })
 * // Map { a → { b: 0.4 }, b → { a: 0.5 } }
 */
export function pairTable(examples: Iterable<ReadonlySet<string>>, options: PairOptions = {}): PairTable {
  const minCount = options.minCount ?? PAIR_DEFAULTS.minCount;
  const prior = options.prior ?? PAIR_DEFAULTS.prior;
  const single = new Map<string, number>();
  const both = new Map<string, Map<string, number>>();
  for (const tools of examples) {
    const list = [...tools].slice(0, MAX_TOOLS);
    for (const a of list) {
      single.set(a, (single.get(a) ?? 0) + 1);
      for (const b of list) {
        if (a === b) continue;
        const row = both.get(a) ?? new Map<string, number>();
        both.set(a, row);
        row.set(b, (row.get(b) ?? 0) + 1);
      }
    }
  }
  const table = new Map<string, Map<string, number>>();
  for (const [a, row] of both) {
    const n = single.get(a) ?? 0;
    for (const [b, count] of row) {
      if (count < minCount) continue;
      const out = table.get(a) ?? new Map<string, number>();
      table.set(a, out);
      out.set(b, count / (n + prior));
    }
  }
  return table;
}

/**
 * The lift each partner of the anchors gets: `weight × the best confidence over anchors`.
 *
 * @example
 * partnerLifts(table, ['search_inbox'], 0.3) // Map { reply_to_email → 0.12 }
 */
export function partnerLifts(table: PairTable, anchors: readonly string[], weight: number): Map<string, number> {
  const lifts = new Map<string, number>();
  if (!(weight > 0)) return lifts;
  for (const anchor of anchors) {
    for (const [partner, confidence] of table.get(anchor) ?? []) {
      if (anchors.includes(partner)) continue;
      const lift = weight * confidence;
      if (lift > (lifts.get(partner) ?? 0)) lifts.set(partner, lift);
    }
  }
  return lifts;
}

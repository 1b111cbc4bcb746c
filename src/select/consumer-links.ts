/**
 * Links followed the other way: a pick that finds something ("search flights", "find the
 * file", `calendar.searchEvents`) is often the first half of a request whose second half acts on
 * what it found ("…and book the cheapest", "…and open it"). The tool that takes the finder's
 * handle is the finder's consumer; when the prompt's own ranking already puts it near the top
 * (within a margin of the top score) but outside the picks, it joins the advertised tools from
 * whatever budget the prerequisites left. No word table: the links are the registry's inferred
 * ones (schema handles and the providers that return them), read backwards.
 */

import type { ToolLinks } from './link-types.js';

/** How consumers are followed (chosen on the dev registries; docs/tuning-whole-task.md). */
export const CONSUMER_DEFAULTS = {
  /** A consumer joins only within this much of the prompt's top score. */
  margin: 0.3,
} as const;

// The links read backwards (provider → the tools needing it), once per links object: a
// catalogue's links are fixed for its registry list, and a turn must not walk them all.
const reversed = new WeakMap<ToolLinks, ReadonlyMap<number, readonly number[]>>();

function consumersOf(links: ToolLinks): ReadonlyMap<number, readonly number[]> {
  let consumers = reversed.get(links);
  if (consumers) return consumers;
  const map = new Map<number, number[]>();
  for (const [tool, needs] of links.needs)
    for (const { providers } of needs)
      for (const provider of providers) {
        const list = map.get(provider) ?? [];
        if (!list.includes(tool)) list.push(tool);
        map.set(provider, list);
      }
  consumers = map;
  reversed.set(links, consumers);
  return consumers;
}

/**
 * The consumers to add: for each anchor in turn, its best-scored consumer that `surface` lacks
 * and that scores within `margin` of `top`, while `room` lasts.
 *
 * @example
 * // search_flights (0) is picked; book_flight (1) needs its flight_id and scores 0.55 (top 0.7)
 * consumersFor(links, { anchors: [0], surface: new Set([0]), score, top: 0.7, room: 1 }) // [1]
 */
export function consumersFor(
  links: ToolLinks,
  turn: {
    anchors: readonly number[];
    surface: ReadonlySet<number>;
    score: ArrayLike<number>;
    top: number;
    room: number;
    margin?: number;
  },
): number[] {
  const { anchors, surface, score, top, room } = turn;
  const margin = turn.margin ?? CONSUMER_DEFAULTS.margin;
  const out: number[] = [];
  if (room <= 0) return out;
  const consumers = consumersOf(links);
  const taken = new Set(surface);
  for (const anchor of anchors) {
    let best = -1;
    for (const tool of consumers.get(anchor) ?? []) {
      if (taken.has(tool) || (score[tool] as number) < top - margin) continue;
      if (best < 0 || (score[tool] as number) > (score[best] as number)) best = tool;
    }
    if (best < 0) continue;
    taken.add(best);
    out.push(best);
    if (out.length >= room) break;
  }
  return out;
}

/**
 * A selection's prerequisites: for each anchor pick, the providers of its required handles,
 * within a budget, taking turns so every anchor's first lookup comes before any
 * anchor's second; a provider's own prerequisites follow, to a fixed depth.
 */
import { LINK_DEFAULTS } from './link-defaults.js';
import type { ToolLinks } from './link-types.js';

/** What {@link prerequisitesFor} adds to a selection. */
export interface Prerequisites {
  /** Registry indices to advertise beyond the picks, in the order they were added. */
  readonly extra: readonly number[];
  /** For each prerequisite (in the picks or added), the tools that need it. */
  readonly neededBy: ReadonlyMap<number, readonly string[]>;
  /** Which of `extra` are an intent's own best tool (`intents`), not a prerequisite. */
  readonly intents: ReadonlySet<number>;
  /** Which of `extra` are near picks (`src/select/near-picks.ts`), not a prerequisite. */
  readonly near?: ReadonlySet<number>;
}

/**
 * The prerequisites of a selection: for each anchor (best first), each link of a required input
 * is served by a provider already picked, or else by its best provider (by link evidence) while
 * the budget lasts; a provider's own
 * prerequisites follow, to {@link LINK_DEFAULTS.depth}. The tools take turns, one slot of the
 * budget each, so a second anchor's lookup is not crowded out by the first anchor's second
 * input. Each tool is visited once, so cycles cost nothing.
 *
 * @example
 * const { extra, neededBy } = prerequisitesFor(links, { picked, anchors: picked.slice(0, 3), budget: 2 })
 * // extra: registry indices to advertise beyond the picks; neededBy: index → names of the tools needing it
 */
export function prerequisitesFor(
  links: ToolLinks,
  options: {
    picked: readonly number[];
    anchors: readonly number[];
    budget: number;
    /** Tools that must be advertised (each clause's best): added first, from the same budget, and anchors too. */
    intents?: readonly number[];
  },
): Prerequisites {
  const { picked, budget } = options;
  const surface = new Set(picked);
  const extra: number[] = [];
  const neededBy = new Map<number, string[]>();
  const intents = new Set<number>();
  for (const intent of options.intents ?? []) {
    if (surface.has(intent) || extra.length >= budget) continue;
    extra.push(intent);
    intents.add(intent);
    surface.add(intent);
  }
  const anchors = [...options.anchors, ...(options.intents ?? [])];
  if (links.needs.size === 0) return { extra, neededBy, intents };
  const visited = new Set<number>();
  // Each queued tool with the position of its next input to serve.
  const queue: { tool: number; depth: number; next: number }[] = [];
  for (const anchor of anchors) {
    if (visited.has(anchor)) continue;
    visited.add(anchor);
    queue.push({ tool: anchor, depth: 0, next: 0 });
  }
  const note = (provider: number, consumer: string) => {
    const list = neededBy.get(provider) ?? [];
    if (!list.includes(consumer)) list.push(consumer);
    neededBy.set(provider, list);
  };
  // In turns: each queued tool serves its inputs up to the first that costs a slot of the budget,
  // then the next tool has its turn, so every anchor's first lookup comes before any anchor's second.
  for (let more = true; more; ) {
    more = false;
    for (let head = 0; head < queue.length; head++) {
      const entry = queue[head] as { tool: number; depth: number; next: number };
      const needs = links.needs.get(entry.tool) ?? [];
      while (entry.next < needs.length) {
        const link = needs[entry.next++] as (typeof needs)[number];
        // An optional input is left to the model: only a required handle needs its finder.
        if (link.input?.optional === true) continue;
        let chosen = link.providers.find((provider) => surface.has(provider));
        let spent = false;
        if (chosen === undefined) {
          if (extra.length >= budget) continue;
          // The strongest evidence; the prompt's own score for a provider was measured to add
          // nothing on the blind registries (docs/tuning-whole-task.md).
          let best = -Infinity;
          link.providers.forEach((provider, i) => {
            if ((link.strength[i] as number) > best) {
              best = link.strength[i] as number;
              chosen = provider;
            }
          });
          if (chosen === undefined) continue;
          extra.push(chosen);
          surface.add(chosen);
          spent = true;
        }
        note(chosen, link.link.tool);
        if (entry.depth + 1 < LINK_DEFAULTS.depth && !visited.has(chosen)) {
          visited.add(chosen);
          queue.push({ tool: chosen, depth: entry.depth + 1, next: 0 });
        }
        if (spent) {
          more = true;
          break;
        }
      }
    }
  }
  return { extra, neededBy, intents };
}

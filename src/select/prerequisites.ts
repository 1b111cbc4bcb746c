/**
 * A selection's prerequisites: for each anchor pick, the providers of the inputs the prompt
 * does not give, within a budget, taking turns so every anchor's first lookup comes before any
 * anchor's second; a provider's own prerequisites follow, to a fixed depth.
 */
import { englishLoaded } from '../text/english.js';
import type { LoadedLexicon } from '../text/lexicon.js';
import { rawWords } from '../text/words.js';
import type { HandleInput } from './handle-inputs.js';
import { LINK_DEFAULTS } from './link-defaults.js';
import type { ToolLinks } from './link-types.js';
import { linkWords } from './link-words.js';
import { mentionedIn, namesPerson, suppliedIn } from './prompt-handles.js';

/** What {@link prerequisitesFor} adds to a selection. */
export interface Prerequisites {
  /** Registry indices to advertise beyond the picks, in the order they were added. */
  readonly extra: readonly number[];
  /** For each prerequisite (in the picks or added), the tools that need it. */
  readonly neededBy: ReadonlyMap<number, readonly string[]>;
  /** Which of `extra` are an intent's own best tool (`intents`), not a prerequisite. */
  readonly intents: ReadonlySet<number>;
}

/**
 * The prerequisites of a selection: for each anchor (best first), each link whose input the
 * prompt does not supply is served by a provider already picked, or else by its best provider
 * (link evidence plus the prompt's own score for it) while the budget lasts; a provider's own
 * prerequisites follow, to {@link LINK_DEFAULTS.depth}. The tools take turns, one slot of the
 * budget each, so a second anchor's lookup is not crowded out by the first anchor's second
 * input. Each tool is visited once, so cycles cost nothing.
 *
 * @example
 * const { extra, neededBy } = prerequisitesFor(links, { picked, anchors: picked.slice(0, 3), score, prompt, budget: 2 })
 * // extra: registry indices to advertise beyond the picks; neededBy: index → names of the tools needing it
 */
export function prerequisitesFor(
  links: ToolLinks,
  options: {
    picked: readonly number[];
    anchors: readonly number[];
    score: ArrayLike<number>;
    prompt: string;
    budget: number;
    /** Tools that must be advertised (each clause's best): added first, from the same budget, and anchors too. */
    intents?: readonly number[];
    promptWeight?: number;
    /** The lexicon the prompt is read with (English by default). */
    lexicon?: LoadedLexicon;
    /**
     * `false` when the lexicon does not cover the prompt: its rules are skipped, so a required
     * input counts as not given and an optional one as not named.
     */
    promptRules?: boolean;
  },
): Prerequisites {
  const { picked, score, prompt, budget } = options;
  const promptWeight = options.promptWeight ?? 1;
  const lexicon = options.lexicon ?? englishLoaded;
  const rules = options.promptRules !== false;
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
  let stemmed: string[] | undefined;
  const promptWords = () => {
    stemmed ??= rawWords(prompt.slice(0, 4000)).map(lexicon.stem);
    return stemmed;
  };
  let named: boolean | undefined;
  const person = () => {
    named ??= namesPerson(prompt, lexicon);
    return named;
  };
  const words = linkWords(lexicon);
  // Whether the prompt itself serves an input: it gives the handle, or the input is optional and
  // the prompt does not name what it is about. Without the lexicon's rules only the latter holds.
  const served = (input: HandleInput): boolean =>
    rules
      ? suppliedIn(prompt, input, lexicon) ||
        (input.optional === true && !mentionedIn(promptWords(), input, person, words))
      : input.optional === true;
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
        if (link.input && served(link.input)) continue;
        let chosen = link.providers.find((provider) => surface.has(provider));
        let spent = false;
        if (chosen === undefined) {
          if (extra.length >= budget) continue;
          let best = -Infinity;
          link.providers.forEach((provider, i) => {
            const value = (link.strength[i] as number) + promptWeight * ((score[provider] as number) || 0);
            if (value > best) {
              best = value;
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

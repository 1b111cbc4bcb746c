/**
 * Provider candidates: for each handle input, the few tools that could produce it, found over
 * the registry's shared inverted index (name words, description words) rather than by scoring
 * every tool: tools the input's description names, and finders holding a word of its entity.
 */
import type { ToolSchema } from '../registry/schema.js';
import type { HandleInput } from './handle-inputs.js';
import { buildIndex } from './lexical-index.js';
import { descriptionOf, identifierWords } from './link-words.js';
import { entityPostings } from './prefix-postings.js';
import type { Found, ToolWords } from './provider-evidence.js';
import { toolProperties } from './tool-properties.js';

/** The candidates of one input, each with how it was found. */
export interface InputCandidates {
  readonly candidates: ReadonlySet<number>;
  /** How candidate `i` was found (for its evidence). */
  found(candidate: number): Found;
}

/** Candidates of every input of one registry list. */
export type CandidateFinder = (consumer: number, n: number, input: HandleInput) => InputCandidates;

/**
 * The candidate finder of a registry list: its indexes are built once, then each input's
 * candidates cost a few lookups.
 *
 * @example
 * const candidatesOf = providerCandidates(all, words, position)
 * candidatesOf(consumer, 0, words[consumer].inputs[0]).candidates // Set { 3, 7 }
 */
export function providerCandidates(
  all: readonly ToolSchema[],
  words: readonly ToolWords[],
  position: ReadonlyMap<string, number>,
): CandidateFinder {
  const byName = buildIndex(words.map((tool) => tool.name));
  const entityHolders = holdersByEntity(words, byName, buildIndex(words.map((tool) => [...tool.description])));
  // Per tool and input (in `inputs` order), the tools its description names; read once here.
  const pointedBy = words.map((tool, consumer) => {
    const props = toolProperties(all[consumer] as ToolSchema) ?? {};
    return tool.inputs.map((input) => pointedAt(descriptionOf(props[input.parameter]), consumer, position));
  });
  return (consumer, n, input) => {
    const exact = pointedBy[consumer]?.[n] ?? new Set<number>();
    const candidates = new Set<number>(exact);
    const { inName, inDescription } = entityHolders(input.entity);
    for (const i of inName) candidates.add(i);
    for (const i of inDescription) candidates.add(i);
    candidates.delete(consumer);
    return {
      candidates,
      found: (candidate) => ({
        exact: exact.has(candidate),
        entityInName: inName.has(candidate),
        entityInDescription: inDescription.has(candidate),
      }),
    };
  };
}

// Only tools that could produce a handle are candidates through their entity words: a name
// that finds. (A tool an input's description names reaches the others.)
function holdersByEntity(
  words: readonly ToolWords[],
  byName: ReturnType<typeof buildIndex>,
  byDescription: ReturnType<typeof buildIndex>,
): (entity: readonly string[]) => { inName: Set<number>; inDescription: Set<number> } {
  const capable = words.map((tool) => tool.finder > 0);
  const inNames = entityPostings(byName);
  const inDescriptions = entityPostings(byDescription);
  const memo = new Map<string, { inName: Set<number>; inDescription: Set<number> }>();
  return (entity) => {
    const key = entity.join(' ');
    let found = memo.get(key);
    if (!found) {
      found = { inName: new Set<number>(), inDescription: new Set<number>() };
      for (const word of entity) {
        for (const i of inNames(word)) if (capable[i]) found.inName.add(i);
        for (const i of inDescriptions(word)) if (capable[i]) found.inDescription.add(i);
      }
      memo.set(key, found);
    }
    return found;
  };
}

// The tools a parameter's description names outright ("Mailbox message ID from search_email").
function pointedAt(text: string, consumer: number, position: ReadonlyMap<string, number>): Set<number> {
  const out = new Set<number>();
  for (const token of text.match(/[A-Za-z][\w.-]*/g) ?? []) {
    const name = token.replace(/[.]+$/, '');
    // Only a name that cannot be a plain word ("list_deployments", "getUser"): a tool called "add" is not meant by "to add".
    const at = position.get(name);
    if (at !== undefined && at !== consumer && identifierWords(name).length >= 2) out.add(at);
  }
  return out;
}

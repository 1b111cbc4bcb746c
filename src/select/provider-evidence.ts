/**
 * Provider evidence: how strongly a tool's name and description say it produces an input
 * ("search_tasks" finds the task a `task_id` needs), as a sum of named weights
 * (`LINK_DEFAULTS.evidence`).
 */
import type { ToolSchema } from '../registry/schema.js';
import { type HandleInput, handleInputs } from './handle-inputs.js';
import { LINK_DEFAULTS } from './link-defaults.js';
import { headWords, identifierWords, isEntityWord, type LinkWords, sameEntity } from './link-words.js';

/** What links read of one tool, once per registry list. */
export interface ToolWords {
  /** Name words, stemmed. */
  readonly name: readonly string[];
  /** The name's object: its last entity word, stemmed (`get_user_tickets` → ticket). */
  readonly object: string | undefined;
  /** The weight of a name that finds what exists (search, list…), else 0. */
  readonly finder: number;
  /** Name words written in the plural, stemmed: a tool about many of them lists them. */
  readonly plural: ReadonlySet<string>;
  readonly description: ReadonlySet<string>;
  readonly inputs: readonly HandleInput[];
}

/**
 * What links read of one tool: its name words, object, whether it finds, its description words
 * and its own handle inputs.
 *
 * @example
 * toolWords(tool, linkWords()).finder // 0.4 for search_tasks
 */
export function toolWords(tool: ToolSchema, words: LinkWords): ToolWords {
  const { stem } = words;
  const rawName = identifierWords(typeof tool?.name === 'string' ? tool.name : '');
  const name = rawName.map(stem);
  const entities = rawName.filter((word) => isEntityWord(word, words));
  const raw = headWords(tool?.description);
  const inputs = handleInputs(tool, words.lexicon);
  return {
    name,
    object: entities.length > 0 ? stem(entities[entities.length - 1] as string) : undefined,
    finder: name.some((word) => words.finders.has(word)) ? LINK_DEFAULTS.evidence.finds : 0,
    plural: new Set(entities.filter((word) => stem(word) !== word && word.endsWith(words.plural)).map(stem)),
    description: new Set(raw.map(stem)),
    inputs,
  };
}

/** How a candidate was found for an input. */
export interface Found {
  /** The input's own description names it. */
  readonly exact: boolean;
  readonly entityInName: boolean;
  readonly entityInDescription: boolean;
}

/**
 * The lexical evidence that `provider` produces `input` (0 when it plainly does not): the
 * named weights of `LINK_DEFAULTS.evidence` for each piece found.
 *
 * @example
 * providerEvidence(input, toolWords(searchTasks, words), { exact: false, entityInName: true, entityInDescription: false })
 */
export function providerEvidence(input: HandleInput, provider: ToolWords, found: Found): number {
  const { exact, entityInName, entityInDescription } = found;
  const mine = (word: string) => input.entity.some((entity) => sameEntity(word, entity));
  // About the entity, and able to produce it: named outright, or a finder holding the entity.
  if (!exact && !(provider.finder > 0 && (entityInName || entityInDescription))) return 0;
  const entityIsObject = provider.object !== undefined && mine(provider.object);
  let lists = false;
  for (const word of provider.plural) if (mine(word)) lists = true;
  const weight = LINK_DEFAULTS.evidence;
  return (
    (exact ? weight.named : 0) +
    (entityIsObject ? weight.object : entityInName ? weight.inName : 0) +
    (lists ? weight.lists : 0) +
    provider.finder +
    (entityInDescription ? weight.inDescription : 0)
  );
}

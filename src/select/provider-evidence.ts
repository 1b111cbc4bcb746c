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
  /** The weight of a name that finds (search, list…) or fetches (get, view…), else 0. */
  readonly finder: number;
  /** Name words written in the plural, stemmed: a tool about many of them lists them. */
  readonly plural: ReadonlySet<string>;
  readonly description: ReadonlySet<string>;
  readonly mentionsHandle: boolean;
  /** Description words next to a handle word ("task IDs", "its email_id"), stemmed. */
  readonly handleNeighbours: ReadonlySet<string>;
  readonly inputs: readonly HandleInput[];
}

/**
 * What links read of one tool: its name words, object, whether it finds, the handles its
 * description names, and its own handle inputs.
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
  // A handle the description names only as one of the tool's own inputs ("can reserve a room by
  // its room ID") is something it takes, not something it returns.
  const own = new Set(inputs.flatMap((input) => input.entity));
  const { handleNeighbours, mentionsHandle } = describedHandles(tool, raw, own, words);
  const { finds, fetches } = LINK_DEFAULTS.evidence;
  return {
    name,
    object: entities.length > 0 ? stem(entities[entities.length - 1] as string) : undefined,
    finder: name.some((word) => words.finders.has(word))
      ? finds
      : name.some((word) => words.fetchers.has(word))
        ? fetches
        : 0,
    plural: new Set(entities.filter((word) => stem(word) !== word && word.endsWith(words.plural)).map(stem)),
    description: new Set(raw.map(stem)),
    mentionsHandle,
    handleNeighbours,
    inputs,
  };
}

// The handles a description names, and whether it names any it does not take itself.
function describedHandles(
  tool: ToolSchema,
  raw: readonly string[],
  own: ReadonlySet<string>,
  words: LinkWords,
): { handleNeighbours: Set<string>; mentionsHandle: boolean } {
  const { stem } = words;
  const handleNeighbours = new Set<string>();
  let mentionsHandle = false;
  raw.forEach((word, i) => {
    if (!words.handles.has(word)) return;
    // "task IDs", "IDs of the tasks" (not "contact ID, email and phone": the email is no handle there).
    const neighbours: string[] = [];
    const before = raw[i - 1];
    if (before && isEntityWord(before, words)) neighbours.push(stem(before));
    let j = i + 1;
    if (words.handleOf.has(raw[j] as string)) {
      j++;
      while (j < raw.length && j <= i + 4 && words.glue.has(raw[j] as string)) j++;
      const after = raw[j];
      if (after && isEntityWord(after, words)) neighbours.push(stem(after));
    }
    const produced = neighbours.filter((entity) => !own.has(entity));
    if (neighbours.length > 0 && produced.length === 0) return;
    mentionsHandle = true;
    for (const entity of produced) handleNeighbours.add(entity);
  });
  // A literal parameter name in the description ("each with its email_id") names the handle too.
  const text = typeof tool?.description === 'string' ? tool.description.slice(0, 4000) : '';
  for (const match of text.matchAll(words.parameterName)) {
    const word = (match[1] as string).toLowerCase();
    if (isEntityWord(word, words) && !own.has(stem(word))) handleNeighbours.add(stem(word));
  }
  return { handleNeighbours, mentionsHandle };
}

/**
 * Words in a parameter description that point at the tool producing it: "obtained from the
 * authenticate method" → authent.
 *
 * @example
 * hintsOf('Token obtained from the authenticate method', linkWords()) // ['authenticat']
 */
export function hintsOf(text: string, words: LinkWords): string[] {
  const hints: string[] = [];
  for (const match of text.matchAll(words.hint)) {
    const word = (match[1] as string).toLowerCase();
    for (const part of identifierWords(word))
      if (part.length >= 3 && !words.stopwords.has(part) && !words.generic.has(part)) hints.push(words.stem(part));
  }
  return hints;
}

/** How a candidate was found for an input. */
export interface Found {
  /** The input's own description names it. */
  readonly exact: boolean;
  /** A sibling's description names it. */
  readonly sibling?: boolean;
  /** Words the input's description points with. */
  readonly hints: readonly string[];
  readonly entityInName: boolean;
  readonly entityInDescription: boolean;
}

/**
 * The lexical evidence that `provider` produces `input` (0 when it plainly does not): the
 * named weights of `LINK_DEFAULTS.evidence` for each piece found.
 *
 * @example
 * providerEvidence(input, toolWords(searchTasks, words), { exact: false, hints: [], entityInName: true, entityInDescription: false }, words)
 */
export function providerEvidence(input: HandleInput, provider: ToolWords, found: Found, words: LinkWords): number {
  const { exact, hints, entityInName, entityInDescription } = found;
  // Named by a sibling's description: nearly as good as being named by this one's.
  const sibling = !exact && found.sibling === true;
  const mine = (word: string) => input.entity.some((entity) => sameEntity(word, entity));
  // The cheap tests first: most tools of a big registry neither find things nor mention handles.
  const hinted = hints.length > 0 && hints.some((hint) => provider.name.includes(hint));
  const finder = provider.finder;
  let handleInName = entityInName && provider.name.includes(words.id);
  for (const word of input.handle)
    if (!words.bare.has(word) && provider.name.includes(words.stem(word))) handleInName = true;
  const handleInDescription =
    provider.mentionsHandle &&
    ([...words.bare].some((word) => provider.description.has(word)) ||
      input.handle.some((word) => provider.description.has(words.stem(word))));
  let namesHandle = false;
  for (const word of provider.handleNeighbours) if (mine(word)) namesHandle = true;
  const about = exact || sibling || hinted || entityInName || entityInDescription || handleInName;
  const produces = exact || sibling || hinted || finder > 0 || handleInDescription || handleInName || namesHandle;
  if (!about || !produces) return 0;
  // A tool that itself needs a handle of the same entity cannot be where one comes from.
  if (!exact && !sibling && provider.inputs.some((other) => !other.optional && other.entity.some(mine))) return 0;
  const entityIsObject = provider.object !== undefined && mine(provider.object);
  let lists = false;
  for (const word of provider.plural) if (mine(word)) lists = true;
  const weight = LINK_DEFAULTS.evidence;
  // Summed in this order (floating point): the same order as ever.
  return (
    (exact ? weight.named : sibling ? weight.sibling : 0) +
    (hinted ? weight.hinted : 0) +
    (entityIsObject ? weight.object : entityInName ? weight.inName : 0) +
    (lists ? weight.lists : 0) +
    (handleInName ? weight.handleInName : 0) +
    finder +
    (entityInDescription ? weight.inDescription : 0) +
    (namesHandle ? weight.namesHandle : handleInDescription ? weight.mentionsHandle : 0)
  );
}

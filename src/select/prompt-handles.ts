/**
 * What a prompt says of a handle input: whether it gives the handle itself ("task 4821",
 * "incident INC-2041", a ticker), and whether it names what an optional one is about (the
 * Website project, a person's name). Read with the lexicon's handle and filler words.
 */
import { englishLoaded } from '../text/english.js';
import type { LoadedLexicon } from '../text/lexicon.js';
import type { HandleInput } from './handle-inputs.js';
import { type LinkWords, linkWords, sameEntity } from './link-words.js';

// A literal that looks like a handle: INC-2041, d-7781, doc_8812, USR001, 4821, 7f3a9c, a UUID.
const HANDLE_LITERAL = /^(?:#?\d{2,}|[A-Za-z]{1,8}[-_]?\d[\w-]*|\d[\w-]*[A-Za-z][\w-]*|[0-9a-f]{8}-[0-9a-f-]{27,})$/;
// An upper-case word of two to five letters: a market symbol.
const TICKER = /(?:^|[\s"'($])[A-Z]{2,5}(?=$|[\s"'),.;:!?'])/;
// A first and last name, as the Latin script writes them.
const CAPITALISED_PAIR = /\b([A-Z][a-z]+)\s+([A-Z][a-z]+)\b/g;

/**
 * Whether a prompt gives the input itself: a handle-like literal right after the entity's
 * word or an id word ("task 4821", "incident INC-2041", "id is 'USR002'", "#921"), or an
 * upper-case ticker-like word where the handle is a ticker or symbol. A time, date or amount
 * ("the task at 3pm") is not a handle.
 *
 * @example
 * suppliedIn('Mark task 4821 as done', { parameter: 'task_id', entity: ['task'], handle: ['id'], words: ['task'], mentions: ['task'] }) // true
 * suppliedIn("Reassign Dana's tasks to Luis", { parameter: 'task_id', entity: ['task'], handle: ['id'], words: ['task'], mentions: ['task'] }) // false
 */
export function suppliedIn(prompt: string, input: HandleInput, lexicon: LoadedLexicon = englishLoaded): boolean {
  const text = typeof prompt === 'string' ? prompt.slice(0, 4000) : '';
  if (text === '') return false;
  const words = linkWords(lexicon);
  if (input.handle.some((word) => words.tickers.includes(word)) && TICKER.test(text)) return true;
  if (/(?:^|\s)#\d+\b/.test(text)) return true;
  const tokens = text.split(/\s+/).map((word) => word.replace(/^["'([]+|["'),.;:!?\]]+$/g, ''));
  for (let i = 0; i < tokens.length; i++) {
    const word = (tokens[i] as string).toLowerCase();
    const anchor =
      words.handles.has(word) ||
      words.numbers.has(word) ||
      input.entity.some((entity) => sameEntity(words.stem(word), entity));
    if (!anchor) continue;
    let j = i + 1;
    while (j < tokens.length && j <= i + 3 && words.filler.has((tokens[j] as string).toLowerCase())) j++;
    const next = tokens[j];
    if (next && HANDLE_LITERAL.test(next) && !words.notHandle.test(next)) return true;
  }
  return false;
}

/**
 * Whether a prompt names a person: a first and last name ("Lena Hoffmann"), as people write them.
 *
 * @example
 * namesPerson('Assign it to Lena Hoffmann') // true
 * namesPerson('Thanks Monday') // false
 */
export function namesPerson(prompt: string, lexicon: LoadedLexicon = englishLoaded): boolean {
  const { notNames } = linkWords(lexicon);
  for (const match of prompt.slice(0, 4000).matchAll(CAPITALISED_PAIR))
    if (!notNames.has((match[1] as string).toLowerCase()) && !notNames.has((match[2] as string).toLowerCase()))
      return true;
  return false;
}

/**
 * Whether the prompt (its stemmed words) names what an optional handle is about ("… in the
 * Website project" for `project_id`; a person's name for `employee_id`).
 *
 * @example
 * mentionedIn(['websit', 'project'], projectInput, () => false, linkWords()) // true
 */
export function mentionedIn(
  words: readonly string[],
  input: HandleInput,
  person: () => boolean,
  lexicon: LinkWords,
): boolean {
  if (input.entity.some((entity) => lexicon.people.has(entity)) && person()) return true;
  const about = [...input.entity, ...input.mentions.map(lexicon.stem)];
  // "assign" names an `assignee_id`: a prompt word may be the start of the parameter's word.
  return words.some((word) =>
    about.some((entity) => sameEntity(word, entity) || (word.length >= 4 && entity.startsWith(word))),
  );
}
